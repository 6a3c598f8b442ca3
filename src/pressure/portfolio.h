/*
 * portfolio.h: `--chaos auto`, a portfolio of pressure/chaos configurations
 * ("arms") with Thompson sampling on their failure rates.
 *
 * Runs are given to arms in stints (one round of the arm's concurrency, so
 * the runs that share the machine share one condition: a plain arm's runs
 * are not slowed by a neighbour's chaos). Until the first failure, every
 * arm gets one stint, "plain" first, then the arms the zoo favoured
 * (portfolio.c), the others in a seeded order; after that each stint goes to the arm with the highest
 * sampled failures per second: theta ~ Beta(a0 + fails, b0 + passes), a0/b0
 * two pseudo-runs at the pooled failure rate of all arms, times the arm's
 * concurrency, divided by its mean run time. No arm starves: an arm that
 * has had less than PORTFOLIO_FLOOR / n of the machine's time so far (its
 * runs' time over its concurrency) gets the next stint, and an arm never
 * tried gets one with probability PORTFOLIO_FLOOR. The floor is counted in
 * time, not stints: a crowd's stint lasts ten times a fast arm's, and a
 * floor of stints gave slow arms half the machine. The unperturbed arm
 * ("plain") is always in the portfolio: on some bugs pressure lowers the
 * failure rate.
 *
 * Pure: no I/O, no clock; the caller passes outcomes and durations in, so
 * the selection is a function of the seed and the outcome sequence.
 */
#ifndef JOSTLE_PORTFOLIO_H
#define JOSTLE_PORTFOLIO_H

#include <stdbool.h>
#include <stdint.h>

#include "pressure/chaos.h"

#define PORTFOLIO_MAX 20
#define PORTFOLIO_FLOOR 0.15

struct pconfig {
	const char *name;      /* static label: "plain", "oversub", "sync-hi", ... */
	int ncpus;             /* CPUs of the run's set; 0: all of the series' set */
	int groups;            /* sets of ncpus CPUs used side by side, jobs spread
				* evenly over them (0 or 1: one set) */
	int jobs;              /* concurrent runs in all groups; 0: the series' -j
				* (set for auto arms) */
	bool noise;            /* background noise on */
	bool jitter;           /* the jitter preempters on (noise.h) */
	enum chaos_mode chaos; /* none, threads, sync or all */
	int intensity;         /* 0..2 */
	double sync_prob;      /* preload settings; 0: from intensity (replay sets them) */
	int sync_max_us;
	int span_ms;           /* thread chaos span (replay sets it) */
};

struct parm {
	struct pconfig cfg;
	uint64_t runs, fails;
	double wall_s;         /* sum over finished runs */
	unsigned pending;      /* started, not finished: the floor waits for them */
};

struct portfolio {
	int n;
	struct parm arm[PORTFOLIO_MAX];
	uint64_t rng;
	int explored;          /* arms given their first stint so far */
	int order[PORTFOLIO_MAX];
	uint64_t stints;
};

/* What the user fixed; the portfolio only varies the other dimensions. */
struct portfolio_fixed {
	bool cpus;             /* --cpus given: every arm uses all of that set */
	bool noise;            /* --noise given: on in every arm */
	bool chaos;            /* --chaos MODE (not auto) given */
	enum chaos_mode mode;
};

/* The default portfolio for a series with ncpus CPUs, `jobs` runs at a time
 * normally, max_jobs in a crowd (the "crowd" arms, like golang-stress -p 8,
 * exist when max_jobs > jobs), and `slots` runs at most at once (CPU groups
 * side by side fill them). */
void portfolio_init_auto(struct portfolio *p, uint64_t seed, int ncpus, int jobs, int max_jobs, int slots,
			 const struct portfolio_fixed *fixed);

/* A portfolio of exactly one arm (explicit options, or a replay). */
void portfolio_init_one(struct portfolio *p, const struct pconfig *cfg);

/* The arm of the next stint. */
int portfolio_pick(struct portfolio *p);

/* A run of arm a started. */
void portfolio_started(struct portfolio *p, int a);

/* A run of arm a ended. */
void portfolio_feedback(struct portfolio *p, int a, bool failed, double wall_s);

/* A started run of arm a ended without an outcome (abandoned, cut short). */
void portfolio_dropped(struct portfolio *p, int a);

/*
 * How much more time than --timeout a run of arm a gets once it passed the
 * timeout without being stuck: 1 for the unperturbed arm; else 1.5 times
 * the arm's mean run time over the unperturbed arm's (3 finished runs of
 * each), between 2 and PORTFOLIO_SCALE_MAX; PORTFOLIO_SCALE_MAX before that.
 */
#define PORTFOLIO_SCALE_MAX 4.0
double portfolio_timeout_scale(const struct portfolio *p, int a);

/* Runs in a stint of arm a (one round: its concurrency, or `jobs` when the
 * arm has none of its own). */
int portfolio_stint(const struct portfolio *p, int a, int jobs);

/* A Beta(a, b) draw (a, b >= 1) from the generator state; exposed for tests. */
double portfolio_beta(uint64_t *rng, double a, double b);

#endif
