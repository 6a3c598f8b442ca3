/*
 * crash.c: parsing crash reports out of captured output (see crash.h).
 *
 * One pass finds the first line that opens a report of a known tool; the
 * tool's parser then reads the lines after it. Reports are read loosely:
 * tools change their wording between versions, output is interleaved with
 * the program's own, and a report may be cut by the capture's head/tail
 * limit, so every parser takes what it recognizes and stops at the tool's
 * end marker, at an unrelated line, or after a fixed number of lines.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "signature/crash.h"
#include "signature/frame.h"
#include "util/dbuf.h"
#include "util/jsonw.h"
#include "util/banned.h"

#define LINE_MAX_LEN 2048
#define REPORT_MAX_LINES 600

struct lines {
	const char *text;
	size_t len, pos;
};

/* Copy the next line into buf (NULs become spaces, \r dropped). */
static bool next_line(struct lines *l, char *buf, size_t cap)
{
	if (l->pos >= l->len)
		return false;
	const char *s = l->text + l->pos;
	const char *nl = memchr(s, '\n', l->len - l->pos);
	size_t n = nl ? (size_t)(nl - s) : l->len - l->pos;
	l->pos += n + (nl ? 1 : 0);
	size_t k = 0;
	for (size_t i = 0; i < n && k + 1 < cap; i++)
		if (s[i] != '\r')
			buf[k++] = s[i] ? s[i] : ' ';
	buf[k] = '\0';
	return true;
}

/* Bounded copy that always terminates (truncation is intended). */
static void scopy(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static void trim_copy(char *dst, size_t cap, const char *src)
{
	src = skip_ws(src);
	size_t n = strlen(src);
	while (n && (src[n - 1] == ' ' || src[n - 1] == '\t'))
		n--;
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* "heap-use-after-free" from "heap-use-after-free on address ..." into kind "PREFIX-slug". */
static void set_kind(struct crash_report *r, const char *prefix, const char *type)
{
	char slug[64];
	size_t k = 0;
	for (const char *p = type; *p && k + 1 < sizeof(slug); p++) {
		char c = (char)tolower((unsigned char)*p);
		if (isalnum((unsigned char)c))
			slug[k++] = c;
		else if (k && slug[k - 1] != '-')
			slug[k++] = '-';
	}
	while (k && slug[k - 1] == '-')
		k--;
	slug[k] = '\0';
	/* signature.h keeps 31 characters of a kind. */
	char kind[32];
	scopy(kind, sizeof(kind), prefix);
	size_t used = strlen(kind);
	if (k && used + 1 < sizeof(kind)) {
		kind[used++] = '-';
		scopy(kind + used, sizeof(kind) - used, slug);
	}
	scopy(r->ev.kind, sizeof(r->ev.kind), kind);
}

static struct crash_stack *new_stack(struct crash_report *r, const char *title)
{
	if (r->nstacks >= CRASH_MAX_STACKS)
		return NULL;
	struct crash_stack *s = &r->stacks[r->nstacks++];
	memset(s, 0, sizeof(*s));
	scopy(s->title, sizeof(s->title), title);
	return s;
}

static void push_frame(struct crash_stack *s, const char *fn, const char *module, const char *location)
{
	if (!s || s->nframes >= CRASH_MAX_FRAMES)
		return;
	char name[256];
	frame_normalize(fn, name, sizeof(name));
	scopy(s->fn[s->nframes], sizeof(s->fn[0]), name);
	s->runtime[s->nframes] = frame_is_runtime(name, module) ||
				 (location && *location && frame_is_runtime(name, location));
	s->nframes++;
}

/* A sanitizer frame line ("#3 0x55d0 in f /src/a.c:4:2", "#0 f a.c:4 (m+0x1)",
 * "#2 0x7f (/lib/libc.so.6+0x271c9)"): true and the frame pushed. */
static bool sanitizer_frame(const char *line, struct crash_stack *s)
{
	const char *p = skip_ws(line);
	if (*p != '#' || !isdigit((unsigned char)p[1]))
		return false;
	p++;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p != ' ')
		return false;
	p = skip_ws(p);
	if (!strncmp(p, "0x", 2)) {
		while (*p && *p != ' ')
			p++;
		p = skip_ws(p);
	}
	if (!strncmp(p, "in ", 3))
		p += 3;
	char rest[LINE_MAX_LEN];
	trim_copy(rest, sizeof(rest), p);
	char *bid = strstr(rest, " (BuildId:");
	if (bid)
		*bid = '\0';
	char module[512] = "", location[512] = "";
	size_t n = strlen(rest);
	/* A trailing "(module+0xoff)" or a bare "(module+0xoff)". */
	if (n && rest[n - 1] == ')') {
		char *open = strrchr(rest, '(');
		if (open && strstr(open, "+0x") && (open == rest || open[-1] == ' ')) {
			rest[n - 1] = '\0';
			scopy(module, sizeof(module), open + 1);
			char *plus = strstr(module, "+0x");
			if (plus)
				*plus = '\0';
			*open = '\0';
			n = strlen(rest);
			while (n && rest[n - 1] == ' ')
				rest[--n] = '\0';
		}
	}
	/* A trailing location "path/file.c:12:3" (or "<null>"). */
	char *sp = strrchr(rest, ' ');
	if (sp && (strchr(sp + 1, '/') || strchr(sp + 1, ':') || !strcmp(sp + 1, "<null>"))) {
		scopy(location, sizeof(location), sp + 1);
		*sp = '\0';
	} else if (!sp && (rest[0] == '/' || rest[0] == '.')) {
		scopy(location, sizeof(location), rest);
		rest[0] = '\0';
	}
	push_frame(s, rest, module, location);
	return true;
}

/* Up to max program frames of stack s appended to ev (no duplicates). */
static void take_frames(struct evidence *ev, const struct crash_stack *s, size_t max)
{
	size_t taken = 0;
	for (size_t i = 0; s && i < s->nframes && taken < max && ev->nframes < EVIDENCE_FRAMES; i++) {
		if (s->runtime[i] || !s->fn[i][0])
			continue;
		bool dup = false;
		for (size_t j = 0; j < ev->nframes; j++)
			dup |= !strcmp(ev->frames[j], s->fn[i]);
		if (dup)
			continue;
		scopy(ev->frames[ev->nframes++], sizeof(ev->frames[0]), s->fn[i]);
		taken++;
	}
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* ---- AddressSanitizer and LeakSanitizer ------------------------------ */

static void parse_asan(struct lines *l, struct crash_report *r, bool leak)
{
	char line[LINE_MAX_LEN];
	struct crash_stack *cur = NULL;
	bool in_stack = false;
	for (int i = 0; i < REPORT_MAX_LINES && next_line(l, line, sizeof(line)); i++) {
		const char *t = skip_ws(line);
		if (strstr(t, "SUMMARY: AddressSanitizer") || strstr(t, "SUMMARY: LeakSanitizer") ||
		    (strstr(t, "ERROR: ") && strstr(t, "Sanitizer")))
			break;
		if (t[0] == '#') {
			if (!in_stack)
				cur = cur && !cur->nframes ? cur : new_stack(r, r->nstacks ? "stack" : leak ? "leak" : "access");
			in_stack = true;
			sanitizer_frame(t, cur);
			continue;
		}
		in_stack = false;
		if ((starts(t, "READ of size") || starts(t, "WRITE of size")) && !r->access[0]) {
			const char *at = strstr(t, " at ");
			size_t n = at ? (size_t)(at - t) : strlen(t);
			if (n >= sizeof(r->access))
				n = sizeof(r->access) - 1;
			memcpy(r->access, t, n);
			r->access[n] = '\0';
			cur = new_stack(r, "access");
		} else if (strstr(t, "freed by thread")) {
			cur = new_stack(r, "freed");
		} else if (strstr(t, "allocated by thread")) {
			cur = new_stack(r, "allocated");
		} else if (starts(t, "Direct leak of") || starts(t, "Indirect leak of")) {
			cur = new_stack(r, starts(t, "Direct") ? "direct leak" : "indirect leak");
		} else if (t[0]) {
			cur = NULL;
		}
	}
	/* The access stack (or the first leak, or the SEGV stack) decides. */
	const struct crash_stack *decide = r->nstacks ? &r->stacks[0] : NULL;
	for (size_t i = 0; leak && i < r->nstacks; i++)
		if (!strcmp(r->stacks[i].title, "direct leak")) {
			decide = &r->stacks[i];
			break;
		}
	take_frames(&r->ev, decide, EVIDENCE_FRAMES);
}

static bool try_asan(const char *line, struct lines *l, struct crash_report *r)
{
	const char *e = strstr(line, "ERROR: AddressSanitizer: ");
	bool leak = false;
	if (!e) {
		e = strstr(line, "ERROR: LeakSanitizer: ");
		leak = e != NULL;
	}
	if (!e)
		return false;
	trim_copy(r->ev.key_line, sizeof(r->ev.key_line), e);
	if (leak) {
		r->tool = "LeakSanitizer";
		snprintf(r->ev.kind, sizeof(r->ev.kind), "lsan");
	} else {
		r->tool = "AddressSanitizer";
		const char *type = e + strlen("ERROR: AddressSanitizer: ");
		char buf[128];
		size_t n = strcspn(type, ":(");
		const char *on = strstr(type, " on ");
		if (on && (size_t)(on - type) < n)
			n = (size_t)(on - type);
		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		memcpy(buf, type, n);
		buf[n] = '\0';
		const char *slug = buf;
		if (starts(buf, "attempting "))
			slug = buf + strlen("attempting ");
		set_kind(r, "asan", slug);
	}
	parse_asan(l, r, leak);
	return true;
}

/* ---- ThreadSanitizer -------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

static bool try_tsan(const char *line, struct lines *l, struct crash_report *r)
{
	const char *w = strstr(line, "WARNING: ThreadSanitizer: ");
	if (!w)
		return false;
	r->tool = "ThreadSanitizer";
	trim_copy(r->ev.key_line, sizeof(r->ev.key_line), w);
	const char *type = w + strlen("WARNING: ThreadSanitizer: ");
	char buf[128];
	size_t n = strcspn(type, "(");
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, type, n);
	buf[n] = '\0';
	set_kind(r, "tsan", buf);

	char text[LINE_MAX_LEN];
	struct crash_stack *cur = NULL;
	for (int i = 0; i < REPORT_MAX_LINES && next_line(l, text, sizeof(text)); i++) {
		const char *t = skip_ws(text);
		if (strstr(t, "SUMMARY: ThreadSanitizer") || starts(t, "=================="))
			break;
		if (t[0] == '#') {
			sanitizer_frame(t, cur);
			continue;
		}
		if (!t[0]) {
			cur = NULL;
			continue;
		}
		bool previous = starts(t, "Previous ");
		const char *of = strstr(t, " of size ");
		if (of && (strstr(t, " by thread ") || strstr(t, " by main thread"))) {
			cur = new_stack(r, previous ? "previous" : "current");
			if (!previous && !r->access[0]) {
				size_t k = (size_t)(strstr(t, " at ") ? strstr(t, " at ") - t : of - t);
				if (k >= sizeof(r->access))
					k = sizeof(r->access) - 1;
				memcpy(r->access, t, k);
				r->access[k] = '\0';
			}
		} else if (strstr(t, "acquired here while holding") || starts(t, "Mutex ") ||
			   starts(t, "Thread T") || starts(t, "Location is") || strstr(t, " created at:") ||
			   strstr(t, " here:")) {
			cur = new_stack(r, strstr(t, "acquired here") ? "acquired" : "other");
		}
	}
	/* The two sides of a race (or of a lock cycle), in a stable order. */
	char tops[2][128];
	size_t ntops = 0;
	for (size_t i = 0; i < r->nstacks && ntops < 2; i++) {
		const struct crash_stack *s = &r->stacks[i];
		if (strcmp(s->title, "current") && strcmp(s->title, "previous") && strcmp(s->title, "acquired"))
			continue;
		for (size_t j = 0; j < s->nframes; j++)
			if (!s->runtime[j] && s->fn[j][0]) {
				scopy(tops[ntops++], sizeof(tops[0]), s->fn[j]);
				break;
			}
	}
	if (ntops == 2)
		qsort(tops, 2, sizeof(tops[0]), cmp_str);
	for (size_t i = 0; i < ntops; i++) {
		if (i && !strcmp(tops[i], tops[i - 1]))
			continue;
		scopy(r->ev.frames[r->ev.nframes++], sizeof(r->ev.frames[0]), tops[i]);
	}
	if (!ntops && r->nstacks)
		take_frames(&r->ev, &r->stacks[0], EVIDENCE_FRAMES);
	return true;
}

/* ---- UBSan ------------------------------------------------------------ */

static bool try_ubsan(const char *line, struct lines *l, struct crash_report *r)
{
	const char *e = strstr(line, " runtime error: ");
	if (!e && !starts(line, "runtime error: "))
		return false;
	r->tool = "UndefinedBehaviorSanitizer";
	snprintf(r->ev.kind, sizeof(r->ev.kind), "ubsan");
	trim_copy(r->ev.key_line, sizeof(r->ev.key_line), line);
	char text[LINE_MAX_LEN];
	struct crash_stack *cur = NULL;
	struct lines save = *l;
	for (int i = 0; i < 64 && next_line(l, text, sizeof(text)); i++) {
		const char *t = skip_ws(text);
		if (t[0] != '#') {
			if (cur || t[0])
				break;
			continue;
		}
		if (!cur)
			cur = new_stack(r, "error");
		sanitizer_frame(t, cur);
		save = *l;
	}
	*l = save;
	if (cur)
		take_frames(&r->ev, cur, EVIDENCE_FRAMES);
	return true;
}

/* ---- glibc aborts and assertions -------------------------------------- */

/* glibc's malloc checks (heap corruption), then its other aborts */
static const char *const glibc_msgs[] = {
	"free(): ", "malloc(): ", "realloc(): ", "calloc(): ", "double free or corruption",
	"corrupted size vs. prev_size", "corrupted double-linked list", "corrupted top size",
	"corrupted unsorted chunks", "malloc_consolidate(): ", "munmap_chunk(): ", "_int_free(): ",
	"_int_malloc(): ", "_int_realloc(): ", "tcache_thread_shutdown(): ", "malloc_check_", NULL,
	"*** stack smashing detected ***", "*** buffer overflow detected ***",
	"Fatal glibc error: ", "pthread_mutex_lock.c", NULL,
};

static bool try_glibc(const char *line, struct crash_report *r)
{
	const char *t = skip_ws(line);
	bool heap = true;
	for (const char *const *m = glibc_msgs; *m || heap; m++) {
		if (!*m) {
			heap = false;
			continue;
		}
		if (starts(t, *m)) {
			r->tool = "glibc";
			snprintf(r->ev.kind, sizeof(r->ev.kind), heap ? "heap-corruption" : "glibc-abort");
			trim_copy(r->ev.key_line, sizeof(r->ev.key_line), t);
			return true;
		}
	}
	/* "prog: file.c:12: func: Assertion `x' failed." */
	const char *a = strstr(t, ": Assertion `");
	if (!a || !strstr(a, "' failed"))
		return false;
	r->tool = "assert";
	snprintf(r->ev.kind, sizeof(r->ev.kind), "assert");
	trim_copy(r->ev.key_line, sizeof(r->ev.key_line), t);
	/* The function is the field before ": Assertion": "void Foo::bar(int)". */
	const char *start = a;
	while (start > t && !(start[-1] == ' ' && start - 2 >= t && start[-2] == ':'))
		start--;
	char fn[256];
	size_t n = (size_t)(a - start);
	if (n >= sizeof(fn))
		n = sizeof(fn) - 1;
	memcpy(fn, start, n);
	fn[n] = '\0';
	/* Drop a return type: the last word before the parameter list. */
	char *paren = strchr(fn, '(');
	if (paren)
		*paren = '\0';
	char *name = strrchr(fn, ' ');
	name = name ? name + 1 : fn;
	while (*name == '*' || *name == '&')
		name++;
	struct crash_stack *s = new_stack(r, "assertion");
	push_frame(s, name, NULL, NULL);
	take_frames(&r->ev, s, 1);
	return true;
}

/* ---- Python faulthandler ---------------------------------------------- */

/* '  File "/x/worker.py", line 2369 in run' -> "worker.py:run", runtime flag. */
static bool python_frame(const char *t, char *out, size_t cap, bool *runtime)
{
	if (!starts(t, "File \""))
		return false;
	const char *path = t + 6;
	const char *q = strchr(path, '"');
	if (!q)
		return false;
	const char *in = strstr(q, " in ");
	if (!in)
		return false;
	char file[512];
	size_t n = (size_t)(q - path);
	if (n >= sizeof(file))
		n = sizeof(file) - 1;
	memcpy(file, path, n);
	file[n] = '\0';
	char fn[256];
	trim_copy(fn, sizeof(fn), in + 4);
	scopy(out, cap, frame_basename(file));
	size_t used = strlen(out);
	if (used + 1 < cap) {
		out[used++] = ':';
		scopy(out + used, cap - used, fn);
	}
	*runtime = frame_is_runtime(fn, file) && (strstr(file, "/lib/python") || strstr(file, "<frozen") ||
						  strstr(file, "/Lib/"));
	return true;
}

/* Parse thread blocks after a faulthandler header into r's stacks. */
static void parse_python_threads(struct lines *l, struct crash_report *r)
{
	char text[LINE_MAX_LEN];
	struct crash_stack *cur = NULL;
	int blank = 0;
	for (int i = 0; i < REPORT_MAX_LINES && next_line(l, text, sizeof(text)); i++) {
		const char *t = skip_ws(text);
		if (strstr(t, "(most recent call first):")) {
			/* "Stack": faulthandler without all_threads, the current thread alone */
			cur = new_stack(r, starts(t, "Current thread") || starts(t, "Stack") ?
					"current thread" : "thread");
			blank = 0;
			continue;
		}
		char fr[128];
		bool rt;
		if (cur && python_frame(t, fr, sizeof(fr), &rt)) {
			if (cur->nframes < CRASH_MAX_FRAMES) {
				scopy(cur->fn[cur->nframes], sizeof(cur->fn[0]), fr);
				cur->runtime[cur->nframes++] = rt;
			}
			continue;
		}
		if (!t[0]) {
			if (++blank > 1 && r->nstacks)
				break;
			cur = NULL;
			continue;
		}
		if (starts(t, "<no Python frame>") || starts(t, "...") || starts(t, "Extension modules:"))
			continue;
		if (r->nstacks && !cur)
			break;
	}
}

/*
 * The thread that took the signal. With no "Current thread" the signal
 * came on a thread that never ran Python (a native thread of an
 * extension aborting in std::terminate): every thread listed is another
 * one, in a forked child the main thread's copy of its parent's (pytest's)
 * frames; none of them, but the crash record's stack is the signature's.
 */
static const struct crash_stack *python_decider(const struct crash_report *r)
{
	for (size_t i = 0; i < r->nstacks; i++)
		if (!strcmp(r->stacks[i].title, "current thread"))
			return &r->stacks[i];
	return NULL;
}

static bool try_python(const char *line, struct lines *l, struct crash_report *r)
{
	const char *f = strstr(line, "Fatal Python error: ");
	if (!f)
		return false;
	r->tool = "Python";
	snprintf(r->ev.kind, sizeof(r->ev.kind), "python-fatal");
	trim_copy(r->ev.key_line, sizeof(r->ev.key_line), f);
	parse_python_threads(l, r);
	take_frames(&r->ev, python_decider(r), EVIDENCE_FRAMES);
	return true;
}

size_t crash_python_frames(const char *text, size_t len, struct evidence *ev)
{
	struct crash_report *r = calloc(1, sizeof(*r));
	if (!r)
		return 0;
	struct lines l = { text, len, 0 };
	char line[LINE_MAX_LEN];
	for (size_t start = 0; next_line(&l, line, sizeof(line)); start = l.pos) {
		if (!strstr(line, "(most recent call first):"))
			continue;
		struct lines from = { text, len, start };  /* re-read the header */
		parse_python_threads(&from, r);
		break;
	}
	/* Which thread takes the signal varies from run to run: the culprit of
	 * each thread (its innermost program frame), sorted, does not. */
	char tops[CRASH_MAX_STACKS][128];
	size_t nt = 0;
	for (size_t i = 0; i < r->nstacks; i++) {
		const struct crash_stack *s = &r->stacks[i];
		for (size_t j = 0; j < s->nframes; j++)
			if (!s->runtime[j] && s->fn[j][0]) {
				scopy(tops[nt++], sizeof(tops[0]), s->fn[j]);
				break;
			}
	}
	qsort(tops, nt, sizeof(tops[0]), cmp_str);
	ev->nframes = 0;
	for (size_t i = 0; i < nt && ev->nframes < EVIDENCE_FRAMES; i++)
		if (!i || strcmp(tops[i], tops[i - 1]))
			scopy(ev->frames[ev->nframes++], sizeof(ev->frames[0]), tops[i]);
	free(r);
	return ev->nframes;
}

/* ---- compute-sanitizer ------------------------------------------------ */

static const char *cs_body(const char *line)
{
	const char *p = line;
	if (!starts(p, "========="))
		return NULL;
	while (*p == '=')
		p++;
	return skip_ws(p);
}

/* A device frame: "at 0x70 in /p/k.cu:12:kernel(int *)" or "at kernel(int *)+0x70 in k.cu:12". */
static void cs_device_frame(const char *at, struct crash_stack *s)
{
	char buf[512];
	trim_copy(buf, sizeof(buf), at);
	if (starts(buf, "0x")) {
		char *in = strstr(buf, " in ");
		if (!in)
			return;
		/* The function follows the last "file:line:" */
		char *fn = in + 4;
		char *c;
		while ((c = strchr(fn, ':')) && isdigit((unsigned char)c[1])) {
			char *d = c + 1;
			while (isdigit((unsigned char)*d))
				d++;
			if (*d != ':')
				break;
			fn = d + 1;
		}
		push_frame(s, fn, NULL, NULL);
		return;
	}
	char *plus = strstr(buf, "+0x");
	char *in = strstr(buf, " in ");
	if (plus)
		*plus = '\0';
	else if (in)
		*in = '\0';
	push_frame(s, buf, NULL, NULL);
}

/* "Host Frame:/usr/lib/libcuda.so.1 (cuLaunchKernel + 0x2b8) [0x2c8c0b]" or
 * "Host Frame: launch_kernel(int*) [0x1c8a] in /tmp/app" or "Host Frame: [0x2c8c0b] in libcuda.so.1". */
static void cs_host_frame(const char *h, struct crash_stack *s)
{
	char buf[1024];
	trim_copy(buf, sizeof(buf), h);
	char module[512] = "";
	char *lp = strstr(buf, " (");
	if (buf[0] == '/' && lp) {
		*lp = '\0';
		scopy(module, sizeof(module), buf);
		char *fn = lp + 2;
		char *end = strstr(fn, " + 0x");
		if (!end)
			end = strchr(fn, ')');
		if (end)
			*end = '\0';
		push_frame(s, fn, module, NULL);
		return;
	}
	char *in = strstr(buf, " in ");
	if (in) {
		scopy(module, sizeof(module), in + 4);
		*in = '\0';
	}
	char *br = strstr(buf, " [0x");
	if (!br && buf[0] == '[')
		br = buf;
	if (br)
		*br = '\0';
	push_frame(s, buf[0] == '/' ? "" : buf, module[0] ? module : buf[0] == '/' ? buf : NULL, NULL);
}

static bool try_compute_sanitizer(const char *line, struct lines *l, struct crash_report *r)
{
	const char *b = cs_body(line);
	if (!b || !*b)
		return false;
	const char *sub = NULL;
	if (starts(b, "Invalid __") || starts(b, "Misaligned ") || starts(b, "Out-of-range ") ||
	    starts(b, "Malloc/Free error") || starts(b, "Invalid global ") || starts(b, "Address "))
		sub = "memcheck";
	else if (strstr(b, "Race reported between") || strstr(b, "hazard detected") || strstr(b, "RAW hazard") ||
		 strstr(b, "WAR hazard") || strstr(b, "WAW hazard"))
		sub = "racecheck";
	else if (starts(b, "Uninitialized "))
		sub = "initcheck";
	else if (starts(b, "Barrier error") || strstr(b, "Divergent thread"))
		sub = "synccheck";
	else if (starts(b, "Program hit ") || starts(b, "Leaked "))
		sub = "api-error";
	if (!sub)
		return false;
	r->tool = "compute-sanitizer";
	set_kind(r, "compute-sanitizer", sub);
	trim_copy(r->ev.key_line, sizeof(r->ev.key_line), b);
	struct crash_stack *dev = new_stack(r, "device");
	struct crash_stack *host = new_stack(r, "host");
	/* A racecheck line names both sides: "... Write access at F+0x1 in k.cu:15". */
	const char *at = strstr(b, " access at ");
	if (at)
		cs_device_frame(at + strlen(" access at "), dev);
	char text[LINE_MAX_LEN];
	for (int i = 0; i < REPORT_MAX_LINES && next_line(l, text, sizeof(text)); i++) {
		const char *t = cs_body(text);
		if (!t)
			break;
		if (!*t)
			break;
		const char *acc = strstr(t, " access at ");
		if (starts(t, "at "))
			cs_device_frame(t + 3, dev);
		else if (starts(t, "and ") && acc)
			cs_device_frame(acc + strlen(" access at "), dev);
		else if (starts(t, "Host Frame:"))
			cs_host_frame(t + strlen("Host Frame:"), host);
		else if (starts(t, "Invalid __") || starts(t, "Error:") || starts(t, "ERROR:") ||
			 starts(t, "Program hit ") || strstr(t, "SUMMARY"))
			break;
	}
	if (!strcmp(sub, "racecheck") && dev->nframes == 2) {
		/* Both sides of the race, in a stable order. */
		const char *a = dev->fn[0], *c = dev->fn[1];
		if (strcmp(a, c) > 0) {
			const char *tmp = a;
			a = c;
			c = tmp;
		}
		scopy(r->ev.frames[r->ev.nframes++], sizeof(r->ev.frames[0]), a);
		if (strcmp(a, c))
			scopy(r->ev.frames[r->ev.nframes++], sizeof(r->ev.frames[0]), c);
	} else {
		take_frames(&r->ev, dev, 1);
	}
	take_frames(&r->ev, host, EVIDENCE_FRAMES);
	return true;
}

static bool contains(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle)) != NULL;
}

static bool starts_n(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && !memcmp(s, prefix, k);
}

enum crash_line crash_report_line(const char *kind, const char *line, size_t len)
{
	if (kind && !strcmp(kind, "compute-sanitizer")) {
		if (!starts_n(line, len, "========="))
			return CRASH_LINE_OTHER;
		/* "========= ERROR SUMMARY: 2 errors", "========= RACECHECK SUMMARY: ..." */
		return contains(line, len, " SUMMARY: ") ? CRASH_LINE_END : CRASH_LINE_IN;
	}
	if (starts_n(line, len, "SUMMARY: ") || (starts_n(line, len, "==") && contains(line, len, "==ABORTING")))
		return CRASH_LINE_END;
	return CRASH_LINE_OTHER;
}

bool crash_sanitizer_failed(const char *text, size_t len)
{
	/* Every report crash_parse() reads of a sanitizer holds one of these. */
	if (!contains(text, len, "Sanitizer: ") && !contains(text, len, "runtime error: ") &&
	    !contains(text, len, "========= "))
		return false;
	struct crash_report *r = malloc(sizeof(*r));  /* 30 KB: not on the stack */
	if (!r)
		return false;
	bool failed = crash_parse(text, len, r) && r->tool && strstr(r->tool, "anitizer") &&
		      !starts(r->ev.key_line, "Warning");
	free(r);
	return failed;
}

/* ---- the dispatcher --------------------------------------------------- */

bool crash_parse(const char *text, size_t len, struct crash_report *out)
{
	memset(out, 0, sizeof(*out));
	struct lines l = { text, len, 0 };
	char line[LINE_MAX_LEN];
	while (next_line(&l, line, sizeof(line))) {
		if (try_asan(line, &l, out) || try_tsan(line, &l, out) || try_python(line, &l, out) ||
		    try_compute_sanitizer(line, &l, out) || try_ubsan(line, &l, out) || try_glibc(line, out))
			return true;
	}
	memset(out, 0, sizeof(*out));
	return false;
}

void crash_write_text(const struct crash_report *r, struct dbuf *out)
{
	if (!r->ev.kind[0]) {
		dbuf_adds(out, "no crash report found\n");
		return;
	}
	dbuf_addf(out, "kind: %s\ntool: %s\nkey line: %s\n", r->ev.kind, r->tool ? r->tool : "?",
		  r->ev.key_line);
	if (r->access[0])
		dbuf_addf(out, "access: %s\n", r->access);
	dbuf_adds(out, "frames:");
	for (size_t i = 0; i < r->ev.nframes; i++)
		dbuf_addf(out, " %s", r->ev.frames[i]);
	dbuf_adds(out, r->ev.nframes ? "\n" : " (none)\n");
	for (size_t i = 0; i < r->nstacks; i++) {
		const struct crash_stack *s = &r->stacks[i];
		if (!s->nframes)
			continue;
		dbuf_addf(out, "%s:\n", s->title);
		for (size_t j = 0; j < s->nframes; j++)
			dbuf_addf(out, "  %s%s\n", s->fn[j][0] ? s->fn[j] : "??", s->runtime[j] ? "  (runtime)" : "");
	}
}

void crash_write_json(const struct crash_report *r, struct dbuf *o)
{
	dbuf_addc(o, '{');
	jsonw_kstr(o, "kind", r->ev.kind);
	dbuf_addc(o, ',');
	jsonw_kstr(o, "tool", r->tool);
	dbuf_addc(o, ',');
	jsonw_kstr(o, "key_line", r->ev.key_line);
	dbuf_addc(o, ',');
	jsonw_kstr(o, "access", r->access[0] ? r->access : NULL);
	dbuf_addc(o, ',');
	jsonw_key(o, "frames");
	dbuf_addc(o, '[');
	for (size_t i = 0; i < r->ev.nframes; i++) {
		if (i)
			dbuf_addc(o, ',');
		jsonw_string(o, r->ev.frames[i], strlen(r->ev.frames[i]));
	}
	dbuf_adds(o, "],");
	jsonw_key(o, "stacks");
	dbuf_addc(o, '[');
	for (size_t i = 0; i < r->nstacks; i++) {
		const struct crash_stack *s = &r->stacks[i];
		if (i)
			dbuf_addc(o, ',');
		dbuf_addc(o, '{');
		jsonw_kstr(o, "title", s->title);
		dbuf_addc(o, ',');
		jsonw_key(o, "frames");
		dbuf_addc(o, '[');
		for (size_t j = 0; j < s->nframes; j++) {
			if (j)
				dbuf_addc(o, ',');
			jsonw_string(o, s->fn[j], strlen(s->fn[j]));
		}
		dbuf_adds(o, "]}");
	}
	dbuf_adds(o, "]}");
}
