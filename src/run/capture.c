/*
 * capture.c: head + tail-ring output capture (see capture.h).
 *
 * A run that prints 1 GiB costs one memcpy per byte into a fixed ring and
 * nothing else: no allocation after the first overflow, no scanning.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "run/capture.h"
#include "util/xalloc.h"
#include "util/banned.h"

void capture_init(struct capture *c, size_t head_cap, size_t tail_cap)
{
	memset(c, 0, sizeof(*c));
	c->head_cap = head_cap;
	c->tail_cap = tail_cap;
}

void capture_append(struct capture *c, const char *data, size_t len)
{
	c->total += len;
	if (c->head_len < c->head_cap) {
		if (!c->head)
			c->head = xmalloc(c->head_cap);
		size_t n = c->head_cap - c->head_len;
		if (n > len)
			n = len;
		memcpy(c->head + c->head_len, data, n);
		c->head_len += n;
		data += n;
		len -= n;
	}
	if (!len || !c->tail_cap)
		return;
	if (!c->tail)
		c->tail = xmalloc(c->tail_cap);
	if (len >= c->tail_cap) {
		/* Only the last tail_cap bytes of this chunk can survive. */
		memcpy(c->tail, data + len - c->tail_cap, c->tail_cap);
		c->tail_pos = 0;
		c->tail_len = c->tail_cap;
		return;
	}
	size_t first = c->tail_cap - c->tail_pos;
	if (first > len)
		first = len;
	memcpy(c->tail + c->tail_pos, data, first);
	memcpy(c->tail, data + first, len - first);
	c->tail_pos = (c->tail_pos + len) % c->tail_cap;
	c->tail_len = c->tail_len + len > c->tail_cap ? c->tail_cap : c->tail_len + len;
}

uint64_t capture_dropped(const struct capture *c)
{
	return c->total - c->head_len - c->tail_len;
}

void capture_text(const struct capture *c, struct dbuf *out)
{
	if (c->head_len)
		dbuf_add(out, c->head, c->head_len);
	uint64_t dropped = capture_dropped(c);
	if (dropped)
		dbuf_addf(out, "%s[jostle: %" PRIu64 " bytes of output dropped here]\n",
			  out->len && out->buf[out->len - 1] != '\n' ? "\n" : "", dropped);
	if (c->tail_len) {
		/* The oldest byte is at tail_pos when the ring is full, else at 0. */
		size_t start = c->tail_len == c->tail_cap ? c->tail_pos : 0;
		size_t first = c->tail_cap - start;
		if (first > c->tail_len)
			first = c->tail_len;
		dbuf_add(out, c->tail + start, first);
		dbuf_add(out, c->tail, c->tail_len - first);
	}
}

void capture_release(struct capture *c)
{
	free(c->head);
	free(c->tail);
	memset(c, 0, sizeof(*c));
}
