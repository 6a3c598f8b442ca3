/*
 * summary.c: totals and the per-signature table (see summary.h).
 *
 * Rates are failures over all recorded runs, with a 95% Wilson interval
 * (good coverage for small counts and rates near 0, unlike the normal
 * approximation). A clean series states the bound it proves with the exact
 * one-sided Clopper-Pearson bound 1 - 0.05^(1/n).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "stats.h"
#include "summary.h"
#include "xalloc.h"
#include "banned.h"

#define Z95 1.959963984540054

void summary_init(struct summary *s)
{
	memset(s, 0, sizeof(*s));
	s->first_pass_logged = -1;
}

uint64_t summary_failures(const struct summary *s)
{
	return s->by_outcome[OUT_FAIL] + s->by_outcome[OUT_CRASH] + s->by_outcome[OUT_HANG];
}

void summary_add(struct summary *s, const struct run *r, const char *log)
{
	s->runs++;
	s->by_outcome[r->outcome]++;
	s->wall_sum += (double)(r->end_mono - r->start_mono) / 1e9;
	if (r->outcome == OUT_PASS || r->outcome == OUT_IGNORED)
		return;
	for (size_t i = 0; i < s->nsigs; i++) {
		struct sig_stat *st = &s->sigs[i];
		if (!strcmp(st->id, r->sig.id)) {
			st->count++;
			if (r->index < st->first)
				st->first = r->index;
			if (r->index > st->last)
				st->last = r->index;
			return;
		}
	}
	if (s->nsigs >= SUMMARY_MAX_SIGS) {
		s->other_sigs++;
		return;
	}
	ALLOC_GROW(s->sigs, s->nsigs + 1, s->alloc);
	struct sig_stat *st = &s->sigs[s->nsigs++];
	memset(st, 0, sizeof(*st));
	memcpy(st->id, r->sig.id, sizeof(st->id));
	memcpy(st->kind, r->sig.kind, sizeof(st->kind));
	st->key = xstrdup(r->sig.key ? r->sig.key : "");
	st->key_line = xstrdup(r->sig.key_line ? r->sig.key_line : "");
	st->log = log ? xstrdup(log) : NULL;
	st->count = 1;
	st->first = st->last = r->index;
}

static int by_count(const void *a, const void *b)
{
	const struct sig_stat *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->first < y->first ? -1 : x->first > y->first;
}

void summary_sort(struct summary *s)
{
	if (s->nsigs > 1)
		qsort(s->sigs, s->nsigs, sizeof(*s->sigs), by_count);
}

static void pct(char *buf, size_t len, double p)
{
	if (p == 0)
		snprintf(buf, len, "0%%");
	else if (p < 0.001)
		snprintf(buf, len, "%.3f%%", p * 100);
	else if (p < 0.1)
		snprintf(buf, len, "%.2f%%", p * 100);
	else
		snprintf(buf, len, "%.1f%%", p * 100);
}

void summary_print(const struct summary *s, FILE *f, const char *out_dir,
		   double elapsed_s, const char *stop_reason)
{
	uint64_t fails = summary_failures(s);
	/* Ignored runs tell nothing about the failure rate: they are left out
	 * of every rate's denominator, as in the reports. */
	uint64_t counted = s->runs - s->by_outcome[OUT_IGNORED];
	fprintf(f, "\njostle: %" PRIu64 " runs in %.1fs (%s): %" PRIu64 " passed, %" PRIu64
		" failed", s->runs, elapsed_s, stop_reason, s->by_outcome[OUT_PASS], fails);
	if (fails)
		fprintf(f, " (%" PRIu64 " fail, %" PRIu64 " crash, %" PRIu64 " hang)",
			s->by_outcome[OUT_FAIL], s->by_outcome[OUT_CRASH], s->by_outcome[OUT_HANG]);
	if (s->by_outcome[OUT_IGNORED])
		fprintf(f, ", %" PRIu64 " ignored", s->by_outcome[OUT_IGNORED]);
	fputc('\n', f);
	if (fails) {
		fprintf(f, "\n  %-8s  %-6s  %7s  %-22s  %-13s  %s\n", "id", "kind", "count",
			"rate (95% CI)", "runs", "key line");
		for (size_t i = 0; i < s->nsigs; i++) {
			const struct sig_stat *st = &s->sigs[i];
			double lo, hi;
			char a[16], b[16], c[16], range[40];
			stats_wilson(st->count, counted, Z95, &lo, &hi);
			pct(a, sizeof(a), (double)st->count / (double)counted);
			pct(b, sizeof(b), lo);
			pct(c, sizeof(c), hi);
			char rate[64];
			snprintf(rate, sizeof(rate), "%s [%s, %s]", a, b, c);
			snprintf(range, sizeof(range), "#%" PRIu64 "..#%" PRIu64, st->first, st->last);
			fprintf(f, "  %-8s  %-6s  %7" PRIu64 "  %-22s  %-13s  %.100s\n", st->id, st->kind,
				st->count, rate, range, st->key_line);
			if (st->log)
				fprintf(f, "  %8s  example: %s/%s\n", "", out_dir, st->log);
		}
		if (s->other_sigs)
			fprintf(f, "  (%" PRIu64 " failures with further signatures not listed)\n",
				s->other_sigs);
	} else if (counted) {
		char a[16];
		pct(a, sizeof(a), stats_cp_upper0(counted, 0.05));
		fprintf(f, "  0 of %" PRIu64 " failed: failure rate < %s with 95%% confidence\n",
			counted, a);
	}
	fprintf(f, "  results: %s\n", out_dir);
}

void summary_json(const struct summary *s, struct dbuf *b, const char *series_id,
		  double elapsed_s, const char *stop_reason, bool interrupted)
{
	uint64_t fails = summary_failures(s);
	double lo, hi;
	dbuf_addc(b, '{');
	jsonw_kint(b, "v", 1);
	dbuf_addc(b, ',');
	jsonw_kstr(b, "series", series_id);
	dbuf_addc(b, ',');
	jsonw_kuint(b, "runs", s->runs);
	dbuf_addc(b, ',');
	jsonw_kuint(b, "failures", fails);
	for (int o = 0; o < OUT__COUNT; o++) {
		dbuf_addc(b, ',');
		jsonw_kuint(b, outcome_name((enum outcome)o), s->by_outcome[o]);
	}
	stats_wilson(fails, s->runs, Z95, &lo, &hi);
	dbuf_addc(b, ',');
	jsonw_kdbl(b, "rate", s->runs ? (double)fails / (double)s->runs : 0.0);
	dbuf_addc(b, ',');
	jsonw_kdbl(b, "rate_lo", lo);
	dbuf_addc(b, ',');
	jsonw_kdbl(b, "rate_hi", hi);
	dbuf_addc(b, ',');
	jsonw_key(b, "bound");
	if (!fails && s->runs)
		dbuf_addf(b, "%.6g", stats_cp_upper0(s->runs, 0.05));
	else
		dbuf_adds(b, "null");
	dbuf_addc(b, ',');
	jsonw_kdbl(b, "elapsed_s", elapsed_s);
	dbuf_addc(b, ',');
	jsonw_kstr(b, "stop", stop_reason);
	dbuf_addc(b, ',');
	jsonw_kbool(b, "interrupted", interrupted);
	dbuf_addc(b, ',');
	jsonw_key(b, "signatures");
	dbuf_addc(b, '[');
	for (size_t i = 0; i < s->nsigs; i++) {
		const struct sig_stat *st = &s->sigs[i];
		stats_wilson(st->count, s->runs, Z95, &lo, &hi);
		if (i)
			dbuf_addc(b, ',');
		dbuf_addc(b, '{');
		jsonw_kstr(b, "id", st->id);
		dbuf_addc(b, ',');
		jsonw_kstr(b, "kind", st->kind);
		dbuf_addc(b, ',');
		jsonw_kstr(b, "key", st->key);
		dbuf_addc(b, ',');
		jsonw_kstr(b, "key_line", st->key_line);
		dbuf_addc(b, ',');
		jsonw_kuint(b, "count", st->count);
		dbuf_addc(b, ',');
		jsonw_kdbl(b, "rate", (double)st->count / (double)s->runs);
		dbuf_addc(b, ',');
		jsonw_kdbl(b, "rate_lo", lo);
		dbuf_addc(b, ',');
		jsonw_kdbl(b, "rate_hi", hi);
		dbuf_addc(b, ',');
		jsonw_kuint(b, "first", st->first);
		dbuf_addc(b, ',');
		jsonw_kuint(b, "last", st->last);
		dbuf_addc(b, ',');
		jsonw_kstr(b, "log", st->log);
		dbuf_addc(b, '}');
	}
	dbuf_adds(b, "]}\n");
}

void summary_release(struct summary *s)
{
	for (size_t i = 0; i < s->nsigs; i++) {
		free(s->sigs[i].key);
		free(s->sigs[i].key_line);
		free(s->sigs[i].log);
	}
	free(s->sigs);
	memset(s, 0, sizeof(*s));
}
