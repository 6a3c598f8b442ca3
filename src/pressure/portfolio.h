/*
 * portfolio.h: `--chaos auto`, a portfolio of pressure/chaos configurations
 * ("arms") and the choice among them.
 *
 * An arm is one value on each of two dimensions, learned separately and
 * together:
 *   load:     how many runs share which CPUs: "plain" (the series' -j on
 *             all its CPUs), "serial" (one at a time), "crowd" (max_jobs:
 *             8 per CPU without -j, twice golang-stress -p 8 on two CPUs),
 *             "1cpu" (-j on one CPU per group) and "crowd-1cpu" (the
 *             crowd's depth per CPU, pinned), one group per CPU side by side;
 *   perturb:  what is done to each run: nothing, thread chaos ("threads"),
 *             light or heavy sync chaos ("sync", "sync-hi": the preload
 *             library's delays; the heavy one with a bounded total delay per
 *             run), the jitter preempters, the noise hogs, or "step"
 *             (holds-ups before single instructions that touch shared
 *             memory: races with no pthread call in the window).
 * The arm's name joins them ("crowd-sync-hi", "serial", "plain").
 *
 * Before any other rule, the floor (struct pslot, below): the plain
 * serial loop and the plain crowd keep guard slots of the machine's time
 * until an arm is shown faster, so auto is never far below the strategies
 * users run today. Slow and cut runs are no pass and cost their arm their
 * time (enum portfolio_outcome).
 *
 * The choice is Thompson sampling on each arm's failures per second of
 * machine time: a draw of its failure probability per run (a Beta
 * posterior) times its runs per second (its concurrency over its mean run
 * time), and for an arm whose background differs from the last pick's,
 * times the share of its stint not lost to the drains in and out (half a
 * run of each arm, over a second at least). Once nine runs in ten fail,
 * runs per second are timed by the machine instead (the time from the run
 * end before to each of the arm's runs' ends, a mean that forgets), and
 * the plain crowd is timed again at growing intervals. The prior of an arm weighs two runs and is centred on what its two
 * values have shown so far with any partner (the product of the two
 * marginal failure probabilities over the pooled one), not on a fixed
 * optimistic guess: so an untried crowd of sixteen is no more promising per
 * second than an untried serial arm, a serial arm that fails is used as
 * hard as any other, a failure under sync-hi on one load makes sync-hi on
 * every load more promising, and an arm is abandoned as soon as its own
 * runs have shown it worse than the best. Exploration thus costs about
 * what the best arm needs for a few failures, whatever the budget (plus one
 * stint for an arm never tried, given now and then while such stints have
 * taken less than a tenth of the machine's time, runs in flight counted
 * at the time they have run so far, and none once nine runs in ten fail:
 * a program that fails in every run must not pay for a tour of 35 arms,
 * a slow one holding its slots for seconds). Until the first
 * failure every arm is tried, in an order that reaches every value
 * of both dimensions within the first stints (heavy sync chaos second and
 * steps third: they are what fails programs that never fail natively; the
 * rest seeded; an arm already tried in another's stint, portfolio_member,
 * is skipped), then the least explored arm goes first.
 *
 * Runs are given to arms in stints of one round of the arm's concurrency
 * (the runs that share the machine share one condition). An arm with its
 * own background (noise, jitter) must wait for the machine to drain before
 * and after it, so its stints last a second of run time or more
 * (portfolio_stint), measured from the arm's own runs.
 *
 * Pure: no I/O, no clock; the caller passes outcomes and durations in, so
 * the selection is a function of the seed and the outcome sequence.
 */
#ifndef JOSTLE_PORTFOLIO_H
#define JOSTLE_PORTFOLIO_H

#include <stdbool.h>
#include <stdint.h>

#include "pressure/chaos.h"

#define PORTFOLIO_MAX 40

struct pconfig {
	const char *name;      /* static label: "plain", "crowd-sync-hi", ... */
	int ncpus;             /* CPUs of the run's set; 0: all of the series' set */
	int groups;            /* sets of ncpus CPUs used side by side, jobs spread
				* evenly over them (0 or 1: one set) */
	int jobs;              /* concurrent runs in all groups; 0: the series' -j
				* (set for auto arms) */
	bool noise;            /* background noise on */
	bool jitter;           /* the jitter preempters on (noise.h) */
	enum chaos_mode chaos; /* none, threads, sync or all */
	int intensity;         /* 0..2 */
	double sync_prob;      /* preload settings; 0: from intensity */
	int sync_max_us;
	int sync_budget_us;    /* most delay per process (0: no limit) */
	int span_ms;           /* thread chaos span (replay sets it) */
	int steps;             /* --chaos step: most instructions stepped per
				* process (0: the library's default) */
	int step_threads;      /* --chaos step: the threads stepped, a mask of
				* their ordinals (bit 7: the 7th and later);
				* 0: drawn per run (chaos_step_threads_draw) */
};

struct parm {
	struct pconfig cfg;
	int load, perturb;     /* its value on each dimension (auto), else 0 */
	uint64_t runs, fails;
	double wall_s;         /* sum over finished runs of their time as the arm
				* would have them alone on the machine: each run's
				* share of the machine (run/share.h) times the
				* arm's concurrency */
	uint64_t passes;       /* runs that ended without failing, slow ones */
	double pass_s;         /* too, and their wall time: how long a correct run */
	double max_pass_s;     /* of this arm takes; the longest of them */
	uint64_t slows;        /* of the passes, those past their deadline */
	double slow_s;         /* (PORTFOLIO_SLOW): no pass to the choice */
	uint64_t cuts;         /* runs cut without an outcome, and their */
	double cut_s;          /* time: charged to the arm all the same */
	double cpu_s;          /* CPU time of its finished runs */
	unsigned pending;      /* started, outcome not yet counted */
	uint64_t ended;        /* runs ended (counted or held) */
	bool forced;           /* in the stint an untried arm is given now and then */
	uint64_t forced_until; /* ... until this many of its runs have ended */
	double running_s;      /* set by the caller before a pick: how long its
				* runs in flight have run so far */
	double gap_s, gap_w;   /* the machine's time per run of this arm: the
				* time from the end before to each of its runs'
				* ends, a mean that forgets (PORTFOLIO_RECENT) */
	uint64_t picked;       /* the stint (portfolio.stints) it last had */
	bool base;             /* a baseline: it has a guard slot (struct pslot) */
};

/*
 * Outcomes are counted in the order their runs started, arm by arm: the
 * first runs of a stint to end are the short ones, and where a crash ends
 * a run early, counting them first made whichever arm was running look
 * fast and failing, so it was picked again and again (a crowd of noise
 * runs held the machine for four seconds at a third of the best arm's
 * rate). An outcome is held while a run of its arm that started before it
 * is in flight, at most PORTFOLIO_HOLD_S.
 */
#define PORTFOLIO_LIVE 256
#define PORTFOLIO_STEP_DEPTHS 4   /* octaves of a step run's budget (portfolio_step_draw) */
/* The runs a mean that forgets (struct parm's gap) mostly weighs: a stint of
 * a crowd replaces two thirds of it. */
#define PORTFOLIO_RECENT 16
#define PORTFOLIO_HOLD_S 2.0
struct pticket {
	int arm;
	uint64_t ticket;
};
/*
 * How a run ended, for the choice: a slow run (past its deadline, not
 * stuck) and a cut one (still going when the series ended) are no
 * failure and no pass, and their time is charged to their arm: an arm
 * whose every run goes slow costs the machine the most and finds nothing
 * (issue 43: about 250 s of a 420 s series went to jitter and noise
 * rounds whose every run was slow). false and true are PASS and FAIL.
 */
enum portfolio_outcome {
	PORTFOLIO_PASS,
	PORTFOLIO_FAIL,
	PORTFOLIO_SLOW,
	PORTFOLIO_CUT,
};

struct pheld {
	int arm;
	uint64_t ticket;
	enum portfolio_outcome how;
	double cost_s;         /* its time as its arm alone would have it (parm.wall_s) */
	double wall_s, cpu_s, at_s;
};

/*
 * The floor (docs/auto.md): the strategies users run today, a plain serial
 * loop, N copies at once with N the CPUs (golang-stress's default -p, the
 * "plain" arm at auto's -j) and a plain crowd (golang-stress -p 8 on two
 * CPUs), are auto's baseline arms. Each has a guard slot owed
 * PORTFOLIO_SLOT_SHARE of the machine's time past PORTFOLIO_GUARD_AFTER_S,
 * counted from the runs of the slot's holder: the baseline itself until
 * another arm's lower confidence bound on failures per machine second
 * exceeds the holder's upper bound (a race: another baseline, or any arm,
 * takes the slot over once it is shown faster). A slot behind its share
 * has the next stint, unless the failures counted already make its floor
 * at the holder's upper bound (after a few failures elsewhere, a baseline
 * that never failed needs a share that shrinks as they grow). So after T
 * seconds of machine time auto has found at least PORTFOLIO_SLOT_SHARE of
 * what the best baseline alone would have, over T - PORTFOLIO_GUARD_AFTER_S
 * less one stint: in expectation from the slot's own time, or already
 * counted (bounds at PORTFOLIO_GUARD_Z standard deviations, one-sided; a
 * wrong takeover is undone when the bounds part the other way).
 */
#define PORTFOLIO_SLOTS 3
#ifndef PORTFOLIO_SLOT_SHARE   /* bench/portfolio_sim.c builds with 0 to compare */
#define PORTFOLIO_SLOT_SHARE (0.5 / 3)
#endif
#define PORTFOLIO_GUARD_Z 2.0
#ifndef PORTFOLIO_GUARD_AFTER_S
#define PORTFOLIO_GUARD_AFTER_S 5.0
#endif
/*
 * The race's leader: the arm with the highest lower bound on failures per
 * machine second, with PORTFOLIO_LEAD_FAILS failures at least. It is
 * *shown* once no other arm that has had a probe's machine time (what
 * brings a clean arm's upper bound down to PORTFOLIO_LEAD_K times that
 * lower bound) has an upper bound above PORTFOLIO_LEAD_K times it: none is
 * more than that much better. Untried arms then get a twentieth of the
 * machine's time, not a tenth (choose; docs/auto.md).
 */
#define PORTFOLIO_LEAD_K 2.0
#define PORTFOLIO_LEAD_FAILS 4
struct pslot {
	int base;              /* the baseline arm it guards */
	int holder;            /* the arm whose runs it counts now */
	double machine_s;      /* the holders' machine time while they held it */
	int takeovers;
};

struct portfolio {
	int n;
	int nslot;             /* guard slots (the floor, above) */
	struct pslot slot[PORTFOLIO_SLOTS];
	bool guard;            /* the stint now is a slot's (no partners) */
	uint64_t guard_stints;
	struct parm arm[PORTFOLIO_MAX];
	int nload, nperturb;   /* values on each dimension */
	int jobs;              /* the series' own concurrency (auto) */
	int last;              /* the arm last picked (its stint runs), -1 */
	uint64_t rng;
	int explored;          /* stints of the first round given so far */
	int nexplore;          /* arms in the first round (all of them) */
	int order[PORTFOLIO_MAX]; /* the first round, before any failure */
	uint64_t stints;
	double machine_s;      /* every run's share of the machine (run/share.h) */
	double forced_s;       /* the same of the stints given to untried arms */
	uint64_t tickets;      /* runs started */
	uint64_t fails;        /* failures counted, all arms */
	int remeasured;        /* stints the plain crowd was given to be timed again */
	int remeasure_arm;     /* the arm of such a stint now, -1 */
	double end_s;          /* when the last run ended (any arm), < 0: none yet */
	int crowd;             /* the load "crowd" (all CPUs, max_jobs), -1 if none */
	bool per_run;          /* portfolio_fixed.per_run */
	/* step runs by octave of their budget (portfolio_step_draw) */
	double step_runs[PORTFOLIO_STEP_DEPTHS], step_fails[PORTFOLIO_STEP_DEPTHS];
	double step_cpu[PORTFOLIO_STEP_DEPTHS];
	/* ... and by the threads they step (chaos_step_whos) */
	double who_runs[CHAOS_STEP_WHOS], who_fails[CHAOS_STEP_WHOS], who_cpu[CHAOS_STEP_WHOS];
	int nlive, nheld;
	struct pticket live[PORTFOLIO_LIVE];  /* runs in flight (the first PORTFOLIO_LIVE) */
	struct pheld held[PORTFOLIO_LIVE];    /* ended, not yet counted */
};

/* What the user fixed; the portfolio only varies the other dimensions. */
struct portfolio_fixed {
	bool cpus;             /* --cpus given: every arm uses all of that set */
	bool noise;            /* --noise given: on in every arm */
	bool chaos;            /* --chaos MODE (not auto) given */
	enum chaos_mode mode;
	bool per_run;          /* arms scored on failures per run, not per
				* second (jostle reproduce: a proof costs runs) */
};

/* The default portfolio for a series with ncpus CPUs, `jobs` runs at a time
 * normally, max_jobs in a crowd (the crowd loads exist when max_jobs >
 * jobs), and `slots` runs at most at once (CPU groups side by side fill
 * them). */
void portfolio_init_auto(struct portfolio *p, uint64_t seed, int ncpus, int jobs, int max_jobs, int slots,
			 const struct portfolio_fixed *fixed);

/* A portfolio of exactly one arm (explicit options, or a replay). */
void portfolio_init_one(struct portfolio *p, const struct pconfig *cfg);

/* The arm of the next stint. */
int portfolio_pick(struct portfolio *p);

/*
 * The arm of the next run of a stint of arm a: a itself, or while nothing
 * has failed yet and a has been tried, an arm never tried that differs
 * from a only in what is done to each run (thread chaos, sync chaos,
 * steps; not the load, not the background): the runs of a stint share its
 * load and background, not their own perturbation, so one crowd
 * tries five perturbations under a crowd at once. The tour before the
 * first failure is then about one stint per load and background, not one
 * per arm (35 stints of slow runs took twenty seconds on a spinning
 * program that fails in a few runs in a hundred under any crowd). The
 * record of such a run names its own arm; a replay runs a stint of it.
 */
int portfolio_member(const struct portfolio *p, int a);

/* A run of arm a started; returns its ticket (the order of starts). */
uint64_t portfolio_started(struct portfolio *p, int a);

/* The run `ticket` of arm a ended at now_s (any clock, seconds): `how`
 * (passed, failed, slow or cut), after wall_s seconds, of which share_s
 * were its share of the machine (run/share.h; < 0: not known, taken as
 * wall_s over the arm's concurrency, as if the arm had the machine to
 * itself), having used cpu_s of CPU (its process tree, user and system).
 * Counted now or once the runs of its arm that started before it have
 * ended (at most PORTFOLIO_HOLD_S later). */
void portfolio_feedback_share(struct portfolio *p, int a, uint64_t ticket, enum portfolio_outcome how,
			      double wall_s, double share_s, double cpu_s, double now_s);
/* The same with share_s unknown (the simulator, tests). */
void portfolio_feedback(struct portfolio *p, int a, uint64_t ticket, enum portfolio_outcome how, double wall_s,
			double cpu_s, double now_s);

/* Failures per machine second of arm a, and its bounds at z standard
 * deviations (Poisson, Wilson-Hilferty): what the guard slots race on.
 * Machine time: its runs' time (slow and cut ones too) over its
 * concurrency; the lower bound counts its runs in flight as well. */
void portfolio_rate(const struct portfolio *p, int a, double z, double *lo, double *mid, double *hi);

/* A started run ended without an outcome (abandoned, cut short). */
void portfolio_dropped(struct portfolio *p, int a, uint64_t ticket, double now_s);

/* Count the held outcomes that may be counted at now_s (before a pick). */
void portfolio_settle(struct portfolio *p, double now_s);

/* Runs in the next stint of arm a: one round of its concurrency (`jobs`
 * when it has none of its own); for an arm with its own background, rounds
 * enough for about a second of its measured run time (at most 8), once
 * it has run a round's worth of runs. A perturbation no run has finished
 * under yet is first given the series' own concurrency, however crowded
 * the arm: what a run under it costs is learned before a crowd pays it
 * (a crowd of 16 step runs through a busy program held the machine for
 * seconds). */
int portfolio_stint(const struct portfolio *p, int a, int jobs);

/*
 * Mean time of arm a's passing (or slow) runs, 0 before it has any: what
 * a correct run takes under the arm's conditions.
 */
double portfolio_run_time(const struct portfolio *p, int a);

/*
 * How much arm a slows a correct run: its mean run time over that of the
 * unperturbed arm with the series' own concurrency ("plain"), at least 1;
 * 1 while either has fewer than 3 timed runs (or in a one-arm portfolio).
 */
double portfolio_slowdown(const struct portfolio *p, int a);

/*
 * How much more time than --timeout (timeout_s seconds) a run of arm a gets
 * once it passed the timeout without being stuck: 1 for "plain" and
 * "serial" (and a one-arm portfolio), and 1 for an arm with 3 passing runs
 * or more whose longest is under the timeout over PORTFOLIO_PASS_MARGIN
 * (its correct runs end far inside the timeout, so one past it is no slow
 * run of this arm); else 1.5 times portfolio_slowdown, between 2 and
 * PORTFOLIO_SCALE_MAX; PORTFOLIO_SCALE_MAX while either arm has fewer than
 * 3 passing runs.
 */
#define PORTFOLIO_SCALE_MAX 4.0
#define PORTFOLIO_PASS_MARGIN 2.0
double portfolio_timeout_scale(const struct portfolio *p, int a, double timeout_s);

/*
 * The instruction budget of a step run (JOSTLE_CHAOS_STEPS): a trap costs
 * about PORTFOLIO_STEP_COST_S of CPU, so a program's runs are stepped for
 * at most PORTFOLIO_STEP_RATIO times the CPU a run of it uses without steps
 * (the mean over every finished run of the arms that do not step), and at
 * least PORTFOLIO_STEP_MIN instructions (the threads of a unit-test-sized
 * program whole); PORTFOLIO_STEP_MAX before any such run has finished.
 */
#define PORTFOLIO_STEP_MIN 20000
#define PORTFOLIO_STEP_MAX 60000
#define PORTFOLIO_STEP_COST_S 20e-6
#define PORTFOLIO_STEP_RATIO 4.0
int portfolio_step_budget(const struct portfolio *p);

/*
 * The budget of one step run, a third dimension learned on the step runs
 * alone: how deep into the program they step. PORTFOLIO_STEP_DEPTHS
 * octaves, the first up to portfolio_step_budget, each one half of the one
 * before; within an octave log-uniform. Where a race is early, stepping only
 * the first part of a run costs less and finds as much per run (fixed -j2
 * step runs, 10 s, failures/runs at 3,000 / 6,000 / 20,000 instructions:
 * StateWorkStealQueue 41/389, 19/226, 10/117); where it is deep, the short
 * budgets miss it (InterlockedWorkStealQueue's step arms failed 9-15% of
 * their runs at 20,000, 1-3% with budgets drawn from 1,250 to 20,000:
 * bench/RESULTS.md, session 40). Before a step run has failed the octave is
 * uniform; after, a Thompson draw on failures per CPU second of each
 * octave's runs. The draw comes from the run's seed; the record keeps the
 * budget (`config.steps`), so --replay repeats it. *depth: the octave, -1
 * for none.
 */
int portfolio_step_draw(const struct portfolio *p, uint64_t seed, int *depth);

/*
 * The threads one step run steps (config.step_threads), a fourth
 * dimension learned the same way: one of chaos_step_whos, at the odds of
 * chaos_step_threads_draw before a step run has failed, after that a
 * Thompson draw on failures per CPU second of each choice's runs (a
 * producer stepped alone fails 3 runs of 4 where every thread stepped
 * fails none: spsc_ring_publish). *who: its index, -1 for none.
 */
int portfolio_step_who_draw(const struct portfolio *p, uint64_t seed, int *who);

/* The outcome of a step run of octave `depth` (portfolio_step_draw) and
 * threads `who` (portfolio_step_who_draw), with the CPU its process tree
 * used. */
void portfolio_step_feedback(struct portfolio *p, int depth, int who, bool failed, double cpu_s);

/* A Gamma(shape, 1) draw (shape > 0) from the generator state; exposed for tests. */
double portfolio_gamma(uint64_t *rng, double shape);

#endif
