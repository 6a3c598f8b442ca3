/*
 * repo.h: the user's git repository, read through the git command: the
 * commits between the good and the bad revision, temporary worktrees to
 * build and test a commit in, and `git show --stat` of the culprit.
 *
 * Nothing here touches the user's checkout or index: a commit is tested in
 * a worktree of its own (`git worktree add --detach`), made from the
 * commit, so uncommitted changes in the checkout do not matter.
 *
 * The history is the first-parent chain from the bad revision back to the
 * first commit the good one contains (`git log --first-parent good..bad`):
 * a straight line, so a culprit inside a merged branch shows up as its
 * merge commit.
 *
 * Functions return 0 or -errno with a one-line reason (after "jostle: ")
 * in why; stop (may be NULL) is child.h's stop request.
 */
#ifndef JOSTLE_REPO_H
#define JOSTLE_REPO_H

#include <signal.h>
#include <stddef.h>

#include "util/dbuf.h"
#include "util/strvec.h"

struct repo {
	char *top;                  /* owned: the repository's top level */
	struct strvec hash;         /* 0: good, 1..n: first-parent chain to bad */
	struct strvec subject;      /* the same commits' subjects */
	size_t n;                   /* hash.nr - 1 */
	volatile sig_atomic_t *stop;
};

/* Open the repository holding dir and list the commits good..bad. Errors:
 * not a repository, a revision that is not a commit, good not an ancestor
 * of bad, good == bad. */
int repo_open(struct repo *r, const char *dir, const char *good, const char *bad,
	      char *why, size_t whylen);
void repo_release(struct repo *r);

/* The index of a full hash in r->hash, or -1. */
long repo_find(const struct repo *r, const char *hash);

/* Make a detached worktree of commit i at path (which must not exist). */
int repo_worktree_add(struct repo *r, size_t i, const char *path, char *why, size_t whylen);

/* Remove the worktree at path (forced: it holds build output), and prune. */
int repo_worktree_remove(struct repo *r, const char *path);

/* `git show --stat` of commit i into out. */
int repo_show_stat(struct repo *r, size_t i, struct dbuf *out);

#endif
