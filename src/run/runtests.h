/*
 * runtests.h: `jostle run --tests`: the glue between the engine and the
 * per-test results of a test suite (suite/).
 *
 * Every run gets JOSTLE_JUNIT=DIR/junit/RUN.xml, a path of its own. With
 * `--tests junit` the command writes its JUnit XML there (`sh -c 'pytest
 * --junitxml="$JOSTLE_JUNIT"'`); with `--tests junit:PATTERN` it writes
 * where PATTERN says ({run} is the run's index; a glob); with `--tests auto`
 * jostle points the usual runners at JOSTLE_JUNIT itself: pytest through
 * PYTEST_ADDOPTS (--junitxml), Google Test through GTEST_OUTPUT (xml:),
 * ctest by adding --output-junit to its arguments, and says so at the
 * start. After the run, the XML it wrote (else, when it crashed or hung
 * first, the test lines of its output) becomes the record's "tests": each
 * test's outcome, time and, for a failure, its signature. A crash or hang
 * (or a failing exit in mid-test, as a sanitizer's report makes it)
 * is an entry of its own, named after the test that was running.
 *
 * The engine's protocol: runtests_option() and runtests_check() from the
 * CLI; runtests_env() and runtests_argv() at each launch; runtests_collect()
 * when the run is classified; runtests_write() from the record;
 * runtests_release() with the run.
 */
#ifndef JOSTLE_RUNTESTS_H
#define JOSTLE_RUNTESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/dbuf.h"
#include "util/strvec.h"

struct run;
struct run_opts;

enum tests_mode { TESTS_OFF, TESTS_JUNIT, TESTS_AUTO };

struct runtests_opts {
	enum tests_mode mode;
	char *pattern;      /* owned: PATTERN of junit:PATTERN, or NULL */
	char *spec;         /* owned: the option's value, for the record */
	bool ctest;         /* auto: the command is ctest (--output-junit added) */
};

/* --tests VALUE: "auto", "junit" or "junit:PATTERN". 0, or -EINVAL with why. */
int runtests_option(struct runtests_opts *t, const char *val, char *why, size_t whylen);
/* With the command and -j known: PATTERN shared by concurrent runs is
 * refused; auto looks at the command. 0 or -EINVAL with why. */
int runtests_check(struct runtests_opts *t, char *const *argv, unsigned jobs, char *why,
		   size_t whylen);
/* The line that says what --tests auto does, for the start of the series. */
void runtests_describe(const struct runtests_opts *t, const char *out_dir, struct dbuf *b);
void runtests_opts_release(struct runtests_opts *t);

/* Set run INDEX's variables in env (JOSTLE_JUNIT; with auto PYTEST_ADDOPTS
 * and GTEST_OUTPUT, the user's own values kept). */
void runtests_env(const struct run_opts *o, uint64_t index, struct strvec *env);
/* The argv of run INDEX: o->argv, or with auto on ctest a copy in *tmp
 * with --output-junit added. */
char *const *runtests_argv(const struct run_opts *o, uint64_t index, struct strvec *tmp);

/* Per-test results of a classified run r from its files and output text. */
void runtests_collect(const struct run_opts *o, struct run *r, const char *text, size_t len);
/* The record's "tests" members (each preceded by a comma); nothing without. */
void runtests_write(const struct run *r, struct dbuf *b);
void runtests_release(struct run *r);

#endif
