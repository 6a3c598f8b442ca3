/*
 * proctree.h: the process tree of a run.
 *
 * The tree is every process whose parent chain leads to ROOT, plus the
 * processes that were reparented to jostle (a child subreaper) after their
 * parent died: those are children of jostle itself that are not a run's
 * root, and the caller's predicate says which run each belongs to
 * (proctree_env_match() is the usual one: the process's environment holds
 * JOSTLE_RUN=<the run>).
 *
 * proctree_build() is pure (tested on lists); proctree_collect() reads
 * /proc once (stat of every process) and calls it.
 */
#ifndef JOSTLE_PROCTREE_H
#define JOSTLE_PROCTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct proctree_proc {
	pid_t pid, ppid;
	char comm[64];
	int depth;          /* 0 for a root */
	bool adopted;       /* reparented to jostle; depth counts from it */
};

struct proctree {
	struct proctree_proc *v;   /* owned; pre-order: a parent before its children */
	size_t nr, alloc;
};

#define PROCTREE_INIT { NULL, 0, 0 }

/* Decide whether process PID (a child of jostle) belongs to the run. */
typedef bool proctree_adopt_fn(pid_t pid, void *ctx);

/*
 * Build the tree under ROOT from the list ALL (every process of the
 * system, any order). Processes whose ppid is ADOPTER (jostle's pid; 0 for
 * none) and for which adopt() says yes are added as further roots with
 * their descendants, marked adopted. ADOPTER itself is never part of the
 * tree below ROOT, nor its descendants (jostle examining the shell that
 * started it). Appends to t.
 */
void proctree_build(struct proctree *t, const struct proctree_proc *all, size_t nr,
		    pid_t root, pid_t adopter, proctree_adopt_fn *adopt, void *ctx);

/*
 * Read /proc and build the tree of ROOT (adopt may be NULL). Returns 0, or
 * -ESRCH when ROOT is gone and nothing was adopted, or another -errno.
 */
int proctree_collect(struct proctree *t, pid_t root, proctree_adopt_fn *adopt, void *ctx);

/*
 * An adopt predicate: ctx is a "NAME=VALUE" string; true when the
 * process's environment holds exactly that.
 */
bool proctree_env_match(pid_t pid, void *ctx);

/*
 * CPU seconds of the tree's processes now: each one's own user and system
 * time plus that of the children it waited for (/proc/PID/stat), all but
 * SKIP (0: none). Vanished processes count nothing. The account of a run
 * whose busy threads live in grandchildren that no one waits for: the
 * run's rusage never sees them.
 */
void proctree_cpu(const struct proctree *t, pid_t skip, double *user_s, double *sys_s);

void proctree_release(struct proctree *t);

#endif
