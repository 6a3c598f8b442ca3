/*
 * summary.h: the running totals of a series, updated as each run is
 * recorded: counts by outcome, and one entry per failure signature (count,
 * first and last run, example log). Memory grows with the number of
 * distinct signatures only (capped), never with the number of runs.
 */
#ifndef JOSTLE_SUMMARY_H
#define JOSTLE_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "dbuf.h"
#include "series.h"

#define SUMMARY_MAX_SIGS 1000

struct sig_stat {
	char id[9];
	char kind[32];
	char *key;        /* owned */
	char *key_line;   /* owned */
	char *log;        /* owned: example log, relative to the results dir */
	uint64_t count;
	uint64_t first, last;
};

struct summary {
	uint64_t runs;                 /* recorded runs */
	uint64_t by_outcome[OUT__COUNT];
	struct sig_stat *sigs;         /* owned, sorted by count at the end */
	size_t nsigs, alloc;
	uint64_t other_sigs;           /* failures past SUMMARY_MAX_SIGS distinct ids */
	double wall_sum;
	int64_t first_pass_logged;     /* run index of the logged passing run, or -1 */
};

void summary_init(struct summary *s);
/* Count a classified run; log is its log path relative to DIR (or NULL). */
void summary_add(struct summary *s, const struct run *r, const char *log);
uint64_t summary_failures(const struct summary *s);
/* Order signatures by count, most common first. */
void summary_sort(struct summary *s);
/* The end-of-series text for a person. */
void summary_print(const struct summary *s, FILE *f, const char *out_dir,
		   double elapsed_s, const char *stop_reason);
/* DIR/summary.json contents. */
void summary_json(const struct summary *s, struct dbuf *b, const char *series_id,
		  double elapsed_s, const char *stop_reason, bool interrupted);
void summary_release(struct summary *s);

#endif
