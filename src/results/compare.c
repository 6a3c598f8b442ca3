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

enum compare_verdict compare_results(const struct results *before, const struct results *after,
				     struct dbuf *out)
{
	uint64_t n1 = before->totals.counted, n2 = after->totals.counted;
	struct compare_result total, c, worse = { .verdict = COMPARE_NO_CHANGE };
	char label[64];
	compare_counts(before->totals.failures, n1, after->totals.failures, n2, &total);
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
	dbuf_addf(out, "\n%s\n", total.sentence);
	/* fewer failures in total do not make a new or grown signature fine */
	if (compare_verdict_ok(total.verdict) && worse.verdict == COMPARE_WORSE) {
		char p[48];
		report_pval(p, sizeof(p), worse.p);
		dbuf_addf(out, "but signature %s is worse after the fix (%s)\n", worse.sentence, p);
		return COMPARE_WORSE;
	}
	return total.verdict;
}
