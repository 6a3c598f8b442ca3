/*
 * child.c: helper processes run to their end (see child.h). One loop reads
 * the output pipe (when capturing) and polls for the end; a stop request
 * is noticed within 50 ms, since our signal handlers interrupt poll().
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bisect/child.h"
#include "util/clock.h"
#include "util/spawn.h"
#include "util/banned.h"

extern char **environ;

int child_run(const struct child_req *req)
{
	int pfd[2] = { -1, -1 }, out = req->out_fd, devnull, rc, status = 0;
	sigset_t none;
	pid_t pid;
	char *path = spawn_resolve(req->argv[0]);

	if (!path)
		return -errno;
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0) {
		rc = -errno;
		free(path);
		return rc;
	}
	if (req->out) {
		if (pipe2(pfd, O_CLOEXEC) < 0) {
			rc = -errno;
			free(path);
			close(devnull);
			return rc;
		}
		out = pfd[1];
	} else if (out < 0) {
		out = devnull;
	}
	sigemptyset(&none);
	struct spawn_req sr = {
		.path = path,
		.argv = req->argv,
		.envp = environ,
		.stdin_fd = devnull,
		.out_fd = out,
		.core_limit = -1,
		.cwd = req->cwd,
		.sigmask = &none,
	};
	rc = spawn_start(&sr, &pid);
	free(path);
	if (pfd[1] >= 0)
		close(pfd[1]);
	close(devnull);
	if (rc < 0) {
		if (pfd[0] >= 0)
			close(pfd[0]);
		return rc;
	}
	int kill_step = 0;
	int64_t kill_at = 0;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
		if (req->stop && *req->stop && kill_step == 0) {
			kill(-pid, SIGTERM);
			kill_step = 1;
			kill_at = clock_mono_ns() + NS_PER_S;
		} else if (kill_step == 1 && clock_mono_ns() >= kill_at) {
			kill(-pid, SIGKILL);
			kill_step = 2;
		}
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int n = poll(&p, pfd[0] >= 0 ? 1 : 0, 50);
		if (n > 0 && pfd[0] >= 0) {
			char buf[16384];
			ssize_t got = read(pfd[0], buf, sizeof(buf));
			if (got > 0) {
				(void)dbuf_add(req->out, buf, (size_t)got);
			} else if (got == 0) {
				close(pfd[0]);
				pfd[0] = -1;
			}
		}
	}
	/* what is left in the pipe once the child is gone */
	while (pfd[0] >= 0) {
		char buf[16384];
		int fl = fcntl(pfd[0], F_GETFL);
		fcntl(pfd[0], F_SETFL, fl | O_NONBLOCK);
		ssize_t got = read(pfd[0], buf, sizeof(buf));
		if (got > 0) {
			(void)dbuf_add(req->out, buf, (size_t)got);
			continue;
		}
		if (got < 0 && errno == EINTR)
			continue;
		close(pfd[0]);
		pfd[0] = -1;
	}
	return rc < 0 ? rc : status;
}
