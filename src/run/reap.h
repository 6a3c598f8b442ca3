/*
 * reap.h: finding and ending the processes a run left behind.
 *
 * jostle is a child subreaper (PR_SET_CHILD_SUBREAPER), so every process
 * started by any run stays in jostle's subtree: when an intermediate parent
 * dies, its children are reparented to jostle itself. A run's processes are
 * its process group plus the orphans reparented to jostle whose environment
 * carries the run's JOSTLE_RUN value (a setsid() daemon leaves the group but
 * keeps its environment), and those orphans' own subtrees.
 */
#ifndef JOSTLE_REAP_H
#define JOSTLE_REAP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Become a child subreaper. Returns 0 or -errno. */
int reap_become_subreaper(void);

/* The direct children of this process, into pids (at most max). Returns the count. */
size_t reap_children(pid_t *pids, size_t max);

/* JOSTLE_RUN of a process from /proc/PID/environ: 0 and *run, or -errno. */
int reap_run_of(pid_t pid, uint64_t *run);

/* The orphans of run RUN: direct children of ours, not in skip, whose
 * JOSTLE_RUN is RUN, into out (at most max). Returns the count. */
size_t reap_orphans(uint64_t run, const pid_t *skip, size_t nskip, pid_t *out, size_t max);

/*
 * Signal everything of run RUN: the group PGID and every orphan (direct child
 * of ours, not in skip) whose JOSTLE_RUN is RUN, with their subtrees.
 * Returns the number of processes still alive that belong to the run
 * (0 means the run left nothing behind). sig 0 only counts.
 */
size_t reap_signal_run(pid_t pgid, uint64_t run, int sig, const pid_t *skip, size_t nskip);

/* SIGKILL every descendant of this process except those in keep, until none
 * is left (reaping them). Used on every exit path. */
void reap_kill_all(const pid_t *keep, size_t nkeep);

#endif
