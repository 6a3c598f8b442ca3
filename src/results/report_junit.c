/*
 * report_junit.c: JUnit XML, the format CI systems (Jenkins, GitLab, the
 * GitHub test reporters) already display. One test case per failure
 * signature (failing, with the key line, frames and a log excerpt) and one
 * for the proof of the series, which passes exactly when no run failed.
 * With per-test results (--tests), a second test suite, "jostle: tests",
 * has one test case per test of the suite run: a flaky test fails with
 * type="flaky" and its rate, an always-failing one with type="always", a
 * test every run skipped is skipped, the others pass.
 * The document follows tests/junit.xsd, checked with xmllint in the tests.
 * Program output goes through escape_html, which also removes what XML 1.0
 * forbids even as a character reference (NUL, most control characters).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/report.h"
#include "util/escape.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define JUNIT_LOG_HEAD 8192
#define JUNIT_LOG_TAIL 8192

/* An attribute value on one line, at most max bytes of s. */
static void attr(struct dbuf *b, const char *s, size_t max)
{
	if (!s)
		return;
	size_t len = strlen(s);
	struct dbuf one;
	dbuf_init(&one, REPORT_CAP);
	dbuf_add(&one, s, len > max ? max : len);
	for (size_t i = 0; i < one.len; i++)
		if (one.buf[i] == '\n' || one.buf[i] == '\r' || one.buf[i] == '\t')
			one.buf[i] = ' ';
	escape_html(b, dbuf_str(&one), one.len);
	if (len > max)
		dbuf_adds(b, "...");
	dbuf_release(&one);
}

static void text(struct dbuf *b, const char *s)
{
	if (s)
		escape_html(b, s, strlen(s));
}

/* The suite's tests (--tests), one test case each; counts in *fails, *skips. */
static void tests_suite(struct dbuf *b, const struct results *r, struct dbuf *cases,
			uint64_t *fails, uint64_t *skips)
{
	char rate[128];
	*fails = *skips = 0;
	for (size_t i = 0; i < r->tests_nr; i++) {
		const struct results_test *t = &r->tests[r->test_order[i]];
		dbuf_adds(cases, "    <testcase classname=\"jostle.tests\" name=\"");
		attr(cases, t->name, 400);
		dbuf_addf(cases, "\" time=\"%.3f\"", t->timed ? t->tsum / (double)t->timed : 0.0);
		bool flaky = results_test_flaky(t), always = results_test_always_fails(t);
		if (!t->runs) {
			dbuf_adds(cases, ">\n      <skipped message=\"skipped in every run\"/>\n    </testcase>\n");
			++*skips;
			continue;
		}
		if (!flaky && !always) {
			dbuf_adds(cases, "/>\n");
			continue;
		}
		++*fails;
		report_rate(rate, sizeof(rate), t->fails, t->runs);
		dbuf_addf(cases, ">\n      <failure type=\"%s\" message=\"%s: failed in %" PRIu64 " of %"
			  PRIu64 " runs: ", flaky ? "flaky" : "always", flaky ? "flaky" : "always failing",
			  t->fails, t->runs);
		attr(cases, rate, sizeof(rate));
		dbuf_addf(cases, "\">runs %" PRId64 " to %" PRId64 ", example log ", t->first_fail,
			  t->last_fail);
		text(cases, t->log ? t->log : "(none)");
		dbuf_addc(cases, '\n');
		for (int k = 0; k < RESULTS_TEST_KEYS && t->sig_id[k]; k++) {
			dbuf_addf(cases, "%" PRIu64 " x ", t->sig_count[k]);
			text(cases, t->key_line[k] ? t->key_line[k] : "(no message)");
			dbuf_addc(cases, '\n');
		}
		dbuf_adds(cases, "</failure>\n    </testcase>\n");
	}
	dbuf_addf(b, "  <testsuite name=\"jostle: tests\" tests=\"%zu\" failures=\"%" PRIu64
		  "\" errors=\"0\" skipped=\"%" PRIu64 "\" time=\"%.3f\">\n", r->tests_nr, *fails, *skips,
		  r->totals.wall_sum);
	dbuf_add(b, cases->buf, cases->len);
	dbuf_adds(b, "  </testsuite>\n");
}

int report_junit(struct dbuf *b, const struct results *r)
{
	const struct results_totals *t = &r->totals;
	const struct results_series *s0 = r->series_nr ? &r->series[0] : NULL;
	/* every run skipped itself (exit status 77): the proof case is skipped */
	bool skipped = !t->counted && t->skip && !t->slow && !t->cut;
	uint64_t tests = r->sigs_nr + 1, failures = r->sigs_nr + (t->failures > 0 || (!t->counted && !skipped));
	char line[256];
	struct dbuf cmd;
	dbuf_init(&cmd, 1 << 20);
	if (s0)
		report_command(&cmd, s0);

	struct dbuf per_test, cases;
	uint64_t tfails = 0, tskips = 0;
	dbuf_init(&per_test, REPORT_CAP);
	dbuf_init(&cases, REPORT_CAP);
	if (r->tests_nr)
		tests_suite(&per_test, r, &cases, &tfails, &tskips);
	dbuf_release(&cases);

	dbuf_adds(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	dbuf_addf(b, "<testsuites name=\"jostle\" tests=\"%" PRIu64 "\" failures=\"%" PRIu64
		  "\" errors=\"0\" time=\"%.3f\">\n", tests + r->tests_nr, failures + tfails,
		  t->wall_sum);
	dbuf_adds(b, "  <testsuite name=\"jostle: ");
	attr(b, cmd.len ? cmd.buf : "(unknown command)", 200);
	dbuf_addf(b, "\" tests=\"%" PRIu64 "\" failures=\"%" PRIu64 "\" errors=\"0\" skipped=\"%d\""
		  " time=\"%.3f\"", tests, failures, skipped, t->wall_sum);
	if (s0 && s0->start && strlen(s0->start) >= 19) {
		/* xs:dateTime without the trailing Z is what the schema expects */
		char ts[20];
		memcpy(ts, s0->start, 19);
		ts[19] = '\0';
		dbuf_adds(b, " timestamp=\"");
		attr(b, ts, 19);
		dbuf_addc(b, '"');
	}
	if (s0 && s0->hostname) {
		dbuf_adds(b, " hostname=\"");
		attr(b, s0->hostname, 200);
		dbuf_addc(b, '"');
	}
	dbuf_adds(b, ">\n    <properties>\n");
	for (size_t i = 0; i < r->series_nr && i < 20; i++) {
		const struct results_series *s = &r->series[i];
		dbuf_adds(b, "      <property name=\"series\" value=\"");
		attr(b, s->id, 100);
		dbuf_adds(b, "\"/>\n      <property name=\"seed\" value=\"");
		attr(b, s->seed, 100);
		dbuf_adds(b, "\"/>\n");
	}
	dbuf_addf(b, "      <property name=\"runs\" value=\"%" PRIu64 "\"/>\n"
		     "      <property name=\"failures\" value=\"%" PRIu64 "\"/>\n", t->counted, t->failures);
	/* runs in no rate */
	if (t->slow || t->cut || t->skip)
		dbuf_addf(b, "      <property name=\"slow\" value=\"%" PRIu64 "\"/>\n"
			     "      <property name=\"cut\" value=\"%" PRIu64 "\"/>\n"
			     "      <property name=\"skipped\" value=\"%" PRIu64 "\"/>\n",
			  t->slow, t->cut, t->skip);
	dbuf_adds(b, "    </properties>\n");

	for (size_t i = 0; i < r->sigs_nr; i++) {
		const struct results_sig *s = &r->sigs[r->sig_order[i]];
		dbuf_addf(b, "    <testcase classname=\"jostle.signature\" name=\"%s ", s->id);
		attr(b, s->kind, 64);
		dbuf_adds(b, ": ");
		attr(b, s->key_line ? s->key_line : s->key ? s->key : "", 160);
		dbuf_addf(b, "\" time=\"%.3f\">\n", s->wall_sum);
		report_rate(line, sizeof(line), s->count, t->counted);
		dbuf_addf(b, "      <failure type=\"");
		attr(b, s->kind, 64);
		dbuf_addf(b, "\" message=\"%" PRIu64 " of %" PRIu64 " runs: %s\">", s->count,
			  t->counted, line);
		dbuf_addf(b, "signature %s, runs %" PRId64 " to %" PRId64 ", example run %" PRId64 "\n",
			  s->id, s->first_run, s->last_run, s->example_run);
		dbuf_adds(b, "key line: ");
		text(b, s->key_line ? s->key_line : s->key);
		dbuf_addc(b, '\n');
		for (size_t f = 0; f < s->frames.nr; f++) {
			dbuf_adds(b, "  at ");
			text(b, s->frames.v[f]);
			dbuf_addc(b, '\n');
		}
		const char *what = report_diag_line(line, sizeof(line), s);
		if (line[0]) {
			dbuf_addf(b, "%s: ", what);
			text(b, line);
			dbuf_addc(b, '\n');
		}
		dbuf_adds(b, "</failure>\n");
		struct dbuf log;
		dbuf_init(&log, REPORT_CAP);
		if (report_read_log(r, s, false, &log, JUNIT_LOG_HEAD, JUNIT_LOG_TAIL)) {
			dbuf_adds(b, "      <system-out>");
			escape_html(b, log.buf, log.len);
			dbuf_adds(b, "</system-out>\n");
		}
		dbuf_reset(&log);
		if (report_read_log(r, s, true, &log, JUNIT_LOG_HEAD, JUNIT_LOG_TAIL)) {
			dbuf_adds(b, "      <system-err>");
			escape_html(b, log.buf, log.len);
			dbuf_adds(b, "</system-err>\n");
		}
		dbuf_release(&log);
		dbuf_adds(b, "    </testcase>\n");
	}

	report_proof_totals(line, sizeof(line), t);
	dbuf_adds(b, "    <testcase classname=\"jostle.proof\" name=\"no run of ");
	attr(b, cmd.len ? cmd.buf : "the command", 160);
	dbuf_addf(b, " fails\" time=\"%.3f\">\n", t->wall_sum);
	if (skipped) {
		dbuf_adds(b, "      <skipped message=\"");
		attr(b, line, 256);
		dbuf_adds(b, "\"/>\n");
	} else if (t->failures || !t->counted) {
		dbuf_adds(b, "      <failure type=\"flaky\" message=\"");
		attr(b, line, 256);
		dbuf_adds(b, "\">");
		text(b, line);
		dbuf_adds(b, "</failure>\n");
	} else {
		dbuf_adds(b, "      <system-out>");
		text(b, line);
		dbuf_adds(b, "</system-out>\n");
	}
	dbuf_adds(b, "    </testcase>\n  </testsuite>\n");
	dbuf_add(b, per_test.buf, per_test.len);
	dbuf_adds(b, "</testsuites>\n");
	dbuf_release(&per_test);
	dbuf_release(&cmd);
	return 0;
}
