/*
 * runtests.c: `jostle run --tests` (see runtests.h).
 *
 * The runners are pointed through the environment where they read it
 * (PYTEST_ADDOPTS, GTEST_OUTPUT), so a wrapper script or `make check`
 * between jostle and the runner changes nothing; only ctest, which reads
 * no such variable, gets an argument. A run's XML is deleted once read
 * unless a test failed in it (it is kept beside the log as evidence).
 */
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/outcome.h"
#include "run/runtests.h"
#include "run/series.h"
#include "signature/frame.h"
#include "signature/signature.h"
#include "suite/junit.h"
#include "suite/testcase.h"
#include "suite/testlog.h"
#include "util/jsonw.h"
#include "util/path.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct test_sig {
	char id[9];
	char *key, *key_line;   /* owned, may be NULL */
};

struct runtests_state {
	struct testcase_list list;
	struct test_sig *sigs;  /* list.nr entries; set for failures */
	const char *from;       /* "junit" or "output" */
};

static void runtests_release_state(struct runtests_state *st)
{
	if (!st)
		return;
	for (size_t i = 0; st->sigs && i < st->list.nr; i++) {
		free(st->sigs[i].key);
		free(st->sigs[i].key_line);
	}
	free(st->sigs);
	testcase_list_release(&st->list);
	free(st);
}

int runtests_option(struct runtests_opts *t, const char *val, char *why, size_t whylen)
{
	free(t->pattern);
	free(t->spec);
	t->pattern = t->spec = NULL;
	if (!strcmp(val, "auto")) {
		t->mode = TESTS_AUTO;
	} else if (!strcmp(val, "junit")) {
		t->mode = TESTS_JUNIT;
	} else if (!strncmp(val, "junit:", 6) && val[6]) {
		t->mode = TESTS_JUNIT;
		t->pattern = xstrdup(val + 6);
	} else {
		snprintf(why, whylen, "--tests '%.100s' is not a source of test results; expected auto, "
			 "junit (the file at $JOSTLE_JUNIT) or junit:PATTERN (e.g. junit:out/{run}.xml)", val);
		return -EINVAL;
	}
	t->spec = xstrdup(val);
	return 0;
}

int runtests_check(struct runtests_opts *t, char *const *argv, unsigned jobs, char *why,
		   size_t whylen)
{
	if (t->mode == TESTS_JUNIT && t->pattern && !strstr(t->pattern, "{run}") && jobs > 1) {
		snprintf(why, whylen, "--tests junit:%.100s: with -j %u the runs would write one file; "
			 "put {run} in PATTERN and $JOSTLE_RUN in the command's path, or let the command "
			 "write \"$JOSTLE_JUNIT\" (--tests junit), or use -j 1", t->pattern, jobs);
		return -EINVAL;
	}
	t->ctest = t->mode == TESTS_AUTO && argv && argv[0] && !strcmp(frame_basename(argv[0]), "ctest");
	return 0;
}

void runtests_describe(const struct runtests_opts *t, const char *out_dir, struct dbuf *b)
{
	if (t->mode != TESTS_AUTO)
		return;
	dbuf_addf(b, "jostle: --tests auto: each run writes JUnit XML to %s/junit/RUN.xml (JOSTLE_JUNIT): ",
		  out_dir);
	if (t->ctest)
		dbuf_adds(b, "ctest gets --output-junit");
	else
		dbuf_adds(b, "pytest gets --junitxml through PYTEST_ADDOPTS, Google Test GTEST_OUTPUT=xml:");
	dbuf_adds(b, "; a runner that writes elsewhere needs --tests junit:PATTERN\n");
}

void runtests_opts_release(struct runtests_opts *t)
{
	free(t->pattern);
	free(t->spec);
	memset(t, 0, sizeof(*t));
}

static char *junit_path(const struct run_opts *o, uint64_t index)
{
	return xasprintf("%s/junit/%" PRIu64 ".xml", o->out_dir, index);
}

void runtests_env(const struct run_opts *o, uint64_t index, struct strvec *env)
{
	if (o->tests.mode == TESTS_OFF)
		return;
	char *dir = xasprintf("%s/junit", o->out_dir);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		fprintf(stderr, "jostle: cannot create '%s': %s\n", dir, strerror(errno));
	free(dir);
	char *path = junit_path(o, index);
	strvec_setenv(env, "JOSTLE_JUNIT", path);
	if (o->tests.mode == TESTS_AUTO && !o->tests.ctest) {
		/* the user's own options first: a later --junitxml wins in pytest */
		const char *user = getenv("PYTEST_ADDOPTS");
		char *v = xasprintf("%s%s--junitxml=%s", user ? user : "", user && *user ? " " : "", path);
		strvec_setenv(env, "PYTEST_ADDOPTS", v);
		free(v);
		v = xasprintf("xml:%s", path);
		strvec_setenv(env, "GTEST_OUTPUT", v);
		free(v);
	}
	free(path);
}

char *const *runtests_argv(const struct run_opts *o, uint64_t index, struct strvec *tmp)
{
	if (o->tests.mode != TESTS_AUTO || !o->tests.ctest)
		return o->argv;
	strvec_release(tmp);
	for (char **a = o->argv; *a; a++)
		strvec_push(tmp, *a);
	strvec_push(tmp, "--output-junit");
	strvec_push_nodup(tmp, junit_path(o, index));
	return tmp->v;
}

/* The files of junit:PATTERN for this run: {run} replaced, globbed, and
 * only those written since the run started (a fixed name with -j 1 holds
 * the previous run's report until this one writes it). */
static void read_pattern(const struct run_opts *o, const struct run *r, struct testcase_list *l)
{
	struct dbuf pat;
	char idx[32], err[256];
	dbuf_init(&pat, 1 << 16);
	snprintf(idx, sizeof(idx), "%" PRIu64, r->index);
	for (const char *p = o->tests.pattern; *p; p++) {
		if (!strncmp(p, "{run}", 5)) {
			dbuf_adds(&pat, idx);
			p += 4;
		} else {
			dbuf_addc(&pat, *p);
		}
	}
	glob_t g;
	if (glob(dbuf_str(&pat), 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			struct stat st;
			int64_t mtime;
			if (stat(g.gl_pathv[i], &st) < 0)
				continue;
			mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
			if (mtime + 1000000000 < r->start_real)   /* a second for coarse clocks */
				continue;
			if (junit_read_file(g.gl_pathv[i], l, err, sizeof(err)) < 0)
				fprintf(stderr, "jostle: run %" PRIu64 ": '%s' is not JUnit XML: %s\n", r->index,
					g.gl_pathv[i], err[0] ? err : "no test case");
		}
		globfree(&g);
	}
	dbuf_release(&pat);
}

/* A run that ended by itself gave no test at all: the runner wrote no XML
 * where auto pointed it, and printed no test lines. Said once per process
 * (the runs of a series, and a bisection's, share one command), on the
 * engine's thread, as the first such run is classified. */
static void say_no_junit(const struct run *r, const char *own)
{
	static bool said;
	if (said)
		return;
	said = true;
	fprintf(stderr, "jostle: --tests auto: run %" PRIu64 " gave no test results (no JUnit XML "
		"at '%s', no test lines in its output); have the command write \"$JOSTLE_JUNIT\", "
		"or give --tests junit:PATTERN for where it writes its XML\n", r->index, own);
}

void runtests_collect(const struct run_opts *o, struct run *r, const char *text, size_t len)
{
	if (o->tests.mode == TESTS_OFF)
		return;
	struct runtests_state *st = xcalloc(1, sizeof(*st));
	char err[256];
	char *own = junit_path(o, r->index);
	st->from = "junit";
	if (access(own, F_OK) == 0 && junit_read_file(own, &st->list, err, sizeof(err)) < 0)
		fprintf(stderr, "jostle: run %" PRIu64 ": '%s' is not JUnit XML: %s\n", r->index, own,
			err[0] ? err : "no test case");
	if (o->tests.pattern)
		read_pattern(o, r, &st->list);
	if (!st->list.nr) {
		/* no XML: a crash or hang came first, or the runner writes none */
		testlog_scan(text, len, &st->list);
		st->from = "output";
	}
	/* The suite ended inside a test (killed, hung, or exited mid-test, as a
	 * sanitizer's report does): that test failed as the suite did. */
	if (r->outcome == OUT_CRASH || r->outcome == OUT_HANG ||
	    (r->outcome == OUT_FAIL && !strcmp(st->from, "output") && st->list.running)) {
		const char *name = st->list.running ? st->list.running : "(suite)";
		const char *why = r->sig.key_line ? r->sig.key_line : outcome_name(r->outcome);
		testcase_add(&st->list, name, r->outcome == OUT_HANG ? TC_HANG : TC_CRASH, -1,
			     why, strlen(why));
	}
	bool failed = false;
	st->sigs = xcalloc(st->list.nr + 1, sizeof(*st->sigs));
	for (size_t i = 0; i < st->list.nr; i++) {
		const struct testcase *t = &st->list.v[i];
		if (!testcase_failed(t->outcome))
			continue;
		failed = true;
		struct signature sig;
		memset(&sig, 0, sizeof(sig));
		const char *msg = t->message ? t->message : "";
		signature_from_output(&sig, testcase_outcome_name(t->outcome), msg, strlen(msg), NULL);
		if (!sig.key) {
			sig.key_line = xstrdup("(no message)");
			sig.key = xstrdup("(no message)");
			signature_update_id(&sig);
		}
		memcpy(st->sigs[i].id, sig.id, sizeof(sig.id));
		st->sigs[i].key = sig.key;
		st->sigs[i].key_line = sig.key_line;
		sig.key = sig.key_line = NULL;
		signature_release(&sig);
	}
	if (!failed)
		unlink(own);   /* kept only as the evidence of a failure */
	if (!st->list.nr && o->tests.mode == TESTS_AUTO && (r->outcome == OUT_PASS || r->outcome == OUT_FAIL))
		say_no_junit(r, own);
	free(own);
	if (!st->list.nr) {
		runtests_release_state(st);
		return;
	}
	r->tests = st;
}

void runtests_write(const struct run *r, struct dbuf *b)
{
	const struct runtests_state *st = r->tests;
	if (!st)
		return;
	jsonw_kstr(b, "tests_from", st->from);
	if (st->list.dropped)
		jsonw_kuint(b, "tests_dropped", st->list.dropped);
	jsonw_key(b, "tests");
	dbuf_addc(b, '[');
	for (size_t i = 0; i < st->list.nr; i++) {
		const struct testcase *t = &st->list.v[i];
		if (i)
			dbuf_addc(b, ',');
		dbuf_addc(b, '{');
		jsonw_kstr(b, "name", t->name);
		jsonw_kstr(b, "outcome", testcase_outcome_name(t->outcome));
		if (t->time_s >= 0)
			jsonw_kdbl(b, "time", t->time_s);
		if (testcase_failed(t->outcome)) {
			jsonw_kstr(b, "sig_id", st->sigs[i].id);
			jsonw_kstr(b, "sig_key", st->sigs[i].key);
			jsonw_kstr(b, "key_line", st->sigs[i].key_line);
		}
		dbuf_addc(b, '}');
	}
	dbuf_addc(b, ']');
}

void runtests_release(struct run *r)
{
	runtests_release_state(r->tests);
	r->tests = NULL;
}
