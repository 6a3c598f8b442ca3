/*
 * junit.h: the test cases of a JUnit XML report, as pytest --junitxml,
 * ctest --output-junit, Google Test's GTEST_OUTPUT=xml, go-junit-report
 * and cargo nextest write it.
 *
 * Read with expat as a stream: the report of a suite of 100,000 tests is
 * never held as a tree, and a file cut short (a writer killed mid-write)
 * still gives every test case that ended before the cut. A <testcase> with
 * <failure> fails, with <error> errors, with <skipped> (or CTest's and
 * Google Test's status="notrun", result="skipped"/"suppressed") is
 * skipped, and passes otherwise; its time is the time attribute; its
 * message is the failure's message attribute, then its text, bounded (a
 * failure with neither, as CTest writes it, takes the test case's
 * <system-out> and <system-err>).
 * Nested <testsuite> elements and unknown elements and attributes are
 * ignored.
 */
#ifndef JOSTLE_JUNIT_H
#define JOSTLE_JUNIT_H

#include <stddef.h>

#include "suite/testcase.h"

/*
 * Parse len bytes of JUnit XML into out (appended). Returns the number of
 * test cases added, or -EINVAL when the text is not XML with a test case;
 * a parse error after some test cases still returns their count, with
 * the reason in err (err[0] == '\0' when the whole text parsed).
 */
int junit_parse(const char *xml, size_t len, struct testcase_list *out, char *err, size_t errlen);

/* The same for a file, read in blocks. -errno when it cannot be opened. */
int junit_read_file(const char *path, struct testcase_list *out, char *err, size_t errlen);

#endif
