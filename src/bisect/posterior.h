/*
 * posterior.h: which commit made a test flaky, as a probability over the
 * candidates, from the runs and failures counted at the commits tested.
 *
 * Commits are numbered 0..n in history order: 0 is the good revision, n
 * the bad one. The culprit is the first commit that fails at the bad rate:
 * one of 1..n, or 0 when the good revision fails as often (a claim "good"
 * that the runs refute; it must be ruled out like any other). The model: a
 * commit before the culprit fails at a background rate b, the culprit and
 * every commit after it at the bad rate r, b < r, each run independently. Neither rate
 * is known: both are integrated over a grid (b = 0 with prior weight 1/2,
 * else log-uniform from 1e-4 to 0.5; r log-uniform from 1e-4 to 0.999). The marginal likelihood of a culprit k
 * needs only the counts before and from k, and the constraint r > b is a
 * suffix sum over the r grid, so an update costs O(n * grid), not
 * O(n * grid^2). The culprit is uniform a priori over 0..n.
 *
 * The next commit to test is the one where a batch of m runs is expected
 * to say most about the culprit: the mutual information between the
 * culprit and the failures of the batch, each culprit with its own rates
 * (their means given that culprit). Rates that differ by hypothesis
 * matter: "fails 2% from commit 5" and "fails 1% everywhere, 5% from
 * commit 45" agree near commit 45 and disagree near commit 3. With the
 * mixtures kept as prefix sums over the culprit, choosing costs
 * O(n * m).
 *
 * Pure: no I/O, no clock, no randomness. Protocol:
 *   posterior_init(&p, n); posterior_set(&p, i, runs, fails) for each
 *   commit; posterior_update(&p); read p.p[], p.b_mean, p.r_mean;
 *   posterior_next(); posterior_release(&p).
 */
#ifndef JOSTLE_POSTERIOR_H
#define JOSTLE_POSTERIOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct posterior {
	size_t n;               /* commits 0 (good) .. n (bad) */
	uint64_t *runs;         /* n + 1 entries: runs counted at commit i */
	uint64_t *fails;        /* n + 1 entries: failures (of the bad signature) */
	bool *skip;             /* n + 1 entries: cannot be tested (did not build) */
	double *p;              /* n + 1 entries: P(culprit = i) */
	double *b_of, *r_of;    /* n + 1 entries: the rates' means if the culprit is i */
	double b_mean, r_mean;  /* posterior means of the two rates */
};

/* Owned arrays, all counts 0, the uniform prior in p. */
void posterior_init(struct posterior *ps, size_t n);
void posterior_release(struct posterior *ps);

/* The counts of commit i (0..n), replacing what was there. */
void posterior_set(struct posterior *ps, size_t i, uint64_t runs, uint64_t fails);

/* Recompute p[], b_mean and r_mean from the counts. */
void posterior_update(struct posterior *ps);

/* The most probable culprit (the earliest on a tie) and its probability. */
size_t posterior_best(const struct posterior *ps, double *prob);

/*
 * The most probable block: a commit that can be tested together with the
 * skipped commits right before it (runs cannot tell a culprit among those
 * from it). Sets *lo..*hi; returns the block's probability. Without
 * skipped commits a block is one commit.
 */
double posterior_best_block(const struct posterior *ps, size_t *lo, size_t *hi);

/* P(culprit <= j). */
double posterior_cdf(const struct posterior *ps, size_t j);

/* Expected information (bits) about the culprit from m runs at each
 * commit: gain[0..n] (the caller's array). */
void posterior_gains(const struct posterior *ps, unsigned m, double *gain);

/*
 * The commit to test next with a batch of m runs: the largest gain among
 * the commits not skipped, the latest on a tie. Returns false when no
 * commit would tell anything (every informative one is skipped).
 */
bool posterior_next(const struct posterior *ps, unsigned m, size_t *j);

/*
 * A whole search on simulated commits, for tests and bench/bisect_sim.c:
 * n commits, culprit k (1..n), runs failing with probability b before it
 * and r from it on, batches of m, stopping at confidence conf or after
 * max_runs. Returns the culprit found; *runs: the runs it took; where (if
 * not NULL) adds up the runs spent at the bad revision, the culprit's
 * parent, the culprit, before and after it.
 */
size_t posterior_simulate(size_t n, size_t k, double b, double r, unsigned m, double conf,
			  uint64_t max_runs, uint64_t *rng, uint64_t *runs, double where[5]);

#endif
