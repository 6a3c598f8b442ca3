/*
 * findings.c: the findings of `jostle localize` as text, JSON, Markdown
 * and one self-contained HTML page (see findings.h). The page follows the
 * series report's rules: no script, no remote load, a
 * Content-Security-Policy that forbids both, every name escaped; each
 * site's effect is drawn as its interval on a common axis from -1 to +1.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "localize/findings.h"
#include "util/escape.h"
#include "util/fileio.h"
#include "util/jsonw.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define REPORT_TOP 25      /* sites in report.md and report.html */

bool findings_pair_matters(const struct effect_pair *p)
{
	return p->strata && p->lo > 0;
}

bool findings_pair_neither_alone(const struct effect_pair *p)
{
	return p->a_lo <= 0 && p->a_hi >= 0 && p->b_lo <= 0 && p->b_hi >= 0;
}

static double rate(uint64_t k, uint64_t n)
{
	return n ? (double)k / (double)n : 0;
}

/* The command as a shell would take it back (single quotes where needed). */
static void add_argv(struct dbuf *b, char *const *argv)
{
	for (size_t i = 0; argv[i]; i++) {
		const char *a = argv[i];
		bool plain = *a != '\0';
		for (const char *c = a; *c && plain; c++)
			plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%", *c) != NULL;
		if (i)
			dbuf_addc(b, ' ');
		if (plain) {
			dbuf_adds(b, a);
			continue;
		}
		dbuf_addc(b, '\'');
		for (const char *c = a; *c; c++)
			if (*c == '\'')
				dbuf_adds(b, "'\\''");
			else
				dbuf_addc(b, *c);
		dbuf_addc(b, '\'');
	}
}

static char *replay_command(const struct findings *f)
{
	struct dbuf b;

	if (!f->replay)
		return NULL;
	dbuf_init(&b, 1 << 20);
	dbuf_addf(&b, "jostle run --replay %s/%s -- ", f->dir, f->replay);
	add_argv(&b, f->argv);
	return dbuf_detach(&b, NULL);
}

static const char *direction(const struct effect *e)
{
	if (e->lo > 0)
		return "raises";
	if (e->hi < 0)
		return "lowers";
	return "unclear";
}

/* ---- terminal ---------------------------------------------------------- */

void findings_print(const struct findings *f, FILE *out, size_t top)
{
	char what[768], w2[768];

	fprintf(out, "jostle: localize: %zu call sites; %" PRIu64 " discovery runs under sync chaos (%" PRIu64
		" failed), %" PRIu64 " runs with delays at chosen sites in %zu rounds (%" PRIu64
		" failed); stopped: %s\n", f->cat->n, f->discover_runs, f->discover_fails, f->round_runs,
		f->nrounds, f->round_fails, f->stop);
	if (!f->nrank) {
		fprintf(out, "  no site was tested\n");
		return;
	}
	if (!f->discover_fails && !f->round_fails) {
		fprintf(out, "  no run failed: nothing to localize (more runs, --time, or a higher "
			"--chaos-level may make it fail)\n");
		return;
	}
	if (f->discover_fails == f->discover_runs && f->round_fails == f->round_runs) {
		fprintf(out, "  every run failed, with and without delays: no site's delay changed the "
			"outcome (the sites are in %s/localize.json)\n", f->dir);
		return;
	}
	fprintf(out, "  rank  effect [95%% interval]   fails on/off  site\n");
	for (size_t i = 0; i < f->nrank && i < top; i++) {
		const struct effect *e = &f->rank[i].e;
		catalog_describe(&f->cat->v[f->rank[i].site], what, sizeof(what));
		fprintf(out, "  %4zu  %+.2f [%+.2f, %+.2f]   %3.0f%% / %3.0f%%  %s\n", i + 1, e->diff, e->lo,
			e->hi, 100 * rate(e->k_on, e->n_on), 100 * rate(e->k_off, e->n_off), what);
	}
	if (f->nrank > top)
		fprintf(out, "  (%zu more sites in %s/localize.json)\n", f->nrank - top, f->dir);
	bool creations = true;
	for (size_t i = 0; i < f->nrank && creations; i++)
		creations = !strcmp(f->cat->v[f->rank[i].site].call, "pthread_create");
	if (creations)
		fprintf(out, "  only thread creations were interposed: the threads synchronize without "
			"pthread calls (atomics, spins), so the ranking can only say whose late start "
			"matters\n");
	if (f->have_pair) {
		const struct effect_pair *p = &f->pair;
		catalog_describe(&f->cat->v[p->a], what, sizeof(what));
		catalog_describe(&f->cat->v[p->b], w2, sizeof(w2));
		if (findings_pair_matters(p))
			fprintf(out, "  pair: delays at both %s and %s: %+.2f [%+.2f, %+.2f] beyond each alone%s\n",
				what, w2, p->inter, p->lo, p->hi,
				findings_pair_neither_alone(p) ? " (neither alone matters)" : "");
		else
			fprintf(out, "  no pair of the leading sites matters together beyond each alone "
				"(largest interaction %+.2f [%+.2f, %+.2f])\n", p->inter, p->lo, p->hi);
	}
	char *cmd = replay_command(f);
	if (cmd) {
		fprintf(out, "  a failing run with site 1 delayed: %s\n", cmd);
		free(cmd);
	}
	fprintf(out, "  findings: %s/localize.json\n", f->dir);
}

/* ---- localize.json ----------------------------------------------------- */

static void json_site(struct dbuf *b, const struct findings *f, size_t rank, const struct lsite *s,
		      const struct effect *e)
{
	char off[32];

	snprintf(off, sizeof(off), "0x%" PRIx64, s->off);
	dbuf_addc(b, '{');
	if (rank)
		jsonw_kuint(b, "rank", rank);
	jsonw_kstr(b, "call", s->call);
	jsonw_kstr(b, "function", s->fn);
	if (s->start_fn)
		jsonw_kstr(b, "thread_start", s->start_fn);
	jsonw_kstr(b, "file", s->src);
	jsonw_kint(b, "line", s->line);
	jsonw_kstr(b, "module", s->module);
	jsonw_kstr(b, "offset", off);
	jsonw_kuint(b, "calls", s->calls);
	jsonw_kuint(b, "procs", s->procs);
	if (e) {
		jsonw_kdbl(b, "effect", e->diff);
		jsonw_kdbl(b, "lo", e->lo);
		jsonw_kdbl(b, "hi", e->hi);
		jsonw_kuint(b, "runs_on", e->n_on);
		jsonw_kuint(b, "fails_on", e->k_on);
		jsonw_kuint(b, "runs_off", e->n_off);
		jsonw_kuint(b, "fails_off", e->k_off);
		jsonw_kuint(b, "rounds", e->strata);
	}
	(void)f;
	dbuf_addc(b, '}');
}

static int write_json(const struct findings *f)
{
	struct dbuf b;
	char seed[32];
	bool *ranked = xcalloc(f->cat->n ? f->cat->n : 1, sizeof(*ranked));

	dbuf_init(&b, 256u << 20);
	snprintf(seed, sizeof(seed), "0x%016" PRIx64, f->seed);
	dbuf_addc(&b, '{');
	jsonw_kint(&b, "v", 1);
	size_t argc = 0;
	while (f->argv[argc])
		argc++;
	jsonw_kstrs(&b, "argv", f->argv, argc);
	jsonw_kstr(&b, "seed", seed);
	jsonw_kstr(&b, "stop", f->stop);
	jsonw_kdbl(&b, "elapsed_s", f->elapsed_s);
	jsonw_kdbl(&b, "delays_per_site", f->delays);
	jsonw_key(&b, "discover");
	dbuf_addc(&b, '{');
	jsonw_kuint(&b, "runs", f->discover_runs);
	jsonw_kuint(&b, "fails", f->discover_fails);
	jsonw_kuint(&b, "sites", f->cat->n);
	dbuf_addc(&b, '}');
	jsonw_key(&b, "rounds");
	dbuf_addc(&b, '[');
	for (size_t i = 0; i < f->nrounds; i++) {
		char dir[32];
		snprintf(dir, sizeof(dir), "round-%zu", i + 1);
		if (i)
			dbuf_addc(&b, ',');
		dbuf_addc(&b, '{');
		jsonw_kstr(&b, "dir", dir);
		jsonw_kuint(&b, "runs", f->rounds[i].runs);
		jsonw_kuint(&b, "fails", f->rounds[i].fails);
		jsonw_kuint(&b, "candidates", f->rounds[i].candidates);
		jsonw_kdbl(&b, "density", f->rounds[i].density);
		dbuf_addc(&b, '}');
	}
	dbuf_addc(&b, ']');
	jsonw_key(&b, "sites");
	dbuf_addc(&b, '[');
	for (size_t i = 0; i < f->nrank; i++) {
		if (i)
			dbuf_addc(&b, ',');
		json_site(&b, f, i + 1, &f->cat->v[f->rank[i].site], &f->rank[i].e);
		ranked[f->rank[i].site] = true;
	}
	dbuf_addc(&b, ']');
	/* sites seen but never delayed (beyond --max-sites) */
	jsonw_key(&b, "untested");
	dbuf_addc(&b, '[');
	bool first = true;
	for (size_t i = 0; i < f->cat->n; i++) {
		if (ranked[i])
			continue;
		if (!first)
			dbuf_addc(&b, ',');
		first = false;
		json_site(&b, f, 0, &f->cat->v[i], NULL);
	}
	dbuf_addc(&b, ']');
	if (f->have_pair) {
		const struct effect_pair *p = &f->pair;
		jsonw_key(&b, "pair");
		dbuf_addc(&b, '{');
		jsonw_key(&b, "a");
		json_site(&b, f, 0, &f->cat->v[p->a], NULL);
		jsonw_key(&b, "b");
		json_site(&b, f, 0, &f->cat->v[p->b], NULL);
		jsonw_kdbl(&b, "interaction", p->inter);
		jsonw_kdbl(&b, "lo", p->lo);
		jsonw_kdbl(&b, "hi", p->hi);
		jsonw_kbool(&b, "matters", findings_pair_matters(p));
		jsonw_kbool(&b, "neither_alone", findings_pair_neither_alone(p));
		static const char *const cell[4] = { "both", "a_only", "b_only", "neither" };
		for (int c = 0; c < 4; c++) {
			jsonw_key(&b, cell[c]);
			dbuf_addf(&b, "{\"runs\":%" PRIu64 ",\"fails\":%" PRIu64 "}", p->n[c], p->k[c]);
		}
		dbuf_addc(&b, '}');
	}
	jsonw_kstr(&b, "replay", f->replay);
	dbuf_adds(&b, "}\n");
	char *path = xasprintf("%s/localize.json", f->dir);
	int rc = fileio_write_file(path, b.buf, b.len);
	free(path);
	free(ranked);
	dbuf_release(&b);
	return rc;
}

/* ---- report.md ----------------------------------------------------------- */

static void md_site(struct dbuf *b, const struct lsite *s)
{
	char what[768];
	catalog_describe(s, what, sizeof(what));
	escape_md_code(b, what, strlen(what), true);
}

static void md_summary(struct dbuf *b, const struct findings *f)
{
	dbuf_addf(b, "%zu call sites seen in %" PRIu64 " discovery runs under sync chaos (%" PRIu64
		  " failed); %" PRIu64 " runs with delays at chosen sites in %zu rounds (%" PRIu64
		  " failed); stopped: %s; %.1f s.\n\n", f->cat->n, f->discover_runs, f->discover_fails,
		  f->round_runs, f->nrounds, f->round_fails, f->stop, f->elapsed_s);
}

static int write_md(const struct findings *f)
{
	struct dbuf b;
	char what[768], w2[768];

	dbuf_init(&b, 64u << 20);
	dbuf_adds(&b, "# jostle localize: where timing decides\n\nCommand: ");
	struct dbuf cmd;
	dbuf_init(&cmd, 1 << 20);
	add_argv(&cmd, f->argv);
	escape_md_code(&b, dbuf_str(&cmd), cmd.len, false);
	dbuf_release(&cmd);
	dbuf_adds(&b, "\n\n");
	md_summary(&b, f);
	dbuf_adds(&b, "Effect: how much a delay at the site changes the failure rate (runs with the "
		  "site delayed minus runs without, in the rounds that drew it at random), with its "
		  "95% interval.\n\n");
	dbuf_adds(&b, "| rank | site | effect | 95% interval | failed with | failed without |\n"
		  "| ---: | --- | ---: | --- | ---: | ---: |\n");
	for (size_t i = 0; i < f->nrank && i < REPORT_TOP; i++) {
		const struct effect *e = &f->rank[i].e;
		dbuf_addf(&b, "| %zu | ", i + 1);
		md_site(&b, &f->cat->v[f->rank[i].site]);
		dbuf_addf(&b, " | %+.2f | [%+.2f, %+.2f] | %" PRIu64 "/%" PRIu64 " | %" PRIu64 "/%" PRIu64 " |\n",
			  e->diff, e->lo, e->hi, e->k_on, e->n_on, e->k_off, e->n_off);
	}
	if (f->nrank > REPORT_TOP)
		dbuf_addf(&b, "\n%zu more sites in `localize.json`.\n", f->nrank - REPORT_TOP);
	if (f->have_pair) {
		const struct effect_pair *p = &f->pair;
		catalog_describe(&f->cat->v[p->a], what, sizeof(what));
		catalog_describe(&f->cat->v[p->b], w2, sizeof(w2));
		dbuf_adds(&b, "\n## The pair\n\n");
		escape_md_code(&b, what, strlen(what), false);
		dbuf_adds(&b, " and ");
		escape_md_code(&b, w2, strlen(w2), false);
		dbuf_addf(&b, ": interaction %+.2f [%+.2f, %+.2f] (failed: both %" PRIu64 "/%" PRIu64
			  ", first only %" PRIu64 "/%" PRIu64 ", second only %" PRIu64 "/%" PRIu64
			  ", neither %" PRIu64 "/%" PRIu64 "). %s\n", p->inter, p->lo, p->hi,
			  p->k[0], p->n[0], p->k[1], p->n[1], p->k[2], p->n[2], p->k[3], p->n[3],
			  !findings_pair_matters(p) ? "No pair of the leading sites matters together beyond each alone." :
			  findings_pair_neither_alone(p) ? "Together they matter; neither alone does." :
			  "Together they matter beyond each alone.");
	}
	char *rc = replay_command(f);
	if (rc) {
		dbuf_adds(&b, "\n## Replay\n\nA failing run with the leading site delayed:\n\n");
		escape_md_code(&b, rc, strlen(rc), false);
		dbuf_adds(&b, "\n");
		free(rc);
	}
	char *path = xasprintf("%s/report.md", f->dir);
	int r = fileio_write_file(path, b.buf, b.len);
	free(path);
	dbuf_release(&b);
	return r;
}

/* ---- report.html --------------------------------------------------------- */

static const char css[] =
	"body{margin:0;font:14px/1.45 system-ui,sans-serif;color:#1d2330;background:#f6f7f9}"
	"main{max-width:1100px;margin:0 auto;padding:24px}h1{font-size:22px}h2{font-size:17px;margin-top:28px}"
	"code{font:12px/1.4 ui-monospace,monospace}.meta{color:#5b6475}"
	"table{border-collapse:collapse;width:100%;background:#fff}"
	"th,td{border:1px solid #d8dde6;padding:5px 8px;text-align:left;vertical-align:middle}"
	"th{background:#eef1f5}td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"svg{display:block}";

static void esc(struct dbuf *b, const char *s)
{
	escape_html(b, s, strlen(s));
}

/* The interval [lo, hi] and the estimate on an axis from -1 to +1. */
static void bar(struct dbuf *b, const struct effect *e)
{
	const double w = 240, h = 16;
	double x0 = (e->lo + 1) / 2 * w, x1 = (e->hi + 1) / 2 * w, xm = (e->diff + 1) / 2 * w;
	const char *col = e->lo > 0 ? "#c62828" : e->hi < 0 ? "#2e7d32" : "#8a93a3";

	dbuf_addf(b, "<svg width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">"
		  "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#d8dde6\"/>"
		  "<rect x=\"%.1f\" y=\"5\" width=\"%.1f\" height=\"6\" fill=\"%s\" opacity=\"0.45\"/>"
		  "<rect x=\"%.1f\" y=\"2\" width=\"2\" height=\"12\" fill=\"%s\"/></svg>",
		  w, h, w, h, w / 2, w / 2, h, x0, x1 - x0 > 1 ? x1 - x0 : 1, col, xm - 1, col);
}

static int write_html(const struct findings *f)
{
	struct dbuf b, t;
	char what[768], w2[768];

	dbuf_init(&b, 64u << 20);
	dbuf_init(&t, 1 << 20);
	dbuf_adds(&b, "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
		  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		  "style-src 'unsafe-inline'; img-src data:\">"
		  "<title>jostle localize</title><style>");
	dbuf_adds(&b, css);
	dbuf_adds(&b, "</style></head><body><main><h1>jostle localize: where timing decides</h1>"
		  "<p class=\"meta\">Command: <code>");
	add_argv(&t, f->argv);
	esc(&b, dbuf_str(&t));
	dbuf_adds(&b, "</code></p><p class=\"meta\">");
	dbuf_reset(&t);
	md_summary(&t, f);
	esc(&b, dbuf_str(&t));
	dbuf_adds(&b, "</p><p class=\"meta\">Effect: how much a delay at the site changes the failure "
		  "rate, with its 95% interval (red: raises it, green: lowers it; the axis runs "
		  "from -1 to +1).</p><table><tr><th>rank</th><th>site</th><th>effect</th>"
		  "<th>interval</th><th></th><th>failed with</th><th>failed without</th></tr>");
	for (size_t i = 0; i < f->nrank && i < REPORT_TOP; i++) {
		const struct effect *e = &f->rank[i].e;
		catalog_describe(&f->cat->v[f->rank[i].site], what, sizeof(what));
		dbuf_addf(&b, "<tr><td class=\"n\">%zu</td><td><code>", i + 1);
		esc(&b, what);
		dbuf_addf(&b, "</code></td><td class=\"n\">%+.2f</td><td class=\"n\">[%+.2f, %+.2f]</td><td>",
			  e->diff, e->lo, e->hi);
		bar(&b, e);
		dbuf_addf(&b, "</td><td class=\"n\">%" PRIu64 "/%" PRIu64 "</td><td class=\"n\">%" PRIu64
			  "/%" PRIu64 " (%s)</td></tr>", e->k_on, e->n_on, e->k_off, e->n_off, direction(e));
	}
	dbuf_adds(&b, "</table>");
	if (f->have_pair) {
		const struct effect_pair *p = &f->pair;
		catalog_describe(&f->cat->v[p->a], what, sizeof(what));
		catalog_describe(&f->cat->v[p->b], w2, sizeof(w2));
		dbuf_adds(&b, "<h2>The pair</h2><p><code>");
		esc(&b, what);
		dbuf_adds(&b, "</code> and <code>");
		esc(&b, w2);
		dbuf_addf(&b, "</code>: interaction %+.2f [%+.2f, %+.2f]. %s</p>", p->inter, p->lo, p->hi,
			  !findings_pair_matters(p) ? "No pair of the leading sites matters together beyond each alone." :
			  findings_pair_neither_alone(p) ? "Together they matter; neither alone does." :
			  "Together they matter beyond each alone.");
		dbuf_addf(&b, "<table><tr><th>delayed at</th><th>failed</th></tr>"
			  "<tr><td>both</td><td class=\"n\">%" PRIu64 "/%" PRIu64 "</td></tr>"
			  "<tr><td>first only</td><td class=\"n\">%" PRIu64 "/%" PRIu64 "</td></tr>"
			  "<tr><td>second only</td><td class=\"n\">%" PRIu64 "/%" PRIu64 "</td></tr>"
			  "<tr><td>neither</td><td class=\"n\">%" PRIu64 "/%" PRIu64 "</td></tr></table>",
			  p->k[0], p->n[0], p->k[1], p->n[1], p->k[2], p->n[2], p->k[3], p->n[3]);
	}
	char *rc = replay_command(f);
	if (rc) {
		dbuf_adds(&b, "<h2>Replay</h2><p>A failing run with the leading site delayed:</p><p><code>");
		esc(&b, rc);
		dbuf_adds(&b, "</code></p>");
		free(rc);
	}
	dbuf_adds(&b, "</main></body></html>\n");
	char *path = xasprintf("%s/report.html", f->dir);
	int r = fileio_write_file(path, b.buf, b.len);
	free(path);
	dbuf_release(&b);
	dbuf_release(&t);
	return r;
}

int findings_write(const struct findings *f, bool reports)
{
	int rc = write_json(f);
	if (rc == 0 && reports)
		rc = write_md(f);
	if (rc == 0 && reports)
		rc = write_html(f);
	return rc;
}
