/*
 * motion.c: stuck or slow (see motion.h).
 *
 * Why a majority of busy threads must show changing stacks, not one: a
 * process doing real work usually has one or two threads at it while the
 * others spin in a pool's idle loop, but a livelock can have one thread
 * that happens to wander (a logger). And why stacks compared by their
 * innermost three program frames: runtime frames (a futex wake, a yield)
 * come and go inside a spin loop without it moving anywhere.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "diagnose/motion.h"
#include "util/banned.h"

#define KEY_FRAMES 3

/* A named native frame of the Python interpreter (runtime to signatures). */
static bool interpreter_frame(const struct stack_frame *f)
{
	if (f->python || !f->fn || !*f->fn || strstr(f->fn, "+0x") || !f->module)
		return false;
	const char *base = strrchr(f->module, '/');
	base = base ? base + 1 : f->module;
	return !strncmp(base, "python", 6) || !strncmp(base, "libpython", 9);
}

/* The key of thread t: its innermost KEY_FRAMES program frames, else its
 * innermost KEY_FRAMES named interpreter frames. */
static void key_of(const struct stack_thread *t, const char *key[KEY_FRAMES])
{
	for (size_t i = 0; i < KEY_FRAMES; i++)
		key[i] = stack_program_frame(t, i);
	if (key[0])
		return;
	for (size_t j = 0; j < t->nr; j++)
		if (t->frames[j].python)
			return;   /* Python code, all of it the standard library's */
	size_t n = 0;
	for (size_t j = 0; j < t->nr && n < KEY_FRAMES; j++)
		if (interpreter_frame(&t->frames[j]))
			key[n++] = t->frames[j].fn;
}

static bool same_key(const char *const a[KEY_FRAMES], const char *const b[KEY_FRAMES])
{
	for (size_t i = 0; i < KEY_FRAMES; i++) {
		if (!a[i] != !b[i])
			return false;
		if (a[i] && strcmp(a[i], b[i]))
			return false;
	}
	return true;
}

unsigned motion_distinct(const struct stack_set *snaps, size_t nsnaps, pid_t tid, unsigned *distinct)
{
	const char *keys[MOTION_SNAPSHOTS * 2][KEY_FRAMES];
	unsigned seen = 0, d = 0;
	for (size_t s = 0; s < nsnaps && seen < MOTION_SNAPSHOTS * 2; s++) {
		const struct stack_thread *t = stack_set_find(&snaps[s], tid);
		if (!t || !t->nr)
			continue;
		key_of(t, keys[seen]);
		bool dup = false;
		for (unsigned j = 0; j < seen && !dup; j++)
			dup = same_key(keys[j], keys[seen]);
		d += !dup;
		seen++;
	}
	*distinct = d;
	return seen;
}

/* CPython's teardown, after the program's code is done ... */
static const char *const teardown_fns[] = {
	"Py_FinalizeEx", "Py_Finalize", "_Py_Finalize", "Py_EndInterpreter", "finalize_modules",
	"finalize_interp_clear", "finalize_interp_delete", "_PyGC_CollectNoFail", "_PyImport_Cleanup",
	"PyImport_Cleanup", NULL,
};
/* ... and the parts of Py_FinalizeEx that run or wait for that code */
static const char *const program_parts[] = {
	"wait_for_thread_shutdown", "_PyAtExit_Call", "atexit_callfuncs", "call_py_exitfuncs",
	"_PyThread_Shutdown", NULL,
};

static bool named(const char *fn, const char *const *list)
{
	for (; fn && *list; list++)
		if (!strcmp(fn, *list))
			return true;
	return false;
}

bool motion_exit_cleanup(const struct stack_thread *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		const struct stack_frame *f = &t->frames[i];
		/* threading._shutdown: joining the program's threads, by name
		 * where the C function that calls it has none (a stripped python) */
		if (f->python && f->fn && !strcmp(f->fn, "_shutdown") && f->module &&
		    strstr(f->module, "threading.py"))
			return false;
		if (!f->python && named(f->fn, program_parts))
			return false;
		if (!f->python && named(f->fn, teardown_fns))
			return true;
	}
	return false;
}

void motion_rss_add(struct motion_rss *r, uint64_t kb)
{
	if (!kb)
		return;   /* the tree was not there to read */
	if (r->looks++ == 0) {
		r->first_kb = r->last_kb = kb;
		return;
	}
	if (kb + MOTION_SHRINK_STEP_KB <= r->last_kb)
		r->falls++;
	else if (kb > r->last_kb + MOTION_SHRINK_STEP_KB)
		r->rises++;
	r->last_kb = kb;
}

void motion_rss_look(struct motion_rss *r, uint64_t kb, unsigned procs)
{
	if (r->looks && procs != r->procs)
		*r = (struct motion_rss){ 0 };
	r->procs = procs;
	motion_rss_add(r, kb);
}

void motion_judge(struct motion *m)
{
	m->code = m->busy && 2 * m->moving > m->busy;
	double secs = m->span_ns > 0 ? (double)m->span_ns / 1e9 : 0;
	double cpu_s = (double)m->cpu_ns / 1e9;
	m->tree = m->work_ns >= MOTION_TREE_WORK_NS;
	m->memory = m->runnable && m->faults >= MOTION_FAULTS_MIN &&
		    (double)m->faults >= MOTION_FAULTS_PER_CPU_S * cpu_s;
	m->shrink = m->runnable && m->rss.falls >= MOTION_SHRINK_FALLS && !m->rss.rises &&
		    m->rss.last_kb + MOTION_SHRINK_MIN_KB <= m->rss.first_kb;
	m->progressing = m->code || m->tree || m->memory || m->shrink || m->cleanup;
	m->evidence[0] = '\0';
	if (!m->progressing)
		return;
	size_t n = 0;
	const char *sep = "";
	if (m->cleanup) {
		n += (size_t)snprintf(m->evidence, sizeof(m->evidence),
				      "exit cleanup: Python process %d is tearing its interpreter down "
				      "(Py_FinalizeEx: freeing its objects; %s)", (int)m->cleanup_pid,
				      m->cleanup_by ? m->cleanup_by : "its main thread's frames");
		sep = "; ";
	}
	if (m->code && n < sizeof(m->evidence)) {
		n += (size_t)snprintf(m->evidence + n, sizeof(m->evidence) - n,
				      "%s%u of %u busy threads in different code at each look", sep, m->moving, m->busy);
		sep = "; ";
	}
	if (m->tree && n < sizeof(m->evidence)) {
		n += (size_t)snprintf(m->evidence + n, sizeof(m->evidence) - n, "%s%u process%s started, %u ended",
				      sep, m->born, m->born == 1 ? "" : "es", m->ended);
		sep = "; ";
	}
	if (m->memory && n < sizeof(m->evidence)) {
		n += (size_t)snprintf(m->evidence + n, sizeof(m->evidence) - n, "%s%" PRIu64 " page faults in %.0f ms",
				      sep, m->faults, secs * 1000);
		sep = "; ";
	}
	if (m->shrink && n < sizeof(m->evidence))
		snprintf(m->evidence + n, sizeof(m->evidence) - n, "%smemory freed: resident set %" PRIu64
			 " MB -> %" PRIu64 " MB, falling at %u of %u looks", sep, m->rss.first_kb / 1024,
			 m->rss.last_kb / 1024, m->rss.falls, m->rss.looks - 1);
}
