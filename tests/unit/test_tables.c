/*
 * The tables of results (issue 43 items 4 and 6) on hand-written runs.jsonl
 * lines: slow, cut and skipped runs counted apart in every per-arm table,
 * summary.json and compare; the closing lines of a series whose every run
 * outlasted the timeout or skipped itself; a crash's report called a
 * crash; a key replaced by evidence no longer marked as a guess.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "results/compare.h"
#include "results/report.h"
#include "results/results.h"
#include "results/summary.h"
#include "signature/evidence.h"
#include "signature/signature.h"
#include "tap.h"

#define SERIES(id, chaos) "{\"type\":\"series\",\"v\":1,\"series\":\"" id "\",\"argv\":[\"./t\"]," \
	"\"settings\":{\"runs\":0,\"time_s\":30,\"jobs\":2,\"timeout_s\":10,\"chaos\":\"" chaos "\"}}"

static void add(struct results *r, const char *line)
{
	void *o = results_parse_line(line, strlen(line));
	CHECK(o != NULL);
	if (o)
		results_add_json(r, o, 0);
	cJSON_Delete(o);
}

/* A run of series S under ARM, its outcome and extra members (", ..." or ""). */
static void run(struct results *r, const char *s, int i, const char *arm, const char *via,
		const char *outcome, const char *extra)
{
	char line[1024];
	snprintf(line, sizeof(line), "{\"type\":\"run\",\"series\":\"%s\",\"run\":%d,\"config\":"
		 "{\"arm\":\"%s\",\"cpus_via\":\"%s\",\"jobs\":2},\"outcome\":\"%s\",\"t\":%d,"
		 "\"wall_s\":12%s%s}", s, i, arm, via, outcome, i,
		 strcmp(outcome, "fail") ? "" : ",\"sig_id\":\"0badf00d\",\"sig_kind\":\"fail\"", extra);
	add(r, line);
}

static const struct results_group *arm(const struct results *r, const char *key)
{
	for (size_t i = 0; i < r->arms_nr; i++)
		if (!strcmp(r->arms[i].key, key))
			return &r->arms[i];
	return NULL;
}

static char *summary_of(const struct results *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	summary_print(r, f, "out", 30.8, "time budget spent");
	fclose(f);
	return text;
}

static char *written(const struct results *r, int (*write)(struct dbuf *, const struct results *))
{
	struct dbuf b;
	dbuf_init(&b, 1 << 24);
	CHECK(write(&b, r) == 0);
	return dbuf_detach(&b, NULL);
}

/* issue 43: "jitter 8 0 0.0%" where all 8 were slow; "plain 4 1 25.0%"
 * where summary.json had 1/1 */
static void per_arm(void)
{
	struct results r;
	results_init(&r);
	add(&r, SERIES("s1", "auto"));
	for (int i = 0; i < 8; i++)
		run(&r, "s1", i, "jitter", "none", "slow", ",\"late\":\"progressing\"");
	run(&r, "s1", 8, "plain", "none", "fail", "");
	for (int i = 9; i < 12; i++)
		run(&r, "s1", i, "plain", "none", "slow", "");
	results_finish(&r);
	const struct results_group *j = arm(&r, "jitter"), *p = arm(&r, "plain");
	CHECK(j && j->runs == 0 && j->fails == 0 && j->slow == 8);
	CHECK(p && p->runs == 1 && p->fails == 1 && p->slow == 3);
	CHECK(p && p->jobs == 2 && p->wall_s == 48);
	CHECK(r.totals.counted == 1 && r.totals.slow == 11);

	struct dbuf b;
	dbuf_init(&b, 1 << 20);
	report_text_arms(&b, &r);
	const char *t = dbuf_str(&b);
	CHECK(strstr(t, "  jitter                  0      0      8      0       -  -") != NULL);
	CHECK(strstr(t, "  plain                   1      1      3      0  100.0%") != NULL);
	CHECK(strstr(t, "(--chaos auto)") != NULL);   /* no restricted run: no "CPUs via" */
	CHECK(strstr(t, "CPUs via") == NULL);
	dbuf_release(&b);

	char *json = written(&r, report_json);
	cJSON *d = cJSON_Parse(json);
	const cJSON *arms = cJSON_GetObjectItemCaseSensitive(d, "arms"), *a;
	int seen = 0;
	cJSON_ArrayForEach(a, arms) {
		const char *name = cJSON_GetObjectItemCaseSensitive(a, "name")->valuestring;
		double runs = cJSON_GetObjectItemCaseSensitive(a, "runs")->valuedouble;
		double slow = cJSON_GetObjectItemCaseSensitive(a, "slow")->valuedouble;
		const cJSON *rate = cJSON_GetObjectItemCaseSensitive(a, "rate");
		if (!strcmp(name, "jitter"))
			seen += runs == 0 && slow == 8 && cJSON_IsNull(rate);
		if (!strcmp(name, "plain"))
			seen += runs == 1 && slow == 3 && rate->valuedouble == 1.0;
	}
	CHECK(seen == 2);
	CHECK(cJSON_GetObjectItemCaseSensitive(d, "slow")->valuedouble == 11);
	cJSON_Delete(d);
	free(json);

	char *md = written(&r, report_md);
	CHECK(strstr(md, "| runs | failed | slow | cut | rate |") != NULL);
	CHECK(strstr(md, "| `jitter` | 0 | 0 | 8 | 0 | \xe2\x80\x93 | \xe2\x80\x93 | no counted run |") != NULL);
	free(md);
	char *html = written(&r, report_html);
	CHECK(strstr(html, "<th>slow</th><th>cut</th>") != NULL);
	free(html);

	/* compare: jitter ran on both sides; after, every run of it was slow */
	struct results before;
	results_init(&before);
	add(&before, SERIES("s0", "auto"));
	for (int i = 0; i < 6; i++)
		run(&before, "s0", i, "jitter", "none", i ? "pass" : "fail", "");
	run(&before, "s0", 6, "plain", "none", "fail", "");
	results_finish(&before);
	struct dbuf c;
	dbuf_init(&c, 1 << 20);
	compare_results(&before, &r, &c);
	t = dbuf_str(&c);
	CHECK(strstr(t, "condition 'jitter' ran only") == NULL);
	CHECK(strstr(t, "  jitter               no rate to compare: 6 counted runs before, 0 after (8 slow)") != NULL);
	dbuf_release(&c);
	results_release(&before);
	results_release(&r);
}

/* issue 43: "18 runs in 30.8s: 0 passed, 0 failed, 18 cut" and nothing else */
static void all_late(void)
{
	struct results r;
	results_init(&r);
	add(&r, SERIES("s2", "auto"));
	/* cut after their deadline was extended (judged not stuck), cut past
	 * --timeout before anyone judged them, and busy-wait hangs */
	for (int i = 0; i < 12; i++)
		run(&r, "s2", i, "sync", "none", "cut", ",\"timeout_scale\":3");
	for (int i = 12; i < 14; i++)
		run(&r, "s2", i, "sync", "cgroup-v2", "cut", "");
	for (int i = 14; i < 18; i++)
		run(&r, "s2", i, "plain", "none", "hang",
		    ",\"late\":\"spinning\",\"sig_id\":\"5b1d0000\",\"sig_kind\":\"busy-wait\"");
	results_finish(&r);
	const struct results_totals *t = &r.totals;
	CHECK(t->outlasted == 18 && t->late_progressing == 12 && t->late_spinning == 4);
	CHECK(t->late_unjudged == 2 && t->in_time == 0 && t->cut_early == 0);
	char *s = summary_of(&r);
	CHECK(strstr(s, "every run ended late: 18 of 18 runs outlasted --timeout 10s: 12 progressing, "
		     "4 spinning, 0 stuck, 2 cut before they were judged") != NULL);
	CHECK(strstr(s, "verdict: no run finished within --timeout 10s; the 4 that timed out are failures") != NULL);
	CHECK(strstr(s, "raise --timeout") != NULL);
	CHECK(strstr(s, "CPUs via cgroup-v2") != NULL);
	free(s);
	results_release(&r);

	/* only progressing runs: not tested, and what to raise */
	results_init(&r);
	add(&r, SERIES("s3", "none"));
	for (int i = 0; i < 3; i++)
		run(&r, "s3", i, "none", "none", "slow", ",\"late\":\"progressing\"");
	run(&r, "s3", 3, "none", "none", "cut", ",\"timeout_scale\":2");
	results_finish(&r);
	s = summary_of(&r);
	CHECK(strstr(s, "verdict: not tested: no run finished within --timeout 10s, and none was found "
		     "stuck or spinning (the longest ran 12.0s); raise --timeout above that") != NULL);
	free(s);
	char proof[320];
	report_proof_totals(proof, sizeof(proof), &r.totals);
	CHECK(strstr(proof, "not tested: no run passed or failed (3 slow") == proof);
	results_release(&r);

	/* cut before their timeout: raise --time */
	results_init(&r);
	add(&r, SERIES("s4", "none"));
	add(&r, "{\"type\":\"run\",\"series\":\"s4\",\"run\":0,\"outcome\":\"cut\",\"wall_s\":3}");
	results_finish(&r);
	CHECK(r.totals.cut_early == 1 && r.totals.outlasted == 0);
	s = summary_of(&r);
	CHECK(strstr(s, "every run was still going when the series ended (--time 30s)") != NULL);
	free(s);
	results_release(&r);
}

/* item 6e: exit status 77 is "skipped": in no rate, never "fails 100%" */
static void skipped(void)
{
	struct results r;
	results_init(&r);
	add(&r, SERIES("s5", "none"));
	for (int i = 0; i < 5; i++)
		run(&r, "s5", i, "none", "none", "skip", "");
	results_finish(&r);
	CHECK(r.totals.skip == 5 && r.totals.counted == 0 && r.totals.failures == 0);
	CHECK(r.arms_nr == 1 && r.arms[0].skip == 5 && r.arms[0].runs == 0);
	char *s = summary_of(&r);
	CHECK(strstr(s, "5 skipped (exit status 77: not counted)") != NULL);
	CHECK(strstr(s, "verdict: not tested: every run skipped itself") != NULL);
	CHECK(strstr(s, "100%") == NULL);
	free(s);
	char *x = written(&r, report_junit);
	CHECK(strstr(x, "<skipped message=\"not tested: all 5 runs skipped themselves") != NULL);
	CHECK(strstr(x, "failures=\"0\" errors=\"0\" skipped=\"1\"") != NULL);
	CHECK(strstr(x, "<failure") == NULL);
	free(x);
	x = written(&r, report_md);
	CHECK(strstr(x, "(5 more skipped: exit status 77, not counted)") != NULL);
	CHECK(strstr(x, "**not tested: all 5 runs skipped themselves (exit status 77)**") != NULL);
	free(x);
	x = written(&r, report_json);
	cJSON *d = cJSON_Parse(x);
	CHECK(cJSON_GetObjectItemCaseSensitive(d, "skip")->valuedouble == 5);
	CHECK(cJSON_GetObjectItemCaseSensitive(d, "runs")->valuedouble == 0);
	cJSON_Delete(d);
	free(x);
	results_release(&r);
}

/* item 6b: a crash report parsed from the output is no "Hang: diagnosed" */
static void crash_label(void)
{
	struct results r;
	results_init(&r);
	add(&r, SERIES("s6", "none"));
	add(&r, "{\"type\":\"run\",\"series\":\"s6\",\"run\":0,\"outcome\":\"crash\",\"wall_s\":1,"
		"\"sig_id\":\"c0ffee00\",\"sig_kind\":\"python-fatal\",\"key_line\":\"Fatal Python error: Aborted\","
		"\"diag\":{\"crash\":{\"kind\":\"python-fatal\",\"tool\":\"Python\",\"frames\":[]}}}");
	results_finish(&r);
	char line[256];
	const char *what = report_diag_line(line, sizeof(line), &r.sigs[0]);
	CHECK_STR(what, "crash");
	CHECK_STR(line, "python-fatal (report of Python)");
	char *md = written(&r, report_md);
	CHECK(strstr(md, "Crash: `python-fatal (report of Python)`") != NULL);
	CHECK(strstr(md, "Hang: ") == NULL);
	free(md);
	results_release(&r);
}

/* item 6c: a key replaced by evidence is no guess any more */
static void evidence_clears_guess(void)
{
	struct signature sig;
	const char out[] = "some last line\n";
	signature_from_output(&sig, "hang", out, sizeof(out) - 1, NULL);
	CHECK(sig.weak_key);
	struct evidence ev;
	memset(&ev, 0, sizeof(ev));
	snprintf(ev.kind, sizeof(ev.kind), "deadlock");
	snprintf(ev.key_line, sizeof(ev.key_line), "hang: deadlock");
	evidence_apply(&ev, &sig, true);
	CHECK_STR(sig.key_line, "hang: deadlock");
	CHECK(!sig.weak_key);
	signature_release(&sig);
}

int main(void)
{
	per_arm();
	all_late();
	skipped();
	crash_label();
	evidence_clears_guess();
	return tap_done();
}
