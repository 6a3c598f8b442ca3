/*
 * cgroup.h: the cgroups jostle creates for its runs (cpuset and CPU quota).
 *
 * Protocol: cgroup_open() once per series finds a writable hierarchy
 * (cgroup v2 with the cpuset/cpu controllers, else the v1 cpuset and cpu
 * hierarchies) and creates jostle-PID under jostle's own cgroup in each;
 * then per run cgroup_make(NAME) creates NAME inside it with the run's CPUs
 * and quota, cgroup_attach() moves the run's process in (from the parent,
 * before the child execs, so everything it starts inherits it), and
 * cgroup_remove(NAME) deletes it once the run is reaped. cgroup_close()
 * removes everything created (killing anything still inside), on every exit
 * path, and is idempotent.
 *
 * All functions return 0 or -errno; messages are for the caller to print.
 */
#ifndef JOSTLE_CGROUP_H
#define JOSTLE_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "pressure/cpuset.h"

enum cgroup_kind { CGROUP_NONE = 0, CGROUP_V1, CGROUP_V2 };

struct cgroup_root {
	enum cgroup_kind kind;
	bool has_cpuset, has_cpu;  /* controllers usable in this root */
	char v2[PATH_MAX];         /* .../jostle-PID in the v2 hierarchy, or "" */
	char v1_cpuset[PATH_MAX];  /* .../jostle-PID in the v1 cpuset hierarchy, or "" */
	char v1_cpu[PATH_MAX];     /* .../jostle-PID in the v1 cpu hierarchy, or "" */
	char mems[64];             /* v1: cpuset.mems copied from the parent */
};

/*
 * Find and create jostle's cgroup root. want_cpu: the cpu controller is
 * required (a quota was asked). On failure r->kind is CGROUP_NONE, nothing
 * is left behind, and why says what was missing (for "jostle: ...").
 */
int cgroup_open(struct cgroup_root *r, bool want_cpu, char *why, size_t whylen);

/* "cgroup-v2", "cgroup-v1" or "none". */
const char *cgroup_kind_name(enum cgroup_kind k);

/* Create NAME with these CPUs (NULL or empty: all of the parent's) and a
 * CPU quota in CPUs (<= 0: none). */
int cgroup_make(struct cgroup_root *r, const char *name, const struct cpuset *cpus, double quota);

/* Move process PID (its whole thread group) into NAME. */
int cgroup_attach(struct cgroup_root *r, const char *name, pid_t pid);

/* CPU seconds used by everything that ran in NAME (v2 cpu.stat; v1 the
 * cpuacct.stat of a cpu hierarchy mounted with cpuacct). 0, or -ENOENT
 * where the hierarchy keeps no such account. */
int cgroup_cpu(struct cgroup_root *r, const char *name, double *user_s, double *sys_s);

/* Remove NAME; processes still inside are killed first. */
int cgroup_remove(struct cgroup_root *r, const char *name);

/* Remove every cgroup under the root and the root itself. */
void cgroup_close(struct cgroup_root *r);

/* True when DIR (a jostle-PID path) exists; for tests and diagnostics. */
bool cgroup_exists(const char *dir);

#endif
