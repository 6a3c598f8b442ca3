/*
 * progress.c: the progress line (see progress.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "run/progress.h"
#include "util/clock.h"
#include "util/banned.h"

void progress_init(struct progress *p, const struct run_opts *o, int64_t now)
{
	memset(p, 0, sizeof(*p));
	p->enabled = !o->quiet;
	p->tty = isatty(2);
	p->interval = p->tty ? 200 * NS_PER_MS : 5 * NS_PER_S;
	p->start = now;
	p->next = p->enabled ? now + p->interval : 0;
	p->total = o->runs;
	p->budget = o->time_ns;
}

void progress_count(struct progress *p, enum outcome o)
{
	p->done++;
	p->by_outcome[o]++;
}

int64_t progress_next(const struct progress *p)
{
	return p->next;
}

static void fmt_eta(char *buf, size_t len, double s)
{
	if (s < 0)
		snprintf(buf, len, "?");
	else if (s < 120)
		snprintf(buf, len, "%.0fs", s);
	else if (s < 7200)
		snprintf(buf, len, "%.0fm", s / 60);
	else
		snprintf(buf, len, "%.1fh", s / 3600);
}

void progress_tick(struct progress *p, int64_t now, uint64_t started, unsigned active)
{
	if (!p->enabled || now < p->next)
		return;
	p->next = now + p->interval;
	double el = (double)(now - p->start) / 1e9;
	double rate = el > 0 ? (double)p->done / el : 0;
	char done[64], eta[16] = "";
	if (p->total) {
		snprintf(done, sizeof(done), "%" PRIu64 "/%" PRIu64 " runs", p->done, p->total);
		if (rate > 0)
			fmt_eta(eta, sizeof(eta), (double)(p->total - p->done) / rate);
	} else if (p->budget) {
		snprintf(done, sizeof(done), "%" PRIu64 " runs, %.0f/%.0fs", p->done, el,
			 (double)p->budget / 1e9);
		fmt_eta(eta, sizeof(eta), (double)p->budget / 1e9 - el);
	} else {
		snprintf(done, sizeof(done), "%" PRIu64 " runs, %.0fs", p->done, el);
	}
	/* runs in no rate, when there are any: a slow or skipped run is no pass */
	char slow[64] = "";
	if (p->by_outcome[OUT_SLOW] && p->by_outcome[OUT_SKIP])
		snprintf(slow, sizeof(slow), "%" PRIu64 " slow %" PRIu64 " skipped",
			 p->by_outcome[OUT_SLOW], p->by_outcome[OUT_SKIP]);
	else if (p->by_outcome[OUT_SLOW])
		snprintf(slow, sizeof(slow), "%" PRIu64 " slow", p->by_outcome[OUT_SLOW]);
	else if (p->by_outcome[OUT_SKIP])
		snprintf(slow, sizeof(slow), "%" PRIu64 " skipped", p->by_outcome[OUT_SKIP]);
	fprintf(stderr, "%sjostle: %s | %" PRIu64 " fail %" PRIu64 " crash %" PRIu64
		" hang %" PRIu64 " ignored%s%s | %.1f runs/s | %u running%s%s%s",
		p->tty ? "\r\033[K" : "", done, p->by_outcome[OUT_FAIL],
		p->by_outcome[OUT_CRASH], p->by_outcome[OUT_HANG], p->by_outcome[OUT_IGNORED],
		slow[0] ? " " : "", slow, rate, active, *eta ? " | ETA " : "", eta, p->tty ? "" : "\n");
	(void)started;
	p->drawn = true;
	fflush(stderr);
}

void progress_done(struct progress *p)
{
	if (p->enabled && p->tty && p->drawn)
		fputs("\r\033[K", stderr);
}
