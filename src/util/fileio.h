/*
 * fileio.h: whole writes, retried on EINTR and short writes. One place for
 * the loop that records, logs, stacks files and reports all need.
 */
#ifndef JOSTLE_FILEIO_H
#define JOSTLE_FILEIO_H

#include <stddef.h>

/* Write all n bytes of p to fd. 0, or -errno (what was written stays). */
__attribute__((warn_unused_result))
int fileio_write_all(int fd, const void *p, size_t n);

/* Create or truncate path (mode 0644) and write p to it. 0, or -errno. */
__attribute__((warn_unused_result))
int fileio_write_file(const char *path, const void *p, size_t n);

#endif
