/*
 * late.h: the verdict on a run past its deadline (docs/timeouts.md).
 *
 * A user's --timeout is their CI's timeout. A run that outlasts it is one
 * of three things:
 *   spinning     it burned several times the CPU a passing run of the
 *                series needs (LATE_SPIN_FACTOR): a busy-wait, a failure
 *                under every arm (seed 003: a thread spins for one that
 *                cannot run);
 *   stuck        the diagnosis saw it stuck (deadlock, livelock, ...): a hang;
 *   progressing  moving, not spinning: `slow` (no failure) only when what
 *                jostle did accounts for it (the delay its chaos library
 *                injected, the load of its arm, or an interpreter's exit
 *                cleanup); otherwise the user's timeout, a failure.
 *
 * "Typical" is the median CPU of the last LATE_REF_RUNS passing runs of
 * the same reference (series.c keeps one per series, or per matrix cell:
 * a cell's variables may change the work; auto's arms change the schedule,
 * not the work, so they share one).
 *
 * Pure: the engine passes the run's numbers in (late_judge); unit-tested
 * in tests/unit/test_late.c.
 */
#ifndef JOSTLE_LATE_H
#define JOSTLE_LATE_H

#include <stdbool.h>

/*
 * Spinning: at least this many times the median CPU of passing runs.
 * Measured (docs/timeouts.md: bugs corpus, 2-CPU VM at load 16-22, 40 s
 * per series): hung spinners burned 5.2x (phase_spin_stall at -j 8, the
 * least) to 55.7x the median passing run; correct programs past the
 * deadline (--fixed modes under --chaos auto), 0.9x to 3.5x (a crowd's
 * futex system time).
 */
#define LATE_SPIN_FACTOR 4.0
/* The reference is never taken below this: a program of 3 ms of CPU is
 * not called spinning for 10 ms of start-up noise. */
#define LATE_REF_FLOOR_S 0.02
#define LATE_REF_RUNS 31

/* The last LATE_REF_RUNS passing runs: CPU (its own: jostle's injected
 * spins taken out) and wall time. Zero it to start. */
struct late_ref {
	double cpu_s[LATE_REF_RUNS], wall_s[LATE_REF_RUNS];
	unsigned n, next;
};

void late_ref_add(struct late_ref *ref, double cpu_s, double wall_s);
/* The medians; 0 while no run passed. */
double late_ref_cpu(const struct late_ref *ref);
double late_ref_wall(const struct late_ref *ref);

/* What the diagnosis saw of the tree (rundiag.h). */
enum late_seen {
	LATE_SEEN_NONE,         /* not diagnosed, or it ended before it could be */
	LATE_SEEN_PROGRESSING,  /* busy threads that move */
	LATE_SEEN_LIVELOCK,     /* busy threads in place */
	LATE_SEEN_MAYBE,        /* sleeping or mixed: nothing definite */
	LATE_SEEN_STUCK,        /* deadlock, blocked I/O, stopped */
};

struct late_in {
	double cpu_s;           /* the tree's own CPU over its life */
	double wall_s;
	double cpus;            /* CPUs of its set (0: unknown) */
	double delay_s;         /* what jostle's chaos library held it up, all threads */
	bool loaded;            /* its arm adds load (noise, jitter, thread chaos, a
				 * crowd, fewer CPUs): pressure_run_loaded() */
	bool ended_ok;          /* its main process exited 0 on its own, past the deadline */
	bool exit_cleanup;      /* an interpreter in its exit cleanup (rundiag.h) */
	enum late_seen seen;
	double ref_cpu_s, ref_wall_s;   /* late_ref_cpu/wall (0: no run passed yet) */
	double ref_rate;        /* CPU per second of passing runs that no load of
				 * jostle's slowed (0: none yet) */
};

enum late_verdict {
	LATE_SPINNING,          /* hang, kind busy-wait */
	LATE_STUCK,             /* hang, the diagnosis's kind */
	LATE_TIMEOUT,           /* hang, kind timeout: moving, and nothing of ours explains it */
	LATE_SLOW,              /* slow, why in slow_why */
};

struct late_out {
	enum late_verdict verdict;
	const char *late;       /* "spinning", "stuck" or "progressing" (static) */
	const char *slow_why;   /* "chaos delay", "load", "exit cleanup", or NULL */
	double cpu_factor;      /* cpu over the reference; 0 without one */
};

void late_judge(const struct late_in *in, struct late_out *out);

#endif
