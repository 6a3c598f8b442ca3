/*
 * chaos.h: schedule perturbation of a run, from outside (`--chaos threads`)
 * and from inside (`--chaos sync`, the preload library's environment).
 *
 * Thread chaos, in the spirit of PCT (Burckhardt et al., ASPLOS 2010): at a
 * few seeded change points per run, every thread of the run gets
 * a random priority (SCHED_IDLE, else nice 19, for a random share of them;
 * SCHED_OTHER for the others) and a CPU (all packed onto one, each on a
 * random one, or the whole set), so a low-priority thread really stalls,
 * sometimes inside its race window, while the others run. Each perturbation
 * lasts a bounded window and is then undone (normal priority, the run's
 * CPU set), and threads that appear inside a window are drawn too: a
 * correct program that spins on another thread is slowed for a window, never
 * starved into a false "hang". The engine calls chaos_tick() from its loop;
 * chaos_next_ns() says when the next tick is due. Everything follows from
 * the run's seed except the timing of the ticks themselves.
 *
 * Where the change points fall: PCT draws them uniformly over the length of
 * the execution. When the caller knows how long a run of this command
 * usually takes (the span: the mean of the configuration's finished runs),
 * the points are uniform over 1.25 spans and each window lasts a fixed
 * share of the span (10 ms to 250 ms), so a race at the end of a run (a
 * shutdown handshake) is as exposed as one at its start. Without a span
 * (the first runs) the gaps grow instead, 15 ms and doubling, the first one
 * early, since many races are in start-up, and they go on doubling for as
 * long as the run lasts.
 *
 * A vanished thread or process is a normal result; the functions return
 * nothing and never fail the run.
 */
#ifndef JOSTLE_CHAOS_H
#define JOSTLE_CHAOS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pressure/cpuset.h"
#include "util/strvec.h"

enum chaos_mode {
	CHAOS_NONE = 0,
	CHAOS_THREADS = 1,
	CHAOS_SYNC = 2,
	CHAOS_ALL = 3,     /* THREADS | SYNC */
	CHAOS_AUTO = 4,    /* the portfolio chooses per run */
	CHAOS_STEP_BIT = 8,
	CHAOS_STEP = 10,   /* SYNC's preload, its instruction steps on (x86-64) */
};

/* "none" ... "auto", "step"; chaos_mode_parse returns 0 or -EINVAL. */
const char *chaos_mode_name(enum chaos_mode m);
int chaos_mode_parse(const char *s, enum chaos_mode *out);

#define CHAOS_MAX_TIDS 256
#define CHAOS_MAX_CHANGES 12
#define CHAOS_LATE_CHANGES 20 /* without a span: change points after the first ones */

struct chaos_run {
	pid_t pid;
	uint64_t rng;
	struct cpuset cpus;        /* the CPUs threads may be moved between */
	int64_t next_ns;           /* next change point (monotonic) */
	int64_t restore_ns;        /* end of the current window, 0 outside one */
	int64_t last_ns;           /* last tick */
	int changes_left;
	int64_t gap_ns;            /* first gap; each next one about doubles */
	int64_t window_ns;         /* how long one perturbation lasts */
	int64_t span_ns;           /* the usual run length, 0: unknown */
	int how;                   /* this window: 0 pack, 1 spread, 2 whole set */
	int pack_cpu;
	double low_share;
	int ntids;
	pid_t tid[CHAOS_MAX_TIDS]; /* threads seen */
	int64_t start_ns;
	int64_t at_ns[CHAOS_MAX_CHANGES]; /* with a span: the change points, sorted */
	int changes;               /* change points applied (for the record) */
	int moves;                 /* policy/affinity changes made */
};

/*
 * Start perturbing run PID. cpus: the run's CPU set (empty: all available).
 * intensity 0..2 scales the number of change points and how often they come.
 * span_ns: the usual length of a run (0: unknown), see above.
 */
void chaos_start(struct chaos_run *c, pid_t pid, uint64_t seed, const struct cpuset *cpus,
		 int intensity, int64_t span_ns, int64_t now_ns);

/* When the run next wants a tick (monotonic ns). */
int64_t chaos_next_ns(const struct chaos_run *c);

/* Assign new threads; at a change point, redraw everything. */
void chaos_tick(struct chaos_run *c, int64_t now_ns);

/*
 * The environment of a `--chaos sync` run: prepend LIB to LD_PRELOAD
 * (keeping what the user had), set JOSTLE_CHAOS_PROB / JOSTLE_CHAOS_MAX_US,
 * and JOSTLE_CHAOS_BUDGET_US (the most time a process spends in injected
 * delays; 0: no limit), and let an ASan-built
 * program accept a preload ahead of its runtime. steps > 0: the step
 * perturbation, at most that many instructions a process
 * (JOSTLE_CHAOS_STEP, JOSTLE_CHAOS_STEPS); 0: none.
 */
void chaos_sync_env(struct strvec *env, const char *lib, double prob, int max_us, int budget_us, int steps,
		    int step_threads);

/*
 * --chaos step: which threads a run steps (a mask of thread ordinals in
 * creation order, 0 the first; bit 7 stands for the 7th and every later
 * one), drawn from the run's seed. Half the runs step every thread but the
 * first, or every one; the other half step one thread alone, one of the
 * first four: a thread held up at its shared accesses while the others run
 * free is PCT's one low-priority thread (a producer held between publishing
 * an index and writing the slot it names, its consumer never stepped).
 */
#define CHAOS_STEP_THREADS_ALL 0xff
#define CHAOS_STEP_WHOS 6
/* the choices and their odds, here so that the portfolio alone (its
 * simulator, bench/portfolio_sim.c) needs nothing else */
static const int chaos_step_whos[CHAOS_STEP_WHOS] = { CHAOS_STEP_THREADS_ALL, CHAOS_STEP_THREADS_ALL & ~1, 1, 2, 4, 8 };
static const double chaos_step_who_odds[CHAOS_STEP_WHOS] = { 0.25, 0.25, 0.125, 0.125, 0.125, 0.125 };
int chaos_step_threads_draw(uint64_t seed);

/*
 * Where libjostle-chaos.so is: $JOSTLE_CHAOS_LIB, else next to the jostle
 * binary, else ../lib/jostle/ relative to it. Returns a new string or NULL.
 */
char *chaos_find_lib(void);

/* The preload probability and maximum delay of an intensity level 0..2. */
void chaos_sync_level(int intensity, double *prob, int *max_us);

/*
 * `--chaos step`: no delays at pthread calls (probability 0), hold-ups of
 * up to 5 ms before shared accesses, 20 ms of them per thread (the
 * library's JOSTLE_CHAOS_STEP, preload/chaos.c says why those figures).
 */
#define CHAOS_STEP_MAX_US 5000
#define CHAOS_STEP_BUDGET_US 20000

#endif
