/*
 * capture.h: a bounded capture of one run's output (stdout and stderr
 * interleaved). The first head_cap bytes are kept, then the last tail_cap
 * bytes in a ring; the middle is counted and dropped. Memory is allocated
 * lazily, so a silent run costs nothing, and never exceeds head_cap + tail_cap.
 */
#ifndef JOSTLE_CAPTURE_H
#define JOSTLE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "util/dbuf.h"

struct capture {
	char *head;        /* owned, head_cap bytes once anything was written */
	size_t head_len, head_cap;
	char *tail;        /* owned ring, tail_cap bytes once the head is full */
	size_t tail_pos;   /* next write position in the ring */
	size_t tail_len;   /* bytes held in the ring (<= tail_cap) */
	size_t tail_cap;
	uint64_t total;    /* bytes appended in all */
};

void capture_init(struct capture *c, size_t head_cap, size_t tail_cap);
void capture_append(struct capture *c, const char *data, size_t len);
/* Bytes seen but not kept. */
uint64_t capture_dropped(const struct capture *c);
/* The kept text, in order, into out: head, a one-line marker when bytes were
 * dropped, tail. out's cap must be at least head_cap + tail_cap + 128. */
void capture_text(const struct capture *c, struct dbuf *out);
void capture_release(struct capture *c);

#endif
