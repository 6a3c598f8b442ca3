/*
 * core.h: finding the core file a crashed run dumped.
 *
 * Where a core goes is the kernel's choice (kernel.core_pattern), not
 * ours, and changing it is a system change jostle does not make. So:
 *   - an absolute pattern ("/var/crash/core.%e.%p"): the core is there;
 *   - a relative pattern ("core", Debian's default): in the crashing
 *     process's working directory, i.e. the run's (jostle's) unless the
 *     program changed it; with core_uses_pid=1 or %p the name is unique,
 *     else concurrent crashes overwrite one "core" and the pid inside the
 *     core tells whose it is;
 *   - a pipe ("|/usr/lib/systemd/systemd-coredump ..."): the core goes to
 *     that program; jostle says so and cannot collect it.
 * Found cores are moved to DIR/cores/RUN.core (or deleted after reading).
 */
#ifndef JOSTLE_CORE_H
#define JOSTLE_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* The kernel's pattern and core_uses_pid. 0, or -errno. */
int core_pattern_read(char *pattern, size_t len, bool *uses_pid);

/*
 * Expand PATTERN for one crash (pure): %p %P %i %I -> pid, %e -> comm,
 * %s -> signal, %u %g -> ids, %h -> host, %% -> %, anything else (%t,
 * %c, %d, %E) -> "*" for glob(3); ".PID" appended when uses_pid and the
 * pattern has no %p. A relative result is prefixed with cwd + "/".
 * Returns 0, or -ENOTSUP for a pipe pattern.
 */
int core_expand(const char *pattern, bool uses_pid, const char *cwd, pid_t pid, const char *comm,
		int sig, uid_t uid, gid_t gid, const char *host, char *out, size_t len);

/*
 * Find the core of PID (crashed with SIG, command name COMM) written at or
 * after SINCE. Returns 0 and its path, or -ENOENT / -ENOTSUP with a reason
 * in why.
 */
int core_find(const char *cwd, pid_t pid, const char *comm, int sig, time_t since,
	      char *path, size_t len, char *why, size_t whylen);

#endif
