/*
 * guardian.h: nothing jostle started outlives a jostle that was killed.
 *
 * jostle cleans up after itself on every exit it sees (reap.h), and its
 * direct children carry PR_SET_PDEATHSIG. Neither helps when jostle is
 * killed with SIGKILL or by the OOM killer: a run's grandchildren, which
 * may ignore SIGTERM, call setsid() or double-fork, are reparented to init
 * (or to a subreaper above us) and live on.
 *
 * The guardian is a small process of ours, started with the series: jostle
 * holds the write end of a pipe whose read end is the guardian's stdin.
 * When jostle dies, however it dies, the kernel closes that end; the
 * guardian wakes on end of file and SIGKILLs every process whose initial
 * environment carries the series' token in JOSTLE_GUARD (every run gets it,
 * and whatever a run starts inherits it), sweeping /proc until a sweep
 * finds none. A process that threw its environment away (env -i) is out
 * of its reach; one in a run's cgroup is killed with the cgroup as before.
 *
 * Why not a subreaper alone: orphans go to the nearest subreaper ancestor,
 * and the guardian, our child, is not one of their ancestors. Why not a
 * parent-death signal on every process: it is not inherited across fork.
 */
#ifndef JOSTLE_GUARDIAN_H
#define JOSTLE_GUARDIAN_H

#include <sys/types.h>

#define GUARDIAN_ARG "__jostle-guardian"
#define GUARDIAN_VAR "JOSTLE_GUARD"

struct guardian {
	pid_t pid;          /* 0: none running */
	int fd;             /* our end of the pipe: -1 when none */
	char value[256];    /* JOSTLE_GUARD for the runs: the tokens of every
			     * jostle above us, then ours (comma-separated) */
};

/*
 * Start a guardian for this process (from the thread that will outlive the
 * series: the pipe's end is close-on-exec, noise processes forked by us
 * keep it open until they die with us). Returns 0, or -errno when none
 * could be started (the series then runs unguarded, as before).
 */
int guardian_start(struct guardian *g);

/* Our end closed; the guardian itself is ended with the series' other
 * processes by reap_kill_all(). */
void guardian_release(struct guardian *g);

/* The guardian's process: `jostle __jostle-guardian TOKEN`. */
int guardian_main(int argc, char **argv);

#endif
