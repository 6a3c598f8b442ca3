/*
 * testlog.h: per-test results from a test runner's output, for the runs
 * that wrote no JUnit XML because they crashed or hung first (pytest,
 * CTest and Google Test write theirs at the end).
 *
 * Read, line by line (pure; tested on fixture text):
 *   pytest -v      "tests/test_x.py::test_a PASSED  [ 20%]" (FAILED, ERROR,
 *                  SKIPPED, XFAIL, XPASS); a node id with no result after
 *                  it is the test that was running
 *   Google Test    "[ RUN      ] Suite.Test", "[       OK ] Suite.Test (12 ms)",
 *                  "[  FAILED  ] Suite.Test (3 ms)", "[  SKIPPED ] ..."; the
 *                  lines between RUN and FAILED are the failure's message
 *   CTest          "Start  2: name", "2/5 Test #2: name ....   Passed  0.01 sec"
 *                  (***Failed, ***Timeout, ***Exception, Not Run, Skipped)
 * Names are canonical (testcase.h), so they match the runs that did write
 * XML (a pytest node id is made relative to the "rootdir:" of its header,
 * from the current directory, as pytest's JUnit XML has it). pytest
 * without -v prints no test names: nothing to read there.
 */
#ifndef JOSTLE_TESTLOG_H
#define JOSTLE_TESTLOG_H

#include <stddef.h>

#include "suite/testcase.h"

/* Append the results the output states to out, and set out->running to
 * the test it started last and never ended (NULL when none). Returns the
 * number of results added. */
size_t testlog_scan(const char *text, size_t len, struct testcase_list *out);

#endif
