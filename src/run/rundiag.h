/*
 * rundiag.h: diagnosis inside `jostle run` (the glue between the engine in
 * series.c and diagnose.h, crash.h, core.h).
 *
 *   cli_run.c:  rundiag_option() for --diag-window, --no-diag, --core,
 *               --keep-cores, --no-crash-handler, --sanitizer-symbolize;
 *               rundiag_start() once
 *               before the series
 *   series.c:   rundiag_env() on the runs' environment; rundiag_core_limit()
 *               for spawn; a run past its deadline goes to a diagnosis
 *               worker (diagpool.h), and rundiag_hang_take() takes in what
 *               it found, before anything is killed; rundiag_classify()
 *               after the signature was picked from the output;
 *               rundiag_release() when the run slot is freed
 *
 * A hang: the run's tree (its process group's root plus orphans reparented
 * to jostle that carry its JOSTLE_RUN) is diagnosed, DIR/stacks/RUN.txt
 * written, the record's "diag" member set, and Python processes with
 * faulthandler ended with SIGABRT so their tracebacks land in the capture.
 * Then the signature becomes kind = the class, key "hang: CLASS", frames =
 * the culprit functions (or the Python frames when the native ones are all
 * interpreter). A crash or failure keeps the signature of the shared
 * extractors (the same id as `jostle survey`); the capture's crash report
 * (crash.h: finer kind, access, frames, stacks) goes into the record's
 * "diag" as {"crash": {...}}.
 *
 * A crash the output says nothing about (a plain SIGSEGV): every run gets
 * libjostle-crash.so in LD_PRELOAD (crashlog.h; off with
 * --no-crash-handler), whose record of the crashing thread,
 * DIR/crashes/RUN.PID.txt, is symbolized into DIR/stacks/RUN.txt and
 * whose program frames become the signature's frames when the output
 * named none. The record of the run's main process is preferred; else the
 * first child's. The records are kept (a few KB each, smaller than the
 * run's log; they hold the raw pcs and maps, for symbolizing again). With
 * --core, the core is the fallback when there is no usable record. Once a
 * crash repeats, one run in eight keeps its record and the others take
 * its signature (recsample.h; --all-crash-records keeps every one).
 *
 * Last, a signature the output's own report does not make alone (a key
 * jostle wrote, a guessed line, frames from stacks) is scoped to the
 * program, the basename of the command's argv[0] (signature_scope).
 */
#ifndef JOSTLE_RUNDIAG_H
#define JOSTLE_RUNDIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "run/late.h"

struct run_opts;
struct run;

struct rundiag_opts {
	int window_ms;      /* sampling window; 0: no hang diagnosis (--no-diag) */
	bool core;          /* --core: children may dump cores; jostle reads them */
	bool keep_cores;    /* --keep-cores: keep them in DIR/cores */
	bool crash_handler; /* preload libjostle-crash.so (not --no-crash-handler) */
	bool sanitizer_symbolizes; /* --sanitizer-symbolize: not jostle (sansym.h) */
	bool all_records;   /* --all-crash-records: not sampled once a crash repeats */
};

#define RUNDIAG_OPTS_INIT { .window_ms = 200, .core = false, .keep_cores = false, .crash_handler = true, \
			    .sanitizer_symbolizes = false }

/* Evidence kept between rundiag_hang() and rundiag_classify() (owned by the run). */
struct rundiag_state;

/*
 * Apply option NAME (without dashes) with ARG (may be NULL). 0, or -1 with
 * a message for the user in why (the CLI prints it, exit 2).
 */
int rundiag_option(struct rundiag_opts *d, const char *name, const char *arg, char *why, size_t len);

/* Before the series: folders, and a warning (to stderr) when cores cannot
 * be collected on this machine. */
void rundiag_start(const struct run_opts *o);

/*
 * The runs' environment: with the crash handler, libjostle-crash.so first in
 * LD_PRELOAD (the user's kept) and JOSTLE_CRASH_DIR=DIR/crashes; not for a
 * command that is an ELF program of another class or machine than jostle.
 * A missing library is said once on stderr; runs then go without it.
 * Unless --sanitizer-symbolize, the sanitizers' symbolize=0 (sansym.h).
 */
struct strvec;
void rundiag_env(const struct run_opts *o, struct strvec *env);

/* spawn_req.core_limit for the series' children. */
int rundiag_core_limit(const struct run_opts *o);

/* What a diagnosis worker found about hung run r (diagpool.h), into r:
 * the record's "diag", the evidence for its signature. */
struct diagpool_job;
void rundiag_hang_take(struct run *r, struct diagpool_job *job);
/* What that diagnosis said: the tree was progressing (moving, not stuck:
 * late.c judges it slow or a hang);
 * it was seen stuck (a hang class with threads to show); nothing definite
 * (livelock, sleeping or mixed: a perturbation may be all it is); Python
 * processes were ended with SIGABRT for their tracebacks. */
bool rundiag_progressing(const struct run *r);
bool rundiag_saw_stuck(const struct run *r);
bool rundiag_may_be_slow(const struct run *r);
bool rundiag_python_ended(const struct run *r);
bool rundiag_found_gone(const struct run *r);
/* What the diagnosis saw, in the terms of the verdict on a late run (late.h). */
enum late_seen rundiag_seen(const struct run *r);
/*
 * Exit cleanup: the diagnosis found a Python process of the tree busy
 * tearing itself down (its main thread past its threads' join and atexit
 * handlers, in Py_FinalizeEx: modules cleared, objects freed, the last
 * garbage collections; diagnose.h), and no other busy thread. Such a run
 * is late, not stuck: `slow`, slow_why "exit cleanup" (the diagnosis
 * calls it progressing too).
 */
bool rundiag_exit_cleanup(const struct run *r);
void rundiag_classify(const struct run_opts *o, struct run *r, const char *text, size_t len);

/*
 * Whether the run's main process left a crash record although it exited
 * (series.c then calls the run a crash): its exit (main returned, another
 * thread called exit) raced the crash handler, which had the record
 * written but could not end the process with the signal first. One stat().
 */
bool rundiag_crashed(const struct run_opts *o, const struct run *r);

/*
 * A failed run's output, before anything reads it: sanitizer frames left
 * unsymbolized (rundiag_env asked for that) named in place through the
 * series' cache of opened files (sansym.h); tmp is scratch space, swapped
 * with text when a frame was named.
 */
struct dbuf;
void rundiag_symbolize(const struct run_opts *o, struct dbuf *text, struct dbuf *tmp);
void rundiag_release(struct run *r);
/*
 * Crash records sampled once a crash repeats (recsample.h): whether the
 * next run keeps its record (series.c empties its JOSTLE_CRASH_DIR when
 * not: the handler is then inert); every run's end, to count the crashes.
 */
bool rundiag_record_next(const struct run_opts *o);
void rundiag_ended(const struct run *r);
/*
 * Once, after the last run of the series: frees what diagnosis kept across
 * runs, and says how many runs went without a crash record (*without) and
 * of their crashes how many took the signature of their bare key's records
 * (*taken). The counts are the series' own: a process that runs several
 * (bisect, a series per batch) starts each from zero.
 */
void rundiag_stop(uint64_t *without, uint64_t *taken);

#endif
