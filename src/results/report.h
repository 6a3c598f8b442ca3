/*
 * report.h: the report formats and what they share.
 *
 * Every report is computed from runs.jsonl alone (struct results), so it
 * works the same on a live series, an old one and a merge of many. Each
 * format is one `const struct report_format` record in report_formats[]
 * (text, md, html, junit, json); a writer appends the whole document to a
 * dbuf and returns 0 or -errno.
 *
 * At the end of `jostle run` and `jostle merge`, report_write_results()
 * writes DIR/summary.json, DIR/report.md and DIR/report.html (each through
 * a temporary file and rename, so a reader never sees half a report).
 */
#ifndef JOSTLE_REPORT_H
#define JOSTLE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "results/results.h"
#include "util/dbuf.h"

/* What a `slow` run is, in every report's legend: past the timeout, and
 * what jostle did (or exit cleanup) explains it (docs/timeouts.md). */
#define REPORT_SLOW_WHY "past the timeout by chaos, load or exit cleanup"

struct report_format {
	const char *name;        /* as given to --format */
	const char *file;        /* default file name in DIR */
	const char *what;        /* one line for --help */
	int (*write)(struct dbuf *out, const struct results *r);
};

extern const struct report_format report_formats[];
extern const size_t report_formats_nr;

const struct report_format *report_format_find(const char *name);

/* Write fmt's document for r to path (atomically). 0 or -errno. */
int report_write_file(const struct results *r, const struct report_format *fmt,
		      const char *path);
/* Write summary.json, and with md_html report.md and report.html, for r
 * into DIR. 0 or -errno (the first error; the other files are still tried). */
int report_write_results(const struct results *r, const char *dir, bool md_html);
/* The same for the results read from DIR/runs.jsonl. */
int report_write_dir(const char *dir, bool md_html);
/* The matrix cells' table of r (as in the text report) to f; nothing without cells. */
void report_print_matrix(FILE *f, const struct results *r);
/* The matrix section of the text report (cells and chaos arms). */
void report_text_matrix(struct dbuf *out, const struct results *r);
/* Its matrix cells alone. */
void report_text_cells(struct dbuf *out, const struct results *r);
/* The closing per-arm table of a series with chaos configurations: runs,
 * failures, slow and cut runs apart, the rate over counted runs, failures
 * per minute of the arm's time; "CPUs via" only when some run's CPUs were
 * restricted. Nothing without arms. */
void report_text_arms(struct dbuf *out, const struct results *r);
/* The per-test section of the text report and the closing summary
 * (--tests): flaky tests with their rates, always-failing tests apart, and
 * with `variance` the tests whose time varies most. At most max rows per
 * table. Nothing without per-test results. */
void report_text_tests(struct dbuf *out, const struct results *r, size_t max, bool variance);

/* The per-test section's selection, the same in every format: which tests
 * each of its tables shows, in which order: the flaky ones and the
 * always-failing ones in r->test_order, and the nvaries at most with the
 * largest time deviation (sd > 0, at least 2 timed runs; none for nvaries
 * 0), largest first. Every array is owned by the struct (each
 * r->tests_nr + 1 long); report_tests_release frees them. */
struct report_tests {
	size_t *flaky, *always, *varies;
	size_t nflaky, nalways, nvaries;
};
void report_tests_select(struct report_tests *sel, const struct results *r, size_t nvaries);
void report_tests_release(struct report_tests *sel);

/* The writers, one per report_*.c. */
int report_text(struct dbuf *out, const struct results *r);
int report_md(struct dbuf *out, const struct results *r);
int report_html(struct dbuf *out, const struct results *r);
int report_junit(struct dbuf *out, const struct results *r);
int report_json(struct dbuf *out, const struct results *r);

/* ---- shared by the writers (report.c) ---- */

#define REPORT_CAP ((size_t)512 << 20)   /* most bytes a report may have */
#define REPORT_ALPHA 0.05

/* "6.2%", "0.50%", "0.0057%", "0%", "100%" */
void report_pct(char *buf, size_t len, double p);
/* An upper bound: three significant digits, always rounded up, never
 * down ("0.994%" for 0.99363%, "0.499%" for 0.4981%). Every place that
 * prints a proven bound (run's summary, reports, compare) uses this. */
void report_bound(char *buf, size_t len, double p);
/* "p = 0.41", "p = 8e-12", "p < 1e-300" */
void report_pval(char *buf, size_t len, double p);
/* "6.2% (95% CI 4.5%–8.4%)" for k of n, Wilson interval */
void report_rate(char *buf, size_t len, uint64_t k, uint64_t n);
/* The sentence a clean or failing series proves:
 * "0 of 600 runs failed: failure rate < 0.50% with 95% confidence" or
 * "37 of 600 runs failed: failure rate 6.2% (95% CI 4.5%–8.4%)" */
void report_proof(char *buf, size_t len, uint64_t k, uint64_t n);
/* report_proof of the totals, or when no run was counted, why not ("not
 * tested: no run passed or failed (8 slow: ...; 10 cut: ...)"). */
void report_proof_totals(char *buf, size_t len, const struct results_totals *t);
/* The command of series s as a shell would read it (quoted). */
void report_command(struct dbuf *b, const struct results_series *s);
/* "host, 4 CPUs, Linux 6.1.0-18-amd64, load 1.20, 15951 MB" */
void report_machine(struct dbuf *b, const struct results_series *s);
/* The example log of sig (dir-relative path) with a head and tail kept and
 * long lines cut; raw bytes (escape them). false, with a reason in out,
 * when there is none or it cannot be read. */
bool report_read_log(const struct results *r, const struct results_sig *s,
		     bool stacks, struct dbuf *out, size_t head, size_t tail);
/* Short classification from the example's diag JSON into buf: a hang's
 * ("deadlock: threads 4, blocked 4"), returning "hang", or a crash report's
 * ("python-fatal (report of Python)"), returning "crash"; "" and NULL when
 * there is none. */
const char *report_diag_line(char *buf, size_t len, const struct results_sig *s);

/* Matrix cells: rate, interval, two-sided Fisher test of the cell against
 * all other cells together; `differs` when p < alpha / cells (Bonferroni)
 * and the cell fails more often than the rest. */
struct report_cell {
	const struct results_group *g;
	double lo, hi, p;
	bool differs;
	int dir;             /* +1 fails more often than the rest, -1 less, 0 the same */
};
/* "fails more, p = 0.003", "fails less, p = 0.41", "same rate, p = 1": the
 * direction of the difference always beside its p-value. */
void report_vs_rest(char *buf, size_t len, const struct report_cell *c);
/* Fills cells[r->cells_nr] (caller allocates). */
void report_cells(const struct results *r, struct report_cell *cells);
/* The same for any groups (matrix cells, chaos arms): out[n]. */
void report_groups(const struct results_group *g, size_t n, struct report_cell *out);

#endif
