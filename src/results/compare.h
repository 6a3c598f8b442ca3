/*
 * compare.h: before/after comparison of two sets of results, the proof
 * that a fix works (or that it does not, yet).
 *
 * compare_counts() is the pure decision for one pair of counts: a two-sided
 * Fisher exact test and one plain sentence. compare_results() applies it to
 * the totals and to every signature, and renders the table as text.
 *
 * Verdicts that make `jostle compare` exit 0: COMPARE_FIXED (after clean,
 * significantly fewer failures), COMPARE_BETTER (significantly fewer), and
 * COMPARE_CLEAN (no failure before or after). Everything else exits 1.
 */
#ifndef JOSTLE_COMPARE_H
#define JOSTLE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "results/results.h"
#include "util/dbuf.h"

enum compare_verdict {
	COMPARE_FIXED,       /* significant drop to zero */
	COMPARE_BETTER,      /* significant drop */
	COMPARE_CLEAN,       /* no failure on either side */
	COMPARE_WORSE,       /* significant rise */
	COMPARE_NOT_ENOUGH,  /* a drop, not significant yet: more runs would tell */
	COMPARE_NO_CHANGE,   /* no evidence either way */
	COMPARE_NO_RUNS,     /* one side has no runs */
};

struct compare_result {
	enum compare_verdict verdict;
	double p;              /* two-sided Fisher exact */
	uint64_t more_runs;    /* for COMPARE_NOT_ENOUGH: runs after to add (0: unknown) */
	char sentence[320];    /* "fixed: 0/600 after vs 37/600 before (p = 8e-12)" */
};

/* k1 of n1 failed before, k2 of n2 after. */
void compare_counts(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2,
		    struct compare_result *out);
bool compare_verdict_ok(enum compare_verdict v);
const char *compare_verdict_name(enum compare_verdict v);

/* The whole comparison as text (totals, then each signature seen on
 * either side); returns the verdict on the totals. */
enum compare_verdict compare_results(const struct results *before, const struct results *after,
				     struct dbuf *out);

#endif
