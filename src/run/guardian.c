/*
 * guardian.c: the process that ends a killed jostle's runs (see guardian.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "run/guardian.h"
#include "util/clock.h"
#include "util/spawn.h"
#include "util/banned.h"

int guardian_start(struct guardian *g)
{
	extern char **environ;
	g->pid = 0;
	g->fd = -1;
	char token[64];
	snprintf(token, sizeof(token), "%d.%" PRIx64, (int)getpid(), (uint64_t)clock_mono_ns());
	/* A jostle run by a jostle: its runs carry both tokens, so either
	 * guardian ends them. */
	const char *above = getenv(GUARDIAN_VAR);
	size_t n = above ? strlen(above) : 0;
	if (n && n + 1 + strlen(token) < sizeof(g->value)) {
		memcpy(g->value, above, n);
		g->value[n++] = ',';
	} else {
		n = 0;
	}
	memcpy(g->value + n, token, strlen(token) + 1);

	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	sigset_t none;
	sigemptyset(&none);
	char *argv[] = { (char *)"jostle", (char *)GUARDIAN_ARG, token, NULL };
	struct spawn_req req = {
		.path = "/proc/self/exe",
		.argv = argv,
		.envp = environ,
		.stdin_fd = p[0],
		.out_fd = STDERR_FILENO,
		.core_limit = 0,
		.sigmask = &none,
		.keep_stderr = true,
		.close_others = true,
		.no_deathsig = true,
	};
	int rc = spawn_start(&req, &g->pid);
	close(p[0]);
	if (rc < 0) {
		close(p[1]);
		g->pid = 0;
		return rc;
	}
	g->fd = p[1];
	return 0;
}

void guardian_release(struct guardian *g)
{
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
	g->pid = 0;
}

/* Is TOKEN one of the comma-separated tokens of VALUE (NUL-terminated)? */
static bool has_token(const char *value, const char *token)
{
	size_t n = strlen(token);
	for (const char *v = value; *v;) {
		const char *end = strchr(v, ',');
		size_t len = end ? (size_t)(end - v) : strlen(v);
		if (len == n && !memcmp(v, token, n))
			return true;
		if (!end)
			break;
		v = end + 1;
	}
	return false;
}

/* Does PID's initial environment carry TOKEN in JOSTLE_GUARD? */
static bool guarded(const char *pid, const char *token)
{
	static const char key[] = GUARDIAN_VAR "=";
	char path[64];
	snprintf(path, sizeof(path), "/proc/%s/environ", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* Variables are NUL-separated; one may straddle two reads, so what is
	 * left of the last one moves to the front before the next read. */
	char buf[16384 + 1];
	size_t have = 0;
	bool found = false, skipping = false;
	for (;;) {
		ssize_t len = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (len <= 0)
			break;
		have += (size_t)len;
		size_t start = 0;
		for (size_t i = 0; i < have; i++) {
			if (buf[i])
				continue;
			if (!skipping && !strncmp(buf + start, key, sizeof(key) - 1) &&
			    has_token(buf + start + sizeof(key) - 1, token)) {
				found = true;
				break;
			}
			skipping = false;
			start = i + 1;
		}
		if (found)
			break;
		if (start == 0 && have == sizeof(buf) - 1) {
			skipping = true;   /* longer than the buffer: not ours */
			have = 0;
			continue;
		}
		memmove(buf, buf + start, have - start);
		have -= start;
	}
	close(fd);
	return found;
}

/* SIGKILL every guarded process but us; the number signalled. */
static int sweep(const char *token)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	pid_t self = getpid();
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		pid_t pid = (pid_t)strtol(de->d_name, NULL, 10);
		if (pid == self || !guarded(de->d_name, token))
			continue;
		if (kill(pid, SIGKILL) == 0)
			n++;
	}
	closedir(d);
	return n;
}

int guardian_main(int argc, char **argv)
{
	if (argc != 3 || !argv[2][0]) {
		fprintf(stderr, "jostle: '%s' is jostle's own helper; it is not meant to be run by hand\n",
			GUARDIAN_ARG);
		return 2;
	}
	/* Signals sent to jostle's group or typed at the terminal are for
	 * jostle; we only answer to the pipe. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_NAME, "jostle-guard");
	if (chdir("/") < 0) {
		/* holding the run's folder busy is all it costs */
	}
	char c;
	ssize_t r;
	while ((r = read(STDIN_FILENO, &c, 1)) != 0) {
		if (r < 0 && errno != EINTR)
			break;
	}
	/* jostle is gone. A process killed here may have forked first; its
	 * child carries the token too and is found by the next sweep. SIGKILL
	 * leaves zombies, whose environ reads empty, so the sweeps end. */
	for (int round = 0; round < 10000; round++) {
		if (!sweep(argv[2]))
			return 0;
		usleep(1000);
	}
	return 1;
}
