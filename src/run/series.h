/*
 * series.h: one series of runs of a command: the options that define it,
 * the per-run state, and the engine that executes it.
 *
 * The pipeline is one direction: plan (indices, seeds, stopping rules) ->
 * spawn -> supervise (one poll loop over every run's output pipe and a
 * signalfd) -> capture -> classify (outcome, signature) -> record (one line
 * of runs.jsonl per finished run, written as it ends) -> summary.
 */
#ifndef JOSTLE_SERIES_H
#define JOSTLE_SERIES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "diagnose/stall.h"
#include "pressure/pressure.h"
#include "run/capture.h"
#include "run/delays.h"
#include "run/fdlimit.h"
#include "run/outcome.h"
#include "run/plan.h"
#include "run/rundiag.h"
#include "run/runtests.h"
#include "signature/signature.h"
#include "util/strvec.h"

struct regex;
struct matrix;
struct diagpool_job;

enum until_rule {
	UNTIL_NONE,
	UNTIL_FIRST_FAILURE,
	UNTIL_FAILURES,       /* until_k failures */
	UNTIL_CONFIDENT,      /* report.c: runs planned so 0 failures bound the rate below confident_rate */
};

/* Everything `jostle run` was asked to do. Filled by cli_run.c. */
struct run_opts {
	char **argv;             /* the command (borrowed from main's argv) */
	char *path;              /* owned: argv[0] resolved */
	uint64_t runs;           /* 0: no limit; else the index the series stops at */
	uint64_t first_index;    /* index of the first run (0): a series that continues
				  * earlier ones in the same directory (jostle bisect's
				  * batches), so run indices, seeds and logs/RUN.log go on */
	int64_t time_ns;         /* 0: no budget */
	unsigned jobs;
	int64_t timeout_ns;
	int64_t grace_ns;        /* SIGTERM -> SIGKILL */
	int64_t overrun_ns;      /* once the time budget is spent, runs in flight may
				  * end (a hang found and diagnosed, a timeout) for
				  * this long before they are cut; 0: cut at once */
	enum until_rule until;
	uint64_t until_k;
	char *until_text;        /* owned: as given, for the record */
	struct regex *fail_on;   /* owned, or NULL */
	struct regex *ignore;    /* owned, or NULL */
	struct regex *sig_re;    /* owned, or NULL */
	char *out_dir;           /* owned: absolute */
	uint64_t seed;
	bool quiet;
	size_t head_cap, tail_cap;
	struct pressure_opts pressure;  /* --cpus, --noise, --chaos, ... (pressure.h) */
	const char *settings_extra;     /* borrowed: JSON members appended to "settings" */
	/* ---- reports and matrix (issue 6) ---- */
	double confident_rate;   /* --until confident:RATE */
	struct matrix *matrix;   /* owned, or NULL without --matrix */
	bool no_report;          /* --no-report: no report.md/html at the end */
	bool no_stall_check;     /* --no-stall-check: a deadlock waits for --timeout too */
	bool timeout_strict;     /* --timeout-strict: past --timeout is a hang, whatever else */
	struct rundiag_opts diag;       /* --diag-window, --no-diag, --core, --keep-cores (rundiag.h) */
	struct plan_shard shard;        /* --shard (plan.h): which run indices; count 0: all */
	struct fdlimit fdlimit;         /* RLIMIT_NOFILE as jostle found it (fdlimit.h) */
	struct runtests_opts tests;     /* --tests: per-test results of a suite (runtests.h) */
};

enum run_state {
	RS_FREE,
	RS_RUNNING,     /* main child alive */
	RS_DIAGNOSING,  /* past its deadline: waiting for a diagnosis worker, or in one */
	RS_KILLING,     /* timed out or cancelled: SIGTERM sent, SIGKILL at kill_at */
	RS_CLEANUP,     /* main child gone; ending what it left, waiting for EOF */
};

/* One run, from launch to record. Lives in a slot of the series. */
struct run {
	enum run_state state;
	uint64_t index;
	uint64_t seed;
	const char *config_json;  /* borrowed from the pressure layer: the record's "config" */
	pid_t pid;                /* main child, also its process group id */
	int fd;                   /* read end of the output pipe, -1 after EOF */
	int64_t start_mono, start_real, end_mono;
	double share_mark, share_s;  /* its share of the machine's time (share.h) */
	bool sharing;             /* ... still accruing: the main child is alive */
	int64_t deadline;         /* start + timeout */
	int64_t kill_at;          /* next escalation step */
	int kill_step;            /* 0 none, 1 SIGTERM sent, 2 SIGKILL sent */
	int64_t drain_at;         /* last wait for EOF once nothing is alive */
	bool exited;
	int status;               /* wait status of the main child */
	struct rusage ru;
	/* CPU that the main child's rusage misses (issue 19): the whole tree
	 * read from /proc before jostle signalled it (tree_*: the main process
	 * included, so the larger of it and ru counts), and leftovers found
	 * after the main child was reaped (extra_*: added) */
	double tree_user_s, tree_sys_s, extra_user_s, extra_sys_s;
	bool timed_out;           /* past its deadline (the scaled one once extended) */
	bool extended;            /* past the user's timeout once, given a scaled deadline */
	double timeout_scale;     /* the deadline's multiple of --timeout (1 unless extended) */
	bool ended_by_itself;     /* its main process exited before jostle signalled it */
	int64_t late_ns;          /* how late after the deadline the engine saw it */
	bool counted;             /* holds one of the -j slots */
	struct diagpool_job *diag_job;  /* while a diagnosis worker has the run */
	bool diag_taken;          /* the diagnosis is over (done, stopped or given up) */
	int64_t diag_bound_at;    /* a diagnosis still going then is stopped */
	int64_t diag_abandon_at;  /* a worker not back by then is given up */
	bool cancelled;           /* ended by jostle (time budget, stop rule, interrupt): recorded as cut */
	const char *cut_by;       /* borrowed: why the series ended it (the stop reason) */
	struct capture cap;
	/* results, filled when the run is classified */
	enum outcome outcome;
	const char *cell;         /* borrowed: matrix cell label, or NULL */
	const char *cell_cpus;    /* borrowed: the cell's CPU list ("0-1"), or NULL */
	struct signature sig;
	bool no_record;           /* started without a crash record (recsample.h) */
	bool frames_taken;        /* crashed so; its signature taken from the records of ... */
	uint64_t frames_from;     /* ... this run's bare key, the first of them this run */
	/* past its deadline (late.h): the verdict's words for the record, static
	 * strings or NULL when it was not late, and its CPU over a passing run's */
	const char *late, *slow_why;
	double cpu_factor;
	/* a tree in which nothing can run (diagnose/stall.h): the next look,
	 * when it was first seen still (0: not now) and that look */
	int64_t stall_next, stall_since;
	struct stall_look stall_first;
	bool stalled;             /* found stalled: a hang before its deadline */
	struct delay_acct delays; /* what jostle's chaos library did to it (delays.h) */
	char *diag_json;          /* owned: a JSON object for the record's "diag", or NULL */
	struct rundiag_state *diag_state;  /* owned: hang evidence until classified (rundiag.h) */
	struct runtests_state *tests;      /* owned: per-test results with --tests (runtests.h) */
};

/* Run the series. Returns the exit status of `jostle run`. */
int series_run(struct run_opts *o);

#endif
