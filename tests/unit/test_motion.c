/* Unit tests of stuck-or-slow (src/diagnose/motion.h): counts in, verdict out. */
#include "diagnose/motion.h"
#include "diagnose/stack.h"
#include "tap.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <string.h>

/* One snapshot holding thread 7 with frames f0 <- f1 <- main. */
static void snap(struct stack_set *s, const char *f0, const char *f1)
{
	*s = (struct stack_set)STACK_SET_INIT;
	struct stack_thread *t = stack_set_add(s, 7, 7);
	stack_thread_push(t, f0, "/bin/prog", 0x1000);
	stack_thread_push(t, f1, "/bin/prog", 0x2000);
	stack_thread_push(t, "main", "/bin/prog", 0x3000);
}

/* Thread 7 of a stripped python: native frames INNER (NULL-terminated,
 * innermost first) in the interpreter, then Py_FinalizeEx <- Py_RunMain. */
static struct stack_thread *py_native(struct stack_set *s, const char *const *inner)
{
	*s = (struct stack_set)STACK_SET_INIT;
	struct stack_thread *t = stack_set_add(s, 7, 7);
	for (; *inner; inner++)
		stack_thread_push(t, *inner, !strcmp(*inner, "free") ? "/lib/x86_64-linux-gnu/libc.so.6"
								   : "/usr/bin/python3.11", 0x1000);
	return t;
}

/* A Python frame FN of FILE at LINE on top of t. */
static void push_py(struct stack_thread *t, const char *fn, const char *file, int line)
{
	stack_thread_push(t, fn, file, 0);
	struct stack_frame *f = &t->frames[t->nr - 1];
	f->python = true;
	f->line = line;
	char key[256];
	snprintf(key, sizeof(key), "%s:%s", strrchr(file, '/') ? strrchr(file, '/') + 1 : file, fn);
	f->key = xstrdup(key);
}

static unsigned distinct_of(struct stack_set *s)
{
	unsigned d;
	CHECK(motion_distinct(s, 6, 7, &d) == 6);
	for (int i = 0; i < 6; i++)
		stack_set_release(&s[i]);
	return d;
}

static struct motion judged(unsigned runnable, unsigned busy, unsigned moving, unsigned born, unsigned ended,
			    int64_t work_ms, uint64_t faults, int64_t cpu_ms)
{
	struct motion m = { .runnable = runnable, .busy = busy, .moving = moving, .born = born,
			    .ended = ended, .work_ns = work_ms * 1000000, .faults = faults,
			    .cpu_ns = cpu_ms * 1000000, .span_ns = 500000000 };
	motion_judge(&m);
	return m;
}

int main(void)
{
	struct stack_set s[6];
	unsigned d;

	/* a spin loop: the same place every time */
	for (int i = 0; i < 6; i++)
		snap(&s[i], "spin_wait", "worker");
	CHECK(motion_distinct(s, 6, 7, &d) == 6 && d == 1);
	CHECK(motion_distinct(s, 6, 99, &d) == 0 && d == 0);   /* a thread not there */
	for (int i = 0; i < 6; i++)
		stack_set_release(&s[i]);
	/* two places in turn (try_lock, back_off): still only two */
	for (int i = 0; i < 6; i++)
		snap(&s[i], i % 2 ? "back_off" : "try_lock", "worker");
	CHECK(motion_distinct(s, 6, 7, &d) == 6 && d == 2);
	for (int i = 0; i < 6; i++)
		stack_set_release(&s[i]);
	/* a compiler: somewhere else every time; a caller change counts too */
	const char *fns[6] = { "parse_decl", "fold_const", "emit_insn", "parse_decl", "alloc_reg", "sched_insns" };
	for (int i = 0; i < 6; i++)
		snap(&s[i], fns[i], i == 3 ? "expand_expr" : "compile");
	CHECK(motion_distinct(s, 6, 7, &d) == 6 && d == 6);
	for (int i = 0; i < 6; i++)
		stack_set_release(&s[i]);

	struct motion m;
	m = judged(3, 3, 0, 0, 0, 0, 0, 300);
	CHECK(!m.progressing && !m.evidence[0]);                     /* a livelock */
	m = judged(1, 1, 1, 0, 0, 0, 0, 100);
	CHECK(m.progressing && m.code && strstr(m.evidence, "different code"));
	m = judged(2, 2, 1, 0, 0, 0, 0, 100);
	CHECK(!m.code);                                              /* one of two: no majority */
	m = judged(0, 0, 0, 5, 5, 0, 0, 5);
	CHECK(!m.progressing);                                       /* a shell polling with sleep */
	m = judged(0, 0, 0, 1, 1, 100, 0, 100);
	CHECK(m.progressing && m.tree && strstr(m.evidence, "1 process started, 1 ended"));
	m = (struct motion){ .born = 0, .ended = 1, .work_ns = 3000000000, .span_ns = 500000000 };
	motion_judge(&m);
	CHECK(m.progressing && m.tree);                              /* a worker there from the start ended */
	m = judged(0, 0, 0, 25, 25, 25, 0, 60);
	CHECK(!m.progressing);                                       /* one `sleep` of 25 polls charged 25 ms */
	m = judged(0, 0, 0, 3, 3, 60, 0, 70);
	CHECK(m.progressing && m.tree);                              /* two short workers of 30 ms */
	m = judged(1, 1, 0, 0, 0, 0, 2048, 15);
	CHECK(m.progressing && m.memory);                            /* a copy, on a loaded machine */
	m = judged(1, 1, 0, 0, 0, 0, 2048, 0);
	CHECK(m.memory);                                             /* less than a tick of CPU */
	m = judged(1, 1, 0, 0, 0, 0, 60, 0);
	CHECK(!m.memory);                                            /* a few faults: anything does that */
	m = judged(1, 1, 0, 0, 0, 0, 500, 2000);
	CHECK(!m.memory);                                            /* 250 a CPU second: a spin with a leak */
	m = judged(0, 0, 0, 0, 0, 0, 5000, 100);
	CHECK(!m.memory);                                            /* no busy thread */

	/* --- interpreter frames: a thread with no program or Python frame --- */
	/* freeing objects at exit: through different interpreter functions */
	const char *const cleanup[6][5] = {
		{ "PyObject_GC_Del", "list_dealloc", "Py_FinalizeEx", "Py_RunMain", NULL },
		{ "_PyObject_Free", "subtype_dealloc", "list_dealloc", "Py_FinalizeEx", NULL },
		{ "free", "dict_dealloc", "subtype_dealloc", "list_dealloc", NULL },
		{ "gc_collect_main", "_PyGC_CollectNoFail", "finalize_modules", "Py_FinalizeEx", NULL },
		{ "tupledealloc", "list_dealloc", "Py_FinalizeEx", "Py_RunMain", NULL },
		{ "_Py_Dealloc", "dict_dealloc", "finalize_modules", "Py_FinalizeEx", NULL },
	};
	for (int i = 0; i < 6; i++)
		py_native(&s[i], cleanup[i]);
	CHECK(distinct_of(s) == 6);
	/* a spin in the interpreter, one place (the pc inside it moves: an
	 * unnamed frame never counts) */
	const char *const stuck[6][4] = {
		{ "python3.11+0x5075c7", "take_gil", "Py_RunMain", NULL },
		{ "python3.11+0x5075d0", "take_gil", "Py_RunMain", NULL },
		{ "python3.11+0x5075e1", "take_gil", "Py_RunMain", NULL },
		{ "python3.11+0x507602", "take_gil", "Py_RunMain", NULL },
		{ "python3.11+0x507618", "take_gil", "Py_RunMain", NULL },
		{ "python3.11+0x507620", "take_gil", "Py_RunMain", NULL },
	};
	for (int i = 0; i < 6; i++)
		py_native(&s[i], stuck[i]);
	CHECK(distinct_of(s) == 1);
	/* runtime frames of libc alone never count (a futex wake, a yield) */
	const char *const libc_only[2][3] = { { "free", "free", NULL }, { "free", NULL, NULL } };
	for (int i = 0; i < 6; i++)
		py_native(&s[i], libc_only[i % 2]);
	CHECK(distinct_of(s) == 1);
	/* Python code: judged by its Python functions, not by the interpreter
	 * frames around it (a Python spin loop hands the GIL back and forth) */
	const char *const gil[6][3] = {
		{ "take_gil", "PyEval_RestoreThread", NULL }, { "drop_gil", "PyEval_SaveThread", NULL },
		{ "_Py_HandlePending", "_PyEval_EvalFrameDefault", NULL }, { "take_gil", "_PyEval_EvalFrameDefault", NULL },
		{ "pysleep", "time_sleep", NULL }, { "lock_PyThread_acquire_lock", "cfunction_vectorcall_FASTCALL", NULL },
	};
	for (int i = 0; i < 6; i++)
		push_py(py_native(&s[i], gil[i]), "retry", "/src/app.py", 10 + i);
	CHECK(distinct_of(s) == 1);
	/* ... and moving when its Python functions change */
	const char *const pyfns[6] = { "parse", "resolve", "emit", "parse", "optimize", "link" };
	for (int i = 0; i < 6; i++)
		push_py(py_native(&s[i], gil[0]), pyfns[i], "/src/app.py", 10);
	CHECK(distinct_of(s) == 5);
	/* stdlib Python code only: interpreter frames do not count either */
	for (int i = 0; i < 6; i++)
		push_py(py_native(&s[i], gil[i]), "acquire", "/usr/lib/python3.11/threading.py", 100);
	CHECK(distinct_of(s) == 1);

	/* --- memory that shrinks --- */
	struct motion_rss r = { 0 };
	uint64_t falling[] = { 900000, 880000, 850000, 849000, 800000 };
	for (size_t i = 0; i < 5; i++)
		motion_rss_add(&r, falling[i]);
	m = (struct motion){ .runnable = 1, .busy = 1, .rss = r, .span_ns = 500000000 };
	motion_judge(&m);
	CHECK(m.progressing && m.shrink && strstr(m.evidence, "memory freed: resident set 878 MB -> 781 MB"));
	m.runnable = 0;
	motion_judge(&m);
	CHECK(!m.shrink);                                            /* no busy thread */
	/* a spin loop that frees and allocates a buffer: up as often as down */
	struct motion_rss osc = { 0 };
	uint64_t up_down[] = { 900000, 800000, 900000, 800000, 900000, 800000 };
	for (size_t i = 0; i < 6; i++)
		motion_rss_add(&osc, up_down[i]);
	m = (struct motion){ .runnable = 1, .busy = 1, .rss = osc };
	motion_judge(&m);
	CHECK(!m.shrink && osc.falls == 3 && osc.rises == 2);
	/* two falls: not yet */
	struct motion_rss two = { 0 };
	uint64_t two_falls[] = { 900000, 800000, 800000, 700000 };
	for (size_t i = 0; i < 4; i++)
		motion_rss_add(&two, two_falls[i]);
	m = (struct motion){ .runnable = 1, .busy = 1, .rss = two };
	motion_judge(&m);
	CHECK(!m.shrink);
	/* small steps (a page here and there) are noise, not a fall */
	struct motion_rss noise = { 0 };
	for (uint64_t kb = 900000; kb > 900000 - 6 * 32; kb -= 32)
		motion_rss_add(&noise, kb);
	m = (struct motion){ .runnable = 1, .busy = 1, .rss = noise };
	motion_judge(&m);
	CHECK(!m.shrink && noise.falls == 0);
	/* a process that ended took its memory along: the series starts again */
	struct motion_rss ended = { 0 };
	motion_rss_look(&ended, 900000, 4);
	motion_rss_look(&ended, 890000, 3);
	motion_rss_look(&ended, 880000, 2);
	motion_rss_look(&ended, 870000, 1);
	CHECK(ended.looks == 1 && ended.falls == 0);
	motion_rss_look(&ended, 860000, 1);
	motion_rss_look(&ended, 850000, 1);
	motion_rss_look(&ended, 840000, 1);
	CHECK(ended.looks == 4 && ended.falls == 3);
	/* a tree that could not be read (0) is no look */
	struct motion_rss gone = { 0 };
	motion_rss_add(&gone, 0);
	CHECK(gone.looks == 0);

	/* --- exit cleanup from the main thread's frames --- */
	struct stack_set e;
	const char *const freeing[] = { "free", "list_dealloc", "python3.11+0x5087d8", "Py_FinalizeEx",
					"Py_RunMain", "Py_BytesMain", NULL };
	CHECK(motion_exit_cleanup(py_native(&e, freeing)));
	stack_set_release(&e);
	const char *const gc[] = { "gc_collect_main", "_PyGC_CollectNoFail", "python3.11+0x65549e",
				   "Py_FinalizeEx", NULL };
	CHECK(motion_exit_cleanup(py_native(&e, gc)));
	stack_set_release(&e);
	/* a finalizer (__del__) running in the cleanup: still the cleanup */
	struct stack_thread *t = py_native(&e, freeing);
	push_py(t, "__del__", "/src/app.py", 3);
	CHECK(motion_exit_cleanup(t));
	stack_set_release(&e);
	/* joining the program's threads, or its atexit handlers: its own code */
	const char *const joining[] = { "sem_wait", "PyThread_acquire_lock_timed", "wait_for_thread_shutdown",
					"Py_FinalizeEx", NULL };
	CHECK(!motion_exit_cleanup(py_native(&e, joining)));
	stack_set_release(&e);
	const char *const atexit_fns[] = { "_PyEval_EvalFrameDefault", "atexit_callfuncs", "_PyAtExit_Call",
					   "Py_FinalizeEx", NULL };
	CHECK(!motion_exit_cleanup(py_native(&e, atexit_fns)));
	stack_set_release(&e);
	/* threading._shutdown named only by its Python frame (a stripped python) */
	const char *const stripped_join[] = { "sem_wait", "python3.11+0x58990b", NULL };
	t = py_native(&e, stripped_join);
	push_py(t, "_shutdown", "/usr/lib/python3.11/threading.py", 1583);
	stack_thread_push(t, "python3.11+0x6539f7", "/usr/bin/python3.11", 0x1000);
	stack_thread_push(t, "Py_FinalizeEx", "/usr/bin/python3.11", 0x1000);
	CHECK(!motion_exit_cleanup(t));
	stack_set_release(&e);
	/* running the program */
	const char *const running[] = { "_PyEval_EvalFrameDefault", "PyEval_EvalCode", "_PyRun_SimpleFileObject",
					"Py_RunMain", NULL };
	CHECK(!motion_exit_cleanup(py_native(&e, running)));
	stack_set_release(&e);
	/* the verdict says which process and how it was known */
	m = (struct motion){ .runnable = 1, .cleanup = true, .cleanup_pid = 4242,
			     .cleanup_by = "the interpreter's finalizing flag" };
	motion_judge(&m);
	CHECK(m.progressing && strstr(m.evidence, "exit cleanup: Python process 4242") &&
	      strstr(m.evidence, "finalizing flag"));
	return tap_done();
}
