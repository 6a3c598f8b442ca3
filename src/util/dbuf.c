/*
 * dbuf.c: capped growable buffers (see dbuf.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/dbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

void dbuf_init(struct dbuf *b, size_t cap)
{
	b->buf = NULL;
	b->len = b->alloc = 0;
	b->cap = cap;
}

static int dbuf_reserve(struct dbuf *b, size_t more)
{
	if (more > b->cap || b->len > b->cap - more)
		return -ENOSPC;
	size_t need = b->len + more + 1;
	if (need <= b->alloc)
		return 0;
	size_t n = b->alloc ? b->alloc : 64;
	while (n < need)
		n *= 2;
	if (n > b->cap + 1)
		n = b->cap + 1;
	b->buf = xrealloc(b->buf, n);
	b->alloc = n;
	return 0;
}

int dbuf_add(struct dbuf *b, const void *data, size_t len)
{
	int rc = dbuf_reserve(b, len);
	if (rc)
		return rc;
	if (len)
		memcpy(b->buf + b->len, data, len);
	b->len += len;
	b->buf[b->len] = '\0';
	return 0;
}

int dbuf_adds(struct dbuf *b, const char *s)
{
	return dbuf_add(b, s, strlen(s));
}

int dbuf_addc(struct dbuf *b, char c)
{
	return dbuf_add(b, &c, 1);
}

int dbuf_addf(struct dbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	int rc = dbuf_reserve(b, (size_t)n);
	if (rc)
		return rc;
	va_start(ap, fmt);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void dbuf_truncate(struct dbuf *b, size_t len)
{
	if (len < b->len) {
		b->len = len;
		b->buf[len] = '\0';
	}
}

void dbuf_reset(struct dbuf *b)
{
	b->len = 0;
	if (b->buf)
		b->buf[0] = '\0';
}

char *dbuf_detach(struct dbuf *b, size_t *len)
{
	char *p = b->buf ? b->buf : xstrdup("");
	if (len)
		*len = b->len;
	b->buf = NULL;
	b->len = b->alloc = 0;
	return p;
}

const char *dbuf_str(const struct dbuf *b)
{
	return b->buf ? b->buf : "";
}

void dbuf_release(struct dbuf *b)
{
	free(b->buf);
	b->buf = NULL;
	b->len = b->alloc = 0;
}
