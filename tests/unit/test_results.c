/* results.c on the hand-written fixture tests/data/small (run from the
 * repository root, as tests/run.sh does). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "results/report.h"
#include "results/results.h"
#include "results/stats.h"
#include "tap.h"

static const struct results_sig *sig(const struct results *r, const char *id)
{
	for (size_t i = 0; i < r->sigs_nr; i++)
		if (!strcmp(r->sigs[i].id, id))
			return &r->sigs[i];
	return NULL;
}

int main(void)
{
	struct results r;
	results_init(&r);
	CHECK(results_load_dir(&r, "tests/data/small") == 0);
	results_finish(&r);
	const struct results_totals *t = &r.totals;
	CHECK(t->bad_lines == 2);       /* a text line and a cut last line */
	CHECK(t->records == 12);
	CHECK(t->counted == 11);
	CHECK(t->ignored == 1);
	CHECK(t->pass == 6 && t->fail == 3 && t->crash == 1 && t->hang == 1);
	CHECK(t->failures == 5);
	CHECK(t->run_max == 11);
	CHECK(r.series_nr == 1);
	CHECK(r.series[0].runs == 11);
	CHECK(r.series[0].cpus == 4);
	CHECK_STR(r.series[0].hostname, "ci-runner-7");
	CHECK(r.sigs_nr == 3);
	CHECK_STR(r.sigs[r.sig_order[0]].id, "41aa07c2");
	const struct results_sig *s = sig(&r, "41aa07c2");
	CHECK(s && s->count == 3 && s->first_run == 5 && s->last_run == 11 && s->example_run == 5);
	CHECK(s && s->frames.nr == 2);
	CHECK_STR(s ? s->log : NULL, "logs/5.log");
	s = sig(&r, "d00d1e55");
	CHECK(s && s->diag && strstr(s->diag, "livelock"));
	CHECK(r.cells_nr == 4);
	CHECK_STR(r.cells[3].key, "PYTHON_GIL=1,cpus=2");
	CHECK(r.cells[3].runs == 3 && r.cells[3].fails == 3);
	CHECK(r.configs_nr == 2);
	CHECK(r.points_nr == 5);
	uint64_t hang = 0, all = 0;
	for (int i = 0; i < RESULTS_DUR_BINS; i++) {
		hang += r.dur_hang[i];
		all += r.dur_pass[i] + r.dur_fail[i] + r.dur_hang[i];
	}
	CHECK(hang == 1 && all == 11);

	char buf[256];
	report_proof(buf, sizeof(buf), 0, 600);
	CHECK_STR(buf, "0 of 600 runs failed: failure rate < 0.499% with 95% confidence");
	/* issue 19: a proven bound is rounded up, never down (0.99363% is not "< 0.99%") */
	report_proof(buf, sizeof(buf), 0, 300);
	CHECK_STR(buf, "0 of 300 runs failed: failure rate < 0.994% with 95% confidence");
	report_bound(buf, sizeof(buf), 0.0099363);
	CHECK_STR(buf, "0.994%");
	report_bound(buf, sizeof(buf), 0.0295130);
	CHECK_STR(buf, "2.96%");
	report_bound(buf, sizeof(buf), 0.631597);
	CHECK_STR(buf, "63.2%");
	report_bound(buf, sizeof(buf), 0.05);
	CHECK_STR(buf, "5.00%");
	report_bound(buf, sizeof(buf), 0.99999);
	CHECK_STR(buf, "100%");
	report_bound(buf, sizeof(buf), 1.0e-6);
	CHECK_STR(buf, "0.000100%");
	int below = 0;
	for (int n = 1; n < 5000; n += 7) {
		double b = stats_cp_upper0((uint64_t)n, 0.05);
		report_bound(buf, sizeof(buf), b);
		below += strtod(buf, NULL) < b * 100.0;
	}
	CHECK(below == 0);
	report_proof(buf, sizeof(buf), 37, 600);
	CHECK_STR(buf, "37 of 600 runs failed: failure rate 6.2% (95% CI 4.5%\xe2\x80\x93" "8.4%)");
	report_pval(buf, sizeof(buf), 8.20889222974448e-12);
	CHECK_STR(buf, "p = 8e-12");
	report_pval(buf, sizeof(buf), 0.41);
	CHECK_STR(buf, "p = 0.41");

	/* the histogram doubles its bins: 1000 runs fit 100 bins of width 16 */
	struct results h;
	results_init(&h);
	for (int i = 0; i < 1000; i++) {
		char line[160];
		snprintf(line, sizeof(line), "{\"type\":\"run\",\"run\":%d,\"outcome\":\"%s\","
			 "\"sig_id\":\"0000000%d\",\"t\":%d}", i, i % 7 ? "pass" : "fail", i % 3, i);
		cJSON *o = cJSON_Parse(line);
		results_add_json(&h, o, 0);
		cJSON_Delete(o);
	}
	results_finish(&h);
	uint64_t runs = 0, fails = 0;
	for (int i = 0; i < RESULTS_BINS; i++) {
		runs += h.by_index.runs[i];
		fails += h.by_index.fails[i];
	}
	CHECK(h.by_index.width == 16.0);
	CHECK(runs == 1000 && fails == 143 && h.totals.failures == 143);
	CHECK(h.by_index.runs[0] == 16 && h.by_index.fails[0] == 3);
	CHECK(h.sigs_nr == 3);
	results_release(&h);
	results_release(&r);

	/* a raw NUL is not JSON (cJSON would take it, C strings then cut it) */
	static const char nul[] = "{\"type\":\"run\",\"outcome\":\"pa\0ss\"}";
	CHECK(results_parse_line(nul, sizeof(nul) - 1) == NULL);
	cJSON *o = results_parse_line(nul, 20);
	CHECK(o == NULL);     /* cut inside: not an object */
	static const char ok[] = "{\"type\":\"end\"}";
	o = results_parse_line(ok, sizeof(ok) - 1);
	CHECK(cJSON_IsObject(o));
	cJSON_Delete(o);

	/* a last line without its newline is cut short, even when it parses */
	char text[] = "{\"a\":1}\n\n{\"b\":2}";
	FILE *f = fmemopen(text, sizeof(text) - 1, "r");
	char *line = NULL;
	size_t cap = 0;
	bool cut = true;
	CHECK(results_next_line(f, &line, &cap, &cut) == 7 && !cut);
	CHECK(results_next_line(f, &line, &cap, &cut) == 7 && cut);
	CHECK(results_next_line(f, &line, &cap, &cut) == -1);
	free(line);
	fclose(f);

	/* a test name longer than the column keeps its end (the test's own name) */
	char lname[] = "a.rootdir.that.moves.with.the.working.directory.tests.fixtures.suite."
		       "test_flaky_handshake";
	struct results_test lt = { .runs = 50, .fails = 10, .first_fail = 3, .last_fail = 48 };
	lt.name = lname;
	size_t order = 0;
	struct results rt = { .tests = &lt, .tests_nr = 1, .test_order = &order };
	struct dbuf tb;
	dbuf_init(&tb, 1 << 16);
	report_text_tests(&tb, &rt, 10, false);
	CHECK(strstr(dbuf_str(&tb), "  ...rking.directory.tests.fixtures.suite.test_flaky_handshake   10/50 ") != NULL);
	dbuf_release(&tb);
	return tap_done();
}
