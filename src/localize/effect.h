/*
 * effect.h: how much a delay at one call site changes the failure rate,
 * estimated from runs in which the delayed sites were drawn at random
 * (group testing). Pure functions of counts, no I/O.
 *
 * The data come in rounds: a round randomizes a set of sites (each run
 * delays at each of them independently, with a probability strictly
 * between 0 and 1) and leaves every other site alone. Within a round the
 * runs with site s on and those with s off differ, on average, only by
 * s: the difference of their failure rates is the effect of s, whatever
 * the other sites do. Rounds differ (another set of sites, another
 * background rate), so they are strata: the effect is the Mantel-Haenszel
 * weighted mean of the rounds' differences, each with the Agresti-Caffo
 * adjustment (one failure and one pass added to each arm), which keeps
 * the interval honest at 0 of 20.
 *
 * A pair's interaction is p11 - p10 - p01 + p00 (delays at both, at a
 * alone, at b alone, at neither), averaged over the rounds with inverse
 * variance weights: what the two delays do together beyond the sum of
 * what each does alone.
 *
 *   struct effect_data d = EFFECT_DATA_INIT;
 *   struct effect_round *r = effect_round_new(&d, sites, nbits);
 *   effect_round_add(r, on, failed);           (one run: on[nbits])
 *   effect_site(&d, s, STATS_Z95, &e);
 *   effect_data_release(&d);
 */
#ifndef JOSTLE_EFFECT_H
#define JOSTLE_EFFECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct effect_round {
	size_t nbits;
	size_t *site;          /* owned: bit -> site index */
	size_t nruns, alloc;
	bool *on;              /* owned: nruns x nbits */
	bool *fail;            /* owned: nruns */
};

struct effect_data {
	struct effect_round *rounds;   /* owned */
	size_t nrounds, alloc;
};

#define EFFECT_DATA_INIT { NULL, 0, 0 }

/* A new round randomizing sites[0..nbits) (copied) as bits 0..nbits-1. */
struct effect_round *effect_round_new(struct effect_data *d, const size_t *sites, size_t nbits);

/* One run of round r: on[b] says whether bit b was delayed; failed, its outcome. */
void effect_round_add(struct effect_round *r, const bool *on, bool failed);

void effect_data_release(struct effect_data *d);

struct effect {
	double diff, lo, hi;      /* effect on the failure rate and its interval */
	double absmin, absmax;    /* the smallest and largest |effect| the interval allows */
	uint64_t n_on, k_on;      /* runs (failed) with the site delayed, pooled */
	uint64_t n_off, k_off;    /* and without, in the rounds that randomized it */
	unsigned strata;          /* rounds that randomized it */
};

/* The effect of site s at normal quantile z (STATS_Z95). A site no round
 * randomized gets diff 0 and the interval [-1, 1]. */
void effect_site(const struct effect_data *d, size_t s, double z, struct effect *e);

/* Ranking order: the stronger evidence of an effect either way first
 * (absmin, then |diff|), for qsort over struct effect. */
int effect_cmp(const struct effect *a, const struct effect *b);

struct effect_pair {
	size_t a, b;
	double inter, lo, hi;     /* interaction and its interval */
	double a_lo, a_hi;        /* a alone (b off): p10 - p00, interval */
	double b_lo, b_hi;        /* b alone (a off): p01 - p00, interval */
	uint64_t n[4], k[4];      /* pooled runs and failures: 11, 10, 01, 00 */
	unsigned strata;
};

/* The interaction of sites a and b at quantile z; strata 0 when no round
 * randomized both with runs in all four cells. */
void effect_pair(const struct effect_data *d, size_t a, size_t b, double z, struct effect_pair *p);

/* The normal quantile of two-sided intervals that hold for all of m
 * estimates at once with probability `level` (Bonferroni): what the
 * elimination, the stopping rule and the pair search use, since they
 * look at every candidate at once. */
double effect_z_simultaneous(size_t m, double level);

/*
 * Successive elimination over candidates: cand[i] (n sites, effects e[i])
 * stays true unless the largest |effect| its interval allows is below the
 * smallest |effect| some other candidate's interval guarantees. Returns
 * the number of candidates left (at least one when any was given).
 */
size_t effect_prune(const struct effect *e, bool *cand, size_t n);

/* Whether the leading candidate is separated from every other: its
 * smallest |effect| is above 0 and above every other candidate's largest.
 * *lead receives its index (or n when there is no candidate). */
bool effect_separated(const struct effect *e, const bool *cand, size_t n, size_t *lead);

#endif
