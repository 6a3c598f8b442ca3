/*
 * reproducer.h: a reproducer, the condition under which a command fails
 * most of its runs, as `jostle reproduce` found it and `jostle run
 * --reproducer FILE` applies it: DIR/reproducer.json (format version 1,
 * docs/reproduce.md).
 *
 * A condition is what a recorded run's "config" says (arm, chaos mode and
 * level, sync delays, step depth and threads, -j, CPU set, noise; what `--replay`
 * repeats) plus, for sync delays aimed at call sites, the sites: each by
 * module + offset (where the preload library matches it) and by call,
 * function and file:line (what survives a rebuild). Every run under it
 * draws its own seed: the condition is kept, not a lucky seed.
 *
 * Ownership: a reproducer owns its strings and sites;
 * reproducer_release() frees them.
 */
#ifndef JOSTLE_REPRODUCER_H
#define JOSTLE_REPRODUCER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pressure/pressure.h"

#define REPRODUCER_VERSION 1
#define REPRODUCER_MAX_SITES 16

struct rsite {
	char call[32];          /* "pthread_mutex_lock" */
	char *fn;               /* owned: the calling function, or NULL */
	char *file;             /* owned: its source file, or NULL */
	int line;               /* 0 when unknown */
	char *module;           /* owned: absolute path of the ELF file */
	uint64_t off;           /* return address, as the file numbers it */
	double prob;            /* delay probability at each call */
	/* once applied to a build (reproducer_attach) */
	const char *how;        /* "same build", "by function and line", "by function", NULL: unmatched */
	uint64_t new_off;
	char *new_module;       /* owned, or NULL: module */
	int new_line;
};

struct reproducer {
	int version;
	char arm[32];           /* the arm of auto it started from */
	enum chaos_mode chaos;
	int level;
	double sync_prob;       /* 0: the level's */
	int sync_max_us, sync_budget_us, steps, step_threads, span_ms;
	unsigned jobs;          /* runs at a time (0: the series' -j) */
	char cpus[256];         /* CPU list, "" all */
	char noise[128];        /* noise spec, "" none */
	struct rsite *sites;    /* owned */
	size_t nsites;
	char *command;          /* owned: the command's resolved path, or NULL */
	/* what reproduce measured (0 when not known): on the confirmation's
	 * fresh runs, or, when the budget left it none (`from_search`), the
	 * leader's runs in the search, which chose it and so flatter it */
	uint64_t runs, fails;
	bool from_search;
	double lo, hi, fails_per_min;
	uint64_t natural_runs, natural_fails;
	double build_s;
};

void reproducer_init(struct reproducer *r);
void reproducer_release(struct reproducer *r);

/* A run record's "config" object as text into r's condition (sites
 * cleared). 0, or -EINVAL with why. */
int reproducer_from_config(struct reproducer *r, const char *config_json, char *why, size_t whylen);

/* Copy the condition (not the measurements) of src into dst (released first). */
void reproducer_copy(struct reproducer *dst, const struct reproducer *src);

/* Read PATH. 0, or -errno / -EINVAL with one line in why. */
int reproducer_read(struct reproducer *r, const char *path, char *why, size_t whylen);

/* Write r as JSON (argv: the command, NULL-terminated, or NULL; extra:
 * JSON members appended, each preceded by a comma, or NULL) to PATH.
 * 0 or -errno. */
int reproducer_write(const struct reproducer *r, const char *path, char *const *argv, const char *extra);

/* "crowd-sync-hi, -j 16 on CPUs 0-1, 1 site": a short description. */
const char *reproducer_describe(const struct reproducer *r, char *buf, size_t len);

/*
 * Set po up so that every run is under r's condition with its own seed
 * (the replay fields of pressure.h, config only), and *jobs to its -j
 * unless jobs_set. Sites are not attached yet (reproducer_attach). 0, or
 * -EINVAL with why (a noise spec this jostle does not know).
 */
int reproducer_apply(const struct reproducer *r, struct pressure_opts *po, unsigned *jobs, bool jobs_set,
		     char *why, size_t whylen);

/*
 * The sites on this build of the program: each site checked at its
 * recorded offset (symbolized: the same function and line there is the
 * same build); sites that moved are found again by function and line in
 * the sites a few runs record (DIR/reproducer-match/, run under po with
 * o's options), else by function alone. Writes the plan DIR/reproducer-
 * plan.txt of the matched sites into po (all on) and DIR/reproducer.json
 * (r as applied: "applied" says how each site matched). The command of
 * o is the program; a site in r->command's file is looked for in it.
 * Returns the number of sites not matched, or -errno with why.
 */
struct run_opts;
long reproducer_attach(struct reproducer *r, struct run_opts *o, char *why, size_t whylen);

/* The plan of sites (indices into r->sites, the offsets as applied when
 * `applied`) at PATH, every one at its own probability. 0 or -errno. */
int reproducer_write_plan(const struct reproducer *r, const char *path, bool applied);

/* Where the sites' bits are all on: the mask of n sites into hex. */
void reproducer_mask_all(size_t n, char *hex);

#endif
