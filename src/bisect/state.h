/*
 * state.h: what a bisection knows at any moment, and its file,
 * DIR/bisect.json: written whole to a temporary file and renamed over the
 * old one after every batch, so it is valid whenever jostle is stopped;
 * read back by `jostle bisect --resume DIR`.
 *
 * The counts in bisect.json are for people and tools; a resumed bisection
 * counts again from the commits' runs.jsonl, which are the truth. What
 * only bisect.json holds: the arguments as given, the seed, the two
 * revisions as hashes (a branch may have moved since), the commits that
 * did not build, and the learned configuration.
 */
#ifndef JOSTLE_STATE_H
#define JOSTLE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bisect/posterior.h"
#include "bisect/repo.h"
#include "util/strvec.h"

enum bisect_end {
	BE_RUNNING,          /* still searching (or stopped without a verdict) */
	BE_FOUND,            /* one commit holds the confidence */
	BE_GOOD_FAILS,       /* the good revision fails as often as the bad one */
	BE_SKIPPED,          /* the confidence is on commits that did not build and the one after */
	BE_BUDGET,           /* --runs or --time spent first */
	BE_NEVER_FAILED,     /* the bad revision did not fail within the budget */
	BE_STUCK,            /* no commit left that could tell anything */
	BE_INTERRUPTED,
	BE_ERROR,
};

struct bstate_commit {
	uint64_t runs, fails;            /* what the posterior counts: runs without a failure of
					  * another signature, failures of the bad signature */
	uint64_t all_runs, all_fails;    /* as recorded */
	bool tested, skipped;            /* skipped: did not build */
	char dir[32];                    /* "commits/HASH12" */
};

struct bstate {
	struct repo *repo;               /* borrowed */
	struct bstate_commit *c;         /* repo->n + 1 entries, owned */
	struct posterior post;
	char *sig_id, *sig_key;          /* the bad signature (owned), NULL when counting any failure */
	bool any_failure;
	double confidence;
	uint64_t seed;
	uint64_t runs_total;             /* every recorded run, learning included */
	uint64_t learn_runs;
	int64_t config_run;              /* the run of learn/ whose configuration every commit gets, or -1 */
	char *config_arm;                /* owned: its arm, or NULL */
	double elapsed_s;
	enum bisect_end end;
	size_t lo, hi;                   /* the best block (posterior_best_block) */
	double block_p;
	char *const *args;               /* borrowed: the arguments as given */
	size_t nargs;
	char *error;                     /* owned: what went wrong, for BE_ERROR */
};

/* A name for end, as bisect.json writes it ("found", "not decisive", ...). */
const char *bstate_end_name(enum bisect_end e);

/* Write DIR/bisect.json atomically. 0 or -errno. */
int bstate_write(const struct bstate *s, const char *dir);

/* What --resume needs from DIR/bisect.json. */
struct bstate_saved {
	struct strvec args;              /* the arguments after `bisect` */
	char *repo;                      /* the repository's top level */
	uint64_t seed;
	char *good, *bad;                /* hashes */
	struct strvec skipped;           /* hashes of commits that did not build */
	int64_t config_run;              /* -1: none */
	double elapsed_s;                /* the time spent so far */
};

/* Read DIR/bisect.json. 0, or -errno with a one-line reason in why. */
int bstate_read(struct bstate_saved *sv, const char *dir, char *why, size_t whylen);
void bstate_saved_release(struct bstate_saved *sv);

#endif
