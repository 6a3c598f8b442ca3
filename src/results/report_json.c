/*
 * report_json.c: summary.json, the machine-readable summary of a results
 * directory (schema in docs/FORMAT.md). `jostle run` and `jostle merge`
 * write it at the end through report_write_results(); `jostle report
 * --format json` prints it.
 * Strings from program output go through jsonw (escaped, UTF-8 repaired);
 * objects copied from runs.jsonl (settings, config, diag) are re-serialized
 * by cJSON, so they are valid JSON whatever the line held.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/report.h"
#include "results/shards.h"
#include "results/stats.h"
#include "util/jsonw.h"
#include "util/xalloc.h"
#include "util/banned.h"

static void kraw(struct dbuf *b, const char *key, const char *json)
{
	jsonw_key(b, key);
	dbuf_adds(b, json ? json : "null");
}

static void rate_members(struct dbuf *b, uint64_t k, uint64_t n)
{
	double lo, hi;
	stats_wilson(k, n, STATS_Z95, &lo, &hi);
	jsonw_kdbl(b, "rate", n ? (double)k / (double)n : 0.0);
	jsonw_kdbl(b, "rate_lo", lo);
	jsonw_kdbl(b, "rate_hi", hi);
}

/* "runs", the failures under fails_key, and their rate. */
static void group_members(struct dbuf *b, const struct results_group *g, const char *fails_key)
{
	jsonw_kuint(b, "runs", g->runs);
	jsonw_kuint(b, fails_key, g->fails);
	/* in no rate: runs is the counted ones (passed or failed) */
	jsonw_kuint(b, "slow", g->slow);
	jsonw_kuint(b, "cut", g->cut);
	jsonw_kuint(b, "skip", g->skip);
	jsonw_kdbl(b, "wall_s", g->wall_s);
	if (!g->unshared)
		jsonw_kdbl(b, "machine_s", g->machine_s);
	if (g->runs) {
		rate_members(b, g->fails, g->runs);
	} else {   /* no counted run: no rate, rather than a 0% that reads as clean */
		jsonw_kdbl(b, "rate", NAN);
		jsonw_kdbl(b, "rate_lo", NAN);
		jsonw_kdbl(b, "rate_hi", NAN);
	}
}

/* key: one object per group (matrix cell, chaos arm), named under
 * name_key, tested against the rest (report_groups). */
static void kcells(struct dbuf *b, const char *key, const struct results_group *g, size_t n,
		   const char *name_key, const char *fails_key)
{
	struct report_cell *cells = xcalloc(n + 1, sizeof(*cells));
	report_groups(g, n, cells);
	jsonw_key(b, key);
	dbuf_addc(b, '[');
	for (size_t i = 0; i < n; i++) {
		const struct report_cell *c = &cells[i];
		if (i)
			dbuf_addc(b, ',');
		dbuf_addc(b, '{');
		jsonw_kstr(b, name_key, c->g->key);
		group_members(b, c->g, fails_key);
		jsonw_kdbl(b, "p_vs_rest", c->p);
		jsonw_kbool(b, "differs", c->differs);
		dbuf_addc(b, '}');
	}
	dbuf_addc(b, ']');
	free(cells);
}

static void series_obj(struct dbuf *b, const struct results_series *s)
{
	dbuf_addc(b, '{');
	jsonw_kstr(b, "series", s->id);
	jsonw_kstrs(b, "argv", s->argv.v, s->argv.nr);
	jsonw_kstr(b, "cwd", s->cwd);
	jsonw_kstr(b, "start", s->start);
	jsonw_kstr(b, "seed", s->seed);
	jsonw_key(b, "shard");
	if (s->shard_count)
		dbuf_addf(b, "{\"index\":%" PRIu64 ",\"count\":%" PRIu64 "}", s->shard_index,
			  s->shard_count);
	else
		dbuf_adds(b, "null");
	jsonw_kstr(b, "jostle", s->jostle);
	jsonw_key(b, "machine");
	dbuf_addc(b, '{');
	jsonw_kstr(b, "hostname", s->hostname);
	jsonw_kstr(b, "kernel", s->kernel);
	jsonw_kint(b, "cpus", s->cpus);
	jsonw_kdbl(b, "loadavg", s->loadavg);
	jsonw_kint(b, "mem_mb", s->mem_mb);
	dbuf_adds(b, "},");
	kraw(b, "settings", s->settings);
	jsonw_kuint(b, "runs", s->runs);
	jsonw_kstr(b, "stop", s->stop);
	jsonw_kbool(b, "interrupted", s->interrupted);
	jsonw_kdbl(b, "elapsed_s", s->elapsed_s >= 0 ? s->elapsed_s : NAN);
	dbuf_addc(b, '}');
}

static void index_list(struct dbuf *b, const char *key, const uint64_t *v, size_t n)
{
	jsonw_key(b, key);
	dbuf_addc(b, '[');
	for (size_t i = 0; i < n; i++)
		dbuf_addf(b, "%s%" PRIu64, i ? "," : "", v[i]);
	dbuf_addc(b, ']');
}

/* "shards": which of the N shards the runs came from (issue 17), or null */
static void shards_obj(struct dbuf *b, const struct results *r)
{
	struct shards_status st;
	shards_status(r, &st);
	jsonw_key(b, "shards");
	if (!st.count) {
		dbuf_adds(b, "null");
		return;
	}
	dbuf_addc(b, '{');
	jsonw_kuint(b, "count", st.count);
	jsonw_kuint(b, "present", st.present);
	index_list(b, "missing", st.missing, st.missing_nr);
	index_list(b, "partial", st.partial, st.partial_nr);
	dbuf_addc(b, '}');
	shards_status_release(&st);
}

static void sig_obj(struct dbuf *b, const struct results *r, const struct results_sig *s)
{
	dbuf_addc(b, '{');
	jsonw_kstr(b, "id", s->id);
	jsonw_kstr(b, "kind", s->kind);
	jsonw_kstr(b, "key", s->key);
	jsonw_kstr(b, "key_line", s->key_line);
	jsonw_kstrs(b, "frames", s->frames.v, s->frames.nr);
	jsonw_kuint(b, "count", s->count);
	rate_members(b, s->count, r->totals.counted);
	jsonw_kint(b, "first", s->first_run);
	jsonw_kint(b, "last", s->last_run);
	jsonw_kdbl(b, "first_t", s->first_t);
	jsonw_kdbl(b, "last_t", s->last_t);
	jsonw_kstr(b, "log", s->log);
	jsonw_key(b, "example");
	dbuf_addc(b, '{');
	jsonw_kint(b, "run", s->example_run);
	jsonw_kstr(b, "cell", s->cell);
	jsonw_kstr(b, "dir", s->dir < r->dirs.nr ? r->dirs.v[s->dir] : NULL);
	jsonw_kstr(b, "log", s->log);
	jsonw_kstr(b, "stacks", s->stacks);
	kraw(b, "diag", s->diag);
	dbuf_adds(b, "}}");
}

/* One test of a suite (--tests): its counts, rate, kind and messages. */
static void test_obj(struct dbuf *b, const struct results_test *t)
{
	dbuf_addc(b, '{');
	jsonw_kstr(b, "name", t->name);
	jsonw_kuint(b, "runs", t->runs);
	jsonw_kuint(b, "fails", t->fails);
	rate_members(b, t->fails, t->runs);
	jsonw_kbool(b, "flaky", results_test_flaky(t));
	jsonw_kbool(b, "always_fails", results_test_always_fails(t));
	jsonw_kuint(b, "skips", t->skips);
	jsonw_kuint(b, "crashes", t->crashes);
	jsonw_kuint(b, "hangs", t->hangs);
	jsonw_kint(b, "first_fail", t->first_fail);
	jsonw_kint(b, "last_fail", t->last_fail);
	jsonw_kdbl(b, "time_mean", t->timed ? t->tsum / (double)t->timed : NAN);
	double sd = results_test_sd(t);
	jsonw_kdbl(b, "time_sd", sd >= 0 ? sd : NAN);
	jsonw_kdbl(b, "time_min", t->timed ? t->tmin : NAN);
	jsonw_kdbl(b, "time_max", t->timed ? t->tmax : NAN);
	jsonw_kstr(b, "example_log", t->log);
	jsonw_key(b, "messages");
	dbuf_addc(b, '[');
	for (int k = 0; k < RESULTS_TEST_KEYS && t->sig_id[k]; k++) {
		if (k)
			dbuf_addc(b, ',');
		dbuf_addc(b, '{');
		jsonw_kstr(b, "sig_id", t->sig_id[k]);
		jsonw_kstr(b, "key_line", t->key_line[k]);
		jsonw_kuint(b, "count", t->sig_count[k]);
		dbuf_addc(b, '}');
	}
	dbuf_adds(b, "],");
	jsonw_kuint(b, "other_messages", t->other_sigs);
	dbuf_addc(b, '}');
}

int report_json(struct dbuf *b, const struct results *r)
{
	const struct results_totals *t = &r->totals;
	char proof[256];
	report_proof_totals(proof, sizeof(proof), t);
	dbuf_addc(b, '{');
	jsonw_kint(b, "v", 1);
	jsonw_kstr(b, "type", "summary");
	jsonw_kstr(b, "jostle", JOSTLE_VERSION);
	dbuf_addc(b, ',');
	/* the last series that has an end line says how the series ended */
	const struct results_series *last = NULL;
	for (size_t i = 0; i < r->series_nr; i++)
		if (r->series[i].ended)
			last = &r->series[i];
	jsonw_kstr(b, "series", r->series_nr ? r->series[0].id : NULL);
	jsonw_kstr(b, "stop", last ? last->stop : NULL);
	jsonw_kbool(b, "interrupted", last && last->interrupted);
	jsonw_kdbl(b, "elapsed_s", last && last->elapsed_s >= 0 ? last->elapsed_s : NAN);
	jsonw_key(b, "series_list");
	dbuf_addc(b, '[');
	for (size_t i = 0; i < r->series_nr; i++) {
		if (i)
			dbuf_addc(b, ',');
		series_obj(b, &r->series[i]);
	}
	dbuf_adds(b, "],");
	shards_obj(b, r);
	jsonw_kuint(b, "runs", t->counted);
	jsonw_kuint(b, "failures", t->failures);
	dbuf_addc(b, ',');
	static const char *const names[] = { "pass", "fail", "crash", "hang", "ignored", "cut", "slow",
					     "skip", "outlasted", "late_progressing", "late_spinning",
					     "late_stuck", "late_unjudged", "stalled" };
	const uint64_t vals[] = { t->pass, t->fail, t->crash, t->hang, t->ignored, t->cut, t->slow,
				  t->skip, t->outlasted, t->late_progressing, t->late_spinning,
				  t->late_stuck, t->late_unjudged, t->stalled };
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		jsonw_kuint(b, names[i], vals[i]);
		dbuf_addc(b, ',');
	}
	jsonw_kuint(b, "records", t->records);
	jsonw_kuint(b, "bad_lines", t->bad_lines);
	jsonw_kuint(b, "cut_lines", t->cut_lines);
	rate_members(b, t->failures, t->counted);
	jsonw_kdbl(b, "upper95", stats_cp_upper(t->failures, t->counted, REPORT_ALPHA));
	jsonw_kdbl(b, "bound", t->counted && !t->failures ? stats_cp_upper0(t->counted, REPORT_ALPHA) : NAN);
	jsonw_kbool(b, "clean", t->counted > 0 && t->failures == 0);
	jsonw_kstr(b, "proof", proof);
	jsonw_kdbl(b, "wall_s_sum", t->wall_sum);
	jsonw_kdbl(b, "wall_s_max", t->wall_max);
	jsonw_key(b, "signatures");
	dbuf_addc(b, '[');
	for (size_t i = 0; i < r->sigs_nr; i++) {
		if (i)
			dbuf_addc(b, ',');
		sig_obj(b, r, &r->sigs[r->sig_order[i]]);
	}
	dbuf_adds(b, "],");
	kcells(b, "cells", r->cells, r->cells_nr, "cell", "failures");
	jsonw_key(b, "configs");
	dbuf_addc(b, '[');
	for (size_t i = 0; i < r->configs_nr; i++) {
		const struct results_group *g = &r->configs[i];
		if (i)
			dbuf_addc(b, ',');
		dbuf_addc(b, '{');
		kraw(b, "config", g->key);
		group_members(b, g, "failures");
		dbuf_addc(b, '}');
	}
	dbuf_adds(b, "],");
	kcells(b, "arms", r->arms, r->arms_nr, "name", "fails");
	/* --tests: every test, most failures first (report.h) */
	dbuf_addc(b, ',');
	jsonw_kuint(b, "runs_with_tests", t->with_tests);
	jsonw_key(b, "tests");
	dbuf_addc(b, '[');
	for (size_t i = 0; i < r->tests_nr; i++) {
		if (i)
			dbuf_addc(b, ',');
		test_obj(b, &r->tests[r->test_order[i]]);
	}
	dbuf_adds(b, "]}\n");
	return 0;
}
