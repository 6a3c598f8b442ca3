/*
 * merge.h: many results directories (shards, machines, days) into one.
 *
 * OUT/runs.jsonl gets every readable line of each input's runs.jsonl in
 * input order, series lines included, so that reports over OUT see every
 * series. The logs and stacks a run references are copied to
 * OUT/logs/D-NAME and OUT/stacks/D-NAME (D: the input's position), and the
 * run's "log"/"stacks" members are rewritten to match, so names never
 * collide. Unparsable lines are dropped and counted, and so is a last line
 * cut short (results_next_line in results.h): OUT never holds half a line.
 *
 * Shards (issue 17, results/shards.h): before anything is written, the
 * series lines of every input are read; when any series is a shard, all
 * must be shards of one series (shards_check) and no shard may appear
 * twice, and every run of a shard must be one of its indices with the seed
 * its master seed gives. An input directory without
 * runs.jsonl (a shard that never started) is skipped and counted; missing
 * and partial shards are for the reports to tell (shards_status).
 */
#ifndef JOSTLE_MERGE_H
#define JOSTLE_MERGE_H

#include <stddef.h>
#include <stdint.h>

struct merge_stats {
	uint64_t series, runs, files, bad_lines, missing_files, dup_series;
	uint64_t skipped;     /* inputs without runs.jsonl */
	uint64_t cut_lines;   /* of bad_lines: an input's last line cut short */
};

/* 0, or -errno with what failed in err (a path); -EINVAL with a sentence in
 * err when the inputs are not shards of one series (nothing written then)
 * or a run does not belong to its shard.
 * OUT must not exist or be an empty directory. */
int merge_dirs(const char *const *dirs, size_t n, const char *out,
	       struct merge_stats *st, char *err, size_t errlen);

#endif
