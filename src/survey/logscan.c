/*
 * logscan.c: block reading of plain and gzip logs, folder walking (see
 * logscan.h).
 *
 * Plain files are read with read(2) into one reused buffer; the bytes after
 * the last '\n' of a block are moved to the front and completed by the next
 * read, so callers only ever see whole lines and nothing is allocated per
 * line. gzip files (magic 1f 8b) go through zlib's gzread into the same
 * buffer. mmap would save one copy, but read() into a buffer that stays in
 * cache measured as fast and keeps one code path for both kinds.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "survey/logscan.h"
#include "util/strvec.h"
#include "util/xalloc.h"
#include "util/banned.h"

void logscan_init(struct logscan *ls)
{
	ls->buf = xmalloc(LOGSCAN_BLOCK + 1);
	ls->err[0] = '\0';
}

void logscan_release(struct logscan *ls)
{
	free(ls->buf);
	ls->buf = NULL;
}

/* Reads up to n bytes; returns bytes, 0 at the end, -errno or -EILSEQ. */
struct source {
	int fd;
	gzFile gz;
};

static ssize_t source_read(struct logscan *ls, struct source *src, char *p, size_t n)
{
	if (src->gz) {
		int got = gzread(src->gz, p, (unsigned)n);
		if (got < 0) {
			int zerr;
			const char *msg = gzerror(src->gz, &zerr);
			if (zerr == Z_ERRNO)
				return -(errno ? errno : EIO);
			snprintf(ls->err, sizeof(ls->err), "corrupt gzip data (%s)", msg);
			return -EILSEQ;
		}
		if (got == 0 && !gzeof(src->gz))
			return -EIO;
		return got;
	}
	for (;;) {
		ssize_t got = read(src->fd, p, n);
		if (got >= 0)
			return got;
		if (errno != EINTR)
			return -errno;
	}
}

int logscan_file(struct logscan *ls, const char *path, logscan_fn fn, void *ctx,
		 struct logscan_info *info)
{
	struct stat st;
	struct source src = { .fd = -1, .gz = NULL };
	unsigned char magic[2];
	int rc = 0;

	ls->err[0] = '\0';
	memset(info, 0, sizeof(*info));
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	info->mtime = (int64_t)st.st_mtim.tv_sec;
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	ssize_t m = pread(fd, magic, 2, 0);
	if (m == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
		src.gz = gzdopen(fd, "rb");
		if (!src.gz) {
			close(fd);
			return -ENOMEM;
		}
		gzbuffer(src.gz, 1u << 20);
		info->gzip = true;
	} else {
		src.fd = fd;
	}

	size_t have = 0;   /* carried bytes at the front of buf */
	bool first = true;
	for (;;) {
		ssize_t got = source_read(ls, &src, ls->buf + have, LOGSCAN_BLOCK - have);
		if (got < 0) {
			rc = (int)got;
			break;
		}
		info->bytes += (uint64_t)got;
		size_t len = have + (size_t)got;
		if (got == 0) {
			if (len && fn(ctx, ls->buf, len, first))
				info->stopped = true;
			break;
		}
		/* Hand over everything up to the last newline; carry the rest. */
		const char *nl = memrchr(ls->buf, '\n', len);
		size_t upto = nl ? (size_t)(nl - ls->buf) + 1 : 0;
		if (upto == 0 && len < LOGSCAN_BLOCK) {
			have = len;
			continue;
		}
		if (upto == 0)
			upto = len; /* a line longer than the block: cut it */
		if (fn(ctx, ls->buf, upto, first)) {
			info->stopped = true;
			break;
		}
		first = false;
		have = len - upto;
		memmove(ls->buf, ls->buf + upto, have);
	}
	if (src.gz) {
		/* gzread leaves a truncated stream's error for gzclose to report. */
		int zc = gzclose(src.gz);
		if (!rc && zc != Z_OK && zc != Z_BUF_ERROR)
			rc = -EIO;
		if (!rc && zc == Z_BUF_ERROR) {
			snprintf(ls->err, sizeof(ls->err), "truncated gzip data");
			rc = -EILSEQ;
		}
	} else {
		close(fd);
	}
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk_dir(const char *dir, logscan_walk_fn file_fn, logscan_err_fn err_fn, void *ctx,
		     int depth)
{
	DIR *d = opendir(dir);
	if (!d) {
		err_fn(ctx, dir, -errno);
		return;
	}
	struct strvec names = STRVEC_INIT;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			strvec_push(&names, e->d_name);
	closedir(d);
	if (names.nr)
		qsort(names.v, names.nr, sizeof(char *), cmp_str);
	for (size_t i = 0; i < names.nr; i++) {
		char *p = xasprintf("%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", names.v[i]);
		struct stat lst, st;
		if (lstat(p, &lst) < 0) {
			err_fn(ctx, p, -errno);
		} else if (S_ISDIR(lst.st_mode)) {
			if (depth < 64)
				walk_dir(p, file_fn, err_fn, ctx, depth + 1);
			else
				err_fn(ctx, p, -ELOOP);
		} else if (S_ISLNK(lst.st_mode)) {
			if (stat(p, &st) < 0)
				err_fn(ctx, p, -errno);
			else if (S_ISREG(st.st_mode))
				file_fn(ctx, p);
			/* a link to a folder is not descended */
		} else if (S_ISREG(lst.st_mode)) {
			file_fn(ctx, p);
		} else {
			err_fn(ctx, p, -EINVAL);
		}
		free(p);
	}
	strvec_release(&names);
}

void logscan_walk(const char *path, logscan_walk_fn file_fn, logscan_err_fn err_fn, void *ctx)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		err_fn(ctx, path, -errno);
		return;
	}
	if (S_ISDIR(st.st_mode))
		walk_dir(path, file_fn, err_fn, ctx, 0);
	else
		file_fn(ctx, path);
}
