/*
 * summary.c: the end-of-series text (see summary.h).
 *
 * Rates come with a 95% Wilson interval (good coverage for small counts
 * and rates near 0, unlike the normal approximation). A clean series
 * states the bound it proves with the exact one-sided Clopper-Pearson
 * bound 1 - 0.05^(1/n). The percentages are formatted for a terminal
 * line, more tersely than the reports' report_pct().
 */
#include <inttypes.h>
#include <stdlib.h>

#include "results/report.h"
#include "results/shards.h"
#include "results/stats.h"
#include "results/summary.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Most failures first; among equals, the one that failed first. */
static int by_count(const void *a, const void *b)
{
	const struct results_sig *x = *(const struct results_sig *const *)a;
	const struct results_sig *y = *(const struct results_sig *const *)b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->first_run < y->first_run ? -1 : x->first_run > y->first_run;
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

static void sig_row(FILE *f, const struct results_sig *st, uint64_t counted,
		    const char *out_dir)
{
	double lo, hi;
	char a[16], b[16], c[16], rate[64], range[48];
	stats_wilson(st->count, counted, STATS_Z95, &lo, &hi);
	pct(a, sizeof(a), (double)st->count / (double)counted);
	pct(b, sizeof(b), lo);
	pct(c, sizeof(c), hi);
	snprintf(rate, sizeof(rate), "%s [%s, %s]", a, b, c);
	snprintf(range, sizeof(range), "#%" PRId64 "..#%" PRId64, st->first_run, st->last_run);
	fprintf(f, "  %-8s  %-6s  %7" PRIu64 "  %-22s  %-13s  %s%.100s\n", st->id,
		st->kind ? st->kind : "", st->count, rate, range, st->key_guessed ? "* " : "",
		st->key_line ? st->key_line : "");
	if (st->frames.nr) {
		/* the frames of the signature, as runs.jsonl and stacks/RUN.txt have them */
		fprintf(f, "  %8s  frames: ", "");
		for (size_t i = 0; i < st->frames.nr && i < 6; i++)
			fprintf(f, "%s%.60s", i ? " <- " : "", st->frames.v[i]);
		fprintf(f, "%s\n", st->frames.nr > 6 ? " <- ..." : "");
	}
	if (st->log)
		fprintf(f, "  %8s  example: %s/%s\n", "", out_dir, st->log);
}

static void sig_table(FILE *f, const struct results *r, const char *out_dir)
{
	/* r->sigs is in the order each signature first failed */
	size_t n = r->sigs_nr < SUMMARY_MAX_SIGS ? r->sigs_nr : SUMMARY_MAX_SIGS;
	uint64_t other = 0;
	for (size_t i = n; i < r->sigs_nr; i++)
		other += r->sigs[i].count;
	const struct results_sig **rows = xcalloc(n + 1, sizeof(*rows));
	for (size_t i = 0; i < n; i++)
		rows[i] = &r->sigs[i];
	if (n > 1)
		qsort(rows, n, sizeof(*rows), by_count);
	fprintf(f, "\n  %-8s  %-6s  %7s  %-22s  %-13s  %s\n", "id", "kind", "count",
		"rate (95% CI)", "runs", "key line");
	bool guessed = false;
	for (size_t i = 0; i < n; i++) {
		sig_row(f, rows[i], r->totals.counted, out_dir);
		guessed |= rows[i]->key_guessed;
	}
	if (guessed)
		fprintf(f, "  * no report recognized: the key is the output's last error or exception line, "
			"else its last line;\n    jostle survey does not guess (it would match nearly every "
			"log) and counts such a log\n    as 'no recognized failure' (--signature or survey's "
			"--rules name it in both)\n");
	if (other)
		fprintf(f, "  (%" PRIu64 " failures with further signatures not listed)\n", other);
	free(rows);
}

/* "10s", "2.5s", "3m" */
static void secs(char *buf, size_t len, double s)
{
	if (s >= 120 && s < 1e15 && s == (double)(long)s && (long)s % 60 == 0)   /* in range of long first */
		snprintf(buf, len, "%ldm", (long)s / 60);
	else
		snprintf(buf, len, "%gs", s);
}

/*
 * The runs that outlasted their timeout, by what they were doing, and when
 * no run ended in time (or every run skipped itself), the verdict: a series
 * that counted nothing says why and what to change, never nothing at all.
 */
static void late_lines(FILE *f, const struct results *r)
{
	const struct results_totals *t = &r->totals;
	double timeout = r->series_nr ? r->series[0].timeout_s : 0;
	double budget = r->series_nr ? r->series[0].time_s : 0;
	char tmo[32] = "the timeout", longest[32];
	if (timeout > 0) {
		snprintf(tmo, sizeof(tmo), "--timeout ");
		secs(tmo + 10, sizeof(tmo) - 10, timeout);
	}
	snprintf(longest, sizeof(longest), "%.1fs", t->late_wall_max);
	bool all_late = !t->in_time && !t->cut_early;
	if (t->outlasted) {
		fprintf(f, "  %s%" PRIu64 " of %" PRIu64 " runs outlasted %s: %" PRIu64 " progressing, %"
			PRIu64 " spinning, %" PRIu64 " stuck", all_late ? "every run ended late: " : "",
			t->outlasted, t->outlasted + t->in_time + t->cut_early, tmo,
			t->late_progressing, t->late_spinning, t->late_stuck);
		if (t->late_unjudged)
			fprintf(f, ", %" PRIu64 " cut before they were judged", t->late_unjudged);
		fputc('\n', f);
	}
	if (t->stalled)
		fprintf(f, "  %" PRIu64 " hang%s found before %s: no thread could run again (every one "
			"waiting on the others, no CPU used; --no-stall-check waits for the timeout)\n",
			t->stalled, t->stalled == 1 ? "" : "s", tmo);
	if (!t->counted && t->skip && t->skip == t->in_time && !t->outlasted && !t->cut_early) {
		fprintf(f, "  verdict: not tested: every run skipped itself (exit status 77, as automake "
			"and ctest mean it: a missing driver or device, say); its output says why\n");
		return;
	}
	if (t->in_time)
		return;
	if (!t->outlasted) {
		char b[32] = "";
		if (budget > 0)
			secs(b, sizeof(b), budget);
		if (t->cut_early)
			fprintf(f, "  verdict: not tested: every run was still going when the series ended%s%s%s; "
				"raise --time so that runs can finish\n", b[0] ? " (--time " : "", b,
				b[0] ? ")" : "");
	} else if (!t->failures) {
		/* progressing, or cut before anyone could tell */
		fprintf(f, "  verdict: not tested: no run finished within %s, and none was found stuck or "
			"spinning (the longest ran %s); raise --timeout above that%s\n", tmo, longest,
			budget > 0 ? ", and --time to several runs' worth" : "");
	} else {
		fprintf(f, "  verdict: no run finished within %s; the %" PRIu64 " that timed out are "
			"failures (above)%s; if the program only needs longer here, raise --timeout (the "
			"longest ran %s)\n", tmo, t->failures,
			t->late_spinning ? ", the spinning ones busy-waiting for what cannot run" : "",
			longest);
	}
}

void summary_print(const struct results *r, FILE *f, const char *out_dir,
		   double elapsed_s, const char *stop_reason)
{
	const struct results_totals *t = &r->totals;
	fprintf(f, "\njostle: %" PRIu64 " runs in %.1fs (%s): %" PRIu64 " passed, %" PRIu64
		" failed", t->records, elapsed_s, stop_reason, t->pass, t->failures);
	if (t->failures)
		fprintf(f, " (%" PRIu64 " fail, %" PRIu64 " crash, %" PRIu64 " hang)",
			t->fail, t->crash, t->hang);
	if (t->ignored)
		fprintf(f, ", %" PRIu64 " ignored", t->ignored);
	if (t->cut)
		fprintf(f, ", %" PRIu64 " cut (still running when the series ended: not counted)", t->cut);
	if (t->slow)
		fprintf(f, ", %" PRIu64 " slow (" REPORT_SLOW_WHY ": not counted)", t->slow);
	if (t->skip)
		fprintf(f, ", %" PRIu64 " skipped (exit status 77: not counted)", t->skip);
	fputc('\n', f);
	late_lines(f, r);
	if (t->failures) {
		sig_table(f, r, out_dir);
	} else if (t->counted) {
		char a[32];
		report_bound(a, sizeof(a), stats_cp_upper0(t->counted, REPORT_ALPHA));
		fprintf(f, "  0 of %" PRIu64 " failed: failure rate < %s with 95%% confidence\n",
			t->counted, a);
	}
	struct dbuf sh;
	dbuf_init(&sh, 1 << 20);
	shards_line(&sh, r);   /* issue 17 */
	if (sh.len)
		fprintf(f, "  shards: %s\n", dbuf_str(&sh));
	dbuf_reset(&sh);
	report_text_arms(&sh, r);
	fputs(dbuf_str(&sh), f);
	dbuf_release(&sh);
	if (r->tests_nr) {
		struct dbuf b;
		dbuf_init(&b, 1 << 20);
		report_text_tests(&b, r, 10, false);
		fputs(dbuf_str(&b), f);
		dbuf_release(&b);
	}
	fprintf(f, "  results: %s\n", out_dir);
}
