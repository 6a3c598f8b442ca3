/*
 * fileio.h: whole writes, retried on EINTR and short writes, and whole
 * reads into a dbuf. One place for the loops that records, logs, stacks
 * files and reports all need.
 */
#ifndef JOSTLE_FILEIO_H
#define JOSTLE_FILEIO_H

#include <stddef.h>

#include "util/dbuf.h"

/* Write all n bytes of p to fd. 0, or -errno (what was written stays). */
__attribute__((warn_unused_result))
int fileio_write_all(int fd, const void *p, size_t n);

/* Create or truncate path (mode 0644) and write p to it. 0, or -errno. */
__attribute__((warn_unused_result))
int fileio_write_file(const char *path, const void *p, size_t n);

/* Create path (mode 0644) or append to it. 0, or -errno. */
__attribute__((warn_unused_result))
int fileio_append_file(const char *path, const void *p, size_t n);

/* Append what fd holds, to its end, to b (at most b's cap: the rest is
 * left unread). 0, or -errno of a failed read. */
int fileio_read_fd(int fd, struct dbuf *b);

/* The same for the file at path. 0, or -errno. */
int fileio_read_file(const char *path, struct dbuf *b);

#endif
