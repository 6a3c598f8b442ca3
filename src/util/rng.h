/*
 * rng.h: small seeded generators, header-only so that the preload library
 * can use them without linking anything. Not for cryptography: for
 * reproducible schedules. Every run's seed is derived from the master seed
 * and the run index, so a run can be re-created exactly.
 */
#ifndef JOSTLE_RNG_H
#define JOSTLE_RNG_H

#include <stdint.h>

static inline uint64_t rng_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The seed of run INDEX in a series with master seed MASTER. */
static inline uint64_t rng_run_seed(uint64_t master, uint64_t index)
{
	uint64_t s = master ^ (index * 0xd1b54a32d192ed03ULL);
	return rng_splitmix64(&s);
}

/* JOSTLE_SEED32: a run's seed folded to 32 bits (both halves count), for
 * shells whose arithmetic is signed 64-bit (dash: $((JOSTLE_SEED % 10))
 * fails on a seed above 2^63). */
static inline uint32_t rng_seed32(uint64_t seed)
{
	return (uint32_t)(seed ^ (seed >> 32));
}

/* Uniform in [0, n) (n > 0); the slight modulo bias is irrelevant here. */
static inline uint64_t rng_below(uint64_t *state, uint64_t n)
{
	return rng_splitmix64(state) % n;
}

/* Uniform double in [0, 1). */
static inline double rng_unit(uint64_t *state)
{
	return (double)(rng_splitmix64(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* An index in [0, n) drawn with probabilities odds[0..n) (summing to 1;
 * the last takes what rounding leaves). */
static inline int rng_pick(uint64_t *state, const double *odds, int n)
{
	double u = rng_unit(state);
	int k = 0;

	while (k < n - 1 && u >= odds[k])
		u -= odds[k++];
	return k;
}

#endif
