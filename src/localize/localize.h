/*
 * localize.h: `jostle localize`: which call sites of the program decide
 * whether it fails, found by injecting delays at chosen sites through the
 * sync chaos library (preload/chaos.c).
 *
 *   1. Discovery: a few runs under the usual sync chaos, each process
 *      recording the call sites it reaches (return address -> module +
 *      offset, counts) in DIR/discover/sites/. They also measure how often
 *      the program fails under sync chaos.
 *   2. Rounds: series of runs in DIR/round-K/ in which each run delays at
 *      a random subset of the candidate sites (each on with probability
 *      `density`, the draw seeded by the run's seed and recorded in its
 *      "config"), and nowhere else. After each round every site's effect
 *      on the failure rate is estimated (effect.h) and the candidates
 *      that are clearly behind the leader are dropped, so later rounds
 *      spend their runs on the sites still in question.
 *   3. Stop when the leading site is separated from every other (its
 *      interval clear of 0 and of theirs), or at the budget (-n, --time),
 *      or on Ctrl-C; rank the sites, look for the pair whose joint delay
 *      matters beyond each alone, and write the findings.
 *
 * The series themselves are `jostle run` series (round.h): the same
 * engine, records and --replay; a run of round K repeats its mask with
 * `jostle run --replay DIR/round-K:RUN`.
 */
#ifndef JOSTLE_LOCALIZE_H
#define JOSTLE_LOCALIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct run_opts;

struct localize_opts {
	struct run_opts *run;     /* borrowed: the parsed run options; out_dir is
				   * DIR, runs / time_ns the whole budget (0: the
				   * default budget), seed the master seed */
	uint64_t discover;        /* discovery runs */
	uint64_t round_runs;      /* runs per round */
	double density;           /* probability that a run delays at a candidate */
	double delays;            /* delays per site per run aimed at */
	size_t max_sites;         /* candidates at most */
	bool timeout_set;         /* --timeout given: keep it in the rounds */
};

#define LOCALIZE_DEFAULT_RUNS 300
#define LOCALIZE_OPTS_INIT { NULL, 20, 40, 0.5, 8, 256, false }

/* Whether PATH is a dynamically linked ELF executable (or a script, which
 * its interpreter runs): 0; -ENOEXEC for a static ELF executable, with
 * nothing the preload library could interpose; -errno when unreadable. */
int localize_check_dynamic(const char *path);

/*
 * Run the whole localization; progress and the findings go to stderr
 * (unless quiet), DIR gets localize.json and (unless no_report) report.md
 * and report.html. Returns the exit status: 0 no failure seen, 1 sites
 * ranked (the program failed), 2 nothing to interpose or a start error,
 * 3 internal error, 130 interrupted.
 */
int localize_run(const struct localize_opts *lo);

#endif
