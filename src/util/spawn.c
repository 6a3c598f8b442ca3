/*
 * spawn.c: vfork-style child creation (see spawn.h).
 *
 * Why clone and not fork: jostle may start tens of thousands of runs a
 * minute, and a vfork-style start costs the same whatever jostle's memory
 * size. Why not posix_spawn: we need CPU affinity, the parent-death signal,
 * a before-exec hook and a pidfd made with the child, which posix_spawn
 * cannot express (glibc 2.36 has no pidfd_spawn). The child stack is
 * allocated per call: the engine and the diagnosis workers spawn from
 * different threads at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <linux/close_range.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/dbuf.h"
#include "util/spawn.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct child_ctx {
	const struct spawn_req *req;
	int hold[2];          /* the child waits here until the parent's hook ran */
	int errpipe[2];       /* with a hook: the child reports a failed exec here */
	volatile int err;     /* without: errno of the failing step, shared memory */
};

/* Shared memory with the parent (CLONE_VM): no allocation, no stdio, no
 * locks; the stack is our own buffer, so ASan's stack checks stay out. */
__attribute__((no_sanitize("address", "undefined")))
static int child_main(void *arg)
{
	struct child_ctx *ctx = arg;
	const struct spawn_req *req = ctx->req;
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL);
	if (setpgid(0, 0) < 0)
		goto fail;
	/* If jostle dies without cleaning up, its direct children die with it
	 * (the rest of the tree is the guardian's: run/guardian.h). */
	if (!req->no_deathsig)
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (req->before_exec) {
		/* raw calls: libc's read and close are cancellation points, which
		 * flip state in the thread we share memory with while it runs */
		char c;
		syscall(SYS_close, ctx->hold[1]);
		while (syscall(SYS_read, ctx->hold[0], &c, 1) < 0 && errno == EINTR)
			;
		syscall(SYS_close, ctx->hold[0]);
	}
	if (dup2(req->stdin_fd, 0) < 0 || dup2(req->out_fd, 1) < 0 ||
	    (!req->keep_stderr && dup2(req->out_fd, 2) < 0))
		goto fail;
	/* Close-on-exec, not closed: the error pipe must last until execve. */
	if (req->close_others &&
	    syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
		struct rlimit rl;
		if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
			rl.rlim_cur = 65536;
		for (int fd = 3; fd < (int)rl.rlim_cur; fd++)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	if (req->affinity && sched_setaffinity(0, sizeof(*req->affinity), req->affinity) < 0)
		goto fail;
	if (req->core_limit >= 0) {
		struct rlimit rl = { 0, 0 };
		if (req->core_limit)
			rl.rlim_cur = rl.rlim_max = RLIM_INFINITY;
		if (setrlimit(RLIMIT_CORE, &rl) < 0) {
			/* Raising may be refused; take what the hard limit allows. */
			getrlimit(RLIMIT_CORE, &rl);
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_CORE, &rl);
		}
	}
	if (req->nofile && setrlimit(RLIMIT_NOFILE, req->nofile) < 0)
		goto fail;
	if (req->cwd && chdir(req->cwd) < 0)
		goto fail;
	sigprocmask(SIG_SETMASK, req->sigmask, NULL);
	execve(req->path, req->argv, req->envp);
fail:
	ctx->err = errno ? errno : EINVAL;
	if (req->before_exec) {
		int e = ctx->err;
		(void)syscall(SYS_write, ctx->errpipe[1], &e, sizeof(e));
	}
	_exit(127);
}

#define CHILD_STACK (64 * 1024)

/*
 * clone with CLONE_PIDFD where the kernel has it (5.2): the pidfd exists
 * before the child can exit, so it names this child even once its pid is
 * reused. The glibc wrapper takes the pidfd's slot as parent_tid.
 */
static pid_t clone_child(void *stack, int flags, struct child_ctx *ctx, int *pidfd)
{
	if (pidfd) {
		*pidfd = -1;
		pid_t p = clone(child_main, stack, flags | CLONE_PIDFD, ctx, pidfd);
		if (p >= 0 || errno != EINVAL)
			return p;
		*pidfd = -1;
	}
	return clone(child_main, stack, flags, ctx);
}

static int spawn_clone(const struct spawn_req *req, struct child_ctx *ctx, char *stack, pid_t *pid)
{
	/* With a hook the child must not exec before it ran, so no CLONE_VFORK:
	 * the parent would be blocked. It still shares our memory (a copy of
	 * jostle's heap cost more than the run, per run), and we wait for its
	 * exec before the stack is freed, as vfork would. Meanwhile the child
	 * only reads req and blocks on the hold pipe. */
	int flags = SIGCHLD | CLONE_VM;
	if (req->before_exec) {
		if (pipe2(ctx->hold, O_CLOEXEC) < 0)
			return -errno;
		if (pipe2(ctx->errpipe, O_CLOEXEC) < 0) {
			int e = errno;
			close(ctx->hold[0]);
			close(ctx->hold[1]);
			return -e;
		}
	} else {
		flags |= CLONE_VFORK;
	}
	pid_t p = clone_child(stack + CHILD_STACK, flags, ctx, req->pidfd);
	if (p < 0) {
		int e = errno;
		if (req->before_exec) {
			close(ctx->hold[0]);
			close(ctx->hold[1]);
			close(ctx->errpipe[0]);
			close(ctx->errpipe[1]);
		}
		return -e;
	}
	if (req->before_exec) {
		/* Both sides call setpgid so the group exists before any kill. */
		setpgid(p, p);
		close(ctx->hold[0]);
		close(ctx->errpipe[1]);
		int rc = req->before_exec(p, req->before_exec_arg);
		if (rc < 0)
			kill(p, SIGKILL);
		close(ctx->hold[1]);
		/* EOF: the exec happened (the pipe is close-on-exec). */
		int e = 0;
		ssize_t n;
		while ((n = read(ctx->errpipe[0], &e, sizeof(e))) < 0 && errno == EINTR)
			;
		close(ctx->errpipe[0]);
		if (rc < 0 || n == (ssize_t)sizeof(e)) {
			while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
				;
			return rc < 0 ? rc : -e;
		}
		*pid = p;
		return 0;
	}
	if (ctx->err) {
		int e = ctx->err;
		while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
			;
		return -e;
	}
	*pid = p;
	return 0;
}

int spawn_start(const struct spawn_req *req, pid_t *pid)
{
	struct child_ctx ctx = { .req = req, .hold = { -1, -1 }, .errpipe = { -1, -1 }, .err = 0 };
	char *stack = aligned_alloc(16, CHILD_STACK);
	if (!stack)
		return -ENOMEM;
	int rc = spawn_clone(req, &ctx, stack, pid);
	free(stack);
	if (rc < 0 && req->pidfd && *req->pidfd >= 0) {
		close(*req->pidfd);
		*req->pidfd = -1;
	}
	return rc;
}

static int executable(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -ENOENT;
	if (S_ISDIR(st.st_mode) || access(path, X_OK) < 0)
		return -EACCES;
	return 0;
}

char *spawn_resolve(const char *name)
{
	if (!*name) {
		errno = ENOENT;
		return NULL;
	}
	if (strchr(name, '/')) {
		int rc = executable(name);
		if (rc < 0) {
			errno = -rc;
			return NULL;
		}
		return xstrdup(name);
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int saw_eacces = 0;
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		char *cand = n ? xasprintf("%.*s/%s", (int)n, path, name) : xasprintf("./%s", name);
		int rc = executable(cand);
		if (!rc)
			return cand;
		if (rc == -EACCES)
			saw_eacces = 1;
		free(cand);
		path += n + (colon ? 1 : 0);
	}
	errno = saw_eacces ? EACCES : ENOENT;
	return NULL;
}

int spawn_capture(char *const *argv, struct dbuf *out, int timeout_ms, int *status)
{
	extern char **environ;
	char *path = spawn_resolve(argv[0]);
	if (!path)
		return -errno;
	int pfd[2], rc;
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0 || pipe2(pfd, O_CLOEXEC) < 0) {
		rc = -errno;
		if (devnull >= 0)
			close(devnull);
		free(path);
		return rc;
	}
	struct spawn_req req = {
		.path = path,
		.argv = argv,
		.envp = environ,
		.stdin_fd = devnull,
		.out_fd = pfd[1],
		.core_limit = -1,
	};
	pid_t child;
	rc = spawn_start(&req, &child);
	close(devnull);
	close(pfd[1]);
	free(path);
	if (rc < 0) {
		close(pfd[0]);
		return rc;
	}
	int64_t deadline = timeout_ms ? clock_mono_ns() + (int64_t)timeout_ms * NS_PER_MS : 0;
	for (;;) {
		int wait_ms = -1;
		if (deadline) {
			int64_t left = (deadline - clock_mono_ns()) / NS_PER_MS;
			if (left <= 0) {
				rc = -ETIMEDOUT;
				break;
			}
			wait_ms = left > INT_MAX ? INT_MAX : (int)left;
		}
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int n = poll(&p, 1, wait_ms);
		if (n <= 0)
			continue;   /* EINTR, or the deadline: checked above */
		char chunk[8192];
		ssize_t r = read(pfd[0], chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		(void)dbuf_add(out, chunk, (size_t)r);   /* past the cap: keep the head */
	}
	close(pfd[0]);
	if (rc == -ETIMEDOUT)
		kill(-child, SIGKILL);
	while (waitpid(child, status, 0) < 0 && errno == EINTR)
		;
	return rc;
}

int spawn_self(char *const *argv, int out_fd, pid_t *pid, int *pidfd)
{
	extern char **environ;
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0)
		return -errno;
	sigset_t none;
	sigemptyset(&none);
	/* Hold no other descriptor: a run's output pipe held by the helper
	 * would delay that run's end of file. */
	struct spawn_req req = {
		.path = "/proc/self/exe",
		.argv = argv,
		.envp = environ,
		.stdin_fd = devnull,
		.out_fd = out_fd,
		.core_limit = -1,
		.sigmask = &none,
		.pidfd = pidfd,
		.keep_stderr = true,
		.close_others = true,
	};
	int rc = spawn_start(&req, pid);
	close(devnull);
	return rc;
}
