/*
 * junit.c: JUnit XML read with expat (see junit.h).
 *
 * Why expat and not a hand-written scanner: the reports come from five
 * writers with CDATA sections, entities, namespaces on some and
 * pretty-printing on others; a streaming parser that Debian keeps takes
 * all of them, stops cleanly at a truncated file, and needs no tree in
 * memory. Only <testcase> and its direct <failure>, <error> and <skipped>
 * children matter; everything else is skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <expat.h>

#include "suite/junit.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct state {
	struct testcase_list *out;
	int added;
	int depth;            /* element depth; the open testcase's depth, or 0 */
	int case_depth;
	bool in_case;
	bool text_wanted;     /* inside a <failure> or <error> of the open testcase */
	bool out_wanted;      /* inside its <system-out> or <system-err> */
	enum tc_outcome outcome;
	double time_s;
	struct dbuf name, msg;
	struct dbuf sysout;   /* its output: the message of a failure without one (CTest) */
};

static const char *attr(const XML_Char **a, const char *key)
{
	for (; a && a[0]; a += 2)
		if (!strcmp(a[0], key))
			return a[1];
	return NULL;
}

/* The local part of a name that may carry a namespace prefix. */
static const char *local(const char *name)
{
	const char *c = strrchr(name, ':');
	return c ? c + 1 : name;
}

static void on_start(void *ud, const XML_Char *el, const XML_Char **a)
{
	struct state *st = ud;
	const char *n = local(el);
	st->depth++;
	if (!st->in_case) {
		if (strcmp(n, "testcase"))
			return;
		st->in_case = true;
		st->case_depth = st->depth;
		st->outcome = TC_PASS;
		st->time_s = -1;
		dbuf_reset(&st->name);
		dbuf_reset(&st->msg);
		dbuf_reset(&st->sysout);
		testcase_name_junit(&st->name, attr(a, "classname"), attr(a, "name"));
		const char *t = attr(a, "time"), *status = attr(a, "status"), *result = attr(a, "result");
		if (t) {
			char *end;
			double v = strtod(t, &end);
			if (end != t && v >= 0)
				st->time_s = v;
		}
		if ((status && !strcmp(status, "notrun")) ||
		    (result && (!strcmp(result, "skipped") || !strcmp(result, "suppressed"))))
			st->outcome = TC_SKIP;
		return;
	}
	if (st->depth != st->case_depth + 1)
		return;
	bool fail = !strcmp(n, "failure"), error = !strcmp(n, "error");
	if (fail || error) {
		/* the first failure decides; an error does not undo a failure */
		if (st->outcome != TC_FAIL && st->outcome != TC_ERROR)
			st->outcome = fail ? TC_FAIL : TC_ERROR;
		const char *m = attr(a, "message");
		if (m && *m && st->msg.len < TESTCASE_MESSAGE_MAX) {
			dbuf_adds(&st->msg, m);
			dbuf_addc(&st->msg, '\n');
		}
		st->text_wanted = true;
	} else if (!strcmp(n, "skipped") && st->outcome == TC_PASS) {
		st->outcome = TC_SKIP;
	} else if (!strcmp(n, "system-out") || !strcmp(n, "system-err")) {
		st->out_wanted = true;
	}
}

static void on_text(void *ud, const XML_Char *s, int len)
{
	struct state *st = ud;
	if (st->out_wanted && len > 0 && st->sysout.len < TESTCASE_MESSAGE_MAX) {
		size_t room = TESTCASE_MESSAGE_MAX - st->sysout.len;
		dbuf_add(&st->sysout, s, (size_t)len < room ? (size_t)len : room);
	}
	if (!st->text_wanted || len <= 0 || st->msg.len >= TESTCASE_MESSAGE_MAX)
		return;
	size_t room = TESTCASE_MESSAGE_MAX - st->msg.len;
	dbuf_add(&st->msg, s, (size_t)len < room ? (size_t)len : room);
}

static void on_end(void *ud, const XML_Char *el)
{
	struct state *st = ud;
	(void)el;
	if (st->in_case && st->depth == st->case_depth + 1)
		st->text_wanted = st->out_wanted = false;
	if (st->in_case && st->depth == st->case_depth) {
		st->in_case = false;
		st->text_wanted = st->out_wanted = false;
		bool blank = true;
		for (size_t i = 0; i < st->msg.len && blank; i++)
			blank = st->msg.buf[i] == ' ' || st->msg.buf[i] == '\n' || st->msg.buf[i] == '\t' ||
				st->msg.buf[i] == '\r';
		if (testcase_failed(st->outcome) && blank) {
			dbuf_reset(&st->msg);
			dbuf_add(&st->msg, st->sysout.buf, st->sysout.len);
		}
		testcase_add(st->out, dbuf_str(&st->name), st->outcome, st->time_s,
			     st->msg.len ? dbuf_str(&st->msg) : NULL, st->msg.len);
		st->added++;
	}
	st->depth--;
}

struct reader {
	XML_Parser p;
	struct state st;
	bool failed;
};

static void reader_init(struct reader *r, struct testcase_list *out)
{
	memset(r, 0, sizeof(*r));
	r->st.out = out;
	dbuf_init(&r->st.name, 1 << 16);
	dbuf_init(&r->st.msg, TESTCASE_MESSAGE_MAX + 64);
	dbuf_init(&r->st.sysout, TESTCASE_MESSAGE_MAX + 64);
	r->p = XML_ParserCreate(NULL);
	if (!r->p) {   /* as xalloc.h does: no recovery from running out of memory */
		fputs("jostle: out of memory\n", stderr);
		exit(3);
	}
	XML_SetUserData(r->p, &r->st);
	XML_SetElementHandler(r->p, on_start, on_end);
	XML_SetCharacterDataHandler(r->p, on_text);
}

/* Feed a block; false once the parser has stopped on an error. */
static bool reader_feed(struct reader *r, const char *buf, size_t len, bool last, char *err,
			size_t errlen)
{
	if (r->failed)
		return false;
	while (len > 0 || last) {
		int chunk = len > (1u << 30) ? 1 << 30 : (int)len;
		bool final = last && (size_t)chunk == len;
		if (XML_Parse(r->p, buf, chunk, final) == XML_STATUS_ERROR) {
			snprintf(err, errlen, "line %lu: %s", (unsigned long)XML_GetCurrentLineNumber(r->p),
				 XML_ErrorString(XML_GetErrorCode(r->p)));
			r->failed = true;
			return false;
		}
		buf += chunk;
		len -= (size_t)chunk;
		if (final)
			break;
	}
	return true;
}

static int reader_end(struct reader *r)
{
	int added = r->st.added;
	XML_ParserFree(r->p);
	dbuf_release(&r->st.name);
	dbuf_release(&r->st.msg);
	dbuf_release(&r->st.sysout);
	return added;
}

int junit_parse(const char *xml, size_t len, struct testcase_list *out, char *err, size_t errlen)
{
	struct reader r;
	err[0] = '\0';
	reader_init(&r, out);
	bool ok = reader_feed(&r, xml, len, true, err, errlen);
	int added = reader_end(&r);
	return added || ok ? added : -EINVAL;
}

int junit_read_file(const char *path, struct testcase_list *out, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct reader r;
	char buf[65536];
	err[0] = '\0';
	reader_init(&r, out);
	bool ok = true;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "%s", strerror(errno));
			ok = false;
			break;
		}
		if (!reader_feed(&r, buf, (size_t)n, n == 0, err, errlen)) {
			ok = false;
			break;
		}
		if (n == 0)
			break;
	}
	close(fd);
	int added = reader_end(&r);
	return added || ok ? added : -EINVAL;
}
