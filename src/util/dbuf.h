/*
 * dbuf.h: a growable byte buffer with a hard cap (after curl's dynbuf).
 * Appends past the cap fail with -ENOSPC and leave the buffer unchanged, so
 * nothing built from untrusted input can grow without bound.
 *
 *   struct dbuf b; dbuf_init(&b, 1 << 20);
 *   dbuf_addf(&b, "%d", 3); ... dbuf_release(&b);
 *
 * The contents are always NUL-terminated (b.buf may be NULL while empty).
 */
#ifndef JOSTLE_DBUF_H
#define JOSTLE_DBUF_H

#include <stddef.h>

struct dbuf {
	char *buf;      /* owned */
	size_t len;
	size_t alloc;
	size_t cap;     /* most bytes this buffer may hold */
};

void dbuf_init(struct dbuf *b, size_t cap);
int dbuf_add(struct dbuf *b, const void *data, size_t len);
int dbuf_adds(struct dbuf *b, const char *s);
__attribute__((format(printf, 2, 3))) int dbuf_addf(struct dbuf *b, const char *fmt, ...);
int dbuf_addc(struct dbuf *b, char c);
void dbuf_reset(struct dbuf *b);
/* Drop everything after the first len bytes (len <= b->len). */
void dbuf_truncate(struct dbuf *b, size_t len);
/* Hand the buffer to the caller (always non-NULL) and reset b. */
char *dbuf_detach(struct dbuf *b, size_t *len);
const char *dbuf_str(const struct dbuf *b); /* "" while empty */
void dbuf_release(struct dbuf *b);

#endif
