/*
 * reap.c: leftover process discovery and cleanup (see reap.h).
 *
 * /proc/PID/task/TID/children gives the direct children of a thread; for a
 * single-threaded jostle that is all of its children. The environ file is
 * the initial environment of a process: a daemon that clears its own
 * environment after start is still found through its process group, or at
 * the latest by reap_kill_all() when jostle exits.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/reap.h"
#include "util/xalloc.h"
#include "util/banned.h"

int reap_become_subreaper(void)
{
	return prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 ? -errno : 0;
}

/* Parse a space-separated list of pids from fd into pids (at most max). */
static size_t read_pids(int fd, pid_t *pids, size_t max)
{
	char buf[4096], carry[16];
	size_t n = 0, clen = 0;
	ssize_t len;
	while ((len = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < len; i++) {
			if (buf[i] >= '0' && buf[i] <= '9') {
				if (clen < sizeof(carry) - 1)
					carry[clen++] = buf[i];
			} else if (clen) {
				carry[clen] = '\0';
				if (n < max)
					pids[n++] = (pid_t)strtol(carry, NULL, 10);
				clen = 0;
			}
		}
	}
	if (clen && n < max) {
		carry[clen] = '\0';
		pids[n++] = (pid_t)strtol(carry, NULL, 10);
	}
	return n;
}

/* Children of every thread of PID (tasks reparented to a thread). */
static size_t children_of(pid_t pid, pid_t *pids, size_t max)
{
	char path[64];
	size_t n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char cpath[320];
		snprintf(cpath, sizeof(cpath), "/proc/%d/task/%s/children", (int)pid, de->d_name);
		int fd = open(cpath, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n += read_pids(fd, pids + n, max - n);
		close(fd);
	}
	closedir(d);
	return n;
}

size_t reap_children(pid_t *pids, size_t max)
{
	/* Orphans are reparented to the subreaper's main thread (jostle starts
	 * no other threads that could outlive it), so one file is enough: this
	 * runs after every run and must stay cheap. */
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return children_of(getpid(), pids, max);
	size_t n = read_pids(fd, pids, max);
	close(fd);
	return n;
}

int reap_run_of(pid_t pid, uint64_t *run)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* JOSTLE_RUN is added last-but-few by jostle; environments are small,
	 * but read in chunks with a carry so a variable split between reads
	 * is still found. */
	static const char key[] = "JOSTLE_RUN=";
	char buf[8192 + 64];
	size_t have = 0;
	int rc = -ENOENT;
	for (;;) {
		ssize_t len = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (len <= 0)
			break;
		have += (size_t)len;
		buf[have] = '\0';
		size_t start = 0;
		for (size_t i = 0; i < have; i++) {
			if (buf[i] != '\0')
				continue;
			if (!strncmp(buf + start, key, sizeof(key) - 1)) {
				*run = strtoull(buf + start + sizeof(key) - 1, NULL, 10);
				rc = 0;
				goto out;
			}
			start = i + 1;
		}
		memmove(buf, buf + start, have - start);
		have -= start;
		if (have >= sizeof(buf) - 1)
			have = 0; /* a variable longer than the buffer: not ours */
	}
out:
	close(fd);
	return rc;
}

static int in_list(pid_t p, const pid_t *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == p)
			return 1;
	return 0;
}

/* Signal PID and its whole subtree; returns how many were alive. */
static size_t signal_tree(pid_t pid, int sig, int depth)
{
	size_t alive = 0;
	if (pid <= 1 || depth > 64)
		return 0;
	if (kill(pid, sig) == 0)
		alive++;
	pid_t kids[256];
	size_t n = children_of(pid, kids, 256);
	for (size_t i = 0; i < n; i++)
		alive += signal_tree(kids[i], sig, depth + 1);
	return alive;
}

/* A zombie still answers kill(pid, 0); reap what we can so counts are real. */
static void reap_zombies(void)
{
	while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
		;
}

size_t reap_orphans(uint64_t run, const pid_t *skip, size_t nskip, pid_t *out, size_t max)
{
	pid_t kids[1024];
	size_t n = reap_children(kids, 1024), k = 0;
	for (size_t i = 0; i < n && k < max; i++) {
		uint64_t r;
		if (!in_list(kids[i], skip, nskip) && reap_run_of(kids[i], &r) == 0 && r == run)
			out[k++] = kids[i];
	}
	return k;
}

size_t reap_signal_run(pid_t pgid, uint64_t run, int sig, const pid_t *skip, size_t nskip)
{
	size_t alive = 0;
	if (pgid > 1 && kill(-pgid, sig) == 0)
		alive++;
	pid_t orphans[1024];
	size_t n = reap_orphans(run, skip, nskip, orphans, 1024);
	for (size_t i = 0; i < n; i++)
		alive += signal_tree(orphans[i], sig, 0);
	return alive;
}

void reap_kill_all(const pid_t *keep, size_t nkeep)
{
	for (int round = 0; round < 1000; round++) {
		reap_zombies();
		pid_t kids[1024];
		size_t n = reap_children(kids, 1024), left = 0;
		for (size_t i = 0; i < n; i++) {
			if (kids[i] <= 1 || in_list(kids[i], keep, nkeep))
				continue;
			kill(-kids[i], SIGKILL);
			left += signal_tree(kids[i], SIGKILL, 0);
		}
		if (!left)
			return;
		usleep(1000);
	}
}
