/*
 * report_md.c: GitHub-flavored Markdown, ready to paste into an issue.
 *
 * Everything taken from program output goes into code spans or fenced code
 * blocks (escape_md_code, escape_md_fence), never into Markdown or HTML
 * text, so a key line holding "|", backticks or "<script>" renders as text.
 * Logs are cut to a few kilobytes per signature: GitHub's comment limit is
 * 65536 characters.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "results/report.h"
#include "results/stats.h"
#include "util/escape.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MD_MAX_SIGS_TABLE 50
#define MD_MAX_EXAMPLES 10
#define MD_LOG_HEAD 2048
#define MD_LOG_TAIL 3072

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
	const struct results_totals *t = &r->totals;
	dbuf_addf(out, "| runs | %" PRIu64 ": %" PRIu64 " pass, %" PRIu64 " fail, %" PRIu64
		  " crash, %" PRIu64 " hang", t->counted, t->pass, t->fail, t->crash, t->hang);
	if (t->ignored)
		dbuf_addf(out, " (%" PRIu64 " more ignored)", t->ignored);
	if (t->counted)
		dbuf_addf(out, "; mean run %.3g s, longest %.3g s", t->wall_sum / (double)t->counted,
			  t->wall_max);
	dbuf_adds(out, " |\n\n");
	dbuf_release(&b);
}

static void example(struct dbuf *out, const struct results *r, const struct results_sig *s)
{
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
	report_diag_line(line, sizeof(line), s);
	if (line[0]) {
		dbuf_adds(out, "Hang: ");
		code_in(out, line, false);
		dbuf_addc(out, '\n');
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
	if (report_read_log(r, s, true, &log, MD_LOG_HEAD, MD_LOG_TAIL)) {
		dbuf_adds(out, "Stacks (identical stacks folded):\n");
		code_block(out, log.buf, log.len);
	}
	dbuf_reset(&log);
	bool have = report_read_log(r, s, false, &log, MD_LOG_HEAD, MD_LOG_TAIL);
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
	char a[32], lo[32], hi[32], p[48];
	report_groups(g, n, cells);
	dbuf_addf(out, "### %s\n\n| %s | runs | failed | rate | 95%% CI | vs the others |\n"
		       "|---|--:|--:|--:|---|---|\n", title, what);
	for (size_t i = 0; i < n; i++) {
		const struct report_cell *c = &cells[i];
		report_pct(a, sizeof(a), c->g->runs ? (double)c->g->fails / (double)c->g->runs : 0);
		report_pct(lo, sizeof(lo), c->lo);
		report_pct(hi, sizeof(hi), c->hi);
		report_pval(p, sizeof(p), c->p);
		dbuf_adds(out, "| ");
		code(out, c->g->key);
		dbuf_addf(out, " | %" PRIu64 " | %" PRIu64 " | %s%s%s | %s\xe2\x80\x93%s | %s%s%s |\n",
			  c->g->runs, c->g->fails, c->differs ? "**" : "", a, c->differs ? "**" : "",
			  lo, hi, c->differs ? "**differs** (" : "", p, c->differs ? ")" : "");
	}
	dbuf_addf(out, "\nA %s marked **differs** fails significantly more often than all others "
		       "together (two-sided Fisher exact test, Bonferroni correction for %zu, "
		       "family-wise \xce\xb1 = 0.05).\n\n", what, n);
	free(cells);
}

int report_md(struct dbuf *out, const struct results *r)
{
	const struct results_totals *t = &r->totals;
	char line[256];
	dbuf_addf(out, "## jostle: %" PRIu64 " of %" PRIu64 " runs failed\n\n", t->failures, t->counted);
	header(out, r);
	report_proof(line, sizeof(line), t->failures, t->counted);
	dbuf_addf(out, "**%s**\n\n", line);
	if (r->sigs_nr) {
		dbuf_adds(out, "### Failure signatures\n\n"
			       "| signature | kind | runs | rate | 95% CI | first run | last run | key line |\n"
			       "|---|---|--:|--:|---|--:|--:|---|\n");
		size_t n = r->sigs_nr > MD_MAX_SIGS_TABLE ? MD_MAX_SIGS_TABLE : r->sigs_nr;
		for (size_t i = 0; i < n; i++) {
			const struct results_sig *s = &r->sigs[r->sig_order[i]];
			double lo, hi;
			char a[32], l[32], h[32];
			stats_wilson(s->count, t->counted, STATS_Z95, &lo, &hi);
			report_pct(a, sizeof(a), (double)s->count / (double)t->counted);
			report_pct(l, sizeof(l), lo);
			report_pct(h, sizeof(h), hi);
			dbuf_addf(out, "| `%s` | %s | %" PRIu64 " | %s | %s\xe2\x80\x93%s | %" PRId64
				  " | %" PRId64 " | ", s->id, s->kind, s->count, a, l, h,
				  s->first_run, s->last_run);
			struct dbuf k;
			dbuf_init(&k, 1 << 20);
			const char *kl = s->key_line ? s->key_line : s->key ? s->key : "";
			size_t kn = strlen(kl);
			dbuf_add(&k, kl, kn > 200 ? 200 : kn);
			code(out, dbuf_str(&k));
			dbuf_release(&k);
			dbuf_adds(out, " |\n");
		}
		if (r->sigs_nr > n)
			dbuf_addf(out, "\n%zu more signatures are in summary.json.\n", r->sigs_nr - n);
		dbuf_adds(out, "\nRates are of all counted runs, with 95% Wilson intervals.\n\n");
		n = r->sigs_nr > MD_MAX_EXAMPLES ? MD_MAX_EXAMPLES : r->sigs_nr;
		for (size_t i = 0; i < n; i++)
			example(out, r, &r->sigs[r->sig_order[i]]);
	}
	if (r->cells_nr)
		groups_table(out, "Matrix", "cell", r->cells, r->cells_nr);
	if (r->arms_nr)
		groups_table(out, "Conditions (chaos configurations)", "configuration", r->arms,
			     r->arms_nr);
	dbuf_addf(out, "<sub>jostle %s report, computed from runs.jsonl", JOSTLE_VERSION);
	if (t->bad_lines)
		dbuf_addf(out, " (%" PRIu64 " unreadable lines skipped)", t->bad_lines);
	dbuf_adds(out, "</sub>\n");
	return 0;
}
