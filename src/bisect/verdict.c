/*
 * verdict.c: the table and the verdict (see verdict.h). One renderer for
 * both forms, so the terminal and the report cannot say different things.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bisect/verdict.h"
#include "results/stats.h"
#include "util/banned.h"

#define TOP_CANDIDATES 5

static void short_hash(const struct bstate *s, size_t i, char *out, size_t len)
{
	snprintf(out, len, "%.10s", s->repo->hash.v[i]);
}

static bool shown(const struct bstate *s, size_t i)
{
	return s->c[i].tested || s->c[i].skipped || s->post.p[i] >= 0.01 || i == 0 || i == s->repo->n;
}

static void row(const struct bstate *s, size_t i, bool md, struct dbuf *o)
{
	const struct bstate_commit *c = &s->c[i];
	char h[16], rate[16] = "", iv[40] = "", runs[24] = "", fails[24] = "";
	const char *role = i == 0 ? "good: " : i == s->repo->n ? "bad: " : "";

	short_hash(s, i, h, sizeof(h));
	if (c->skipped) {
		snprintf(runs, sizeof(runs), "did not build");
	} else if (c->tested && c->runs) {
		double lo, hi;
		stats_wilson(c->fails, c->runs, STATS_Z95, &lo, &hi);
		snprintf(runs, sizeof(runs), "%" PRIu64, c->runs);
		snprintf(fails, sizeof(fails), "%" PRIu64, c->fails);
		snprintf(rate, sizeof(rate), "%.1f%%", 100.0 * (double)c->fails / (double)c->runs);
		snprintf(iv, sizeof(iv), "[%.1f%%, %.1f%%]", 100 * lo, 100 * hi);
	} else {
		snprintf(runs, sizeof(runs), "-");
	}
	if (md)
		dbuf_addf(o, "| %zu | `%s` | %s | %s | %s | %s | %.3f | %s%s |\n", i, h, runs, fails, rate, iv,
			  s->post.p[i], role, s->repo->subject.v[i]);
	else
		dbuf_addf(o, "%5zu  %-10s %13s %6s %7s %-16s %7.3f   %s%.50s\n", i, h, runs, fails, rate, iv,
			  s->post.p[i], role, s->repo->subject.v[i]);
}

static void candidates(const struct bstate *s, bool md, struct dbuf *o)
{
	size_t n = s->repo->n, pick[TOP_CANDIDATES], np = 0;
	for (size_t t = 0; t < TOP_CANDIDATES; t++) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i <= n; i++) {
			bool used = false;
			for (size_t u = 0; u < np; u++)
				used |= pick[u] == i;
			if (!used && (best == SIZE_MAX || s->post.p[i] > s->post.p[best]))
				best = i;
		}
		if (best == SIZE_MAX || s->post.p[best] < 0.001)
			break;
		pick[np++] = best;
	}
	dbuf_addf(o, "%sthe best candidates:\n", md ? "\n" : "");
	for (size_t u = 0; u < np; u++) {
		char h[16];
		short_hash(s, pick[u], h, sizeof(h));
		dbuf_addf(o, md ? "- `%s` (#%zu) %.3f%s %s\n" : "  %s (#%zu) %.3f%s %s\n", h, pick[u], s->post.p[pick[u]],
			  pick[u] == 0 ? " (the good revision: it fails too)" : "", s->repo->subject.v[pick[u]]);
	}
}

static void sentence(const struct bstate *s, bool md, struct dbuf *o)
{
	char h[16], h2[16];
	short_hash(s, s->hi, h, sizeof(h));
	short_hash(s, s->lo, h2, sizeof(h2));
	const char *b = md ? "**" : "";
	switch (s->end) {
	case BE_FOUND:
		dbuf_addf(o, "%sculprit: %s%s (#%zu of %zu) \"%s\", probability %.3f%s\n", b, h, b, s->hi,
			  s->repo->n, s->repo->subject.v[s->hi], s->block_p,
			  s->block_p >= s->confidence ? "" : " (below the confidence asked)");
		dbuf_addf(o, "failure rate before it %.2g%%, from it on %.2g%% (posterior means)\n",
			  100 * s->post.b_mean, 100 * s->post.r_mean);
		return;
	case BE_GOOD_FAILS:
		dbuf_addf(o, "%sthe good revision fails too%s (probability %.3f): the failure is older than "
			  "--good; bisect from an older good revision\n", b, b, s->block_p);
		return;
	case BE_SKIPPED:
		dbuf_addf(o, "%sthe culprit is one of %zu commits%s %s..%s (probability %.3f): all but the last "
			  "did not build, so runs cannot tell them apart\n", b, s->hi - s->lo + 1, b, h2, h,
			  s->block_p);
		return;
	case BE_NEVER_FAILED:
		dbuf_addf(o, "%snot decisive%s: the bad revision did not fail within the budget; give more "
			  "--runs or --time, or pressure (--chaos auto)\n", b, b);
		return;
	case BE_BUDGET:
		dbuf_addf(o, "%snot decisive%s: the budget was spent before one commit held %.2f\n", b, b,
			  s->confidence);
		candidates(s, md, o);
		return;
	case BE_STUCK:
		dbuf_addf(o, "%snot decisive%s: no commit left to test tells the candidates apart\n", b, b);
		candidates(s, md, o);
		return;
	case BE_INTERRUPTED:
		dbuf_addf(o, "%sinterrupted%s: resume with 'jostle bisect --resume DIR'\n", b, b);
		candidates(s, md, o);
		return;
	case BE_RUNNING:
	case BE_ERROR:
		dbuf_addf(o, "%sstopped%s%s%s\n", b, b, s->error ? ": " : "", s->error ? s->error : "");
		candidates(s, md, o);
		return;
	}
}

void verdict_render(const struct bstate *s, const char *show, bool md, struct dbuf *o)
{
	char g[16], bd[16];
	short_hash(s, 0, g, sizeof(g));
	short_hash(s, s->repo->n, bd, sizeof(bd));
	if (md)
		dbuf_addf(o, "## jostle bisect\n\n");
	dbuf_addf(o, "%zu commits from good %s to bad %s; %" PRIu64 " runs", s->repo->n, g, bd, s->runs_total);
	if (s->learn_runs)
		dbuf_addf(o, " (%" PRIu64 " choosing the configuration, arm %s)", s->learn_runs,
			  s->config_arm ? s->config_arm : "-");
	dbuf_addf(o, " in %.0f s\n", s->elapsed_s);
	if (s->sig_id)
		dbuf_addf(o, "%scounted: failures with the bad revision's signature %s%s%s \"%s\"\n", md ? "\n" : "",
			  md ? "`" : "", s->sig_id, md ? "`" : "", s->sig_key ? s->sig_key : "");
	else
		dbuf_addf(o, "%scounted: %s\n", md ? "\n" : "",
			  s->any_failure ? "every failure (--any-failure)" : "no failure seen yet");
	if (md)
		dbuf_addf(o, "\n| # | commit | runs | fails | rate | 95%% interval | P(culprit) | subject |\n"
			     "|---|---|---|---|---|---|---|---|\n");
	else
		dbuf_addf(o, "\n%5s  %-10s %13s %6s %7s %-16s %7s   %s\n", "#", "commit", "runs", "fails", "rate",
			  "95% interval", "P", "subject");
	for (size_t i = 0; i <= s->repo->n; i++)
		if (shown(s, i))
			row(s, i, md, o);
	dbuf_addc(o, '\n');
	sentence(s, md, o);
	if (show && *show)
		dbuf_addf(o, md ? "\n```\n%s```\n" : "\n%s", show);
}
