/*
 * findings.h: what `jostle localize` found, written out: the terminal
 * summary, DIR/localize.json (the machine-readable findings: every site
 * with its effect, the rounds, the pair) and DIR/report.md and
 * DIR/report.html.
 *
 * The caller fills struct findings (everything borrowed from it) and calls
 * findings_print() and findings_write(). Pure formatting: nothing here
 * runs or estimates anything.
 */
#ifndef JOSTLE_FINDINGS_H
#define JOSTLE_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "localize/catalog.h"
#include "localize/effect.h"

struct finding {
	size_t site;              /* catalog index */
	struct effect e;
};

struct findings_round {
	uint64_t runs, fails;
	size_t candidates;        /* sites randomized */
	double density;
};

struct findings {
	const struct catalog *cat;
	const char *dir;                 /* results directory (absolute) */
	char *const *argv;               /* the command */
	uint64_t seed;                   /* master seed */
	const struct finding *rank;      /* sites randomized in some round, ranked */
	size_t nrank;
	bool have_pair;                  /* pair holds the best pair found */
	struct effect_pair pair;
	uint64_t discover_runs, discover_fails;
	const struct findings_round *rounds;
	size_t nrounds;
	uint64_t round_runs, round_fails;
	double delays;                   /* delays per site per run aimed at */
	const char *stop;                /* why the rounds stopped */
	const char *replay;              /* "round-3:17": a failing run with the leader on, or NULL */
	double elapsed_s;
};

/* The summary: the sites of rank 1..top, the pair, the replay command. */
void findings_print(const struct findings *f, FILE *out, size_t top);

/* DIR/localize.json, and with reports DIR/report.md and DIR/report.html.
 * 0, or -errno (the first write that failed). */
int findings_write(const struct findings *f, bool reports);

/* Whether the pair's interaction is clear of 0, and whether neither site
 * alone (the other off) is: the pair findings_print calls decisive. */
bool findings_pair_matters(const struct effect_pair *p);
bool findings_pair_neither_alone(const struct effect_pair *p);

#endif
