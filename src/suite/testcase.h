/*
 * testcase.h: the per-test results of one run of a test suite.
 *
 * A run of `pytest`, `ctest` or a Google Test binary is one run to the
 * engine, but dozens of tests to the person reading the report: which test
 * failed, how often, with which message. A testcase_list holds what one run
 * said about each test, from the JUnit XML it wrote (junit.h) or, when it
 * crashed or hung before writing any, from its output (testlog.h).
 *
 * Names are canonical across sources and runners: a JUnit classname and
 * name joined by "." ("Suite.Test" for Google Test, "tests.test_x.test_a"
 * for pytest), a pytest node id in the same form ("tests/test_x.py::test_a"
 * is "tests.test_x.test_a"), a name alone when the classname is empty or
 * repeats it (CTest). So a test keeps its name whether the run that saw it
 * wrote XML or only printed lines.
 *
 * Ownership: the list owns every string in it; testcase_list_release()
 * frees them all. At most TESTCASE_MAX tests are kept per run; the rest
 * are counted in `dropped`.
 */
#ifndef JOSTLE_TESTCASE_H
#define JOSTLE_TESTCASE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/dbuf.h"

#define TESTCASE_MAX 50000
#define TESTCASE_MESSAGE_MAX 4096   /* bytes of failure text kept per test */

enum tc_outcome {
	TC_PASS,
	TC_FAIL,      /* an assertion failed (JUnit <failure>) */
	TC_ERROR,     /* the test errored (JUnit <error>: setup, an exception outside the check) */
	TC_SKIP,      /* skipped, disabled, not run: in no rate */
	TC_CRASH,     /* the suite crashed while this test ran (or, unnamed, "(suite)") */
	TC_HANG,      /* the suite hung while this test ran */
	TC__COUNT
};

struct testcase {
	char *name;          /* owned, canonical */
	enum tc_outcome outcome;
	double time_s;       /* < 0: unknown */
	char *message;       /* owned: failure text (message, then detail), or NULL */
};

struct testcase_list {
	struct testcase *v;  /* owned */
	size_t nr, alloc;
	size_t dropped;      /* tests past TESTCASE_MAX */
	char *running;       /* owned: the test the output started and never ended, or NULL */
};

#define TESTCASE_LIST_INIT { NULL, 0, 0, 0, NULL }

/* "pass", "fail", "error", "skip", "crash", "hang" */
const char *testcase_outcome_name(enum tc_outcome o);
/* The outcome named s, or -1. */
int testcase_outcome_parse(const char *s);
/* A failure of the test: fail, error, crash or hang. */
bool testcase_failed(enum tc_outcome o);

/* Append a test (name and message are copied; message may be NULL). */
void testcase_add(struct testcase_list *l, const char *name, enum tc_outcome o, double time_s,
		  const char *message, size_t msglen);

/* The canonical name of a JUnit testcase (classname may be NULL or ""). */
void testcase_name_junit(struct dbuf *out, const char *classname, const char *name);
/* The canonical name of a pytest node id ("tests/test_x.py::C::test_a[1]"). */
void testcase_name_pytest(struct dbuf *out, const char *nodeid, size_t len);

void testcase_list_release(struct testcase_list *l);

#endif
