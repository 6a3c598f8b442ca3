/*
 * finish.h: the one call by which `jostle run` hands a finished series to
 * reporting. The engine knows nothing of results.h and reporting knows
 * nothing of the engine: what passes between them is the results
 * directory (runs.jsonl, complete with its "end" line) and a few words.
 */
#ifndef JOSTLE_FINISH_H
#define JOSTLE_FINISH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct finish_req {
	const char *dir;          /* results directory (borrowed) */
	bool reports;             /* report.md and report.html too (not --no-report) */
	bool matrix;              /* print the per-cell table (--matrix) */
	double elapsed_s;
	const char *stop_reason;  /* borrowed */
	FILE *summary;            /* where the end-of-series summary goes, or NULL */
	bool read_only;           /* the folder cannot be written (a full disk, removed:
	                             the engine said so): no summary.json, no reports */
};

/*
 * Read DIR/runs.jsonl back, write summary.json (and the reports), print
 * the matrix table and the summary. 0, or -errno with the reason already
 * said on stderr.
 */
int finish_series(const struct finish_req *f);

/*
 * The stop reason of a `--until confident:RATE` series that had no failure:
 * the bound it proved, or why it stopped before (stopped_because). Into buf.
 */
void finish_confident_reason(char *buf, size_t len, double rate, uint64_t clean,
			     const char *stopped_because);

/* The runs --until confident:RATE plans: 0 failures in them bound the rate below RATE. */
uint64_t finish_confident_runs(double rate);

#endif
