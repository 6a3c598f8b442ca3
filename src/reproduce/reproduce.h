/*
 * reproduce.h: `jostle reproduce`: the condition under which a command
 * fails most often per minute of machine time, stated with an interval,
 * written as DIR/reproducer.json and printed as one `jostle run
 * --reproducer` command.
 *
 * The search, each step a series of runs through the engine (slice.h),
 * every run with a fresh seed:
 *   1. natural: the command as a plain loop (-j as given), its own rate;
 *   2. auto: the `--chaos auto` portfolio, its arms scored per run, not
 *      per second (portfolio_fixed.per_run); its three arms that failed
 *      most often per run (smoothed toward the pooled rate: auto's bandit
 *      gives its favourite most runs, the others a few) are raced afresh;
 *   3. sites: when the program is dynamically linked, `jostle localize`'s
 *      experiment (localize.h) in DIR/localize/; the leading sites (and
 *      the pair, when it matters) become candidate conditions that delay
 *      only there, at two intensities, and so does every site it found
 *      (localize's own condition); while the leader fails under half its
 *      runs, each site alone with a couple of long delays a run too; all
 *      raced with the leader;
 *   3b. threads alone: while the leader fails under half its runs, step
 *      chaos with one thread alone stepped, each of the first four (a
 *      thread held up while the others run free), raced with the leader;
 *   4. tune: the leader (the plain loop too) pushed every way that applies
 *      (twice and half its -j, stronger delays or a step arm's longer
 *      holds, twice and half its step depth, all runs on one CPU, more
 *      preemptions), raced with the
 *      leader; while a way wins, it is pushed that way again; then, while
 *      a climb moves the leader and the budget lasts, every way again;
 *   5. confirm: the winner in batches with fresh seeds until its rate's
 *      95% Wilson interval is narrow enough (or the budget is spent):
 *      the rate stated is from these runs alone, not from the runs that
 *      chose it.
 * A race runs its candidates side by side (the machine's load moves) by
 * successive halving: a batch each, then out go those whose 95% interval
 * lies wholly below the best one's and, from the second round, the worse
 * half; the batch doubles. The winner is the best rate per run (a proof
 * needs the fewer runs the higher it is); a tie keeps the leader, and a
 * candidate with delays at sites only is kept at a rate not clearly worse
 * and 0.8 of the best: it names the decisive sites and survives a rebuild.
 * The plain loop, which does not race, is replaced only by a candidate
 * that fails more often per minute and is not clearly worse per run, or
 * is clearly better per run.
 */
#ifndef JOSTLE_REPRODUCE_H
#define JOSTLE_REPRODUCE_H

#include <stdbool.h>
#include <stdint.h>

struct run_opts;

struct reproduce_opts {
	struct run_opts *run;     /* borrowed: parsed run options; out_dir DIR,
				   * runs / time_ns the whole budget */
	unsigned base_jobs;       /* -j as given (or the default) */
	bool jobs_set;
	bool gdb;                 /* then run it until a failure with a core */
};

#define REPRODUCE_DEFAULT_TIME_NS (120LL * 1000000000LL)

/* Run the search; progress to stderr, the command to stdout. Returns 1
 * when a reproducer was written (COMMAND fails under it), 0 when no run
 * failed within the budget, 2 start error, 3 internal error, 130
 * interrupted. */
int reproduce_run(const struct reproduce_opts *ro);

#endif
