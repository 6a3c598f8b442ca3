/*
 * churn.h: the processes of a tree that came and went while a diagnosis
 * watched it, and the CPU each one used: motion.h's "tree" sign.
 *
 * Why a table of every process seen rather than two snapshots: a build
 * driver's compiler, or a polling shell's `sleep`, is often born and gone
 * between two looks, and what tells them apart is the work each did. Each
 * look records every process by pid and start time (a reused pid is a new
 * process) with its CPU so far; one that ended keeps what the last look
 * saw. CPU is the process's own (threads included, children not), in ns.
 */
#ifndef JOSTLE_CHURN_H
#define JOSTLE_CHURN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "diagnose/procfs.h"
#include "diagnose/proctree.h"

struct churn_proc {
	pid_t pid;
	uint64_t starttime;     /* clock ticks after boot */
	int64_t cpu0_ns;        /* CPU when first seen */
	int64_t cpu_ns;         /* CPU at the last look that saw it */
	bool initial;           /* there at the first look */
	bool gone;              /* ended (or a zombie) at a later look */
	unsigned look;          /* the last look that read it (1 the first) */
	struct procfs_stat st;  /* its stat at that look */
};

struct churn {
	struct churn_proc *v;   /* owned */
	size_t nr, alloc;
	unsigned looks;
};

#define CHURN_INIT { NULL, 0, 0, 0 }

/*
 * One look at ROOT's tree (adopt and ctx as proctree_collect): processes
 * not seen before are added (marked initial at the first look), the CPU of
 * each present one updated, the ones no longer there marked gone. Returns
 * the number of processes present, or -errno (the tree could not be read).
 */
int churn_look(struct churn *c, pid_t root, proctree_adopt_fn *adopt, void *ctx);

/*
 * The stat of PID (started at STARTTIME) as the last look read it, zombies
 * included, or NULL when that look did not see it: what the diagnosis
 * reads of the same processes (faults, CPU, resident set) at the same
 * moment, so that /proc/PID/stat is read once per look, not twice.
 */
const struct procfs_stat *churn_sample(const struct churn *c, pid_t pid, uint64_t starttime);

/* Processes born after the first look. */
unsigned churn_born(const struct churn *c);
/* Processes that ended after the first look. */
unsigned churn_ended(const struct churn *c);
/*
 * The CPU, in ns, of the processes that were born or ended while watched
 * and used at least MIN_NS each (each counted once, with all its CPU).
 */
int64_t churn_work_ns(const struct churn *c, int64_t min_ns);
/* CPU the tree's processes used since each was first seen, in ns. */
int64_t churn_cpu_ns(const struct churn *c);

void churn_release(struct churn *c);

#endif
