/*
 * stack.c: stack sets, the backend order, and folding (see stack.h).
 *
 * Folding works on the text of each stack: two threads fold when their
 * normalized frame names are equal, whatever their addresses, so the same
 * loop caught at two different instructions still folds into one line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/stack.h"
#include "signature/frame.h"
#include "util/dbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

const struct stack_backend *const stack_backends[] = {
	&stack_backend_libdw,
	&stack_backend_gdb,
	NULL,
};

static void why_add(char *why, size_t len, const char *name, const char *reason)
{
	if (!why || !len)
		return;
	size_t used = strlen(why);
	if (used < len)
		snprintf(why + used, len - used, "%s%s: %s", used ? "; " : "", name, reason);
}

int stack_capture(pid_t pid, struct stack_set *out, const char **used, char *why, size_t whylen)
{
	int rc = -ENOSYS;
	if (used)
		*used = NULL;
	if (why && whylen)
		why[0] = '\0';
	for (const struct stack_backend *const *b = stack_backends; *b; b++) {
		const char *no = (*b)->unavailable();
		if (no) {
			why_add(why, whylen, (*b)->name, no);
			continue;
		}
		char err[256] = "";
		size_t before = out->nr;
		rc = (*b)->capture(pid, out, err, sizeof(err));
		if (rc > 0) {
			if (used)
				*used = (*b)->name;
			return rc;
		}
		/* Drop anything a failed backend left half-done. */
		while (out->nr > before) {
			struct stack_thread *t = &out->v[--out->nr];
			for (size_t i = 0; i < t->nr; i++)
				stack_frame_release(&t->frames[i]);
			free(t->frames);
		}
		why_add(why, whylen, (*b)->name, err[0] ? err : strerror(rc < 0 ? -rc : EIO));
		if (rc == -ESRCH)
			return rc;  /* the process is gone: no other backend will do better */
		if (rc == 0)
			rc = -ENODATA;
	}
	return rc;
}

struct stack_thread *stack_set_add(struct stack_set *s, pid_t pid, pid_t tid)
{
	ALLOC_GROW(s->v, s->nr + 1, s->alloc);
	struct stack_thread *t = &s->v[s->nr++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	return t;
}

static void push(struct stack_thread *t, const char *name, const char *module, uint64_t pc)
{
	if (t->nr >= STACK_MAX_FRAMES) {
		t->truncated = true;
		return;
	}
	if (!t->frames)
		t->frames = xcalloc(STACK_MAX_FRAMES, sizeof(*t->frames));
	struct stack_frame *f = &t->frames[t->nr++];
	memset(f, 0, sizeof(*f));
	f->fn = xstrdup(name);
	f->module = module && *module ? xstrdup(module) : NULL;
	f->pc = pc;
}

void stack_thread_push(struct stack_thread *t, const char *fn, const char *module, uint64_t pc)
{
	char name[256];
	frame_normalize(fn, name, sizeof(name));
	push(t, name, module, pc);
}

void stack_thread_push_label(struct stack_thread *t, const char *label, const char *module, uint64_t pc)
{
	push(t, label ? label : "", module, pc);
}

void stack_frame_release(struct stack_frame *f)
{
	free(f->fn);
	free(f->module);
	free(f->key);
	f->fn = f->module = f->key = NULL;
}

const char *stack_frame_label(const struct stack_frame *f, char *buf, size_t len)
{
	const char *fn = f->fn && f->fn[0] ? f->fn : "??";
	if (f->python && f->line > 0)
		snprintf(buf, len, "%s (%s:%d)", fn, f->module ? frame_basename(f->module) : "?", f->line);
	else if (f->python)
		snprintf(buf, len, "%s (%s)", fn, f->module ? frame_basename(f->module) : "?");
	else if (!f->fn[0] && f->module)
		snprintf(buf, len, "?? (%s)", frame_basename(f->module));
	else
		snprintf(buf, len, "%s", fn);
	return buf;
}

void stack_set_release(struct stack_set *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		struct stack_thread *t = &s->v[i];
		for (size_t j = 0; j < t->nr; j++)
			stack_frame_release(&t->frames[j]);
		free(t->frames);
	}
	free(s->v);
	s->v = NULL;
	s->nr = s->alloc = 0;
}

const struct stack_thread *stack_set_find(const struct stack_set *s, pid_t tid)
{
	for (size_t i = 0; i < s->nr; i++)
		if (s->v[i].tid == tid)
			return &s->v[i];
	return NULL;
}

const char *stack_program_frame(const struct stack_thread *t, size_t i)
{
	for (size_t j = 0; j < t->nr; j++) {
		const struct stack_frame *f = &t->frames[j];
		if (f->python ? frame_python_stdlib(f->module) : frame_is_runtime(f->fn, f->module))
			continue;
		if (i-- == 0)
			return f->python && f->key ? f->key : f->fn;
	}
	return NULL;
}

static char *fold_line(const struct stack_thread *t, size_t maxframes)
{
	struct dbuf b;
	dbuf_init(&b, 8192);
	char label[512];
	for (size_t i = 0; i < t->nr && i < maxframes; i++) {
		if (i)
			dbuf_adds(&b, " <- ");
		dbuf_adds(&b, stack_frame_label(&t->frames[i], label, sizeof(label)));
	}
	if (t->nr > maxframes || t->truncated)
		dbuf_adds(&b, " <- ...");
	if (!t->nr)
		dbuf_adds(&b, "(no frames)");
	return dbuf_detach(&b, NULL);
}

static int cmp_line(const void *a, const void *b)
{
	const struct stack_fold *x = a, *y = b;
	return strcmp(x->line, y->line);
}

static int cmp_count(const void *a, const void *b)
{
	const struct stack_fold *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->line, y->line);
}

size_t stack_fold(const struct stack_set *s, size_t maxframes, struct stack_fold **out)
{
	*out = NULL;
	if (!s->nr)
		return 0;
	struct stack_fold *all = xcalloc(s->nr, sizeof(*all));
	for (size_t i = 0; i < s->nr; i++) {
		all[i].line = fold_line(&s->v[i], maxframes ? maxframes : STACK_MAX_FRAMES);
		all[i].count = 1;
		all[i].example = &s->v[i];
	}
	qsort(all, s->nr, sizeof(*all), cmp_line);
	size_t n = 0;
	for (size_t i = 0; i < s->nr; i++) {
		if (n && !strcmp(all[n - 1].line, all[i].line)) {
			all[n - 1].count++;
			free(all[i].line);
			continue;
		}
		all[n++] = all[i];
	}
	qsort(all, n, sizeof(*all), cmp_count);
	*out = all;
	return n;
}

void stack_fold_free(struct stack_fold *f, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(f[i].line);
	free(f);
}
