/* suite/: JUnit XML (whole, cut short, CTest's empty failures), runner
 * lines (pytest -v relative to its rootdir, Google Test, CTest), names. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suite/junit.h"
#include "suite/testcase.h"
#include "suite/testlog.h"
#include "tap.h"

static const struct testcase *find(const struct testcase_list *l, const char *name)
{
	for (size_t i = 0; i < l->nr; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

static void test_junit(void)
{
	static const char xml[] =
		"<?xml version=\"1.0\"?><testsuites><testsuite name=\"s\">"
		"<testcase classname=\"tests.test_x\" name=\"test_a\" time=\"0.25\"/>"
		"<testcase classname=\"tests.test_x\" name=\"test_b\" time=\"0.5\">"
		"<failure message=\"assert 1 == 2\">detail &amp; more</failure></testcase>"
		"<testcase classname=\"tests.test_x\" name=\"test_c\"><skipped/></testcase>"
		"<testcase classname=\"Drain\" name=\"DISABLED_x\" status=\"notrun\"/>"
		"<testcase classname=\"flaky\" name=\"flaky\" status=\"fail\"><failure message=\"\"/>"
		"<system-out>ack never came\n</system-out></testcase>"
		"<testcase classname=\"e\" name=\"err\"><error message=\"boom\"/></testcase>"
		"</testsuite></testsuites>";
	struct testcase_list l = TESTCASE_LIST_INIT;
	char err[256];
	CHECK(junit_parse(xml, strlen(xml), &l, err, sizeof(err)) == 6);
	CHECK_STR(err, "");
	const struct testcase *t = find(&l, "tests.test_x.test_a");
	CHECK(t && t->outcome == TC_PASS && t->time_s == 0.25);
	t = find(&l, "tests.test_x.test_b");
	CHECK(t && t->outcome == TC_FAIL && t->message && strstr(t->message, "assert 1 == 2") &&
	      strstr(t->message, "detail & more"));
	t = find(&l, "tests.test_x.test_c");
	CHECK(t && t->outcome == TC_SKIP);
	t = find(&l, "Drain.DISABLED_x");
	CHECK(t && t->outcome == TC_SKIP);
	t = find(&l, "flaky");   /* CTest: classname repeats the name; message from the output */
	CHECK(t && t->outcome == TC_FAIL && t->message && strstr(t->message, "ack never came"));
	t = find(&l, "e.err");
	CHECK(t && t->outcome == TC_ERROR);
	testcase_list_release(&l);

	/* cut short by a killed writer: the cases that ended are kept */
	size_t cut = (size_t)(strstr(xml, "<testcase classname=\"tests.test_x\" name=\"test_c\"") - xml) + 10;
	struct testcase_list p = TESTCASE_LIST_INIT;
	CHECK(junit_parse(xml, cut, &p, err, sizeof(err)) == 2);
	CHECK(err[0] != '\0');
	testcase_list_release(&p);

	struct testcase_list n = TESTCASE_LIST_INIT;
	CHECK(junit_parse("not xml", 7, &n, err, sizeof(err)) < 0);
	testcase_list_release(&n);
}

static void test_log(void)
{
	char base[] = "/tmp/jostle-test-suite.XXXXXX";
	char *home = getcwd(NULL, 0);
	CHECK(mkdtemp(base) && chdir(base) == 0);
	char *cwd = getcwd(NULL, 0);
	char text[4096];
	/* pytest -v started in cwd/sub, rootdir cwd: node ids relative to cwd/sub */
	snprintf(text, sizeof(text),
		 "rootdir: %s, configfile: pytest.ini\n"
		 "../pkg/test_x.py::test_a PASSED [ 33%%]\n"
		 "../pkg/test_x.py::TestC::test_b[1] FAILED [ 66%%]\n"
		 "../pkg/test_x.py::test_c \n"
		 "Fatal Python error: Aborted\n", cwd);
	char *sub = NULL;
	if (asprintf(&sub, "%s/sub", cwd) < 0)
		sub = NULL;
	if (sub)
		mkdir(sub, 0755);
	CHECK(sub && chdir(sub) == 0);
	if (sub) {
		struct testcase_list l = TESTCASE_LIST_INIT;
		CHECK(testlog_scan(text, strlen(text), &l) == 2);
		CHECK(find(&l, "pkg.test_x.test_a") && find(&l, "pkg.test_x.test_a")->outcome == TC_PASS);
		CHECK(find(&l, "pkg.test_x.TestC.test_b[1]") &&
		      find(&l, "pkg.test_x.TestC.test_b[1]")->outcome == TC_FAIL);
		CHECK(l.running && !strcmp(l.running, "pkg.test_x.test_c"));
		testcase_list_release(&l);
		CHECK(chdir(cwd) == 0);
		rmdir(sub);
	}
	free(sub);
	free(cwd);
	CHECK(home && chdir(home) == 0);
	rmdir(base);
	free(home);

	static const char gt[] =
		"[ RUN      ] Queue.PushPop\n[       OK ] Queue.PushPop (0 ms)\n"
		"[ RUN      ] Drain.Handshake\nx.cc:3: Failure\nack never came\n"
		"[  FAILED  ] Drain.Handshake (1 ms)\n[ RUN      ] Zz.Crash\n";
	struct testcase_list g = TESTCASE_LIST_INIT;
	CHECK(testlog_scan(gt, strlen(gt), &g) == 2);
	CHECK(find(&g, "Queue.PushPop") && find(&g, "Queue.PushPop")->outcome == TC_PASS);
	CHECK(find(&g, "Drain.Handshake") && find(&g, "Drain.Handshake")->outcome == TC_FAIL);
	CHECK(g.running && !strcmp(g.running, "Zz.Crash"));
	testcase_list_release(&g);

	static const char ct[] =
		"    Start 1: stable\n1/3 Test #1: stable ...........   Passed    0.01 sec\n"
		"    Start 2: flaky\n2/3 Test #2: flaky ............***Failed    0.02 sec\n"
		"    Start 3: slow\n";
	struct testcase_list c = TESTCASE_LIST_INIT;
	CHECK(testlog_scan(ct, strlen(ct), &c) == 2);
	CHECK(find(&c, "stable") && find(&c, "stable")->outcome == TC_PASS);
	CHECK(find(&c, "flaky") && find(&c, "flaky")->outcome == TC_FAIL);
	CHECK(c.running && !strcmp(c.running, "slow"));
	testcase_list_release(&c);
}

int main(void)
{
	test_junit();
	test_log();
	return tap_done();
}
