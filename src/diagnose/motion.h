/*
 * motion.h: stuck or slow? Whether a tree that passed its deadline with
 * busy threads is spinning in place (a livelock) or moving through its work
 * (a compiler, a copy: progressing). Moving is not yet slow: the run's
 * verdict also weighs its CPU and what jostle did (docs/timeouts.md).
 *
 * Five signs, each enough on its own:
 *   code     the busy threads' stacks, taken several times in a row, are
 *            different nearly every time (a livelock spins in the same few
 *            functions, so its snapshots repeat). A stack is compared by
 *            its innermost program frames, Python functions among them;
 *            a thread with none (an interpreter running no Python code: a
 *            garbage collection, its exit) by its innermost named
 *            interpreter functions;
 *   tree     processes were born or ended while we looked (a build driver
 *            starting compilers), and they work: one of them used 20 ms
 *            of CPU (the `sleep` of a shell that polls uses 1-5 ms; a
 *            process just forked is runnable whatever it will do, so its
 *            state says nothing);
 *   memory   busy threads that fault in fresh memory, which a spin loop
 *            does not (a copy into new buffers, a compiler's arenas);
 *   shrink   busy threads and a resident set that falls look after look
 *            (memory being freed: no page fault comes of that);
 *   cleanup  a Python process busy tearing its interpreter down at exit
 *            (motion_exit_cleanup(); the caller decides and says which).
 * Pure: the caller takes the snapshots and counts; unit-tested.
 */
#ifndef JOSTLE_MOTION_H
#define JOSTLE_MOTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "diagnose/stack.h"

/* Snapshots of the busy threads' stacks, and how many must differ. */
#define MOTION_SNAPSHOTS 6
#define MOTION_DISTINCT 5           /* of MOTION_SNAPSHOTS: at most one repeat */
/* The signs are counted per CPU second the tree got, not per second of
 * wall time: on a loaded machine a busy tree gets little CPU, and a sign
 * measured against the wall clock would fade with the load. */
#define MOTION_FAULTS_MIN 100       /* page faults of the tree, at least ... */
#define MOTION_FAULTS_PER_CPU_S 1000 /* ... and this many per CPU second it used */
#define MOTION_BORN_BUSY_NS 20000000 /* CPU of a newcomer that works (a `sleep`
				     * it polls with uses 1-5 ms on a loaded machine) */
/* ... and of all of them together: one `sleep` in about two thousand was
 * charged 25 ms on a loaded VM, and one such newcomer made a polling shell
 * "progressing" (t525 failed once in CI); a build's worker alone, or two
 * of 30 ms, still show */
#define MOTION_TREE_WORK_NS 60000000
/* How long the tree is watched for processes that come and go: until it
 * used this much CPU (a tree of workers shows one ending by then, at any
 * load), or at most this long on the wall clock. */
#define MOTION_WATCH_CPU_NS 150000000
#define MOTION_WATCH_MAX_MS 2500
#define MOTION_WATCH_GAP_MS 20
/* Shrinking: the tree's resident set fell at this many looks, by at least
 * MOTION_SHRINK_STEP_KB each, MOTION_SHRINK_MIN_KB in all, and never grew
 * by more than MOTION_SHRINK_STEP_KB (one look's noise: a spin loop that
 * frees and allocates a buffer goes up as often as down). */
#define MOTION_SHRINK_FALLS 3
#define MOTION_SHRINK_STEP_KB 64
#define MOTION_SHRINK_MIN_KB 1024

/* The tree's resident set, look after look (motion_rss_add). */
struct motion_rss {
	uint64_t first_kb, last_kb;
	unsigned looks, falls, rises;
	unsigned procs;             /* processes the looks covered (motion_rss_look) */
};

struct motion {
	/* what was seen */
	unsigned runnable;          /* busy threads (runnable, burning CPU) in the tree */
	unsigned busy;              /* busy threads looked at again */
	unsigned moving;            /* of them, with MOTION_DISTINCT distinct stacks */
	unsigned born, ended;       /* processes, while we looked */
	int64_t work_ns;            /* CPU of the born or ended with MOTION_BORN_BUSY_NS each (churn.h) */
	uint64_t faults;            /* page faults of the tree while we looked */
	struct motion_rss rss;      /* its resident set at each look */
	int64_t cpu_ns;             /* CPU of the tree while we looked (reaped children too) */
	int64_t span_ns;            /* how long we looked */
	bool cleanup;               /* set by the caller: a Python process in exit cleanup ... */
	pid_t cleanup_pid;          /* ... this one (diagnose.h), ... */
	const char *cleanup_by;     /* ... known by this (static string) */
	/* the verdict */
	bool code, tree, memory, shrink;
	bool progressing;           /* any of the five */
	char evidence[256];         /* one line for a person, "" when stuck */
};

/*
 * The distinct stacks of thread TID over the snapshots (the innermost three
 * program or Python frames of each, else its innermost three named
 * interpreter frames; a snapshot without the thread does not count).
 * Returns the number of snapshots that had it; *distinct the distinct ones.
 */
unsigned motion_distinct(const struct stack_set *snaps, size_t nsnaps, pid_t tid, unsigned *distinct);

/*
 * Exit cleanup, from the native stack of a Python process's main thread
 * (innermost first; Python frames merged in or not): whether it is in the
 * interpreter's own teardown (Py_FinalizeEx and what it calls: modules
 * cleared, objects freed, the last garbage collections) past the parts
 * that run or wait for the program's code (joining its threads, atexit
 * handlers). The fallback where the interpreter's own finalizing flag
 * cannot be read (pystack.h says which). Pure.
 */
bool motion_exit_cleanup(const struct stack_thread *t);

/* One look at the tree's resident set, in KB, into r. */
void motion_rss_add(struct motion_rss *r, uint64_t kb);
/*
 * The same for a look that summed PROCS live processes: when that number
 * changed since the last look the series starts again (a process that
 * ended took its memory with it: nothing was freed by work).
 */
void motion_rss_look(struct motion_rss *r, uint64_t kb, unsigned procs);

/*
 * The verdict from what the caller measured into m (busy, moving, born,
 * ended, faults, rss, cleanup, span_ns): sets code/tree/memory/shrink/
 * progressing/evidence.
 */
void motion_judge(struct motion *m);

#endif
