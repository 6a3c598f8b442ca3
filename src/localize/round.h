/*
 * round.h: one series of runs of `jostle localize` (the discovery runs, or
 * one round of runs with drawn site masks), run by the engine of `jostle
 * run` and read back from its runs.jsonl.
 *
 * Each series runs in a child process of jostle (fork, then series_run):
 * the engine sets up process-wide state for one series (signal mask and
 * signalfd, the child subreaper flag, the hang-diagnosis worker) and a
 * fresh process gives every round a fresh engine. The child's stderr (its
 * summary) goes to a log file; the parent waits, and forwards an
 * interrupt the child did not see (the child shares the terminal's
 * process group, so Ctrl-C reaches both).
 *
 * Protocol: round_signals_install() once before the first series,
 * round_series() per series, round_interrupted() to ask whether the user
 * wants to stop, round_signals_restore() at the end.
 */
#ifndef JOSTLE_ROUND_H
#define JOSTLE_ROUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sitemask.h"

struct run_opts;

void round_signals_install(void);
void round_signals_restore(void);
bool round_interrupted(void);

/*
 * Run the series o describes (its out_dir, runs, time_ns, seed and
 * pressure.sites set by the caller) in a child process, stderr to LOG.
 * Returns the series' exit status (0 no failure, 1 failures, 2 start
 * error, 130 interrupted), or -errno when no child could be started.
 */
int round_series(struct run_opts *o, const char *log);

enum round_outcome { ROUND_PASS, ROUND_FAIL, ROUND_IGNORED };

struct round_run {
	uint64_t run;
	char seed[24];                 /* as recorded: "0x" + 16 hex digits */
	enum round_outcome outcome;
	double wall_s;
	char mask[SITEMASK_HEX];       /* config.site_mask, "" when none */
};

/* The runs of DIR/runs.jsonl into *out (owned by the caller, free()),
 * in file order. 0, or -errno when the file cannot be read. */
int round_read(const char *dir, struct round_run **out, size_t *n);

#endif
