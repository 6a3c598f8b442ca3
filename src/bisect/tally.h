/*
 * tally.h: the counts a bisection needs from one results directory's
 * runs.jsonl: runs, failures by signature, and the same per configuration
 * arm (for `--chaos auto`'s learning). Read with cJSON; lines that are not
 * run records, or not JSON, are skipped (a file cut by Ctrl-C ends in half
 * a line at worst).
 *
 * A run counts when its outcome is pass, fail, crash or hang (results.h's
 * convention); ignored runs count nowhere.
 */
#ifndef JOSTLE_TALLY_H
#define JOSTLE_TALLY_H

#include <stddef.h>
#include <stdint.h>

struct tally_sig {
	char *id;                 /* owned: the signature id */
	char *key;                /* owned: its key line, may be NULL */
	uint64_t count;
	int64_t last_run;         /* index of the last run with it */
};

struct tally_arm {
	char *name;               /* owned: config.arm, "" without pressure */
	uint64_t runs;
	int64_t last_run;
	struct tally_sig *sigs;
	size_t nsigs, alloc;
};

struct tally {
	uint64_t runs, fails;     /* counted runs, failures of any signature */
	uint64_t next_index;      /* the largest run index + 1 */
	struct tally_sig *sigs;   /* failures by signature, in order of first appearance */
	size_t nsigs, alloc;
	struct tally_arm *arms;
	size_t narms, arms_alloc;
};

/* Read DIR/runs.jsonl into t (zeroed first). A missing file is an empty
 * tally (0). Returns 0 or -errno. */
int tally_load(struct tally *t, const char *dir);
void tally_release(struct tally *t);

/* Failures with signature id (NULL: of any signature). */
uint64_t tally_fails(const struct tally *t, const char *id);

/* The signature with the most failures (the first on a tie), or NULL. */
const struct tally_sig *tally_top(const struct tally *t);

/* The count of id in a list of signatures (an arm's). */
uint64_t tally_sig_count(const struct tally_sig *sigs, size_t n, const char *id);

#endif
