/*
 * reproduce.h: `jostle reproduce`: the condition under which a command
 * fails most often per minute of machine time, stated with an interval,
 * written as DIR/reproducer.json and printed as one `jostle run
 * --reproducer` command.
 *
 * The search, each step a series of runs through the engine (slice.h),
 * every run with a fresh seed:
 *   1. natural: the command as a plain loop (-j as given), its own rate;
 *   2. auto: the `--chaos auto` portfolio; its best arm (failures per
 *      machine second, smoothed toward the pooled rate) is the first
 *      condition;
 *   3. sites: when the program is dynamically linked, `jostle localize`'s
 *      experiment (localize.h) in DIR/localize/; the leading sites (and
 *      the pair, when it matters) become candidate conditions that delay
 *      only there, at two intensities, pushed further while the stronger
 *      one leads;
 *   4. tune: the leader at twice and half its -j, and for a step arm at
 *      twice and half its step depth;
 *   5. confirm: the winner in batches with fresh seeds until its rate's
 *      95% Wilson interval is narrow enough (or the budget is spent):
 *      the rate stated is from these runs alone, not from the runs that
 *      chose it.
 * A candidate replaces the leader when it fails more often per minute and
 * is not clearly worse per run, or clearly better per run (intervals
 * apart) at no less than half the leader's failures per minute: a
 * reproducer proves a fix in fewer runs the higher its per-run rate. A
 * candidate with delays at sites only, against a leader that delays
 * everywhere, is kept at a per-run rate not clearly worse and half the
 * failures per minute: it names the decisive sites and survives a rebuild.
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
