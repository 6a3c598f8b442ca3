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

int fileio_write_file(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	int rc = fileio_write_all(fd, p, n);
	if (close(fd) < 0 && !rc)
		rc = -errno;
	return rc;
}
