/*
 * plan.h: which run indices a series runs, and shards (issue 17).
 *
 * A series is the sequence of runs 0, 1, 2, ... of one command; run i gets
 * the seed rng_run_seed(master, i) (util/rng.h). Shard K of N runs the
 * indices i with i mod N == K, in order: K, K+N, K+2N, ... So the union of
 * the shards' runs is the same set of (index, seed) pairs as one long series
 * with the same master seed, whatever order the shards run or finish in,
 * and `-n M` on each shard gives the indices 0 .. N*M-1 in all.
 *
 * Where a shard comes from: `--shard K/N`, or `--shard auto[/N]` from the
 * environment of a cluster engine (plan_shard_auto below), or the variable
 * JOSTLE_SHARD=K/N when no --shard is given. Pure functions: the
 * environment is read through a lookup function, so tests pass a fake.
 */
#ifndef JOSTLE_PLAN_H
#define JOSTLE_PLAN_H

#include <stddef.h>
#include <stdint.h>

struct plan_shard {
	uint64_t index;        /* K: 0 <= index < count */
	uint64_t count;        /* N; 0: not sharded (the whole series) */
	const char *from;      /* static: "option", "JOSTLE_SHARD", "SLURM_ARRAY_TASK_ID",
				  "JOB_COMPLETION_INDEX"; NULL when not sharded */
};

/* The index of the nth run (0-based) this series starts. */
static inline uint64_t plan_run_index(const struct plan_shard *s, uint64_t nth)
{
	return s->count ? s->index + nth * s->count : nth;
}

/* How many of the runs 0 .. total-1 of the whole series fall in this shard
 * (total itself when not sharded). */
uint64_t plan_shard_share(const struct plan_shard *s, uint64_t total);

/* "K/N" with 0 <= K < N, N >= 1. 0, or -EINVAL with a reason in why (one
 * line without the option's name, e.g. "'4/4': K must be below N"). */
int plan_shard_parse(const char *text, struct plan_shard *out, char *why, size_t whylen);

/*
 * The value of --shard: "K/N", "auto" or "auto/N". For auto, from the
 * environment, the first that is set:
 *   JOSTLE_SHARD          K/N (or K with auto/N)
 *   SLURM_ARRAY_TASK_ID   K = (ID - SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP,
 *                         N = SLURM_ARRAY_TASK_COUNT
 *   JOB_COMPLETION_INDEX  K (a Kubernetes Indexed Job); N only from auto/N
 * With auto/N, an N found in the environment must equal it. getenv_fn is
 * getenv, or a fake. 0, or -EINVAL with a reason in why.
 */
int plan_shard_from(const char *spec, char *(*getenv_fn)(const char *),
		    struct plan_shard *out, char *why, size_t whylen);

#endif
