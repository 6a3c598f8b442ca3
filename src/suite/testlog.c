/*
 * testlog.c: per-test results from runner output (see testlog.h). Plain
 * string matching on fixed markers: the formats are a handful, stable for
 * years, and the output may be megabytes of anything around them.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suite/testlog.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct line {
	const char *s;
	size_t len;
};

static bool starts(const struct line *l, size_t at, const char *p)
{
	size_t n = strlen(p);
	return at + n <= l->len && !memcmp(l->s + at, p, n);
}

static size_t skip_spaces(const struct line *l, size_t at)
{
	while (at < l->len && (l->s[at] == ' ' || l->s[at] == '\t'))
		at++;
	return at;
}

static size_t token_end(const struct line *l, size_t at)
{
	while (at < l->len && l->s[at] != ' ' && l->s[at] != '\t')
		at++;
	return at;
}

static void set_running(struct testcase_list *out, const char *name)
{
	free(out->running);
	out->running = name ? xstrdup(name) : NULL;
}

/* ---- pytest -v ---- */

static const struct {
	const char *word;
	enum tc_outcome o;
} pytest_words[] = {
	{ "PASSED", TC_PASS }, { "FAILED", TC_FAIL }, { "ERROR", TC_ERROR },
	{ "SKIPPED", TC_SKIP }, { "XFAIL", TC_SKIP }, { "XPASS", TC_PASS },
};

/*
 * pytest -v prints node ids relative to the directory it was started in
 * ("../../src/tests/test_x.py::test_a"), its JUnit XML relative to its
 * rootdir (the header's "rootdir: DIR"): a path under the rootdir is made
 * relative to it (lexically, from this process's directory, which is the
 * run's), so both sources name the test alike.
 */
static void pytest_rebase(struct dbuf *path, const char *id, size_t plen, const char *rootdir)
{
	struct dbuf abs;
	dbuf_init(&abs, 1 << 16);
	dbuf_reset(path);
	if (rootdir && plen && id[0] != '/') {
		char *cwd = getcwd(NULL, 0);
		if (cwd)
			dbuf_adds(&abs, cwd);
		free(cwd);
	}
	bool rooted = plen && (id[0] == '/' || abs.len);   /* an absolute path to compare */
	if (rootdir && rooted) {
		/* join and normalize: ".", "..", repeated slashes */
		dbuf_addc(&abs, '/');
		dbuf_add(&abs, id, plen);
		const char *a = dbuf_str(&abs);
		struct dbuf norm;
		dbuf_init(&norm, 1 << 16);
		for (const char *c = a; *c;) {
			while (*c == '/')
				c++;
			const char *e = strchr(c, '/');
			size_t n = e ? (size_t)(e - c) : strlen(c);
			if (n == 2 && !memcmp(c, "..", 2)) {
				while (norm.len && norm.buf[norm.len - 1] != '/')
					norm.len--;
				if (norm.len)
					norm.len--;
			} else if (n && !(n == 1 && c[0] == '.')) {
				dbuf_addc(&norm, '/');
				dbuf_add(&norm, c, n);
			}
			c += n;
		}
		size_t rl = strlen(rootdir);
		while (rl > 1 && rootdir[rl - 1] == '/')
			rl--;
		const char *nb = dbuf_str(&norm);
		if (norm.len > rl + 1 && !memcmp(nb, rootdir, rl) && nb[rl] == '/')
			dbuf_adds(path, nb + rl + 1);
		dbuf_release(&norm);
	}
	if (!path->len)
		dbuf_add(path, id, plen);
	dbuf_release(&abs);
}

static bool pytest_line(const struct line *l, struct testcase_list *out, struct dbuf *name,
			size_t *added, const char *rootdir)
{
	size_t end = token_end(l, 0);
	const char *id = l->s, *sep = NULL;
	for (const char *p = id; p + 4 < id + end; p++)
		if (!memcmp(p, ".py::", 5)) {
			sep = p;
			break;
		}
	if (!sep || end == l->len || end > 4096)
		return false;
	struct dbuf nodeid;
	dbuf_init(&nodeid, 1 << 16);
	pytest_rebase(&nodeid, id, (size_t)(sep + 3 - id), rootdir);
	dbuf_add(&nodeid, sep + 3, (size_t)(id + end - (sep + 3)));
	dbuf_reset(name);
	testcase_name_pytest(name, nodeid.buf, nodeid.len);
	dbuf_release(&nodeid);
	size_t at = skip_spaces(l, end);
	for (size_t i = 0; i < sizeof(pytest_words) / sizeof(pytest_words[0]); i++) {
		const char *w = pytest_words[i].word;
		size_t wl = strlen(w);
		if (starts(l, at, w) && (at + wl == l->len || l->s[at + wl] == ' ')) {
			testcase_add(out, dbuf_str(name), pytest_words[i].o, -1, NULL, 0);
			(*added)++;
			if (out->running && !strcmp(out->running, dbuf_str(name)))
				set_running(out, NULL);
			return true;
		}
	}
	/* the node id, then something else (a traceback written over the
	 * line): the test that was running */
	set_running(out, dbuf_str(name));
	return true;
}

/* ---- Google Test ---- */

struct gtest_state {
	char *test;           /* the open [ RUN ] test */
	const char *msg_from; /* where its output starts */
};

static bool gtest_line(const struct line *l, struct testcase_list *out, struct gtest_state *g,
		       size_t *added)
{
	static const struct {
		const char *tag;
		int o;    /* -1: RUN */
	} tags[] = {
		{ "[ RUN      ] ", -1 }, { "[       OK ] ", TC_PASS },
		{ "[  FAILED  ] ", TC_FAIL }, { "[  SKIPPED ] ", TC_SKIP },
	};
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		if (!starts(l, 0, tags[i].tag))
			continue;
		size_t at = strlen(tags[i].tag), end = token_end(l, at);
		char *name = xstrndup(l->s + at, end - at);
		if (tags[i].o < 0) {
			free(g->test);
			g->test = name;
			g->msg_from = l->s + l->len;
			set_running(out, name);
			return true;
		}
		/* the end of the open test; the summary's repeats of FAILED
		 * lines ("[  FAILED  ] Suite.Test" with no test open, or
		 * "[  FAILED  ] 2 tests, listed below:") are not results */
		if (!g->test || strcmp(g->test, name)) {
			free(name);
			return true;
		}
		double ms = -1;
		const char *paren = memchr(l->s + end, '(', l->len - end);
		if (paren) {
			char *e;
			ms = strtod(paren + 1, &e);
			if (e == paren + 1)
				ms = -1;
		}
		const char *msg = g->msg_from, *msg_end = l->s;
		while (msg < msg_end && (*msg == '\n' || *msg == '\r'))
			msg++;
		testcase_add(out, name, (enum tc_outcome)tags[i].o, ms >= 0 ? ms / 1000.0 : -1,
			     tags[i].o == TC_FAIL && msg < msg_end ? msg : NULL,
			     tags[i].o == TC_FAIL && msg < msg_end ? (size_t)(msg_end - msg) : 0);
		(*added)++;
		free(g->test);
		g->test = NULL;
		set_running(out, NULL);
		free(name);
		return true;
	}
	return false;
}

/* ---- CTest ---- */

static bool ctest_line(const struct line *l, struct testcase_list *out, size_t *added)
{
	size_t at = skip_spaces(l, 0);
	if (starts(l, at, "Start ")) {
		/* "Start  2: name" */
		at = skip_spaces(l, at + 6);
		size_t num = at;
		while (at < l->len && l->s[at] >= '0' && l->s[at] <= '9')
			at++;
		if (at == num || !starts(l, at, ": "))
			return false;
		at += 2;
		size_t end = token_end(l, at);
		char *name = xstrndup(l->s + at, end - at);
		set_running(out, name);
		free(name);
		return true;
	}
	/* "2/5 Test #2: name .....   Passed    0.01 sec" */
	const char *t = memmem(l->s, l->len, " Test #", 7);
	if (!t || t == l->s)
		return false;
	at = (size_t)(t - l->s) + 7;
	while (at < l->len && l->s[at] >= '0' && l->s[at] <= '9')
		at++;
	if (!starts(l, at, ": "))
		return false;
	at += 2;
	size_t end = token_end(l, at);
	char *name = xstrndup(l->s + at, end - at);
	const char *rest = l->s + end, *stop = l->s + l->len;
	while (rest < stop && (*rest == ' ' || *rest == '.'))
		rest++;
	size_t rl = (size_t)(stop - rest);
	int o = -1;
	if (rl >= 6 && !memcmp(rest, "Passed", 6))
		o = TC_PASS;
	else if (rl >= 9 && !memcmp(rest, "***Failed", 9))
		o = TC_FAIL;
	else if (rl >= 10 && !memcmp(rest, "***Timeout", 10))
		o = TC_HANG;
	else if (rl >= 12 && !memcmp(rest, "***Exception", 12))
		o = TC_CRASH;
	else if ((rl >= 7 && !memcmp(rest, "Not Run", 7)) || (rl >= 10 && !memcmp(rest, "***Not Run", 10)) ||
		 (rl >= 7 && !memcmp(rest, "Skipped", 7)))
		o = TC_SKIP;
	if (o < 0) {
		free(name);
		return false;
	}
	double secs = -1;
	const char *sec = memmem(rest, rl, " sec", 4);
	if (sec) {
		const char *num = sec;
		while (num > rest && (num[-1] == '.' || (num[-1] >= '0' && num[-1] <= '9')))
			num--;
		if (num < sec)
			secs = strtod(num, NULL);
	}
	testcase_add(out, name, (enum tc_outcome)o, secs, NULL, 0);
	(*added)++;
	if (out->running && !strcmp(out->running, name))
		set_running(out, NULL);
	free(name);
	return true;
}

size_t testlog_scan(const char *text, size_t len, struct testcase_list *out)
{
	size_t added = 0;
	struct gtest_state g = { NULL, NULL };
	struct dbuf name;
	char *rootdir = NULL;   /* pytest's header: "rootdir: DIR[, configfile: ...]" */
	dbuf_init(&name, 1 << 16);
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct line l = { p, (size_t)((nl ? nl : end) - p) };
		while (l.len && l.s[l.len - 1] == '\r')
			l.len--;
		if (!rootdir && starts(&l, 0, "rootdir: /")) {
			size_t e = 9;
			while (e < l.len && l.s[e] != ',')
				e++;
			rootdir = xstrndup(l.s + 9, e - 9);
		} else if (l.len && !gtest_line(&l, out, &g, &added) && !ctest_line(&l, out, &added)) {
			pytest_line(&l, out, &name, &added, rootdir);
		}
		p = nl ? nl + 1 : end;
	}
	free(g.test);
	free(rootdir);
	dbuf_release(&name);
	return added;
}
