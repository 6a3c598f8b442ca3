/*
 * report_md.c: GitHub-flavored Markdown, ready to paste into an issue.
 *
 * Everything taken from program output goes into code spans or fenced code
 * blocks (escape_md_code, escape_md_fence), never into Markdown or HTML
 * text, so a key line holding "|", backticks or "<script>" renders as text.
 * The whole report stays under GitHub's comment limit (65,536 characters):
 * every failure kind gets its row and its example first, the examples get
 * shorter logs, then only their key line, as the budget runs out, and the
 * report says what was cut.
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

#define MD_MAX_SIGS_TABLE 50
#define MD_MAX_EXAMPLES 10
#define MD_LOG_HEAD 2048
#define MD_LOG_TAIL 3072
/* GitHub refuses a comment over 65,536 characters; a byte is at most a
 * character, so a report under this many bytes always fits, with room
 * for the note that says what was cut. */
#define MD_BUDGET 63000

static void code_in(struct dbuf *out, const char *s, bool in_table)
{
	if (s && *s)
		escape_md_code(out, s, strlen(s), in_table);
	else
		dbuf_adds(out, "\xe2\x80\x94");   /* an em dash for "none" */
}

/* a code span in a table cell */
static void code(struct dbuf *out, const char *s)
{
	code_in(out, s, true);
}

static void code_block(struct dbuf *out, const char *s, size_t len)
{
	struct dbuf clean;
	dbuf_init(&clean, REPORT_CAP);
	escape_text(&clean, s, len);
	size_t fence = escape_md_fence(dbuf_str(&clean), clean.len);
	dbuf_addc(out, '\n');
	for (size_t i = 0; i < fence; i++)
		dbuf_addc(out, '`');
	dbuf_addc(out, '\n');
	dbuf_add(out, dbuf_str(&clean), clean.len);
	if (clean.len && clean.buf[clean.len - 1] != '\n')
		dbuf_addc(out, '\n');
	for (size_t i = 0; i < fence; i++)
		dbuf_addc(out, '`');
	dbuf_adds(out, "\n\n");
	dbuf_release(&clean);
}

/* settings object as "runs=600 jobs=8 timeout_s=60" */
static void settings_line(struct dbuf *b, const char *json)
{
	cJSON *o = json ? cJSON_Parse(json) : NULL;
	const cJSON *v;
	bool first = true;
	cJSON_ArrayForEach(v, o) {
		if (cJSON_IsNull(v) || !v->string)
			continue;
		char *val = cJSON_IsString(v) ? xstrdup(v->valuestring) : cJSON_PrintUnformatted(v);
		if (!val)
			continue;
		dbuf_addf(b, "%s%s=%s", first ? "" : " ", v->string, val);
		first = false;
		free(val);
	}
	cJSON_Delete(o);
}

static void header(struct dbuf *out, const struct results *r)
{
	struct dbuf b;
	dbuf_init(&b, 1 << 20);
	dbuf_adds(out, "| | |\n|---|---|\n");
	size_t shown = r->series_nr > 5 ? 5 : r->series_nr;
	for (size_t i = 0; i < shown; i++) {
		const struct results_series *s = &r->series[i];
		const char *sfx = r->series_nr > 1 ? " " : "";
		char num[32] = "";
		if (r->series_nr > 1)
			snprintf(num, sizeof(num), "%zu", i + 1);
		dbuf_reset(&b);
		report_command(&b, s);
		dbuf_addf(out, "| command%s%s | ", sfx, num);
		code(out, dbuf_str(&b));
		dbuf_reset(&b);
		report_machine(&b, s);
		dbuf_addf(out, " |\n| machine%s%s | ", sfx, num);
		code(out, dbuf_str(&b));
		dbuf_addf(out, " |\n| series%s%s | ", sfx, num);
		code(out, s->id);
		dbuf_addf(out, ", %" PRIu64 " runs, started ", s->runs);
		code(out, s->start);
		dbuf_adds(out, ", seed ");
		code(out, s->seed);
		dbuf_adds(out, ", jostle ");
		code(out, s->jostle);
		dbuf_reset(&b);
		settings_line(&b, s->settings);
		dbuf_addf(out, " |\n| settings%s%s | ", sfx, num);
		code(out, dbuf_str(&b));
		dbuf_adds(out, " |\n");
	}
	if (r->series_nr > shown)
		dbuf_addf(out, "| | and %zu more series |\n", r->series_nr - shown);
	dbuf_reset(&b);
	shards_line(&b, r);   /* issue 17 */
	if (b.len)
		dbuf_addf(out, "| shards | %s |\n", dbuf_str(&b));   /* plain text: numbers and words */
	const struct results_totals *t = &r->totals;
	dbuf_addf(out, "| runs | %" PRIu64 ": %" PRIu64 " pass, %" PRIu64 " fail, %" PRIu64
		  " crash, %" PRIu64 " hang", t->counted, t->pass, t->fail, t->crash, t->hang);
	if (t->ignored)
		dbuf_addf(out, " (%" PRIu64 " more ignored)", t->ignored);
	if (t->cut)
		dbuf_addf(out, " (%" PRIu64 " more cut: still running when the series ended, not counted)",
			  t->cut);
	if (t->slow)
		dbuf_addf(out, " (%" PRIu64 " more slow: " REPORT_SLOW_WHY ", not counted)", t->slow);
	if (t->skip)
		dbuf_addf(out, " (%" PRIu64 " more skipped: exit status 77, not counted)", t->skip);
	if (t->counted)
		dbuf_addf(out, "; mean run %.3g s, longest %.3g s", t->wall_sum / (double)t->counted,
			  t->wall_max);
	dbuf_adds(out, " |\n\n");
	dbuf_release(&b);
}

/* LEVEL 0: full; 1: logs a quarter as long; 2: the key line only. */
static void example(struct dbuf *out, const struct results *r, const struct results_sig *s,
		    int level)
{
	size_t lh = level ? MD_LOG_HEAD / 4 : MD_LOG_HEAD, lt = level ? MD_LOG_TAIL / 4 : MD_LOG_TAIL;
	char line[256];
	dbuf_addf(out, "#### `%s` %s: %" PRIu64 " run%s\n\n", s->id, s->kind, s->count,
		  s->count == 1 ? "" : "s");
	dbuf_adds(out, "Key line: ");
	code_in(out, s->key_line ? s->key_line : s->key, false);
	dbuf_addf(out, "  \nExample: run %" PRId64, s->example_run);
	if (s->cell && *s->cell) {
		dbuf_adds(out, " in cell ");
		code_in(out, s->cell, false);
	}
	if (s->log) {
		dbuf_adds(out, ", log ");
		code_in(out, s->log, false);
	}
	dbuf_addc(out, '\n');
	const char *what = report_diag_line(line, sizeof(line), s);
	if (line[0]) {
		/* a crash's report is no hang ("Hang: diagnosed" said it was) */
		dbuf_adds(out, !strcmp(what, "crash") ? "Crash: " : "Hang: ");
		code_in(out, line, false);
		dbuf_addc(out, '\n');
	}
	if (level >= 2) {
		dbuf_adds(out, "\n(log and stacks cut for length: see report.html)\n\n");
		return;
	}
	dbuf_addf(out, "\n<details><summary>frames, stacks and log of run %" PRId64
		  "</summary>\n\n", s->example_run);
	if (s->frames.nr) {
		struct dbuf f;
		dbuf_init(&f, 1 << 20);
		for (size_t i = 0; i < s->frames.nr; i++)
			dbuf_addf(&f, "%s\n", s->frames.v[i]);
		dbuf_adds(out, "Top frames:\n");
		code_block(out, f.buf, f.len);
		dbuf_release(&f);
	}
	struct dbuf log;
	dbuf_init(&log, REPORT_CAP);
	if (report_read_log(r, s, true, &log, lh, lt)) {
		dbuf_adds(out, "Stacks (identical stacks folded):\n");
		code_block(out, log.buf, log.len);
	}
	dbuf_reset(&log);
	bool have = report_read_log(r, s, false, &log, lh, lt);
	dbuf_adds(out, have ? "Log (head and tail):\n" : "Log: ");
	if (have)
		code_block(out, log.buf, log.len);
	else
		dbuf_addf(out, "%s\n\n", dbuf_str(&log));
	dbuf_release(&log);
	dbuf_adds(out, "</details>\n\n");
}

static void groups_table(struct dbuf *out, const char *title, const char *what,
			 const struct results_group *g, size_t n)
{
	struct report_cell *cells = xcalloc(n, sizeof(*cells));
	char a[32], lo[32], hi[32], p[96];
	bool skips = false;
	for (size_t i = 0; i < n; i++)
		skips |= g[i].skip > 0;
	report_groups(g, n, cells);
	/* slow, cut and skipped runs in columns of their own: in no rate */
	dbuf_addf(out, "### %s\n\n| %s | runs | failed | slow | cut |%s rate | 95%% CI | vs the others |\n"
		       "|---|--:|--:|--:|--:|%s--:|---|---|\n", title, what, skips ? " skipped |" : "",
		  skips ? "--:|" : "");
	for (size_t i = 0; i < n; i++) {
		const struct report_cell *c = &cells[i];
		report_pct(a, sizeof(a), c->g->runs ? (double)c->g->fails / (double)c->g->runs : 0);
		report_pct(lo, sizeof(lo), c->lo);
		report_pct(hi, sizeof(hi), c->hi);
		report_vs_rest(p, sizeof(p), c);
		dbuf_adds(out, "| ");
		code(out, c->g->key);
		dbuf_addf(out, " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " |", c->g->runs,
			  c->g->fails, c->g->slow, c->g->cut);
		if (skips)
			dbuf_addf(out, " %" PRIu64 " |", c->g->skip);
		if (!c->g->runs) {
			dbuf_adds(out, " \xe2\x80\x93 | \xe2\x80\x93 | no counted run |\n");
			continue;
		}
		dbuf_addf(out, " %s%s%s | %s\xe2\x80\x93%s | %s%s |\n",
			  c->differs ? "**" : "", a, c->differs ? "**" : "",
			  lo, hi, c->differs ? "**differs**: " : "", p);
	}
	dbuf_addf(out, "\nRates are over counted runs (passed or failed): slow runs (slowed "
		       REPORT_SLOW_WHY ")%s cut runs (still running when the series ended)%s are in "
		       "none. A %s marked **differs** fails significantly more often than all others "
		       "together (two-sided Fisher exact test, Bonferroni correction for %zu, "
		       "family-wise \xce\xb1 = 0.05).\n\n", skips ? "," : " and",
		  skips ? " and skipped runs (exit status 77)" : "", what, n);
	free(cells);
}

/*
 * The signatures in the order they get room: the most frequent of each
 * kind first (a crash that happened once is not pushed out by ten kinds
 * of assertion), then the rest by count. Returns how many are in pick.
 */
static size_t pick_order(const struct results *r, size_t *pick)
{
	size_t n = 0;
	bool *taken = xcalloc(r->sigs_nr + 1, sizeof(*taken));
	for (size_t i = 0; i < r->sigs_nr; i++) {
		const struct results_sig *s = &r->sigs[r->sig_order[i]];
		bool seen = false;
		for (size_t j = 0; j < n && !seen; j++)
			seen = !strcmp(r->sigs[r->sig_order[pick[j]]].kind, s->kind);
		if (!seen) {
			pick[n++] = i;
			taken[i] = true;
		}
	}
	size_t kinds = n;
	for (size_t i = 0; i < r->sigs_nr; i++)
		if (!taken[i])
			pick[n++] = i;
	free(taken);
	return kinds;
}

static int by_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

static void sig_row(struct dbuf *out, const struct results *r, const struct results_sig *s)
{
	const struct results_totals *t = &r->totals;
	double lo, hi;
	char a[32], l[32], h[32];
	stats_wilson(s->count, t->counted, STATS_Z95, &lo, &hi);
	report_pct(a, sizeof(a), (double)s->count / (double)t->counted);
	report_pct(l, sizeof(l), lo);
	report_pct(h, sizeof(h), hi);
	dbuf_addf(out, "| `%s` | %s | %" PRIu64 " | %s | %s\xe2\x80\x93%s | %" PRId64
		  " | %" PRId64 " | ", s->id, s->kind, s->count, a, l, h, s->first_run, s->last_run);
	struct dbuf k;
	dbuf_init(&k, 1 << 20);
	const char *kl = s->key_line ? s->key_line : s->key ? s->key : "";
	size_t kn = strlen(kl);
	dbuf_add(&k, kl, kn > 200 ? 200 : kn);
	code(out, dbuf_str(&k));
	dbuf_release(&k);
	dbuf_adds(out, " |\n");
}

#define MD_MAX_TEST_ROWS 40

/* One row of a per-test table: test, failed/runs, rate, CI, runs, message. */
static void test_row(struct dbuf *out, const struct results_test *t)
{
	double lo, hi;
	char a[32], l[32], h[32];
	stats_wilson(t->fails, t->runs, STATS_Z95, &lo, &hi);
	report_pct(a, sizeof(a), t->runs ? (double)t->fails / (double)t->runs : 0);
	report_pct(l, sizeof(l), lo);
	report_pct(h, sizeof(h), hi);
	dbuf_adds(out, "| ");
	code_in(out, t->name, true);
	dbuf_addf(out, " | %" PRIu64 "/%" PRIu64 " | %s | %s\xe2\x80\x93%s | %" PRId64 "..%" PRId64 " | ",
		  t->fails, t->runs, a, l, h, t->first_fail, t->last_fail);
	if (t->crashes || t->hangs)
		dbuf_addf(out, "%" PRIu64 " crash, %" PRIu64 " hang; ", t->crashes, t->hangs);
	if (t->key_line[0]) {
		size_t kn = strlen(t->key_line[0]);
		struct dbuf k;
		dbuf_init(&k, 1 << 16);
		dbuf_add(&k, t->key_line[0], kn > 160 ? 160 : kn);
		code_in(out, dbuf_str(&k), true);
		dbuf_release(&k);
	}
	if (t->sig_id[1])
		dbuf_addf(out, " (and %d more messages)", t->sig_id[2] ? (t->sig_id[3] ? 3 : 2) : 1);
	dbuf_adds(out, " |\n");
}

static void test_table(struct dbuf *out, const struct results *r, const char *title,
		       const size_t *idx, size_t n)
{
	dbuf_addf(out, "**%s** (%zu)\n\n| test | failed | rate | 95%% CI | runs | message |\n"
		       "|---|--:|--:|---|---|---|\n", title, n);
	for (size_t i = 0; i < n && i < MD_MAX_TEST_ROWS; i++)
		test_row(out, &r->tests[idx[i]]);
	if (n > MD_MAX_TEST_ROWS)
		dbuf_addf(out, "\n%zu more are in summary.json.\n", n - MD_MAX_TEST_ROWS);
	dbuf_addc(out, '\n');
}

/* --tests: flaky tests, always-failing tests, the tests whose time varies
 * most (report_tests_select chooses them for every format). */
static void tests_section(struct dbuf *out, const struct results *r)
{
	if (!r->tests_nr)
		return;
	struct report_tests sel;
	report_tests_select(&sel, r, 5);
	dbuf_addf(out, "### Tests\n\n%zu tests in %" PRIu64 " runs with per-test results: "
		       "**%zu flaky** (failed in some runs, passed in others), %zu always failing.\n\n",
		  r->tests_nr, r->totals.with_tests, sel.nflaky, sel.nalways);
	if (sel.nflaky)
		test_table(out, r, "Flaky tests", sel.flaky, sel.nflaky);
	if (sel.nalways)
		test_table(out, r, "Always failing", sel.always, sel.nalways);
	if (sel.nvaries) {
		dbuf_adds(out, "**Time varies most** (seconds)\n\n| test | mean | sd | min | max |\n"
			       "|---|--:|--:|--:|--:|\n");
		for (size_t i = 0; i < sel.nvaries; i++) {
			const struct results_test *t = &r->tests[sel.varies[i]];
			dbuf_adds(out, "| ");
			code_in(out, t->name, true);
			dbuf_addf(out, " | %.3g | %.3g | %.3g | %.3g |\n", t->tsum / (double)t->timed,
				  results_test_sd(t), t->tmin, t->tmax);
		}
		dbuf_addc(out, '\n');
	}
	dbuf_adds(out, "Rates are of the runs that ran the test (skips are in none), with 95% Wilson "
		       "intervals; a test running when its suite crashed or hung failed in that run.\n\n");
	report_tests_release(&sel);
}

int report_md(struct dbuf *out, const struct results *r)
{
	const struct results_totals *t = &r->totals;
	char line[256];
	size_t start = out->len;
	dbuf_addf(out, "## jostle: %" PRIu64 " of %" PRIu64 " runs failed\n\n", t->failures, t->counted);
	header(out, r);
	report_proof_totals(line, sizeof(line), t);
	dbuf_addf(out, "**%s**\n\n", line);
	tests_section(out, r);
	/* what comes after the examples, written first so that its size is known */
	struct dbuf tail, ex;
	dbuf_init(&tail, REPORT_CAP);
	dbuf_init(&ex, REPORT_CAP);
	if (r->cells_nr)
		groups_table(&tail, "Matrix", "cell", r->cells, r->cells_nr);
	if (r->arms_nr)
		groups_table(&tail, "Conditions (chaos configurations)", "configuration", r->arms,
			     r->arms_nr);
	dbuf_addf(&tail, "<sub>jostle %s report, computed from runs.jsonl", JOSTLE_VERSION);
	if (t->bad_lines)
		dbuf_addf(&tail, " (%" PRIu64 " unreadable lines skipped)", t->bad_lines);
	dbuf_adds(&tail, "</sub>\n");
	if (r->sigs_nr) {
		size_t *pick = xcalloc(r->sigs_nr + 1, sizeof(*pick));
		size_t kinds = pick_order(r, pick);
		/* the table: every kind's row, then the most frequent, by count */
		size_t rows = r->sigs_nr > MD_MAX_SIGS_TABLE ? MD_MAX_SIGS_TABLE : r->sigs_nr;
		rows = rows > kinds ? rows : kinds;
		size_t *table = xcalloc(rows + 1, sizeof(*table));
		memcpy(table, pick, rows * sizeof(*table));
		qsort(table, rows, sizeof(*table), by_index);
		dbuf_adds(out, "### Failure signatures\n\n"
			       "| signature | kind | runs | rate | 95% CI | first run | last run | key line |\n"
			       "|---|---|--:|--:|---|--:|--:|---|\n");
		for (size_t i = 0; i < rows; i++)
			sig_row(out, r, &r->sigs[r->sig_order[table[i]]]);
		if (r->sigs_nr > rows)
			dbuf_addf(out, "\n%zu more signatures are in summary.json.\n", r->sigs_nr - rows);
		dbuf_adds(out, "\nRates are of all counted runs, with 95% Wilson intervals.\n\n");
		free(table);
		/* the examples, each as long as the budget still allows */
		size_t want = r->sigs_nr > MD_MAX_EXAMPLES ? MD_MAX_EXAMPLES : r->sigs_nr;
		want = want > kinds ? want : kinds;
		size_t shortened = 0, dropped = 0;
		for (size_t i = 0; i < want; i++) {
			const struct results_sig *s = &r->sigs[r->sig_order[pick[i]]];
			bool placed = false;
			for (int level = 0; level <= 2 && !placed; level++) {
				size_t mark = ex.len;
				example(&ex, r, s, level);
				if (out->len - start + ex.len + tail.len <= MD_BUDGET) {
					placed = true;
					shortened += level > 0;
				} else {
					dbuf_truncate(&ex, mark);
				}
			}
			dropped += !placed;
		}
		if (r->sigs_nr > want || shortened || dropped) {
			dbuf_addf(out, "Examples of %zu of %zu signatures", want - dropped, r->sigs_nr);
			if (shortened || dropped)
				dbuf_addf(out, " (to stay under GitHub's 65,536-character comment limit: "
					  "%zu shortened, %zu left out)", shortened, dropped);
			dbuf_adds(out, "; report.html has them all.\n\n");
		}
		dbuf_add(out, ex.buf, ex.len);
		free(pick);
	}
	dbuf_add(out, tail.buf, tail.len);
	dbuf_release(&tail);
	dbuf_release(&ex);
	return 0;
}
