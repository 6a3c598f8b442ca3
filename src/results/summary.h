/*
 * summary.h: the end-of-series text for a person on stderr: totals by
 * outcome, then the per-signature table with rates, or the bound a clean
 * series proves.
 *
 * It is computed from the aggregate of the results directory (results.h)
 * that every report is computed from, so the counts, the rates (ignored
 * runs left out of every denominator) and the bound are the reports'.
 */
#ifndef JOSTLE_SUMMARY_H
#define JOSTLE_SUMMARY_H

#include <stdio.h>

#include "results/results.h"

/* The table lists at most this many signatures, the first to fail; the
 * failures of any further signature are counted on one line. */
#define SUMMARY_MAX_SIGS 1000

/* r after results_finish(); out_dir is where its runs.jsonl was read. */
void summary_print(const struct results *r, FILE *f, const char *out_dir,
		   double elapsed_s, const char *stop_reason);

#endif
