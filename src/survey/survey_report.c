/*
 * survey_report.c: `jostle survey` output as text, Markdown, HTML and JSON
 * (see survey.h; the JSON shape is documented in docs/survey.md).
 *
 * Everything taken from a log (keys, lines, test names, group values,
 * paths) is untrusted: JSON strings go through jsonw (escaped, invalid UTF-8
 * replaced); text, HTML and the Markdown key go through escape.h, the run
 * report's helpers (repaired UTF-8, entities, code spans); other Markdown
 * cells have pipes, backticks and markup neutralized. The HTML page is self-contained: inline CSS, no script,
 * no external resource.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "signature/timestamp.h"
#include "survey/survey.h"
#include "util/dbuf.h"
#include "util/escape.h"
#include "util/jsonw.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define TIMELINE_SIGS 5

static double share(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

static void when(int64_t t, char *buf, size_t len)
{
	timestamp_iso(t, buf, len);
	/* "2026-07-15T21:26:00Z" -> "2026-07-15 21:26Z" for people */
	if (strlen(buf) >= 20) {
		buf[10] = ' ';
		buf[16] = 'Z';
		buf[17] = '\0';
	}
}

/* Text for a terminal: invalid UTF-8 and control characters repaired (escape.h). */
static void put_text(FILE *f, const char *s)
{
	struct dbuf b;
	dbuf_init(&b, (size_t)1 << 24);
	escape_text(&b, s, strlen(s));
	for (size_t i = 0; i < b.len; i++)
		if (b.buf[i] == '\n' || b.buf[i] == '\t')
			b.buf[i] = ' ';
	fwrite(dbuf_str(&b), 1, b.len, f);
	dbuf_release(&b);
}

/* "v1 (3), v2 (1)" of the top n entries of a counter. */
static void counter_line(struct dbuf *b, const struct survey_counter *c, size_t top)
{
	size_t n;
	struct survey_count **v = survey_counter_sorted(c, &n);
	for (size_t i = 0; i < n && i < top; i++)
		dbuf_addf(b, "%s%s (%" PRIu64 ")", i ? ", " : "", v[i]->name, v[i]->n);
	if (n > top)
		dbuf_addf(b, ", +%zu more", n - top);
	if (c->other)
		dbuf_addf(b, ", other (%" PRIu64 ")", c->other);
	free(v);
}

static uint64_t counter_get(const struct survey_counter *c, const char *name)
{
	for (size_t i = 0; i < c->nr; i++)
		if (!strcmp(c->v[i].name, name))
			return c->v[i].n;
	return 0;
}

/*
 * A group of a signature against the whole corpus: "3.14t (3 of 4)" per
 * value, and "only 3.14t of 3 values" when it occurs under one value of a
 * key that has several, so a reader sees the pattern without counting.
 */
static void group_line(struct dbuf *b, const struct survey_counter *c,
		       const struct survey_counter *all, size_t top)
{
	size_t n;
	struct survey_count **v = survey_counter_sorted(c, &n);
	for (size_t i = 0; i < n && i < top; i++)
		dbuf_addf(b, "%s%s (%" PRIu64 " of %" PRIu64 ")", i ? ", " : "", v[i]->name, v[i]->n,
			  counter_get(all, v[i]->name));
	if (n > top)
		dbuf_addf(b, ", +%zu more", n - top);
	if (c->other)
		dbuf_addf(b, ", other (%" PRIu64 ")", c->other);
	size_t named = all->nr - (counter_get(all, "-") ? 1 : 0);
	size_t mine = n - (counter_get(c, "-") ? 1 : 0);
	if (mine == 1 && n == 1 && !c->other && named > 1)
		dbuf_addf(b, "; only %s (of %zu values)", v[0]->name, named);
	else if (mine > 1 && mine == named && !c->other && !all->other)
		dbuf_addf(b, "; every value");
	free(v);
}

static int cmp_day(const void *a, const void *b)
{
	const struct survey_day *x = a, *y = b;
	return x->day < y->day ? -1 : x->day > y->day;
}

static struct survey_day *days_sorted(const struct survey *sv)
{
	struct survey_day *d = xcalloc(sv->ndays + 1, sizeof(*d));
	if (sv->ndays)
		memcpy(d, sv->days, sv->ndays * sizeof(*d));
	qsort(d, sv->ndays, sizeof(*d), cmp_day);
	return d;
}

static uint64_t sig_on_day(const struct survey_sig *s, const char *day)
{
	for (size_t i = 0; i < s->days.nr; i++)
		if (!strcmp(s->days.v[i].name, day))
			return s->days.v[i].n;
	return 0;
}

static void span_line(const struct survey *sv, struct dbuf *b)
{
	char a[32], e[32];
	if (!sv->logs)
		return;
	when(sv->first, a, sizeof(a));
	when(sv->last, e, sizeof(e));
	dbuf_addf(b, "%s .. %s", a, e);
}

/* ---- text ----------------------------------------------------------- */

static void write_text(const struct survey *sv, FILE *f)
{
	size_t n;
	struct survey_sig **sigs = survey_sorted(sv, &n);
	struct dbuf b;
	dbuf_init(&b, 1 << 20);
	span_line(sv, &b);
	fprintf(f, "jostle survey: %" PRIu64 " logs (%.1f MB)%s%s\n", sv->logs,
		(double)sv->bytes / 1e6, b.len ? ", " : "", dbuf_str(&b));
	fprintf(f, "  %" PRIu64 " with a recognized failure, %" PRIu64 " without, %" PRIu64
		" unreadable (skipped)", sv->failed, sv->none, sv->unreadable);
	if (sv->has_since)
		fprintf(f, ", %" PRIu64 " before --since", sv->before_since);
	fprintf(f, "\n  %zu signatures; a log counts once per distinct signature, share = of all logs\n", n);
	for (size_t i = 0; i < n; i++) {
		const struct survey_sig *s = sigs[i];
		char a[32], e[32];
		when(s->first, a, sizeof(a));
		when(s->last, e, sizeof(e));
		fprintf(f, "\n#%zu %s  %s  %" PRIu64 " logs (%.1f%%), primary in %" PRIu64
			"  first %s  last %s\n", i + 1, s->id, s->kind, s->logs,
			share(s->logs, sv->logs), s->primary, a, e);
		fprintf(f, "    key:    ");
		put_text(f, s->key);
		for (size_t k = 0; k < s->frames.nr; k++) {
			fprintf(f, k ? " < " : "  @ ");
			put_text(f, s->frames.v[k]);
		}
		fprintf(f, "\n    line:   ");
		put_text(f, s->key_line);
		fprintf(f, "\n    by:     %s\n", s->extractor);
		if (s->tests.nr) {
			dbuf_reset(&b);
			counter_line(&b, &s->tests, 5);
			fprintf(f, "    tests:  ");
			put_text(f, dbuf_str(&b));
			fputc('\n', f);
		}
		for (size_t g = 0; g < sv->ngroups; g++) {
			dbuf_reset(&b);
			group_line(&b, &s->groups[g], &sv->all_groups[g], 8);
			fprintf(f, "    %s: ", sv->groups[g].name);
			put_text(f, dbuf_str(&b));
			fputc('\n', f);
		}
		fprintf(f, "    files:  ");
		for (size_t k = 0; k < s->examples.nr; k++) {
			fprintf(f, "%s", k ? ", " : "");
			put_text(f, s->examples.v[k]);
		}
		if (s->logs > s->examples.nr)
			fprintf(f, ", ...");
		fputc('\n', f);
	}
	fprintf(f, "\nno recognized failure: %" PRIu64 " logs (%.1f%%)\n", sv->none,
		share(sv->none, sv->logs));
	if (sv->none)
		fprintf(f, "    (jostle run keys such an output on its last error or exception line, else its "
			"last line,\n    and marks the key guessed; a survey does not guess: --rules names "
			"them in both)\n");
	if (sv->none) {
		for (size_t g = 0; g < sv->ngroups; g++) {
			dbuf_reset(&b);
			group_line(&b, &sv->none_groups[g], &sv->all_groups[g], 8);
			fprintf(f, "    %s: ", sv->groups[g].name);
			put_text(f, dbuf_str(&b));
			fputc('\n', f);
		}
		fprintf(f, "    files:  ");
		for (size_t k = 0; k < sv->none_examples.nr; k++) {
			fprintf(f, "%s", k ? ", " : "");
			put_text(f, sv->none_examples.v[k]);
		}
		fprintf(f, "%s\n", sv->none > sv->none_examples.nr ? ", ..." : "");
	}
	if (sv->ndays) {
		struct survey_day *d = days_sorted(sv);
		fprintf(f, "\ntimeline (logs per day; #N = logs with signature #N)\n%-10s %6s %6s %6s",
			"day", "logs", "failed", "none");
		for (size_t k = 0; k < n && k < TIMELINE_SIGS; k++)
			fprintf(f, " %5s%zu", "#", k + 1);
		fputc('\n', f);
		for (size_t i = 0; i < sv->ndays; i++) {
			char day[16];
			timestamp_day_str(d[i].day, day);
			fprintf(f, "%-10s %6" PRIu64 " %6" PRIu64 " %6" PRIu64, day, d[i].logs,
				d[i].failed, d[i].none);
			for (size_t k = 0; k < n && k < TIMELINE_SIGS; k++) {
				uint64_t c = sig_on_day(sigs[k], day);
				if (c)
					fprintf(f, " %6" PRIu64, c);
				else
					fprintf(f, " %6s", ".");
			}
			fputc('\n', f);
		}
		free(d);
	}
	if (sv->unreadable)
		fprintf(f, "\nunreadable: %" PRIu64 " files (listed on stderr)\n", sv->unreadable);
	dbuf_release(&b);
	free(sigs);
}

/* ---- Markdown ------------------------------------------------------- */

static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '|')
			fputs("\\|", f);
		else if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '&')
			fputs("&amp;", f);
		else if (c == '`' || c == '*' || c == '_' || c == '[' || c == ']' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fputc(' ', f);
		else
			fputc(c, f);
	}
}

static void write_md(const struct survey *sv, FILE *f)
{
	size_t n;
	struct survey_sig **sigs = survey_sorted(sv, &n);
	struct dbuf b;
	dbuf_init(&b, 1 << 20);
	span_line(sv, &b);
	fprintf(f, "## CI log survey\n\n%" PRIu64 " logs", sv->logs);
	if (b.len)
		fprintf(f, " (%s)", dbuf_str(&b));
	fprintf(f, ": %" PRIu64 " with a recognized failure, %" PRIu64 " without, %" PRIu64
		" unreadable.", sv->failed, sv->none, sv->unreadable);
	if (sv->has_since)
		fprintf(f, " %" PRIu64 " before --since left out.", sv->before_since);
	fprintf(f, " A log counts once per distinct signature; share is of all logs.\n\n");
	fprintf(f, "| # | signature | kind | logs | share | first seen | last seen |");
	for (size_t g = 0; g < sv->ngroups; g++) {
		fputc(' ', f);
		md_cell(f, sv->groups[g].name);
		fputs(" |", f);
	}
	fprintf(f, " tests | examples |\n|---|---|---|---:|---:|---|---|");
	for (size_t g = 0; g < sv->ngroups; g++)
		fputs("---|", f);
	fputs("---|---|\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct survey_sig *s = sigs[i];
		char a[32], e[32];
		when(s->first, a, sizeof(a));
		when(s->last, e, sizeof(e));
		fprintf(f, "| %zu | `%s` ", i + 1, s->id);
		dbuf_reset(&b);
		escape_md_code(&b, s->key, strlen(s->key), true);
		fwrite(dbuf_str(&b), 1, b.len, f);
		for (size_t k = 0; k < s->frames.nr; k++) {
			fputs(k ? " < " : " @ ", f);
			md_cell(f, s->frames.v[k]);
		}
		fprintf(f, " | %s | %" PRIu64 " | %.1f%% | %s | %s |", s->kind, s->logs,
			share(s->logs, sv->logs), a, e);
		for (size_t g = 0; g < sv->ngroups; g++) {
			dbuf_reset(&b);
			group_line(&b, &s->groups[g], &sv->all_groups[g], 8);
			fputc(' ', f);
			md_cell(f, dbuf_str(&b));
			fputs(" |", f);
		}
		dbuf_reset(&b);
		counter_line(&b, &s->tests, 5);
		fputc(' ', f);
		md_cell(f, dbuf_str(&b));
		fputs(" | ", f);
		for (size_t k = 0; k < s->examples.nr; k++) {
			if (k)
				fputs("<br>", f);
			md_cell(f, s->examples.v[k]);
		}
		fputs(" |\n", f);
	}
	fprintf(f, "| | *no recognized failure* | | %" PRIu64 " | %.1f%% | | |", sv->none,
		share(sv->none, sv->logs));
	for (size_t g = 0; g < sv->ngroups; g++) {
		dbuf_reset(&b);
		group_line(&b, &sv->none_groups[g], &sv->all_groups[g], 8);
		fputc(' ', f);
		md_cell(f, dbuf_str(&b));
		fputs(" |", f);
	}
	fputs(" | ", f);
	for (size_t k = 0; k < sv->none_examples.nr; k++) {
		if (k)
			fputs("<br>", f);
		md_cell(f, sv->none_examples.v[k]);
	}
	fputs(" |\n", f);
	if (sv->ndays) {
		struct survey_day *d = days_sorted(sv);
		fprintf(f, "\n### Timeline\n\n| day | logs | failed | none |");
		for (size_t k = 0; k < n && k < TIMELINE_SIGS; k++)
			fprintf(f, " #%zu |", k + 1);
		fprintf(f, "\n|---|---:|---:|---:|");
		for (size_t k = 0; k < n && k < TIMELINE_SIGS; k++)
			fputs("---:|", f);
		fputc('\n', f);
		for (size_t i = 0; i < sv->ndays; i++) {
			char day[16];
			timestamp_day_str(d[i].day, day);
			fprintf(f, "| %s | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " |", day, d[i].logs,
				d[i].failed, d[i].none);
			for (size_t k = 0; k < n && k < TIMELINE_SIGS; k++)
				fprintf(f, " %" PRIu64 " |", sig_on_day(sigs[k], day));
			fputc('\n', f);
		}
		free(d);
	}
	dbuf_release(&b);
	free(sigs);
}

/* ---- HTML ----------------------------------------------------------- */

/* HTML text from a log: the run report's escaping (escape.h). */
static void html(FILE *f, const char *s)
{
	struct dbuf b;
	dbuf_init(&b, (size_t)1 << 24);
	escape_html(&b, s, strlen(s));
	fwrite(dbuf_str(&b), 1, b.len, f);
	dbuf_release(&b);
}

/* A counter as a table cell, one "value (n)" per line. */
static void html_counter_cell(FILE *f, const struct survey_counter *c,
			      const struct survey_counter *all, size_t top, const char *cls)
{
	size_t n;
	struct survey_count **v = survey_counter_sorted(c, &n);
	fprintf(f, "<td class=%s>", cls);
	for (size_t i = 0; i < n && i < top; i++) {
		if (i)
			fputs("<br>", f);
		html(f, v[i]->name);
		fprintf(f, " <b>%" PRIu64 "</b>", v[i]->n);
		if (all)
			fprintf(f, " of %" PRIu64, counter_get(all, v[i]->name));
	}
	if (n > top)
		fprintf(f, "<br>+%zu more", n - top);
	if (c->other)
		fprintf(f, "<br>other <b>%" PRIu64 "</b>", c->other);
	if (all && n == 1 && !c->other && strcmp(v[0]->name, "-") &&
	    all->nr - (counter_get(all, "-") ? 1 : 0) > 1) {
		fputs("<br><em>only ", f);
		html(f, v[0]->name);
		fputs("</em>", f);
	}
	fputs("</td>", f);
	free(v);
}

/* Logs per day as inline SVG bars: failed (red) under unrecognized (grey). */
static void html_timeline_svg(FILE *f, const struct survey *sv, const struct survey_day *d)
{
	uint64_t max = 1;
	for (size_t i = 0; i < sv->ndays; i++)
		if (d[i].logs > max)
			max = d[i].logs;
	int bw = sv->ndays > 60 ? 6 : 14, h = 80, w = (int)sv->ndays * (bw + 2) + 2;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\">", w, h + 2);
	for (size_t i = 0; i < sv->ndays; i++) {
		char day[16];
		timestamp_day_str(d[i].day, day);
		int x = 2 + (int)i * (bw + 2);
		int hf = (int)((double)d[i].failed * h / (double)max + 0.5);
		int hn = (int)((double)d[i].none * h / (double)max + 0.5);
		fprintf(f, "<g><title>%s: %" PRIu64 " logs, %" PRIu64 " failed</title>"
			"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#c0392b\"/>"
			"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#bbb\"/></g>",
			day, d[i].logs, d[i].failed, x, h - hf + 1, bw, hf, x, h - hf - hn + 1, bw, hn);
	}
	fputs("</svg>\n", f);
}

static void write_html(const struct survey *sv, FILE *f)
{
	size_t n;
	struct survey_sig **sigs = survey_sorted(sv, &n);
	struct dbuf b;
	dbuf_init(&b, 1 << 20);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
	      "<title>jostle survey</title>\n<style>\n"
	      "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}\n"
	      "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top;text-align:left}\n"
	      "th{background:#f3f3f3}td.n{text-align:right}td.d{white-space:nowrap}td.t{font-size:12px;overflow-wrap:anywhere;min-width:18em}\n"
	      "td.g{font-size:13px;white-space:nowrap}code{font:12px ui-monospace,monospace;white-space:pre-wrap;word-break:break-all}\n"
	      ".bar{display:inline-block;height:10px;background:#c0392b;vertical-align:middle}\n"
	      "</style></head><body>\n<h1>CI log survey</h1>\n", f);
	span_line(sv, &b);
	fprintf(f, "<p>%" PRIu64 " logs", sv->logs);
	if (b.len) {
		fputs(" (", f);
		html(f, dbuf_str(&b));
		fputc(')', f);
	}
	fprintf(f, ": %" PRIu64 " with a recognized failure, %" PRIu64 " without, %" PRIu64
		" unreadable. A log counts once per distinct signature; share is of all logs.</p>\n",
		sv->failed, sv->none, sv->unreadable);
	fputs("<table><tr><th>#</th><th>signature</th><th>kind</th><th>logs</th><th>share</th>"
	      "<th>first seen</th><th>last seen</th>", f);
	for (size_t g = 0; g < sv->ngroups; g++) {
		fputs("<th>", f);
		html(f, sv->groups[g].name);
		fputs("</th>", f);
	}
	fputs("<th>tests</th><th>examples</th></tr>\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct survey_sig *s = sigs[i];
		char a[32], e[32];
		when(s->first, a, sizeof(a));
		when(s->last, e, sizeof(e));
		fprintf(f, "<tr><td class=n>%zu</td><td><code>%s</code> <code>", i + 1, s->id);
		html(f, s->key);
		for (size_t k = 0; k < s->frames.nr; k++) {
			fputs(k ? " &lt; " : " @ ", f);
			html(f, s->frames.v[k]);
		}
		fputs("</code><br><small>", f);
		html(f, s->key_line);
		fprintf(f, "</small></td><td>%s</td><td class=n>%" PRIu64 "</td><td class=n>%.1f%% "
			"<span class=bar style=\"width:%dpx\"></span></td><td class=d>%s</td><td class=d>%s</td>",
			s->kind, s->logs, share(s->logs, sv->logs),
			(int)(share(s->logs, sv->logs) + 0.5), a, e);
		for (size_t g = 0; g < sv->ngroups; g++)
			html_counter_cell(f, &s->groups[g], &sv->all_groups[g], 8, "g");
		html_counter_cell(f, &s->tests, NULL, 5, "t");
		fputs("<td class=t>", f);
		for (size_t k = 0; k < s->examples.nr; k++) {
			if (k)
				fputs("<br>", f);
			html(f, s->examples.v[k]);
		}
		fputs("</td></tr>\n", f);
	}
	fprintf(f, "<tr><td></td><td><em>no recognized failure</em></td><td></td><td class=n>%" PRIu64
		"</td><td class=n>%.1f%%</td><td></td><td></td>", sv->none, share(sv->none, sv->logs));
	for (size_t g = 0; g < sv->ngroups; g++)
		html_counter_cell(f, &sv->none_groups[g], &sv->all_groups[g], 8, "g");
	fputs("<td></td><td class=t>", f);
	for (size_t k = 0; k < sv->none_examples.nr; k++) {
		if (k)
			fputs("<br>", f);
		html(f, sv->none_examples.v[k]);
	}
	fputs("</td></tr>\n</table>\n", f);
	if (sv->ndays) {
		struct survey_day *d = days_sorted(sv);
		fputs("<h2>Timeline</h2>\n<p>Logs per day (UTC): with a recognized failure in red, without in grey.</p>\n", f);
		html_timeline_svg(f, sv, d);
		fputs("<table><tr><th>day</th><th>logs</th><th>failed</th><th>none</th>", f);
		for (size_t k = 0; k < n && k < TIMELINE_SIGS; k++)
			fprintf(f, "<th>#%zu</th>", k + 1);
		fputs("</tr>\n", f);
		for (size_t i = 0; i < sv->ndays; i++) {
			char day[16];
			timestamp_day_str(d[i].day, day);
			fprintf(f, "<tr><td>%s</td><td class=n>%" PRIu64 "</td><td class=n>%" PRIu64
				"</td><td class=n>%" PRIu64 "</td>", day, d[i].logs, d[i].failed, d[i].none);
			for (size_t k = 0; k < n && k < TIMELINE_SIGS; k++)
				fprintf(f, "<td class=n>%" PRIu64 "</td>", sig_on_day(sigs[k], day));
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
		free(d);
	}
	if (sv->errors.nr) {
		fputs("<h2>Unreadable files</h2>\n<ul>\n", f);
		for (size_t i = 0; i < sv->errors.nr; i++) {
			fputs("<li>", f);
			html(f, sv->errors.v[i]);
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
	fputs("</body></html>\n", f);
	dbuf_release(&b);
	free(sigs);
}

/* ---- JSON ----------------------------------------------------------- */

static void json_counter(struct dbuf *b, const char *key, const struct survey_counter *c)
{
	size_t n;
	struct survey_count **v = survey_counter_sorted(c, &n);
	jsonw_key(b, key);
	dbuf_addc(b, '{');
	for (size_t i = 0; i < n; i++) {
		if (i)
			dbuf_addc(b, ',');
		jsonw_kuint(b, v[i]->name, v[i]->n);
	}
	if (c->other) {
		if (n)
			dbuf_addc(b, ',');
		jsonw_kuint(b, "(other)", c->other);
	}
	dbuf_addc(b, '}');
	free(v);
}

static void json_time(struct dbuf *b, const char *key, int64_t t, bool have)
{
	char buf[32];
	timestamp_iso(t, buf, sizeof(buf));
	jsonw_kstr(b, key, have ? buf : NULL);
}

static void json_groups(struct dbuf *b, const struct survey *sv, const struct survey_counter *c)
{
	jsonw_key(b, "groups");
	dbuf_addc(b, '{');
	for (size_t g = 0; g < sv->ngroups; g++) {
		if (g)
			dbuf_addc(b, ',');
		json_counter(b, sv->groups[g].name, &c[g]);
	}
	dbuf_addc(b, '}');
}

/* One count of the JSON timeline: signature (by rank) on a day (by index). */
struct cell {
	size_t day, sig;
	uint64_t n;
};

static int cmp_cell(const void *a, const void *b)
{
	const struct cell *x = a, *y = b;
	if (x->day != y->day)
		return x->day < y->day ? -1 : 1;
	return x->sig < y->sig ? -1 : x->sig > y->sig;
}

static int write_json(const struct survey *sv, FILE *f)
{
	size_t n;
	struct survey_sig **sigs = survey_sorted(sv, &n);
	struct dbuf b;
	dbuf_init(&b, (size_t)1 << 34);
	dbuf_addc(&b, '{');
	jsonw_kint(&b, "v", 1);
	dbuf_addc(&b, ',');
	jsonw_kstr(&b, "jostle", JOSTLE_VERSION);
	dbuf_addc(&b, ',');
	jsonw_kuint(&b, "logs", sv->logs);
	dbuf_addc(&b, ',');
	jsonw_kuint(&b, "bytes", sv->bytes);
	dbuf_addc(&b, ',');
	jsonw_kuint(&b, "failed", sv->failed);
	dbuf_addc(&b, ',');
	jsonw_kuint(&b, "none", sv->none);
	dbuf_addc(&b, ',');
	jsonw_kuint(&b, "unreadable", sv->unreadable);
	dbuf_addc(&b, ',');
	jsonw_kuint(&b, "before_since", sv->before_since);
	dbuf_addc(&b, ',');
	jsonw_kuint(&b, "dropped_signatures", sv->dropped_sigs);
	dbuf_addc(&b, ',');
	json_time(&b, "first", sv->first, sv->logs > 0);
	dbuf_addc(&b, ',');
	json_time(&b, "last", sv->last, sv->logs > 0);
	dbuf_addc(&b, ',');
	jsonw_key(&b, "group_by");
	dbuf_addc(&b, '{');
	for (size_t g = 0; g < sv->ngroups; g++) {
		if (g)
			dbuf_addc(&b, ',');
		jsonw_kstr(&b, sv->groups[g].name, sv->groups[g].pattern);
	}
	dbuf_adds(&b, "},");
	json_groups(&b, sv, sv->all_groups);
	dbuf_addc(&b, ',');
	jsonw_key(&b, "signatures");
	dbuf_addc(&b, '[');
	for (size_t i = 0; i < n; i++) {
		const struct survey_sig *s = sigs[i];
		if (i)
			dbuf_addc(&b, ',');
		dbuf_addc(&b, '{');
		jsonw_kstr(&b, "id", s->id);
		dbuf_addc(&b, ',');
		jsonw_kstr(&b, "kind", s->kind);
		dbuf_addc(&b, ',');
		jsonw_kstr(&b, "key", s->key);
		dbuf_addc(&b, ',');
		jsonw_kstr(&b, "key_line", s->key_line);
		dbuf_addc(&b, ',');
		jsonw_kstrs(&b, "frames", s->frames.v, s->frames.nr);
		dbuf_addc(&b, ',');
		jsonw_kstr(&b, "extractor", s->extractor);
		dbuf_addc(&b, ',');
		jsonw_kuint(&b, "logs", s->logs);
		dbuf_addc(&b, ',');
		jsonw_kuint(&b, "primary", s->primary);
		dbuf_addc(&b, ',');
		jsonw_kuint(&b, "occurrences", s->occurrences);
		dbuf_addc(&b, ',');
		jsonw_kdbl(&b, "share", sv->logs ? (double)s->logs / (double)sv->logs : 0.0);
		dbuf_addc(&b, ',');
		json_time(&b, "first", s->first, true);
		dbuf_addc(&b, ',');
		json_time(&b, "last", s->last, true);
		dbuf_addc(&b, ',');
		json_groups(&b, sv, s->groups);
		dbuf_addc(&b, ',');
		json_counter(&b, "tests", &s->tests);
		dbuf_addc(&b, ',');
		json_counter(&b, "days", &s->days);
		dbuf_addc(&b, ',');
		jsonw_kstrs(&b, "examples", s->examples.v, s->examples.nr);
		dbuf_addc(&b, '}');
	}
	dbuf_adds(&b, "],");
	jsonw_key(&b, "unrecognized");
	dbuf_addc(&b, '{');
	jsonw_kuint(&b, "logs", sv->none);
	dbuf_addc(&b, ',');
	json_groups(&b, sv, sv->none_groups);
	dbuf_addc(&b, ',');
	jsonw_kstrs(&b, "examples", sv->none_examples.v, sv->none_examples.nr);
	dbuf_adds(&b, "},");
	jsonw_key(&b, "timeline");
	dbuf_addc(&b, '[');
	struct survey_day *d = days_sorted(sv);
	/* (day, signature rank, logs) for every signature's days, in output order */
	struct cell *cells = NULL;
	size_t ncells = 0, acells = 0;
	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j < sigs[k]->days.nr; j++) {
			const char *ds = sigs[k]->days.v[j].name;
			int64_t t;
			if (!timestamp_parse(ds, strlen(ds), false, &t))
				continue;
			int64_t day = timestamp_day(t);
			size_t lo = 0, hi = sv->ndays;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (d[mid].day < day)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo >= sv->ndays || d[lo].day != day)
				continue;
			ALLOC_GROW(cells, ncells + 1, acells);
			cells[ncells++] = (struct cell){ .day = lo, .sig = k, .n = sigs[k]->days.v[j].n };
		}
	if (ncells)
		qsort(cells, ncells, sizeof(*cells), cmp_cell);
	size_t ci = 0;
	for (size_t i = 0; i < sv->ndays; i++) {
		char day[16];
		timestamp_day_str(d[i].day, day);
		if (i)
			dbuf_addc(&b, ',');
		dbuf_addc(&b, '{');
		jsonw_kstr(&b, "day", day);
		dbuf_addc(&b, ',');
		jsonw_kuint(&b, "logs", d[i].logs);
		dbuf_addc(&b, ',');
		jsonw_kuint(&b, "failed", d[i].failed);
		dbuf_addc(&b, ',');
		jsonw_kuint(&b, "none", d[i].none);
		dbuf_addc(&b, ',');
		jsonw_key(&b, "signatures");
		dbuf_addc(&b, '{');
		for (bool first = true; ci < ncells && cells[ci].day == i; ci++, first = false) {
			if (!first)
				dbuf_addc(&b, ',');
			jsonw_kuint(&b, sigs[cells[ci].sig]->id, cells[ci].n);
		}
		dbuf_adds(&b, "}}");
	}
	free(cells);
	free(d);
	dbuf_adds(&b, "],");
	jsonw_kstrs(&b, "errors", sv->errors.v, sv->errors.nr);
	dbuf_adds(&b, "}\n");
	int rc = fwrite(b.buf, 1, b.len, f) == b.len ? 0 : -1;
	dbuf_release(&b);
	free(sigs);
	return rc;
}

int survey_write(const struct survey *sv, enum survey_format fmt, FILE *out)
{
	switch (fmt) {
	case SURVEY_TEXT:
		write_text(sv, out);
		break;
	case SURVEY_MD:
		write_md(sv, out);
		break;
	case SURVEY_HTML:
		write_html(sv, out);
		break;
	case SURVEY_JSON:
		return write_json(sv, out);
	}
	return ferror(out) ? -1 : 0;
}
