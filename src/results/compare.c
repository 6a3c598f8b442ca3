/*
 * compare.c: before/after decisions (see compare.h).
 *
 * The test is Fisher's exact test on the 2x2 table (failed, passed) x
 * (before, after): exact at any size, which matters because the interesting
 * cases have zero or a handful of failures, where normal approximations are
 * wrong. When a drop is seen but is not significant, the sentence says how
 * many more runs after the fix would settle it: with no failure after, the
 * exact number of further clean runs that brings Fisher's p under 0.05;
 * with some, the runs needed for 80% power of the two-proportion z test to
 * show a drop from the before rate to the after rate.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "results/compare.h"
#include "results/report.h"
#include "results/stats.h"
#include "util/escape.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define ALPHA 0.05
#define POWER 0.80

bool compare_verdict_ok(enum compare_verdict v)
{
	return v == COMPARE_FIXED || v == COMPARE_BETTER || v == COMPARE_CLEAN;
}

const char *compare_verdict_name(enum compare_verdict v)
{
	static const char *const names[] = {
		[COMPARE_FIXED] = "fixed", [COMPARE_BETTER] = "better", [COMPARE_CLEAN] = "clean",
		[COMPARE_WORSE] = "worse", [COMPARE_NOT_ENOUGH] = "not enough runs",
		[COMPARE_NO_CHANGE] = "no change", [COMPARE_NO_RUNS] = "no runs",
	};
	return names[v];
}

void compare_counts(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2, struct compare_result *o)
{
	char p[48], a[32], b[32];
	memset(o, 0, sizeof(*o));
	o->p = 1.0;
	if (n1 == 0 || n2 == 0) {
		o->verdict = COMPARE_NO_RUNS;
		snprintf(o->sentence, sizeof(o->sentence), "no runs %s the fix to compare",
			 n1 == 0 ? "before" : "after");
		return;
	}
	o->p = stats_fisher2(k1, n1 - k1, k2, n2 - k2);
	report_pval(p, sizeof(p), o->p);
	double r1 = (double)k1 / (double)n1, r2 = (double)k2 / (double)n2;
	if (k1 == 0 && k2 == 0) {
		o->verdict = COMPARE_CLEAN;
		report_bound(a, sizeof(a), stats_cp_upper0(n2, ALPHA));
		snprintf(o->sentence, sizeof(o->sentence),
			 "clean: 0/%" PRIu64 " after and 0/%" PRIu64 " before; failure rate after < %s "
			 "with 95%% confidence", n2, n1, a);
	} else if (o->p < ALPHA && r2 < r1) {
		o->verdict = k2 == 0 ? COMPARE_FIXED : COMPARE_BETTER;
		snprintf(o->sentence, sizeof(o->sentence), "%s: %" PRIu64 "/%" PRIu64 " after vs %" PRIu64
			 "/%" PRIu64 " before (%s)", k2 == 0 ? "fixed" : "better", k2, n2, k1, n1, p);
	} else if (o->p < ALPHA) {
		o->verdict = COMPARE_WORSE;
		snprintf(o->sentence, sizeof(o->sentence), "worse: %" PRIu64 "/%" PRIu64 " after vs %"
			 PRIu64 "/%" PRIu64 " before (%s)", k2, n2, k1, n1, p);
	} else if (r2 < r1) {
		uint64_t need = k2 == 0 ? stats_n2_clean_for_fisher(k1, n1, ALPHA)
					: stats_n2_for_power(r1, n1, r2, ALPHA, POWER);
		report_pct(a, sizeof(a), r1);
		report_pct(b, sizeof(b), r2);
		if (need > n2) {
			o->verdict = COMPARE_NOT_ENOUGH;
			o->more_runs = need - n2;
			if (k2 == 0)
				snprintf(o->sentence, sizeof(o->sentence),
					 "not enough runs: about %" PRIu64 " more runs after the fix, all "
					 "clean, would show a drop from %s to 0 (%s now)", o->more_runs, a, p);
			else
				snprintf(o->sentence, sizeof(o->sentence),
					 "not enough runs: about %" PRIu64 " more runs after the fix would "
					 "show a drop from %s to %s with 80%% power (%s now)",
					 o->more_runs, a, b, p);
		} else if (need == 0) {
			o->verdict = COMPARE_NOT_ENOUGH;
			snprintf(o->sentence, sizeof(o->sentence),
				 "not enough runs before the fix: %" PRIu64 "/%" PRIu64 " cannot show a "
				 "drop from %s to %s with 80%% power however many runs follow (%s)",
				 k1, n1, a, b, p);
		} else {
			o->verdict = COMPARE_NO_CHANGE;
			snprintf(o->sentence, sizeof(o->sentence), "no evidence of change (%s)", p);
		}
	} else {
		o->verdict = COMPARE_NO_CHANGE;
		snprintf(o->sentence, sizeof(o->sentence), "no evidence of change (%s)", p);
	}
}

/* "6.2% (4.5%-8.4%)" */
static void compact_rate(char *buf, size_t len, uint64_t k, uint64_t n)
{
	char a[32], l[32], h[32];
	double lo, hi;
	stats_wilson(k, n, STATS_Z95, &lo, &hi);
	report_pct(a, sizeof(a), n ? (double)k / (double)n : 0.0);
	report_pct(l, sizeof(l), lo);
	report_pct(h, sizeof(h), hi);
	snprintf(buf, len, "%s (%s\xe2\x80\x93%s)", a, l, h);
}

static void row(struct dbuf *out, const char *label, uint64_t k1, uint64_t n1, uint64_t k2,
		uint64_t n2, const struct compare_result *c)
{
	char a[128], b[128], p[48];
	compact_rate(a, sizeof(a), k1, n1);
	compact_rate(b, sizeof(b), k2, n2);
	report_pval(p, sizeof(p), c->p);
	char ka[48], kb[48];
	snprintf(ka, sizeof(ka), "%" PRIu64 "/%" PRIu64, k1, n1);
	snprintf(kb, sizeof(kb), "%" PRIu64 "/%" PRIu64, k2, n2);
	/* %-Ns pads bytes: the en dash is 3 bytes for 1 column, hence 22 + 2 */
	dbuf_addf(out, "%-22s %9s %-24s %9s %-24s %-10s %s\n", label, ka, a, kb, b,
		  p + (p[2] == '<' ? 2 : 4), compare_verdict_name(c->verdict));
}

/* Signature id -> count in r (linear; signatures are few). */
static uint64_t count_of(const struct results *r, const char *id)
{
	for (size_t i = 0; i < r->sigs_nr; i++)
		if (!strcmp(r->sigs[i].id, id))
			return r->sigs[i].count;
	return 0;
}

static void sig_label(char *buf, size_t len, const struct results_sig *s)
{
	snprintf(buf, len, "%s %s", s->id, s->kind ? s->kind : "");
}

/* Settings that may differ without making the runs different: how many, for how long. */
static bool setting_free(const char *key)
{
	static const char *const free_keys[] = { "runs", "time_s", "until", "seed", "first_index" };
	for (size_t i = 0; i < sizeof(free_keys) / sizeof(free_keys[0]); i++)
		if (!strcmp(key, free_keys[i]))
			return true;
	return false;
}

static void setting_value(struct dbuf *b, const cJSON *v)
{
	char *t = v ? cJSON_PrintUnformatted(v) : NULL;
	dbuf_adds(b, t ? t : "(absent)");
	cJSON_free(t);
}

/* Members of settings a and b (JSON objects) that differ, as "k: A -> B; ...". */
static void settings_diff(struct dbuf *b, const char *a, const char *bj)
{
	cJSON *x = cJSON_Parse(a ? a : "{}"), *y = cJSON_Parse(bj ? bj : "{}"), *e;
	for (int pass = 0; pass < 2; pass++) {
		cJSON *side = pass ? y : x;
		cJSON_ArrayForEach(e, side) {
			if (!e->string || setting_free(e->string))
				continue;
			const cJSON *o = cJSON_GetObjectItemCaseSensitive(pass ? x : y, e->string);
			if (pass && o)
				continue;   /* in both: seen in the first pass */
			if (o && cJSON_Compare(e, o, true))
				continue;
			if (b->len)
				dbuf_adds(b, "; ");
			dbuf_adds(b, e->string);
			dbuf_adds(b, ": ");
			setting_value(b, pass ? o : e);
			dbuf_adds(b, " -> ");
			setting_value(b, pass ? e : o);
		}
	}
	cJSON_Delete(x);
	cJSON_Delete(y);
}

/* Warnings before the table: different commands, settings, conditions (issue 19). */
static void compare_warn(struct dbuf *out, const struct results *before, const struct results *after)
{
	const struct results_series *a = before->series_nr ? &before->series[0] : NULL;
	const struct results_series *b = after->series_nr ? &after->series[0] : NULL;
	if (!a || !b)
		return;
	bool same = a->argv.nr == b->argv.nr;
	for (size_t i = 0; same && i < a->argv.nr; i++)
		same = !strcmp(a->argv.v[i], b->argv.v[i]);
	if (!same) {
		struct dbuf c1, c2;
		dbuf_init(&c1, 1 << 16);
		dbuf_init(&c2, 1 << 16);
		report_command(&c1, a);
		report_command(&c2, b);
		dbuf_adds(out, "warning: BEFORE and AFTER ran different commands: ");
		escape_text(out, c1.buf, c1.len > 200 ? 200 : c1.len);
		dbuf_adds(out, " vs ");
		escape_text(out, c2.buf, c2.len > 200 ? 200 : c2.len);
		dbuf_addc(out, '\n');
		dbuf_release(&c1);
		dbuf_release(&c2);
	}
	struct dbuf d;
	dbuf_init(&d, 1 << 16);
	settings_diff(&d, a->settings, b->settings);
	if (d.len) {
		dbuf_adds(out, "warning: BEFORE and AFTER ran with different settings: ");
		escape_text(out, d.buf, d.len > 600 ? 600 : d.len);
		dbuf_addc(out, '\n');
	}
	dbuf_release(&d);
}

static const struct results_group *arm_of(const struct results *r, const char *key)
{
	for (size_t i = 0; i < r->arms_nr; i++)
		if (!strcmp(r->arms[i].key, key))
			return &r->arms[i];
	return NULL;
}

/* Per condition (chaos arm) where both sides ran it; a warning for the rest. */
static void compare_arms(struct dbuf *out, const struct results *before, const struct results *after)
{
	if (!before->arms_nr && !after->arms_nr)
		return;
	struct compare_result c;
	char label[96];
	bool header = false;
	for (size_t i = 0; i < before->arms_nr; i++) {
		const struct results_group *g = &before->arms[i], *h = arm_of(after, g->key);
		if (!h)
			continue;
		if (!header)
			dbuf_adds(out, "per condition (where both ran it):\n");
		header = true;
		snprintf(label, sizeof(label), "  %.40s", g->key);
		if (!g->runs || !h->runs) {
			/* it ran, but no run of it passed or failed: say what they did */
			char ub[96], ua[96];
			results_group_uncounted(ub, sizeof(ub), g);
			results_group_uncounted(ua, sizeof(ua), h);
			dbuf_addf(out, "%-22s no rate to compare: %" PRIu64 " counted runs before%s%s%s, %"
				  PRIu64 " after%s%s%s (slow, cut and skipped runs are in no rate)\n",
				  label, g->runs, ub[0] ? " (" : "", ub, ub[0] ? ")" : "", h->runs,
				  ua[0] ? " (" : "", ua, ua[0] ? ")" : "");
			continue;
		}
		compare_counts(g->fails, g->runs, h->fails, h->runs, &c);
		row(out, label, g->fails, g->runs, h->fails, h->runs, &c);
	}
	for (int side = 0; side < 2; side++) {
		const struct results *r = side ? after : before, *o = side ? before : after;
		for (size_t i = 0; i < r->arms_nr; i++) {
			if (arm_of(o, r->arms[i].key))
				continue;
			char un[96];
			results_group_uncounted(un, sizeof(un), &r->arms[i]);
			dbuf_addf(out, "warning: condition '");
			escape_text(out, r->arms[i].key, strlen(r->arms[i].key));
			dbuf_addf(out, "' ran only %s (%" PRIu64 " runs, %" PRIu64 " failed%s%s): the totals "
				  "above pool different mixes of conditions; compare the rows per condition\n",
				  side ? "AFTER" : "BEFORE", r->arms[i].runs, r->arms[i].fails,
				  un[0] ? "; " : "", un);
		}
	}
	if (!before->arms_nr || !after->arms_nr)
		dbuf_addf(out, "warning: only %s ran under chaos configurations: the totals compare "
			  "different conditions\n", before->arms_nr ? "BEFORE" : "AFTER");
}

static const struct results_test *test_of(const struct results *r, const char *name)
{
	for (size_t i = 0; i < r->tests_nr; i++)
		if (!strcmp(r->tests[i].name, name))
			return &r->tests[i];
	return NULL;
}

/* --tests: every test that failed on either side, by name ("fixed, 0/300 vs 12/300"). */
static void compare_tests(struct dbuf *out, const struct results *before, const struct results *after)
{
	struct compare_result c;
	bool header = false;
	for (int side = 0; side < 2; side++) {
		const struct results *r = side ? after : before, *o = side ? before : after;
		for (size_t i = 0; i < r->tests_nr; i++) {
			const struct results_test *t = &r->tests[r->test_order[i]];
			const struct results_test *u = test_of(o, t->name);
			if (!t->fails && !(u && u->fails))
				continue;
			if (side && u)
				continue;   /* in BEFORE too: shown from its side */
			const struct results_test *tb = side ? u : t, *ta = side ? t : u;
			uint64_t k1 = tb ? tb->fails : 0, n1 = tb ? tb->runs : 0;
			uint64_t k2 = ta ? ta->fails : 0, n2 = ta ? ta->runs : 0;
			if (!header)
				dbuf_adds(out, "per test (--tests; every test that failed on either side), "
					       "after vs before:\n");
			header = true;
			compare_counts(k1, n1, k2, n2, &c);
			char p[48];
			report_pval(p, sizeof(p), c.p);
			dbuf_adds(out, "  ");
			escape_text(out, t->name, strlen(t->name));
			dbuf_addf(out, ": %s, %" PRIu64 "/%" PRIu64 " vs %" PRIu64 "/%" PRIu64 " (%s)%s\n",
				  compare_verdict_name(c.verdict), k2, n2, k1, n1, p,
				  !tb ? " (not run BEFORE)" : !ta ? " (not run AFTER)" : "");
		}
	}
}

enum compare_verdict compare_results(const struct results *before, const struct results *after,
				     struct dbuf *out)
{
	uint64_t n1 = before->totals.counted, n2 = after->totals.counted;
	struct compare_result total, c, worse = { .verdict = COMPARE_NO_CHANGE };
	char label[64];
	compare_counts(before->totals.failures, n1, after->totals.failures, n2, &total);
	compare_warn(out, before, after);
	dbuf_addf(out, "%-22s %9s %-22s %9s %-22s %-10s %s\n", "", "before", "rate (95% CI)",
		  "after", "rate (95% CI)", "p", "verdict");
	row(out, "all failures", before->totals.failures, n1, after->totals.failures, n2, &total);
	for (size_t i = 0; i < before->sigs_nr; i++) {
		const struct results_sig *s = &before->sigs[before->sig_order[i]];
		uint64_t k2 = count_of(after, s->id);
		compare_counts(s->count, n1, k2, n2, &c);
		sig_label(label, sizeof(label), s);
		row(out, label, s->count, n1, k2, n2, &c);
		if (c.verdict == COMPARE_WORSE && worse.verdict != COMPARE_WORSE) {
			worse = c;
			snprintf(worse.sentence, sizeof(worse.sentence), "%s", label);
		}
	}
	for (size_t i = 0; i < after->sigs_nr; i++) {
		const struct results_sig *s = &after->sigs[after->sig_order[i]];
		if (count_of(before, s->id))
			continue;
		compare_counts(0, n1, s->count, n2, &c);
		sig_label(label, sizeof(label), s);
		row(out, label, 0, n1, s->count, n2, &c);
		if (c.verdict == COMPARE_WORSE && worse.verdict != COMPARE_WORSE) {
			worse = c;
			snprintf(worse.sentence, sizeof(worse.sentence), "%s", label);
		}
		dbuf_addf(out, "%-22s new after the fix: ", "");
		const char *kl = s->key_line ? s->key_line : s->key ? s->key : "";
		size_t kn = strlen(kl);
		escape_text(out, kl, kn > 100 ? 100 : kn);
		dbuf_addc(out, '\n');
	}
	compare_arms(out, before, after);
	compare_tests(out, before, after);
	dbuf_addf(out, "\n%s\n", total.sentence);
	/* a side with no counted run: what its runs did instead */
	for (int side = 0; side < 2; side++) {
		const struct results_totals *t = side ? &after->totals : &before->totals;
		if (t->counted || (!t->slow && !t->cut && !t->skip))
			continue;
		char why[320];
		report_proof_totals(why, sizeof(why), t);
		dbuf_addf(out, "%s: %s\n", side ? "AFTER" : "BEFORE", why);
	}
	/* fewer failures in total do not make a new or grown signature fine */
	if (compare_verdict_ok(total.verdict) && worse.verdict == COMPARE_WORSE) {
		char p[48];
		report_pval(p, sizeof(p), worse.p);
		dbuf_addf(out, "but signature %s is worse after the fix (%s)\n", worse.sentence, p);
		return COMPARE_WORSE;
	}
	return total.verdict;
}
