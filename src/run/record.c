/*
 * record.c: runs.jsonl lines (see record.h and docs/FORMAT.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/machine.h"
#include "run/matrix.h"
#include "run/outcome.h"
#include "run/record.h"
#include "util/clock.h"
#include "util/fileio.h"
#include "util/jsonw.h"
#include "util/regex.h"
#include "util/banned.h"

#define C(b) dbuf_addc((b), ',')

static void hex_seed(char *buf, size_t len, uint64_t seed)
{
	snprintf(buf, len, "0x%016" PRIx64, seed);
}

void record_series(struct dbuf *b, const char *series_id, const struct run_opts *o,
		   int64_t start_real)
{
	char ts[40], seed[24], cwd[4096];
	clock_iso8601(start_real, ts, sizeof(ts));
	hex_seed(seed, sizeof(seed), o->seed);
	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), "?");
	dbuf_addc(b, '{');
	jsonw_kstr(b, "type", "series");
	jsonw_kint(b, "v", 1);
	jsonw_kstr(b, "series", series_id);
	jsonw_kstr(b, "jostle", JOSTLE_VERSION);
	jsonw_key(b, "argv");
	dbuf_addc(b, '[');
	for (char **a = o->argv; *a; a++) {
		if (a != o->argv)
			C(b);
		jsonw_string(b, *a, strlen(*a));
	}
	dbuf_addc(b, ']');
	jsonw_kstr(b, "cwd", cwd);
	jsonw_kstr(b, "start", ts);
	jsonw_kstr(b, "seed", seed);
	if (o->shard.count) {   /* issue 17: plan.h */
		jsonw_key(b, "shard");
		dbuf_addc(b, '{');
		jsonw_kuint(b, "index", o->shard.index);
		jsonw_kuint(b, "count", o->shard.count);
		jsonw_kstr(b, "from", o->shard.from);
		dbuf_addc(b, '}');
	}
	jsonw_key(b, "settings");
	dbuf_addc(b, '{');
	jsonw_kuint(b, "runs", o->runs);
	jsonw_kdbl(b, "time_s", (double)o->time_ns / 1e9);
	jsonw_kuint(b, "jobs", o->jobs);
	jsonw_kdbl(b, "timeout_s", (double)o->timeout_ns / 1e9);
	jsonw_kstr(b, "until", o->until_text);
	jsonw_kstr(b, "fail_on", o->fail_on ? regex_pattern(o->fail_on) : NULL);
	jsonw_kstr(b, "ignore", o->ignore ? regex_pattern(o->ignore) : NULL);
	jsonw_kstr(b, "signature", o->sig_re ? regex_pattern(o->sig_re) : NULL);
	if (o->tests.spec)
		jsonw_kstr(b, "tests", o->tests.spec);
	if (o->settings_extra)
		dbuf_adds(b, o->settings_extra);
	if (o->matrix) {   /* issue 6 */
		jsonw_key(b, "matrix");
		dbuf_addc(b, '[');
		for (size_t a = 0; a < o->matrix->nr; a++) {
			const struct matrix_axis *ax = &o->matrix->axes[a];
			if (a)
				C(b);
			dbuf_adds(b, "{");
			jsonw_kstr(b, "name", ax->name);
			jsonw_key(b, "values");
			dbuf_addc(b, '[');
			for (size_t v = 0; v < ax->values.nr; v++) {
				if (v)
					C(b);
				jsonw_string(b, ax->values.v[v], strlen(ax->values.v[v]));
			}
			dbuf_adds(b, "]}");
		}
		dbuf_addc(b, ']');
	}
	dbuf_addc(b, '}');
	jsonw_key(b, "machine");
	machine_json(b);
	dbuf_adds(b, "}\n");
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

void record_cpu(const struct run *r, double *user_s, double *sys_s)
{
	/* the tree's account when the rusage of the main child missed some */
	double user = tv_s(r->ru.ru_utime), sys = tv_s(r->ru.ru_stime);

	*user_s = (r->tree_user_s > user ? r->tree_user_s : user) + r->extra_user_s;
	*sys_s = (r->tree_sys_s > sys ? r->tree_sys_s : sys) + r->extra_sys_s;
}

void record_run(struct dbuf *b, const char *series_id, const struct run *r,
		int64_t series_start_mono, const struct capture *cap, const char *log)
{
	char ts[40], seed[24];
	clock_iso8601(r->start_real, ts, sizeof(ts));
	hex_seed(seed, sizeof(seed), r->seed);
	dbuf_addc(b, '{');
	jsonw_kstr(b, "type", "run");
	jsonw_kstr(b, "series", series_id);
	jsonw_kuint(b, "run", r->index);
	jsonw_kstr(b, "seed", seed);
	jsonw_kstr(b, "cell", r->cell ? r->cell : "");
	C(b);
	dbuf_adds(b, "\"config\":");
	if (r->cell_cpus && (!r->config_json || !strcmp(r->config_json, "{}")))
		dbuf_addf(b, "{\"cpus\":\"%s\"}", r->cell_cpus);   /* issue 6: cpus= axis */
	else
		dbuf_adds(b, r->config_json ? r->config_json : "{}");
	jsonw_kstr(b, "outcome", outcome_name(r->outcome));
	if (r->extended)
		jsonw_kdbl(b, "timeout_scale", r->timeout_scale);
	/* past its deadline: what it was (late.h, docs/timeouts.md) */
	if (r->late && (r->outcome == OUT_HANG || r->outcome == OUT_SLOW)) {
		jsonw_kstr(b, "late", r->late);
		if (r->outcome == OUT_SLOW)
			jsonw_kstr(b, "slow_why", r->slow_why);
		if (r->cpu_factor > 0)
			jsonw_kdbl(b, "cpu_factor", (double)(int64_t)(r->cpu_factor * 10 + 0.5) / 10);
	}
	if (r->delays.delay_s > 0 || r->delays.steps) {   /* the chaos library's, delays.h */
		jsonw_kdbl(b, "chaos_delay_s", r->delays.delay_s);
		jsonw_kdbl(b, "chaos_spin_s", r->delays.spin_s);
		jsonw_kuint(b, "chaos_steps", r->delays.steps);
	}
	/* how it ended, when it ended by itself (not killed at its deadline) */
	bool own = !r->timed_out || r->ended_by_itself;
	jsonw_key(b, "exit");
	if (own && WIFEXITED(r->status))
		dbuf_addf(b, "%d", WEXITSTATUS(r->status));
	else
		dbuf_adds(b, "null");
	jsonw_key(b, "signal");
	if (own && WIFSIGNALED(r->status)) {
		const char *abbrev = sigabbrev_np(WTERMSIG(r->status));
		dbuf_addf(b, "\"SIG%s\"", abbrev ? abbrev : "UNKNOWN");
	} else {
		dbuf_adds(b, "null");
	}
	jsonw_kbool(b, "core", own && WIFSIGNALED(r->status) && WCOREDUMP(r->status));
	jsonw_kstr(b, "start", ts);
	jsonw_kdbl(b, "t", (double)(r->start_mono - series_start_mono) / 1e9);
	jsonw_kdbl(b, "wall_s", (double)(r->end_mono - r->start_mono) / 1e9);
	jsonw_kdbl(b, "machine_s", r->share_s);
	double user, sys;
	record_cpu(r, &user, &sys);
	jsonw_kdbl(b, "user_s", user);
	jsonw_kdbl(b, "sys_s", sys);
	jsonw_kint(b, "maxrss_kb", r->ru.ru_maxrss);
	jsonw_kuint(b, "out_bytes", cap->total);
	jsonw_kuint(b, "out_dropped", capture_dropped(cap));
	bool failed = outcome_is_failure(r->outcome);
	jsonw_kstr(b, "sig_id", failed ? r->sig.id : NULL);
	jsonw_kstr(b, "sig_kind", failed ? r->sig.kind : NULL);
	jsonw_kstr(b, "sig_key", failed ? r->sig.key : NULL);
	jsonw_kstr(b, "key_line", failed ? r->sig.key_line : NULL);
	if (failed && r->sig.weak_key)   /* no report recognized: a run-only guess */
		jsonw_kbool(b, "key_guessed", true);
	if (failed && r->sig.scope[0])   /* part of the id (signature_scope) */
		jsonw_kstr(b, "sig_scope", r->sig.scope);
	jsonw_key(b, "frames");
	dbuf_addc(b, '[');
	for (size_t i = 0; failed && i < r->sig.nframes; i++) {
		if (i)
			C(b);
		jsonw_string(b, r->sig.frames[i], strlen(r->sig.frames[i]));
	}
	dbuf_addc(b, ']');
	jsonw_kstr(b, "log", log);
	if (r->no_record)   /* recsample.h */
		jsonw_kbool(b, "crash_record", false);
	if (r->frames_taken)
		jsonw_kuint(b, "frames_from", r->frames_from);
	if (r->outcome == OUT_CUT)
		jsonw_kstr(b, "cut_by", r->cut_by);
	runtests_write(r, b);
	if (r->diag_json) {
		jsonw_key(b, "diag");
		dbuf_adds(b, r->diag_json);
	}
	dbuf_adds(b, "}\n");
}

int record_write(int fd, const struct dbuf *b)
{
	struct stat st;
	off_t before = fstat(fd, &st) == 0 ? st.st_size : -1;
	int rc = fileio_write_all(fd, dbuf_str(b), b->len);
	if (rc < 0) {
		/* A full disk takes what fits: cut the file back to its last
		 * complete line, so that it never ends in half a record (when
		 * even that fails, readers drop the cut line: results.h). */
		if (before >= 0 && ftruncate(fd, before) < 0)
			before = -1;
		errno = -rc;
		return -1;
	}
	if (fstat(fd, &st) == 0 && st.st_nlink == 0) {
		errno = ENOENT;   /* written, but to a file no one can open again */
		return -1;
	}
	return 0;
}

void record_end(struct dbuf *b, const char *series_id, const char *stop, bool interrupted,
		double elapsed_s, uint64_t without, uint64_t taken)
{
	dbuf_addc(b, '{');
	jsonw_kstr(b, "type", "end");
	jsonw_kstr(b, "series", series_id);
	jsonw_kstr(b, "stop", stop);
	jsonw_kbool(b, "interrupted", interrupted);
	jsonw_kdbl(b, "elapsed_s", elapsed_s);
	if (without) {   /* crash records sampled once a crash repeated (recsample.h) */
		jsonw_kuint(b, "runs_without_crash_record", without);
		jsonw_kuint(b, "crashes_signed_from_records", taken);
	}
	/* jostle's own CPU, every thread (diagnosis workers too), not the runs' */
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		jsonw_kdbl(b, "jostle_cpu_s", (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			   (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	dbuf_adds(b, "}\n");
}
