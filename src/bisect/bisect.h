/*
 * bisect.h: `jostle bisect`: which commit between a good and a bad
 * revision made COMMAND fail, when it fails only now and then.
 *
 * A noisy search, not a binary one. Each step builds a commit in a
 * temporary worktree (repo.h), runs COMMAND there in a batch through the
 * engine (series.h, one results directory per commit, the runs numbered on
 * from batch to batch), counts the failures with the bad revision's
 * signature (tally.h), updates the probability of every candidate
 * (posterior.h) and picks the commit where the next batch says most. It
 * stops when one commit holds the confidence asked for, or when the budget
 * is spent, and says which.
 *
 * Results directory:
 *   DIR/bisect.json          the state, rewritten atomically after every
 *                            batch (valid after Ctrl-C; --resume reads it)
 *   DIR/report.md            the verdict and the per-commit table, Markdown
 *   DIR/commits/HASH12/      a `jostle run` results directory per commit
 *                            tested (runs.jsonl, logs/; build.log; engine.log:
 *                            what the engine said during the batches)
 *   DIR/learn/               --chaos auto: the runs that chose the configuration
 */
#ifndef JOSTLE_BISECT_H
#define JOSTLE_BISECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bisect/repo.h"
#include "run/series.h"

struct bisect_opts {
	struct run_opts *run;       /* borrowed: jostle run's options; out_dir is DIR,
				     * argv the command (path unresolved: per worktree);
				     * runs and time_ns are the budget of the whole bisection */
	bool jobs_set;              /* -j given (else a learned configuration sets it) */
	struct repo *repo;          /* borrowed: opened by the caller (repo_open), so that
				     * bad revisions are told before anything is created */
	const char *build;          /* --build CMD (through /bin/sh -c), or NULL */
	double confidence;          /* stop when a commit holds this probability */
	bool any_failure;           /* count every failure, not only the bad signature */
	unsigned batch;             /* runs per step; 0: max(20, 2 * jobs) */
	uint64_t learn;             /* --chaos auto: runs that choose the configuration */
	bool resume;                /* DIR holds a bisection to go on with: */
	char *const *skipped;       /*   hashes of the commits that did not build */
	size_t nskipped;
	int64_t config_run;         /*   the learned configuration's run in DIR/learn, or -1 */
	double elapsed_s;           /*   time spent before */
	char *const *args;          /* the arguments after `bisect`, as given (for bisect.json) */
	size_t nargs;
};

/*
 * Run the bisection. Prints progress on stderr (unless run->quiet), the
 * table, the verdict and `git show --stat` of the culprit on stdout.
 * Returns the exit status: 0 culprit found, 1 not decisive (budget spent,
 * only skipped commits left, the bad revision never failed, the good
 * revision fails too), 2 bad input or a commit where COMMAND cannot start,
 * 3 internal error, 130 interrupted.
 */
int bisect_run(struct bisect_opts *bo);

#endif
