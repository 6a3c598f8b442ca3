/*
 * fuzz.h: what the libFuzzer targets in tests/fuzz/ share (tests/fuzz/README.md).
 *
 * Each target is one file, fuzz_NAME.c, that defines LLVMFuzzerTestOneInput
 * and feeds the input to one family of parsers of untrusted input. Parsers
 * that take a C string get a NUL-terminated copy (fuzz_cstr); those that
 * read a file get it through fuzz_file(), a file in a private folder that
 * is reused for every input and removed at exit.
 *
 * A target must be deterministic and must not leak across inputs: every
 * allocation it makes is freed before it returns, so LeakSanitizer's report
 * at the end of a run names a real leak of the code under test.
 */
#ifndef JOSTLE_FUZZ_H
#define JOSTLE_FUZZ_H

#include <fcntl.h>
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of data (caller frees). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

static int fuzz_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);   /* best effort: what stays is removed at exit or next time */
	return 0;
}

/* Remove PATH and everything below it (no error when it is not there). */
static inline void fuzz_rm_tree(const char *path)
{
	nftw(path, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char fuzz_dir_path[256];

static void fuzz_dir_remove(void)
{
	fuzz_rm_tree(fuzz_dir_path);
}

/* The target's private folder (made on first use, removed at exit). */
static inline const char *fuzz_dir(void)
{
	if (!fuzz_dir_path[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(fuzz_dir_path, sizeof(fuzz_dir_path), "%s/jostle-fuzz.XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(fuzz_dir_path))
			abort();
		atexit(fuzz_dir_remove);
	}
	return fuzz_dir_path;
}

/* Write data to the file NAME in the private folder; its path (static). */
static inline const char *fuzz_file(const char *name, const void *data, size_t size)
{
	static char path[512];
	snprintf(path, sizeof(path), "%s/%s", fuzz_dir(), name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		abort();
	const char *p = data;
	for (size_t off = 0; off < size;) {
		ssize_t w = write(fd, p + off, size - off);
		if (w <= 0)
			abort();
		off += (size_t)w;
	}
	close(fd);
	return path;
}

/* Split data at its first NUL byte: the head as a C string (caller frees),
 * the rest in *rest / *rest_size (empty when there is no NUL). */
static inline char *fuzz_split(const uint8_t *data, size_t size, const uint8_t **rest,
			       size_t *rest_size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t n = nul ? (size_t)(nul - data) : size;
	*rest = nul ? nul + 1 : data + size;
	*rest_size = nul ? size - n - 1 : 0;
	return fuzz_cstr(data, n);
}

#endif
