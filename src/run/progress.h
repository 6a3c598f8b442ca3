/*
 * progress.h: the progress line while a series runs. On a terminal one
 * line redrawn in place (at most 5 times a second); otherwise a plain line
 * every 5 seconds; nothing with -q. Written to stderr.
 */
#ifndef JOSTLE_PROGRESS_H
#define JOSTLE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "run/series.h"

struct progress {
	bool enabled, tty, drawn;
	int64_t start, next;      /* monotonic ns; next == 0: never */
	int64_t interval;
	uint64_t total;           /* planned runs, 0 if open-ended */
	int64_t budget;           /* time budget, 0 if none */
	uint64_t done, by_outcome[OUT__COUNT];
};

void progress_init(struct progress *p, const struct run_opts *o, int64_t now);
void progress_count(struct progress *p, enum outcome o);
/* When the next redraw is due (0: never). */
int64_t progress_next(const struct progress *p);
void progress_tick(struct progress *p, int64_t now, uint64_t started, unsigned active);
/* Clear the redrawn line before the summary. */
void progress_done(struct progress *p);

#endif
