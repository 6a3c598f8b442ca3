/*
 * report_text.c: the plain-text report for a terminal (`jostle report DIR`).
 * Short: what ran, where, the proof line, the signatures and the matrix.
 * Program output is repaired (escape_text) so it cannot move the cursor.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/report.h"
#include "results/shards.h"
#include "util/escape.h"
#include "util/xalloc.h"
#include "util/banned.h"

static void add_clean(struct dbuf *out, const char *s, size_t max)
{
	if (!s)
		return;
	size_t len = strlen(s);
	escape_text(out, s, len > max ? max : len);
	if (len > max)
		dbuf_adds(out, "...");
}

int report_text(struct dbuf *out, const struct results *r)
{
	const struct results_totals *t = &r->totals;
	char line[256];
	for (size_t i = 0; i < r->series_nr; i++) {
		const struct results_series *s = &r->series[i];
		struct dbuf b;
		dbuf_init(&b, 1 << 20);
		dbuf_adds(out, "command:  ");
		report_command(&b, s);
		add_clean(out, dbuf_str(&b), 400);
		dbuf_reset(&b);
		dbuf_adds(out, "\nmachine:  ");
		report_machine(&b, s);
		add_clean(out, dbuf_str(&b), 400);
		dbuf_release(&b);
		dbuf_addf(out, "\nseries:   %s started %s, seed %s, %" PRIu64 " runs\n",
			  s->id ? s->id : "?", s->start ? s->start : "?", s->seed ? s->seed : "?",
			  s->runs);
		if (i == 4 && r->series_nr > 5) {
			dbuf_addf(out, "(and %zu more series)\n", r->series_nr - 5);
			break;
		}
	}
	dbuf_addf(out, "runs:     %" PRIu64 " (%" PRIu64 " pass, %" PRIu64 " fail, %" PRIu64
		  " crash, %" PRIu64 " hang; %" PRIu64 " ignored, %" PRIu64 " cut, %" PRIu64 " slow)\n",
		  t->counted, t->pass, t->fail, t->crash, t->hang, t->ignored, t->cut, t->slow);
	if (t->bad_lines) {
		dbuf_addf(out, "skipped:  %" PRIu64 " unreadable lines of runs.jsonl", t->bad_lines);
		if (t->cut_lines)
			dbuf_addf(out, " (%" PRIu64 " cut short at the end)", t->cut_lines);
		dbuf_adds(out, "\n");
	}
	struct dbuf sh;
	dbuf_init(&sh, 1 << 20);
	shards_line(&sh, r);   /* issue 17 */
	if (sh.len)
		dbuf_addf(out, "shards:   %s\n", dbuf_str(&sh));
	dbuf_release(&sh);
	report_proof(line, sizeof(line), t->failures, t->counted);
	dbuf_addf(out, "result:   %s\n", line);

	if (r->sigs_nr) {
		dbuf_addf(out, "\n%-10s %-9s %6s  %-28s %7s %7s  %s\n", "signature", "kind", "runs",
			  "rate (of all runs)", "first", "last", "key line");
		for (size_t i = 0; i < r->sigs_nr; i++) {
			const struct results_sig *s = &r->sigs[r->sig_order[i]];
			report_rate(line, sizeof(line), s->count, t->counted);
			dbuf_addf(out, "%-10s %-9s %6" PRIu64 "  %-30s %7" PRId64 " %7" PRId64 "  ",
				  s->id, s->kind, s->count, line, s->first_run, s->last_run);
			add_clean(out, s->key_line ? s->key_line : s->key, 120);
			dbuf_addc(out, '\n');
			report_diag_line(line, sizeof(line), s);
			if (line[0]) {
				dbuf_adds(out, "           hang: ");
				add_clean(out, line, 200);
				dbuf_addc(out, '\n');
			}
			if (s->log) {
				dbuf_addf(out, "           example: run %" PRId64 ", ", s->example_run);
				add_clean(out, r->dirs.v[s->dir], 200);
				dbuf_addc(out, '/');
				add_clean(out, s->log, 200);
				dbuf_addc(out, '\n');
			}
		}
	}
	report_text_matrix(out, r);
	report_text_tests(out, r, 50, true);
	return 0;
}

static void text_groups(struct dbuf *out, const char *title, const struct results_group *g,
			size_t n)
{
	char line[256];
	if (!n)
		return;
	struct report_cell *cells = xcalloc(n, sizeof(*cells));
	report_groups(g, n, cells);
	dbuf_addf(out, "\n%-30s %7s %7s  %-30s %s\n", title, "runs", "failed",
		  "rate", "vs the others (Fisher, Bonferroni)");
	for (size_t i = 0; i < n; i++) {
		const struct report_cell *c = &cells[i];
		char p[96];
		size_t klen = strlen(c->g->key);
		report_rate(line, sizeof(line), c->g->fails, c->g->runs);
		report_vs_rest(p, sizeof(p), c);
		if (c->differs)   /* marked: significant after the correction */
			memcpy(p, "FAILS MORE", 10);
		add_clean(out, c->g->key, 60);
		dbuf_addf(out, "%*s %7" PRIu64 " %7" PRIu64 "  %-32s %s\n",
			  (int)(klen < 30 ? 30 - klen : 0), "",
			  c->g->runs, c->g->fails, line, p);
	}
	free(cells);
}

void report_text_matrix(struct dbuf *out, const struct results *r)
{
	text_groups(out, "matrix cell", r->cells, r->cells_nr);
	text_groups(out, "chaos configuration", r->arms, r->arms_nr);
}

/* ---- per-test results (--tests) ---- */

/* The width of the name column: the longest name shown, 40 to 60. */
static int name_width(const struct results *r, const size_t *idx, size_t n)
{
	size_t w = 40;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(r->tests[idx[i]].name);
		w = l > w ? l : w;
	}
	return (int)(w > 60 ? 60 : w);
}

/* A long test name keeps its end: the test's own name is there, and the
 * start (the path from pytest's rootdir, which moves with the working
 * directory) is what tells tests apart least. */
static void name_cell(struct dbuf *out, const char *name, int width)
{
	size_t mark = out->len, len = strlen(name);
	dbuf_adds(out, "    ");
	if (len > (size_t)width) {
		const char *tail = name + len - ((size_t)width - 3);
		while ((*tail & 0xC0) == 0x80) /* not in the middle of a UTF-8 character */
			tail++;
		dbuf_adds(out, "...");
		escape_text(out, tail, strlen(tail));
	} else {
		escape_text(out, name, len);
	}
	size_t used = out->len - mark - 4;
	dbuf_addf(out, "%*s", (int)(used < (size_t)width ? (size_t)width - used : 0), "");
}

static void text_test_rows(struct dbuf *out, const struct results *r, const size_t *idx, size_t n,
			   size_t max)
{
	char rate[128];
	int w = name_width(r, idx, n < max ? n : max);
	dbuf_addf(out, "    %-*s %9s  %-32s %s\n", w, "test", "failed", "rate (95% CI)", "key line");
	for (size_t i = 0; i < n && i < max; i++) {
		const struct results_test *t = &r->tests[idx[i]];
		report_rate(rate, sizeof(rate), t->fails, t->runs);
		name_cell(out, t->name, w);
		dbuf_addf(out, " %4" PRIu64 "/%-4" PRIu64 "  %-32s ", t->fails, t->runs, rate);
		add_clean(out, t->key_line[0] ? t->key_line[0] : "", 100);
		if (t->sig_id[1])
			dbuf_addf(out, " (and %d more messages)", t->sig_id[2] ? (t->sig_id[3] ? 3 : 2) : 1);
		dbuf_addc(out, '\n');
	}
	if (n > max)
		dbuf_addf(out, "    (%zu more in summary.json)\n", n - max);
}

void report_text_tests(struct dbuf *out, const struct results *r, size_t max, bool variance)
{
	if (!r->tests_nr)
		return;
	size_t *idx = xcalloc(r->tests_nr + 1, sizeof(*idx));
	size_t nflaky = report_tests_flaky(r, idx), nalways = report_tests_always(r, NULL);
	dbuf_addf(out, "\ntests: %zu in %" PRIu64 " runs with per-test results; %zu flaky, %zu always "
		  "failing\n", r->tests_nr, r->totals.with_tests, nflaky, nalways);
	if (nflaky) {
		dbuf_adds(out, "  flaky (failed in some runs, passed in others):\n");
		text_test_rows(out, r, idx, nflaky, max);
	}
	if (nalways) {
		report_tests_always(r, idx);
		dbuf_addf(out, "  always failing (in every run that ran them):\n");
		text_test_rows(out, r, idx, nalways, max);
	}
	size_t nvar = variance ? report_tests_variance(r, idx, max < 5 ? max : 5) : 0;
	if (nvar) {
		int w = name_width(r, idx, nvar);
		dbuf_addf(out, "  time varies most (seconds):\n    %-*s %9s %9s %9s %9s\n", w,
			  "test", "mean", "sd", "min", "max");
		for (size_t i = 0; i < nvar; i++) {
			const struct results_test *t = &r->tests[idx[i]];
			name_cell(out, t->name, w);
			dbuf_addf(out, " %9.3g %9.3g %9.3g %9.3g\n",
				  t->tsum / (double)t->timed, results_test_sd(t), t->tmin, t->tmax);
		}
	}
	free(idx);
}

/* Here, not in report.c: the helpers there are below every writer, and a
 * call from them up into this one would close a circle (check_layers.py). */
void report_print_matrix(FILE *f, const struct results *r)
{
	struct dbuf b;
	dbuf_init(&b, REPORT_CAP);
	report_text_matrix(&b, r);
	fwrite(dbuf_str(&b), 1, b.len, f);
	dbuf_release(&b);
}
