/*
 * shards.h: the shards of one series read back (issue 17).
 *
 * `jostle run --shard K/N` writes a series line with "shard": {"index": K,
 * "count": N}; shard K ran the indices i with i mod N == K of the series of
 * its master seed (run/plan.h). These functions work on struct results
 * (results.h), so they serve `jostle merge` before it writes anything (over
 * the series lines of its inputs) and every report after (over everything).
 *
 * What makes shards one series: the same command (argv), master seed,
 * number of shards, and settings, except those that say only how many runs
 * a shard makes and how fast (runs, time_s, until, jobs, cpus_via: they may
 * differ from node to node). Statistics then combine exactly: the merged
 * runs are a set of (index, seed) pairs of that one series, and every count,
 * rate, interval and bound is computed over their union, as for one machine.
 */
#ifndef JOSTLE_SHARDS_H
#define JOSTLE_SHARDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "results/results.h"
#include "util/dbuf.h"

/*
 * Do the series of r (after results_load_*, before or after results_finish)
 * form shards of one series? 0 when they do or when none is a shard;
 * -EINVAL with one line in why naming the two directories (r->dirs) and what
 * differs, or the shard present twice, or the series that is not a shard.
 */
int shards_check(const struct results *r, char *why, size_t whylen);

struct shards_status {
	uint64_t count;          /* N; 0: no series is a shard */
	size_t present;          /* distinct shard indices with a series */
	uint64_t *missing;       /* owned: shard indices without a series, ascending */
	size_t missing_nr;
	uint64_t *partial;       /* owned: shards whose series did not end (killed) or
				    was interrupted, ascending */
	size_t partial_nr;
	bool other_counts;       /* some series is a shard of another N (not counted) */
};

/* Which of the N shards are there, and which ended early. */
void shards_status(const struct results *r, struct shards_status *st);
void shards_status_release(struct shards_status *st);

/* "0, 2-5, 9": ascending indices as ranges. */
void shards_ranges(struct dbuf *b, const uint64_t *v, size_t n);

/* For a person, after a label such as "shards: ", without a newline:
 * "3 of 4 (missing: 2; partial: 1, killed or interrupted)", or "1 of 4
 * (shard 2; jostle merge ...)", or nothing when no series is a shard. */
void shards_line(struct dbuf *b, const struct results *r);

#endif
