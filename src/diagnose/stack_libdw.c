/*
 * stack_libdw.c: the libdw stack backend (elfutils libdwfl).
 *
 * dwfl_linux_proc_report() maps the process's modules from
 * /proc/PID/maps, dwfl_linux_proc_attach() prepares ptrace access, and
 * dwfl_getthreads() visits each thread: libdwfl attaches to that thread
 * alone, unwinds it with the CFI of each module (.eh_frame needs no debug
 * info) and detaches, so at any moment at most one thread is stopped.
 * Names come from the symbol tables (dwname.h: .symtab, a debug file by
 * build-id, .gnu_debugdata, .dynsym, else module+offset of the function's
 * start), which costs one binary search per frame and is why 100 threads
 * take milliseconds.
 *
 * A frame whose pc is a return address is looked up at pc - 1, so a call
 * that is the last instruction of a function is not blamed on the next one.
 *
 * A live process is unwound by a helper process, this program run again
 * with STACK_HELPER_ARG (stack.h), which sends the stacks back over a
 * pipe. The ptrace waits libdwfl makes (__WALL, on the thread it stops)
 * would, in the process that is the target's parent, take the target's
 * exit when it ends or is killed during the attach: a run's root is
 * jostle's child, and the series then lost the run's exit status. A tracer
 * that is not the parent only sees the exit first; the parent still reaps
 * it. The helper is exec'd, not just forked: a fork of this threaded
 * process can inherit a lock another thread holds (ASan's allocator's,
 * seen) and hang on it. Where the helper may not trace (Yama's
 * ptrace_scope 1: only ancestors may) or gives no answer (a program that
 * does not know the argument), the unwinding happens here, as before.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diagnose/dwname.h"
#include "diagnose/stack.h"
#include "util/dbuf.h"
#include "util/fileio.h"
#include "util/parse.h"
#include "util/spawn.h"
#include "util/banned.h"

/* A helper that has not answered by then is killed (it ends far sooner:
 * ptrace fails at once on a target that is gone). */
#define HELPER_LIMIT_S 30
/* The most a helper may send: 64 frames x ~1 KiB x thousands of threads. */
#define HELPER_MAX_BYTES (64u << 20)

struct walk {
	Dwfl *dwfl;
	pid_t pid;
	struct stack_set *out;
	struct stack_thread *cur;
	int threads;
	char why[128];     /* the first thread that could not be unwound: why */
};


static int frame_cb(Dwfl_Frame *frame, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool activation = false;
	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	Dwarf_Addr lookup = activation || pc == 0 ? pc : pc - 1;
	Dwfl_Module *mod = dwfl_addrmodule(w->dwfl, lookup);
	const char *modname = mod ? dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL) : NULL;
	char name[512];
	if (dwname_lookup(mod, lookup, name, sizeof(name)))
		stack_thread_push(w->cur, name, modname, pc);
	else
		stack_thread_push_label(w->cur, name, modname, pc);
	return w->cur->nr >= STACK_MAX_FRAMES ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static int thread_cb(Dwfl_Thread *thread, void *arg)
{
	struct walk *w = arg;
	w->cur = stack_set_add(w->out, w->pid, dwfl_thread_tid(thread));
	w->threads++;
	/* A failed unwind keeps the frames found so far (often all of them: the
	 * outermost frame has no CFI to step past). */
	if (dwfl_thread_getframes(thread, frame_cb, w) != 0 && !w->cur->nr)
		snprintf(w->why, sizeof(w->why), "%s", dwfl_errmsg(-1));
	return DWARF_CB_OK;
}

static const char *libdw_unavailable(void)
{
	return NULL;
}

/* Unwind PID in this process (the helper's side). */
static int capture_here(pid_t pid, struct stack_set *out, char *err, size_t errlen)
{
	Dwfl_Callbacks cb;
	Dwfl *dwfl = dwfl_begin(dwname_callbacks(&cb, dwfl_linux_proc_find_elf));
	if (!dwfl) {
		snprintf(err, errlen, "dwfl_begin: %s", dwfl_errmsg(-1));
		return -ENOMEM;
	}
	int rc = dwfl_linux_proc_report(dwfl, pid);
	if (rc) {
		snprintf(err, errlen, "reading /proc/%d/maps: %s", (int)pid,
			 rc > 0 ? strerror(rc) : dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return rc == ENOENT ? -ESRCH : -(rc > 0 ? rc : EIO);
	}
	if (dwfl_report_end(dwfl, NULL, NULL)) {
		snprintf(err, errlen, "dwfl_report_end: %s", dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return -EIO;
	}
	rc = dwfl_linux_proc_attach(dwfl, pid, false);
	if (rc) {
		snprintf(err, errlen, "attaching to %d: %s", (int)pid,
			 rc > 0 ? strerror(rc) : dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return rc == ESRCH || rc == ENOENT ? -ESRCH : -(rc > 0 ? rc : EIO);
	}
	struct walk w = { .dwfl = dwfl, .pid = pid, .out = out };
	size_t first = out->nr;
	rc = dwfl_getthreads(dwfl, thread_cb, &w);
	if (rc < 0 && !w.threads)
		snprintf(err, errlen, "dwfl_getthreads: %s", dwfl_errmsg(-1));
	dwfl_end(dwfl);
	size_t frames = 0;
	for (size_t i = first; i < out->nr; i++)
		frames += out->v[i].nr;
	if (w.threads && !frames) {
		snprintf(err, errlen, "no thread of %d could be unwound (%s)", (int)pid,
			 w.why[0] ? w.why : "no frame");
		return -EIO;
	}
	return w.threads ? w.threads : -EIO;
}


/*
 * The helper's answer, in the machine's byte order: u64 total length, i32
 * rc, string err, u32 threads; per thread i32 tid, u8 truncated, u32
 * frames; per frame u64 pc, string fn, string module. A string is a u32
 * length and its bytes ("" for a NULL module).
 */
static void put_str(struct dbuf *b, const char *s, int *bad)
{
	uint32_t n = s ? (uint32_t)strlen(s) : 0;
	if (dbuf_add(b, &n, sizeof(n)) < 0 || (n && dbuf_add(b, s, n) < 0))
		*bad = 1;
}

#define PUT(b, v, bad) do { if (dbuf_add((b), &(v), sizeof(v)) < 0) *(bad) = 1; } while (0)

static void encode(struct dbuf *b, int rc, const char *err, const struct stack_set *set)
{
	int bad = 0;
	uint64_t total = 0;
	int32_t r = rc;
	uint32_t nt = (uint32_t)set->nr;
	PUT(b, total, &bad);
	PUT(b, r, &bad);
	put_str(b, err, &bad);
	PUT(b, nt, &bad);
	for (size_t i = 0; i < set->nr && !bad; i++) {
		const struct stack_thread *t = &set->v[i];
		int32_t tid = t->tid;
		uint8_t trunc = t->truncated;
		uint32_t nf = (uint32_t)t->nr;
		PUT(b, tid, &bad);
		PUT(b, trunc, &bad);
		PUT(b, nf, &bad);
		for (size_t f = 0; f < t->nr; f++) {
			uint64_t pc = t->frames[f].pc;
			PUT(b, pc, &bad);
			put_str(b, t->frames[f].fn, &bad);
			put_str(b, t->frames[f].module, &bad);
		}
	}
	if (bad) {   /* too large to send: say so instead */
		dbuf_reset(b);
		struct stack_set none = STACK_SET_INIT;
		encode(b, -E2BIG, "the stacks were too large to send from the helper", &none);
		return;
	}
	total = b->len;
	memcpy(b->buf, &total, sizeof(total));
}

int stack_helper_main(int argc, char **argv)
{
	uint64_t pid, parent;
	if (argc != 4 || parse_u64(argv[2], 1, INT_MAX, &pid) < 0 ||
	    parse_u64(argv[3], 1, INT_MAX, &parent) < 0) {
		fprintf(stderr, "jostle: %s is jostle's own unwinder, started by a diagnosis "
			"with PID PARENT; to see a process's stacks, use 'jostle stacks PID'\n",
			STACK_HELPER_ARG);
		return 2;
	}
	/* Die with the thread that waits for us; the limit ends us too. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != (pid_t)parent)
		return 2;   /* that thread is gone already: nobody to answer */
	alarm(HELPER_LIMIT_S);
	struct stack_set set = STACK_SET_INIT;
	char err[256] = "";
	int rc = capture_here((pid_t)pid, &set, err, sizeof(err));
	struct dbuf b;
	dbuf_init(&b, HELPER_MAX_BYTES);
	encode(&b, rc, err, &set);
	rc = fileio_write_all(STDOUT_FILENO, b.buf, b.len) ? 1 : 0;
	dbuf_release(&b);
	stack_set_release(&set);
	return rc;
}

struct cursor {
	const char *p;
	size_t left;
	bool bad;
};

static void take(struct cursor *c, void *v, size_t n)
{
	if (c->bad || c->left < n) {
		c->bad = true;
		memset(v, 0, n);
		return;
	}
	memcpy(v, c->p, n);
	c->p += n;
	c->left -= n;
}

/* A string of the answer into buf (NUL-terminated, cut to len - 1). */
static const char *take_str(struct cursor *c, char *buf, size_t len)
{
	uint32_t n;
	take(c, &n, sizeof(n));
	if (c->bad || c->left < n) {
		c->bad = true;
		buf[0] = '\0';
		return buf;
	}
	size_t k = n < len - 1 ? n : len - 1;
	memcpy(buf, c->p, k);
	buf[k] = '\0';
	c->p += n;
	c->left -= n;
	return buf;
}

static int decode(const struct dbuf *b, pid_t pid, struct stack_set *out, char *err, size_t errlen)
{
	struct cursor c = { b->buf, b->len, false };
	uint64_t total;
	int32_t rc;
	uint32_t nt;
	char text[4096];
	take(&c, &total, sizeof(total));
	take(&c, &rc, sizeof(rc));
	take_str(&c, text, sizeof(text));
	take(&c, &nt, sizeof(nt));
	if (c.bad || total != b->len) {
		snprintf(err, errlen, "the stack helper's answer for %d was cut short (%zu bytes)",
			 (int)pid, b->len);
		return -EIO;
	}
	if (text[0])
		snprintf(err, errlen, "%s", text);
	for (uint32_t i = 0; i < nt && !c.bad; i++) {
		int32_t tid;
		uint8_t trunc;
		uint32_t nf;
		take(&c, &tid, sizeof(tid));
		take(&c, &trunc, sizeof(trunc));
		take(&c, &nf, sizeof(nf));
		if (c.bad || nf > STACK_MAX_FRAMES)
			break;
		struct stack_thread *t = stack_set_add(out, pid, tid);
		t->truncated = trunc != 0;
		for (uint32_t f = 0; f < nf && !c.bad; f++) {
			uint64_t pc;
			char mod[1024];
			take(&c, &pc, sizeof(pc));
			take_str(&c, text, sizeof(text));
			take_str(&c, mod, sizeof(mod));
			/* the helper's names are normalized already: keep them */
			stack_thread_push_label(t, text, mod, pc);
		}
	}
	if (c.bad) {
		snprintf(err, errlen, "the stack helper's answer for %d was malformed", (int)pid);
		return -EIO;
	}
	return rc;
}

/* Read the helper's answer until it is whole, the helper is gone, or the limit. */
static void read_answer(int fd, int pidfd, struct dbuf *b)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	bool gone = false;
	for (;;) {
		uint64_t total = 0;
		if (b->len >= sizeof(total))
			memcpy(&total, b->buf, sizeof(total));
		if (total && b->len >= total)
			return;
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long spent = (long)(now.tv_sec - t0.tv_sec);
		if (spent > HELPER_LIMIT_S + 5)
			return;
		struct pollfd pf[2] = { { fd, POLLIN, 0 }, { pidfd, POLLIN, 0 } };
		/* Once the helper is gone, only what is already in the pipe is left. */
		int n = poll(pf, pidfd >= 0 && !gone ? 2 : 1, gone ? 0 : 1000);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			char chunk[65536];
			ssize_t r = read(fd, chunk, sizeof(chunk));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0 || dbuf_add(b, chunk, (size_t)r) < 0)
				return;   /* the end (a noise process may hold a copy), or the cap */
			continue;
		}
		if (gone)
			return;
		if (pidfd >= 0 && (pf[1].revents & POLLIN))
			gone = true;
	}
}

/* Start this program as the helper for PID, its answer on *fd. */
static pid_t spawn_helper(pid_t pid, int *fd, int *pidfd)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	char target[24], parent[24];
	snprintf(target, sizeof(target), "%d", (int)pid);
	snprintf(parent, sizeof(parent), "%d", (int)getpid());
	char *argv[] = { (char *)"jostle", (char *)STACK_HELPER_ARG, target, parent, NULL };
	pid_t h;
	int e = spawn_self(argv, fds[1], &h, pidfd);
	close(fds[1]);
	if (e < 0) {
		close(fds[0]);
		return -1;
	}
	*fd = fds[0];
	return h;
}

static int libdw_capture(pid_t pid, struct stack_set *out, char *err, size_t errlen)
{
	int fd, pidfd;
	pid_t h = spawn_helper(pid, &fd, &pidfd);
	if (h < 0)
		return capture_here(pid, out, err, errlen);
	struct dbuf b;
	dbuf_init(&b, HELPER_MAX_BYTES);
	read_answer(fd, pidfd, &b);
	close(fd);
	/* Reap it through the pidfd: the series' own reaper may have taken it
	 * first (ECHILD), and its pid may not be waited on by number. */
	if (pidfd >= 0) {
		siginfo_t si;
		(void)pidfd_send_signal(pidfd, SIGKILL, NULL, 0);
		while (waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED) < 0 && errno == EINTR)
			;
		close(pidfd);
	} else {
		kill(h, SIGKILL);
		while (waitpid(h, NULL, 0) < 0 && errno == EINTR)
			;
	}
	int rc = b.len ? decode(&b, pid, out, err, errlen) : -EPERM;
	dbuf_release(&b);
	if (rc == -EPERM) {
		/* No answer, or Yama's ptrace_scope 1, which lets only an
		 * ancestor trace (the helper is the target's sibling): unwind
		 * here, as before. */
		err[0] = '\0';
		rc = capture_here(pid, out, err, errlen);
	}
	return rc;
}

int stack_from_core(const char *core, const char *exe, struct stack_set *out, pid_t *pid,
		    char *err, size_t errlen)
{
	elf_version(EV_CURRENT);
	int fd = open(core, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot open core '%s': %s", core, strerror(e));
		return -e;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Dwfl_Callbacks cb;
	Dwfl *dwfl = elf ? dwfl_begin(dwname_callbacks(&cb, dwfl_build_id_find_elf)) : NULL;
	int rc = -EIO;
	if (!elf || !dwfl) {
		snprintf(err, errlen, "'%s' is not an ELF file: %s", core, elf_errmsg(-1));
		goto out;
	}
	if (dwfl_core_file_report(dwfl, elf, exe) < 0 || dwfl_report_end(dwfl, NULL, NULL)) {
		snprintf(err, errlen, "'%s' is not a core file: %s", core, dwfl_errmsg(-1));
		goto out;
	}
	int p = dwfl_core_file_attach(dwfl, elf);
	if (p < 0) {
		snprintf(err, errlen, "no threads in core '%s': %s", core, dwfl_errmsg(-1));
		goto out;
	}
	*pid = p;
	struct walk w = { .dwfl = dwfl, .pid = p, .out = out };
	(void)dwfl_getthreads(dwfl, thread_cb, &w);
	rc = w.threads ? w.threads : -EIO;
	if (!w.threads)
		snprintf(err, errlen, "no thread of core '%s' could be unwound", core);
out:
	if (dwfl)
		dwfl_end(dwfl);
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

const struct stack_backend stack_backend_libdw = {
	.name = "libdw",
	.unavailable = libdw_unavailable,
	.capture = libdw_capture,
};
