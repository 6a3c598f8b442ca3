/*
 * results.h: runs.jsonl read back and aggregated, the one input of every
 * report, of compare and of the summary.
 *
 *   struct results r;
 *   results_init(&r);
 *   if (results_load_dir(&r, "out") < 0) ...   (one or more directories)
 *   results_finish(&r);                         (sorts; call once, last)
 *   ... read r.sigs[r.sig_order[i]], r.cells, r.totals ...
 *   results_release(&r);
 *
 * Memory grows with the number of distinct signatures, matrix cells,
 * configurations, series and tests (--tests), never with the number of runs: every per-run
 * quantity lands in a fixed-size histogram, and at most RESULTS_MAX_POINTS
 * failures are kept individually for the charts.
 *
 * A run counts when its outcome is pass, fail, crash or hang; it is a
 * failure when it is fail, crash or hang. `ignored` runs (matched by the
 * user's --ignore), `cut` runs (still going when the series ended), `slow`
 * runs (past the timeout, not stuck) and `skip` runs (exit status 77: the
 * program skipped itself) are counted apart and are in neither number, in
 * the totals and in every group (matrix cell, chaos arm) alike.
 */
#ifndef JOSTLE_RESULTS_H
#define JOSTLE_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/strvec.h"

#define RESULTS_BINS 100
#define RESULTS_DUR_BINS 48   /* 6 per decade from 1 ms to 100000 s */
#define RESULTS_DUR_MIN 1e-3
#define RESULTS_MAX_POINTS 4000

/* A histogram over a value that only grows (run index, seconds): when a
 * value falls past the last bin, adjacent bins are merged and the width
 * doubles, so 100 bins always cover everything seen. */
struct results_hist {
	double width;
	uint64_t runs[RESULTS_BINS];
	uint64_t fails[RESULTS_BINS];
};

struct results_series {
	char *id, *jostle, *cwd, *start, *seed;   /* owned, may be NULL */
	struct strvec argv;
	char *settings;       /* JSON text of the settings object, or NULL */
	char *hostname, *kernel;
	int64_t cpus, mem_mb; /* -1 when unknown */
	double loadavg;       /* -1 when unknown */
	size_t dir;           /* index into results.dirs */
	uint64_t shard_index, shard_count;   /* "shard" (issue 17); count 0: not a shard */
	uint64_t runs;
	double timeout_s, time_s;   /* settings' --timeout and --time; 0: none or unknown */
	/* from the series' "end" line, when it has one */
	char *stop;           /* why it stopped, or NULL */
	bool ended, interrupted;
	double elapsed_s;     /* -1 when unknown */
};

struct results_sig {
	char *id;             /* 8 hex digits, or "-" + outcome when unclassified */
	char *kind, *key, *key_line;    /* owned, may be NULL */
	bool key_guessed;     /* "key_guessed": no report recognized (docs/FORMAT.md) */
	struct strvec frames;
	/* the example: the first run seen with this signature */
	char *log, *stacks;   /* paths relative to dirs[dir], may be NULL */
	char *diag;           /* JSON text of its diag object, or NULL */
	char *cell;
	size_t dir;
	int64_t example_run;
	uint64_t count;
	int64_t first_run, last_run;
	double first_t, last_t;
	double wall_sum;
};

#define RESULTS_TEST_KEYS 4

/* One test of a suite run with --tests, over every run that reported it. */
struct results_test {
	char *name;           /* owned */
	uint64_t runs;        /* runs where it passed or failed (skips are in no rate) */
	uint64_t fails;       /* failed: fail, error, or the crash or hang of the suite */
	uint64_t skips, crashes, hangs;
	uint64_t timed;       /* runs that gave its time */
	double tsum, tsq, tmin, tmax;
	int64_t first_fail, last_fail;   /* run indices, -1 before a failure */
	/* its failures by signature: the first RESULTS_TEST_KEYS seen */
	char *sig_id[RESULTS_TEST_KEYS], *key_line[RESULTS_TEST_KEYS];
	uint64_t sig_count[RESULTS_TEST_KEYS];
	uint64_t other_sigs;  /* failures with further signatures */
	char *log;            /* owned: the log of its first failing run, or NULL */
	size_t dir;
	uint64_t seen_in;     /* internal: the record that last counted it */
};

/* A test that failed in some runs and passed in others. */
bool results_test_flaky(const struct results_test *t);
/* A test that failed in every run that ran it. */
bool results_test_always_fails(const struct results_test *t);
/* Standard deviation of its time over the runs that gave one (< 0: fewer than 2). */
double results_test_sd(const struct results_test *t);

struct results_group {   /* a matrix cell or a configuration */
	char *key;            /* cell label, or the JSON text of the config */
	uint64_t runs, fails; /* counted runs (pass or failure) and failures */
	uint64_t slow, cut, skip;   /* its runs in no rate (see the header comment) */
	double wall_s;        /* the time of all its runs, the uncounted ones too */
	double machine_s;     /* their shares of the machine (record "machine_s") */
	uint64_t unshared;    /* ... runs whose record has none (before 2026-12-06) */
	uint64_t jobs;        /* the most runs at once its records name (config.jobs); 0: unknown */
};

struct results_point {   /* one failure, for the charts */
	int64_t run;
	double t;
	uint32_t sig;         /* index into sigs */
};

struct results_totals {
	uint64_t lines, bad_lines;        /* lines read, lines skipped */
	uint64_t cut_lines;               /* of bad_lines: a last line without its
	                                     newline (a record cut short) */
	uint64_t records;                 /* lines of type run */
	uint64_t pass, fail, crash, hang, ignored, cut, slow, skip, other;
	uint64_t counted, failures;       /* see the header comment */
	/* runs past their timeout (a "late" field, or slow, or hang), by what
	 * they were doing (docs/FORMAT.md "late"); in_time: runs that ended
	 * before their timeout, cut_early: runs cut before theirs */
	uint64_t outlasted, late_progressing, late_spinning, late_stuck;
	uint64_t late_unjudged;           /* cut past the timeout before it was judged */
	uint64_t stalled;                 /* hangs found stalled before their timeout
	                                     (late "stalled": in_time counts them too) */
	uint64_t in_time, cut_early;
	double late_wall_max;             /* the longest of the outlasting runs */
	char *cpus_via;                   /* owned: how runs' CPUs were restricted
	                                     (config.cpus_via other than "none"), or NULL */
	uint64_t with_tests;              /* run lines that had per-test results */
	double wall_sum, wall_max;
	double t_end;                     /* max of t + wall_s */
	int64_t run_max;
	bool have_t;
};

struct strmap {          /* string -> index, open addressing (internal) */
	char **keys;
	size_t *vals;
	size_t cap, nr;
};

struct results {
	struct strvec dirs;
	struct results_series *series;
	size_t series_nr, series_alloc;
	struct results_sig *sigs;
	size_t sigs_nr, sigs_alloc;
	size_t *sig_order;    /* after results_finish: by count, descending */
	struct results_group *cells, *configs, *arms;   /* arms: by config.arm */
	size_t cells_nr, cells_alloc, configs_nr, configs_alloc, arms_nr, arms_alloc;
	struct results_test *tests;       /* --tests: per test, in the order first seen */
	size_t tests_nr, tests_alloc;
	size_t *test_order;   /* after results_finish: most failures first, then by name */
	struct results_point *points;
	size_t points_nr, points_alloc;
	bool points_truncated;
	struct results_totals totals;
	struct results_hist by_index, by_time;
	uint64_t dur_pass[RESULTS_DUR_BINS], dur_fail[RESULTS_DUR_BINS],
		 dur_hang[RESULTS_DUR_BINS];
	struct strmap sig_map, cell_map, config_map, series_map, arm_map, test_map;
};

void results_init(struct results *r);
/* Read DIR/runs.jsonl; 0, or -errno when the file cannot be opened. */
int results_load_dir(struct results *r, const char *dir);
/* results_load_dir, then a judgement of what DIR/runs.jsonl held, for the
 * commands that read it: 0 with why "" when every line was a record (or the
 * file is empty: a series just started); 0 with a sentence in why ("3 lines
 * of 'DIR/runs.jsonl' are not run records; ignored") when some were not;
 * -EBADMSG with the sentence when it has lines and none is a record (not a
 * file jostle wrote); -errno when it cannot be read. */
int results_load_dir_checked(struct results *r, const char *dir, char *why, size_t len);
/* Read one runs.jsonl whose logs live under dir_index's directory; lines
 * that do not parse or are of no known type are counted in bad_lines. */
int results_load_file(struct results *r, const char *path, size_t dir_index);
/*
 * The next non-empty line of a runs.jsonl open as f into *line (getline's
 * buffer), newline and CRs removed; its length, or -1 at the end of the
 * file. *cut is true for a last line that lacks its newline: jostle writes
 * each record with its newline in one write, so such a line is a record cut
 * short (a kill -9, a full disk, a reader racing the writer) and is never
 * a run, even when what is there happens to parse.
 */
ssize_t results_next_line(FILE *f, char **line, size_t *cap, bool *cut);

/*
 * One line of runs.jsonl (LEN bytes, newline removed) as a cJSON object
 * (void * as above; the caller frees it with cJSON_Delete), or NULL when it
 * is not one: not JSON, not an object, or holding a NUL byte (JSON has no
 * raw NUL; cJSON would take bytes that every C string then cuts short).
 */
void *results_parse_line(const char *line, size_t len);

/* Aggregate one parsed line (a cJSON object, passed as void * so that
 * callers need not include cJSON.h); false for an object of no known type
 * (not a series, run or end record), which is ignored. */
bool results_add_json(struct results *r, const void *obj, size_t dir_index);
void results_finish(struct results *r);
void results_release(struct results *r);

/* Lower edge in seconds of duration bin i. */
double results_dur_edge(int i);
/* A failure outcome? ("fail", "crash", "hang") */
bool results_is_failure(const char *outcome);
/* The fixed-size counts of a group as "8 slow, 2 cut" (nothing when all
 * are 0) into buf. */
void results_group_uncounted(char *buf, size_t len, const struct results_group *g);

#endif
