/*
 * fileio.c: whole writes (see fileio.h). A short write is not an error by
 * itself (a pipe, a signal): only write()'s own errors are.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/banned.h"

int fileio_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int write_file(const char *path, int flags, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
	if (fd < 0)
		return -errno;
	int rc = fileio_write_all(fd, p, n);
	if (close(fd) < 0 && !rc)
		rc = -errno;
	return rc;
}

int fileio_write_file(const char *path, const void *p, size_t n)
{
	return write_file(path, O_TRUNC, p, n);
}

int fileio_append_file(const char *path, const void *p, size_t n)
{
	return write_file(path, O_APPEND, p, n);
}

int fileio_read_fd(int fd, struct dbuf *b)
{
	char chunk[65536];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0 || dbuf_add(b, chunk, (size_t)n) < 0)
			return 0;   /* the end, or b's cap */
	}
}

int fileio_read_file(const char *path, struct dbuf *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = fileio_read_fd(fd, b);
	close(fd);
	return rc;
}
