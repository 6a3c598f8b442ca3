/*
 * spawn.h: start one child process, the only place that forks.
 *
 * The child is created with clone(CLONE_VM | CLONE_VFORK): the parent is
 * suspended until the child has called execve() or exited, so the exec
 * result is known when spawn_start() returns (no close-on-exec pipe needed,
 * and no kill can hit the child before it has exec'd). In the child only
 * system calls are made: setpgid, dup2, prctl, sched_setaffinity,
 * setrlimit, sigprocmask, close_range, execve. Each call has a child stack
 * of its own, so any thread may spawn; CLONE_PIDFD hands back a pidfd made
 * with the child, before its pid could be reaped and reused.
 */
#ifndef JOSTLE_SPAWN_H
#define JOSTLE_SPAWN_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

struct spawn_req {
	const char *path;           /* resolved executable (borrowed) */
	char *const *argv;          /* borrowed */
	char *const *envp;          /* borrowed */
	int stdin_fd;               /* becomes fd 0 (borrowed; e.g. /dev/null) */
	int out_fd;                 /* becomes fd 1 and 2 (borrowed) */
	const cpu_set_t *affinity;  /* NULL: inherit */
	int core_limit;             /* -1: inherit; 0: no cores; 1: unlimited cores */
	const struct rlimit *nofile;  /* RLIMIT_NOFILE to set, or NULL: inherit */
	const char *cwd;            /* NULL: inherit */
	const sigset_t *sigmask;    /* the mask the child starts with */
	/* Called in the parent after the child exists and before it execs, e.g.
	 * to move it into a cgroup. Returns 0 or -errno (then the child is killed). */
	int (*before_exec)(pid_t pid, void *arg);
	void *before_exec_arg;
	int *pidfd;                 /* out: a pidfd of the child (-1 where the kernel
				     * has none); NULL: none wanted */
	bool keep_stderr;           /* out_fd becomes fd 1 only; fd 2 stays ours */
	bool close_others;          /* no descriptor but 0, 1, 2 crosses the exec */
	bool no_deathsig;           /* the child outlives us (the guardian) */
};

/*
 * Start the child in a new process group of its own (pgid == pid).
 * Returns 0 and *pid, or -errno when the child could not be created or
 * its execve() failed (the child is then already reaped).
 */
int spawn_start(const struct spawn_req *req, pid_t *pid);

/*
 * Resolve a command name as execvp would (PATH search when it has no '/').
 * Returns a new string, or NULL with errno ENOENT (not found) or EACCES (not
 * executable).
 */
char *spawn_resolve(const char *name);

/*
 * Start this program again (/proc/self/exe) with argv: stdin /dev/null,
 * stdout on out_fd (borrowed), stderr ours, no other descriptor, every
 * signal default and unmasked, in a process group of its own. For a helper
 * jostle runs beside a run, from any thread (stack_libdw.c's unwinder).
 * Returns 0 with *pid and *pidfd (a pidfd for waiting on it by identity,
 * made with the child; -1 where the kernel has none), or -errno.
 */
int spawn_self(char *const *argv, int out_fd, pid_t *pid, int *pidfd);

struct dbuf;

/*
 * Run a helper command to its end and keep what it printed: argv[0] is
 * looked up on PATH, stdin is /dev/null, stdout and stderr go to out (up
 * to its cap; the rest is read and dropped), the environment is ours.
 * For short commands jostle drives (sbatch, kubectl), not for runs.
 * Returns 0 with its wait status in *status; -errno when it could not be
 * started (-ENOENT: not on PATH); -ETIMEDOUT when it was killed after
 * timeout_ms (0: no limit).
 */
int spawn_capture(char *const *argv, struct dbuf *out, int timeout_ms, int *status);

#endif
