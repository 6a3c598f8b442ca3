/*
 * report_text.c: the plain-text report for a terminal (`jostle report DIR`).
 * Short: what ran, where, the proof line, the signatures and the matrix.
 * Program output is repaired (escape_text) so it cannot move the cursor.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "results/report.h"
#include "results/shards.h"
#include "results/stats.h"
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
		  " crash, %" PRIu64 " hang; %" PRIu64 " ignored, %" PRIu64 " cut, %" PRIu64 " slow, %"
		  PRIu64 " skipped)\n", t->counted, t->pass, t->fail, t->crash, t->hang, t->ignored,
		  t->cut, t->slow, t->skip);
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
	report_proof_totals(line, sizeof(line), t);
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
			const char *what = report_diag_line(line, sizeof(line), s);
			if (line[0]) {
				dbuf_addf(out, "           %s: ", what);
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

/* Runs in no rate, summed over the groups: which columns a table needs. */
static void uncounted_sums(const struct results_group *g, size_t n, uint64_t *slow,
			   uint64_t *cut, uint64_t *skip)
{
	*slow = *cut = *skip = 0;
	for (size_t i = 0; i < n; i++) {
		*slow += g[i].slow;
		*cut += g[i].cut;
		*skip += g[i].skip;
	}
}

/*
 * One row per group: its counted runs and failures, then the runs in no
 * rate in columns of their own (a slow run is no clean run), the rate over
 * the counted runs only, and the test against the other groups. A group
 * whose every run was slow, cut or skipped has no rate, and says so.
 */
static void text_groups(struct dbuf *out, const char *title, const struct results_group *g,
			size_t n)
{
	char line[256];
	uint64_t slow, cut, skip;
	if (!n)
		return;
	uncounted_sums(g, n, &slow, &cut, &skip);
	bool show_skip = skip > 0;
	struct report_cell *cells = xcalloc(n, sizeof(*cells));
	report_groups(g, n, cells);
	dbuf_addf(out, "\n%-30s %7s %7s %6s %6s", title, "runs", "failed", "slow", "cut");
	if (show_skip)
		dbuf_addf(out, " %7s", "skipped");
	dbuf_addf(out, "  %-30s %s\n", "rate", "vs the others (Fisher, Bonferroni)");
	for (size_t i = 0; i < n; i++) {
		const struct report_cell *c = &cells[i];
		char p[96];
		size_t klen = strlen(c->g->key);
		report_rate(line, sizeof(line), c->g->fails, c->g->runs);
		report_vs_rest(p, sizeof(p), c);
		if (c->differs)   /* marked: significant after the correction */
			memcpy(p, "FAILS MORE", 10);
		if (!c->g->runs) {
			snprintf(line, sizeof(line), "- (no counted run)");
			p[0] = '\0';
		}
		add_clean(out, c->g->key, 60);
		dbuf_addf(out, "%*s %7" PRIu64 " %7" PRIu64 " %6" PRIu64 " %6" PRIu64,
			  (int)(klen < 30 ? 30 - klen : 0), "", c->g->runs, c->g->fails,
			  c->g->slow, c->g->cut);
		if (show_skip)
			dbuf_addf(out, " %7" PRIu64, c->g->skip);
		/* %-Ns pads bytes: the en dash is 3 bytes for 1 column */
		if (c->g->runs)
			dbuf_addf(out, "  %-32s %s\n", line, p);
		else
			dbuf_addf(out, "  %s\n", line);
	}
	free(cells);
}

void report_text_matrix(struct dbuf *out, const struct results *r)
{
	text_groups(out, "matrix cell", r->cells, r->cells_nr);
	text_groups(out, "chaos configuration", r->arms, r->arms_nr);
}

void report_text_cells(struct dbuf *out, const struct results *r)
{
	text_groups(out, "matrix cell", r->cells, r->cells_nr);
}

/* settings.chaos of the first series ("auto", "sync", ...), or NULL. */
static char *chaos_setting(const struct results *r)
{
	if (!r->series_nr || !r->series[0].settings)
		return NULL;
	cJSON *o = cJSON_Parse(r->series[0].settings);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "chaos");
	char *chaos = cJSON_IsString(v) ? xstrdup(v->valuestring) : NULL;
	cJSON_Delete(o);
	return chaos;
}

void report_text_arms(struct dbuf *out, const struct results *r)
{
	uint64_t slow, cut, skip;
	if (!r->arms_nr)
		return;
	uncounted_sums(r->arms, r->arms_nr, &slow, &cut, &skip);
	char *chaos = chaos_setting(r);
	bool is_auto = chaos && !strcmp(chaos, "auto");
	free(chaos);
	dbuf_addf(out, "failure rate per configuration (%s", is_auto ? "--chaos auto" : "fixed");
	if (r->totals.cpus_via) {   /* only when some run's CPUs were restricted */
		dbuf_adds(out, "; CPUs via ");
		add_clean(out, r->totals.cpus_via, 40);
	}
	dbuf_addf(out, "):\n  %-18s %6s %6s %6s %6s", "config", "runs", "fails", "slow", "cut");
	if (skip)
		dbuf_addf(out, " %7s", "skipped");
	dbuf_addf(out, " %7s  %-16s %9s\n", "rate", "95% interval", "fails/min");
	for (size_t a = 0; a < r->arms_nr; a++) {
		const struct results_group *g = &r->arms[a];
		char name[64], rate[16] = "-", iv[48] = "-";
		size_t m = 0;
		for (const char *k = g->key; *k && m < sizeof(name) - 1; k++)
			name[m++] = (*k >= 0x20 && *k < 0x7f) ? *k : '?';
		name[m] = '\0';
		if (g->runs) {
			double lo, hi;
			stats_wilson(g->fails, g->runs, STATS_Z95, &lo, &hi);
			snprintf(rate, sizeof(rate), "%.1f%%", 100.0 * (double)g->fails / (double)g->runs);
			snprintf(iv, sizeof(iv), "[%.1f%%, %.1f%%]", 100 * lo, 100 * hi);
		}
		/* what the arm yields with the machine to itself: its failures
		 * over its runs' shares of the machine (slow and cut ones too),
		 * or in older records their time over its concurrency */
		double slot_s = g->unshared ? g->wall_s / (double)(g->jobs ? g->jobs : 1) : g->machine_s;
		dbuf_addf(out, "  %-18s %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64, name,
			  g->runs, g->fails, g->slow, g->cut);
		if (skip)
			dbuf_addf(out, " %7" PRIu64, g->skip);
		dbuf_addf(out, " %7s  %-16s %9.1f\n", rate, iv,
			  slot_s > 0 ? 60.0 * (double)g->fails / slot_s : 0.0);
	}
	dbuf_adds(out, "  (rates over counted runs, passed or failed; slow: " REPORT_SLOW_WHY "; "
		  "cut: still running when the series ended");
	if (skip)
		dbuf_adds(out, "; skipped: exit status 77");
	dbuf_adds(out, ";\n   fails/min: an arm's failures per minute of its runs' shares of the machine, "
		  "each moment split among the runs then in flight");
	dbuf_adds(out, is_auto ? ", what auto maximizes)\n" : ")\n");
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
	struct report_tests sel;
	report_tests_select(&sel, r, variance ? (max < 5 ? max : 5) : 0);
	dbuf_addf(out, "\ntests: %zu in %" PRIu64 " runs with per-test results; %zu flaky, %zu always "
		  "failing\n", r->tests_nr, r->totals.with_tests, sel.nflaky, sel.nalways);
	if (sel.nflaky) {
		dbuf_adds(out, "  flaky (failed in some runs, passed in others):\n");
		text_test_rows(out, r, sel.flaky, sel.nflaky, max);
	}
	if (sel.nalways) {
		dbuf_addf(out, "  always failing (in every run that ran them):\n");
		text_test_rows(out, r, sel.always, sel.nalways, max);
	}
	if (sel.nvaries) {
		int w = name_width(r, sel.varies, sel.nvaries);
		dbuf_addf(out, "  time varies most (seconds):\n    %-*s %9s %9s %9s %9s\n", w,
			  "test", "mean", "sd", "min", "max");
		for (size_t i = 0; i < sel.nvaries; i++) {
			const struct results_test *t = &r->tests[sel.varies[i]];
			name_cell(out, t->name, w);
			dbuf_addf(out, " %9.3g %9.3g %9.3g %9.3g\n",
				  t->tsum / (double)t->timed, results_test_sd(t), t->tmin, t->tmax);
		}
	}
	report_tests_release(&sel);
}

/* Here, not in report.c: the helpers there are below every writer, and a
 * call from them up into this one would close a circle (check_layers.py). */
void report_print_matrix(FILE *f, const struct results *r)
{
	struct dbuf b;
	dbuf_init(&b, REPORT_CAP);
	report_text_cells(&b, r);   /* the arms: in the closing summary (summary.h) */
	fwrite(dbuf_str(&b), 1, b.len, f);
	dbuf_release(&b);
}
