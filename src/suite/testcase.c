/*
 * testcase.c: per-test results of one run (see testcase.h): the list, its
 * outcomes and the one naming rule that makes a test's name the same
 * whether it came from JUnit XML or from a runner's output.
 */
#include <stdlib.h>
#include <string.h>

#include "suite/testcase.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *const names[TC__COUNT] = {
	[TC_PASS] = "pass", [TC_FAIL] = "fail", [TC_ERROR] = "error",
	[TC_SKIP] = "skip", [TC_CRASH] = "crash", [TC_HANG] = "hang",
};

const char *testcase_outcome_name(enum tc_outcome o)
{
	return (unsigned)o < TC__COUNT ? names[o] : "?";
}

int testcase_outcome_parse(const char *s)
{
	for (int i = 0; s && i < TC__COUNT; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

bool testcase_failed(enum tc_outcome o)
{
	return o == TC_FAIL || o == TC_ERROR || o == TC_CRASH || o == TC_HANG;
}

void testcase_add(struct testcase_list *l, const char *name, enum tc_outcome o, double time_s,
		  const char *message, size_t msglen)
{
	if (l->nr >= TESTCASE_MAX) {
		l->dropped++;
		return;
	}
	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	struct testcase *t = &l->v[l->nr++];
	t->name = xstrdup(name);
	t->outcome = o;
	t->time_s = time_s;
	t->message = NULL;
	if (message && msglen)
		t->message = xstrndup(message, msglen > TESTCASE_MESSAGE_MAX ? TESTCASE_MESSAGE_MAX : msglen);
}

void testcase_name_junit(struct dbuf *out, const char *classname, const char *name)
{
	if (!name)
		name = "";
	if (classname && *classname && strcmp(classname, name)) {
		dbuf_adds(out, classname);
		dbuf_addc(out, '.');
	}
	dbuf_adds(out, name);
}

void testcase_name_pytest(struct dbuf *out, const char *nodeid, size_t len)
{
	/* the path part: "tests/test_x.py" -> "tests.test_x"; then "::" -> "." */
	const char *end = nodeid + len, *sep = nodeid;
	while (sep + 1 < end && !(sep[0] == ':' && sep[1] == ':'))
		sep++;
	if (sep + 1 >= end)
		sep = end;
	size_t plen = (size_t)(sep - nodeid);
	if (plen > 3 && !memcmp(sep - 3, ".py", 3))
		plen -= 3;
	for (size_t i = 0; i < plen; i++)
		dbuf_addc(out, nodeid[i] == '/' || nodeid[i] == '\\' ? '.' : nodeid[i]);
	for (const char *p = sep; p < end; p++) {
		if (p + 1 < end && p[0] == ':' && p[1] == ':') {
			dbuf_addc(out, '.');
			p++;
		} else {
			dbuf_addc(out, *p);
		}
	}
}

void testcase_list_release(struct testcase_list *l)
{
	for (size_t i = 0; i < l->nr; i++) {
		free(l->v[i].name);
		free(l->v[i].message);
	}
	free(l->v);
	free(l->running);
	memset(l, 0, sizeof(*l));
}
