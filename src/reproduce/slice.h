/*
 * slice.h: one series of `jostle reproduce` (a phase, a candidate, a
 * batch of the confirmation), run by the engine in this process as
 * `jostle bisect` runs its batches (series_run, the engine's stderr to
 * DIR/engine.log), and its runs read back from DIR/runs.jsonl: counts,
 * and per arm of `--chaos auto` the counts and a run's "config".
 */
#ifndef JOSTLE_SLICE_H
#define JOSTLE_SLICE_H

#include <stddef.h>
#include <stdint.h>

struct run_opts;

struct slice {
	uint64_t runs, fails;     /* counted runs (pass, fail, crash, hang) and failures */
	uint64_t next_index;      /* the largest run index + 1 */
	double secs;              /* wall time of the series(es) read */
};

struct slice_arm {
	char name[32];            /* config.arm */
	uint64_t runs, fails;
	double wall_s;            /* summed over its counted runs */
	unsigned jobs;            /* config.jobs (per CPU group) */
	char *config;             /* owned: the "config" of its last failing run, else its last run */
	int has_fail;
};

/* Run o (out_dir, runs, time_ns, seed, pressure, jobs set by the caller)
 * and add the series' wall time to s->secs. Returns the series' status
 * (0, 1 failures, 2 start error: its last line printed, 3, 130). */
int slice_run(struct run_opts *o, struct slice *s);

/* Count DIR/runs.jsonl's runs from index `from` on into s (runs, fails,
 * next_index; secs kept); with arms, per arm too (*arms owned by the
 * caller: slice_arms_free). 0 or -errno. */
int slice_read(const char *dir, uint64_t from, struct slice *s, struct slice_arm **arms, size_t *narms);

void slice_arms_free(struct slice_arm *arms, size_t n);

#endif
