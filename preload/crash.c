/*
 * crash.c: libjostle-crash.so, the crash handler `jostle run` preloads into
 * every run so that a plain crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGABRT) leaves the crashing thread's stack behind without a core file.
 *
 * Environment (read once, in the constructor; jostle sets them per run):
 *   JOSTLE_CRASH_DIR   folder for the records; without it nothing happens
 *   JOSTLE_RUN         the run's index: the record is DIR/RUN.PID.txt
 *   JOSTLE_PID         jostle's pid: a signal it sent (the SIGABRT that makes
 *                      Python's faulthandler print) is not a crash
 * and jostle, before it sends a process that SIGABRT, creates DIR/PID.sent:
 * a handler of the program's that passes the signal on (faulthandler does,
 * with raise()) hides who sent it, so the mark says it.
 *
 * The record (docs/FORMAT.md; src/diagnose/crashlog.h reads it):
 *   jostle-crash 3
 *   signal 11 SIGSEGV
 *   code 1
 *   addr 0x0
 *   pid 1234
 *   tid 1234
 *   arch x86_64
 *   pc 0x55d0c3a0114d          the interrupted pc
 *   reg 0 0x0                  the general registers, DWARF numbering
 *   ...                        (the file gets its name only now: never empty)
 *   maps                       the named lines of /proc/self/maps
 *   ...
 *   stack 0x7ffd4a2c1e40 2496  that many raw bytes of the stack, then '\n'
 *   hole 0x7ffd4a2c2000 512    bytes of that copy that could not be read
 *   also 1236 11 0x55d0c3a0114d 0x0   another thread that crashed meanwhile
 *   end                        the record is complete
 * The handler does not unwind: jostle unwinds the stack copy offline with
 * libdwfl and the files named in the maps copy (crashlog.c). So the handler
 * needs no unwinder, no symbol tables, no malloc and no locks.
 *
 * The worst timing is the common one for the bugs jostle hunts: several
 * threads crash at once, a thread crashes while the process exits (main
 * returned and exit_group() is about to end every thread), or the process
 * is killed from outside. So:
 *   - one record per process: the first crashing thread owns it; a thread
 *     that crashes later adds an "also" line when it can and waits for the
 *     first to end the process (bounded), so the disposition stays ours
 *     until then (no SA_RESETHAND: with it a second thread died of the
 *     default action at once and cut the record short, often empty);
 *   - the record is written by a writer process, clone(CLONE_VM): it shares
 *     the crashed process's memory, so it reads the same stack and maps, but
 *     it is not one of its threads, so an exit_group(), a SIGKILL of the
 *     pid or the death of the crashing thread does not stop it. The
 *     crashing thread copies its registers and signal state to static
 *     memory, starts the writer and ends the process right away (on a
 *     kernel older than 5.16, whose core dump kills every process sharing
 *     the memory, it waits for the writer first, bounded). jostle waits for
 *     what a run left behind, the writer included, before reading;
 *   - the file is created unnamed (O_TMPFILE) and linked under its name
 *     once the header is in it; its last line is "end", so a reader tells
 *     a complete record from one cut short;
 *   - where clone() fails, the crashing thread writes the record itself.
 * On an architecture whose registers this file does not know, it falls back
 * to backtrace()'s return addresses as "pc" lines (record version 1),
 * written by the crashing thread.
 *
 * Rules this file keeps, because it runs inside programs it knows nothing of:
 *   - a handler is installed only where the disposition is SIG_DFL: a
 *     handler the program (or its sanitizer runtime) installed first is left
 *     alone, and one it installs later simply replaces ours;
 *   - the handler is async-signal-safe: system calls only, nothing to
 *     stdout or stderr; the stack is copied by write(2) straight from
 *     memory, so a page that cannot be read ends the copy with EFAULT
 *     instead of a second fault;
 *   - the exit status does not change: the handler restores SIG_DFL and
 *     sends the signal again to the same thread before it returns, so the
 *     process dies of the same signal, with or without a core as the limits
 *     say; a fault that would not recur (the page was mapped meanwhile) does
 *     not let the program go on;
 *   - a sigaltstack for the thread that loads the library (the main thread,
 *     and the forking thread in a child), so that a stack overflow there is
 *     recorded too; other threads keep their default behaviour on overflow;
 *   - after fork the child writes its own record (its pid in the name);
 *     after exec the library is loaded again through LD_PRELOAD.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

/* The registers of the interrupted context, in DWARF numbering (what
 * libdwfl's dwfl_thread_state_registers takes), and its sp. */
#if defined(__x86_64__)
#define CRASH_ARCH "x86_64"
static const int dwarf_greg[] = {   /* DWARF 0-15: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 */
	REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI, REG_RBP, REG_RSP,
	REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
};
#define NREGS 16
static uintptr_t context_reg(const ucontext_t *uc, int i) { return (uintptr_t)uc->uc_mcontext.gregs[dwarf_greg[i]]; }
static uintptr_t context_pc(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP]; }
static uintptr_t context_sp(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP]; }
#elif defined(__aarch64__)
#define CRASH_ARCH "aarch64"
#define NREGS 32                    /* DWARF 0-30: x0-x30, 31: sp */
static uintptr_t context_reg(const ucontext_t *uc, int i)
{
	return i < 31 ? (uintptr_t)uc->uc_mcontext.regs[i] : (uintptr_t)uc->uc_mcontext.sp;
}
static uintptr_t context_pc(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.pc; }
static uintptr_t context_sp(const ucontext_t *uc) { return (uintptr_t)uc->uc_mcontext.sp; }
#else
#define CRASH_BACKTRACE 1           /* registers unknown here: backtrace() */
#define NREGS 1
#include <dlfcn.h>
#include <execinfo.h>
#define MAX_PCS 64
static int (*g_backtrace)(void **, int);
static uintptr_t context_sp(const ucontext_t *uc) { (void)uc; return 0; }
#endif

#define ALTSTACK_SIZE (64 * 1024)
#define WRITER_STACK_SIZE (64 * 1024)
#define STACK_COPY_MAX (64 * 1024)  /* enough for 64 frames of most programs */
#define STACK_GAP_MAX (64 * 1024)   /* sp below its mapping: an overflow's frame */
#define MAX_NOTES 16                /* "also" lines: other threads that crashed */
#define FIRST_WAIT_NS (10LL * 1000000000)   /* the crashing thread for its writer (old kernels) */
#define OTHER_WAIT_NS (30LL * 1000000000)   /* a later crashing thread for the first */

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define NSIGNALS (sizeof(crash_signals) / sizeof(crash_signals[0]))

/* A part of the crashing thread's stack to copy. */
struct span {
	uintptr_t from, end;       /* [from, end): copied; end 0: nothing found */
	uintptr_t above, above_end;   /* the nearest mapping above from, if none holds it */
	uintptr_t limit;           /* not 0: end at most here (an alternate stack's top) */
};

/* What the first crashing thread saw, copied before the writer starts
 * (the writer may run after that thread is gone). */
struct crash_state {
	int sig, code;
	uintptr_t addr;
	pid_t pid, tid;
	bool regs;                 /* pc and reg are known */
	uintptr_t pc, reg[NREGS];
	struct span span[2];
	int nspan;
};

struct note {
	pid_t tid;
	int sig;
	uintptr_t pc, addr;
};

static char g_prefix[4096];        /* "DIR/RUN." */
static size_t g_prefix_len;
static size_t g_dir_len;           /* of "DIR/" */
static pid_t g_jostle_pid;         /* JOSTLE_PID, 0 when unknown */
static bool g_wait_writer;         /* a core dump would kill the writer (kernel < 5.16) */
static int g_taken;                /* one record per process, first crashing thread wins */
static struct crash_state g_crash;
static struct note g_note[MAX_NOTES];
static int g_note_ready[MAX_NOTES];
static int g_nnote;                /* slots claimed (may pass MAX_NOTES) */
static pid_t g_writer;             /* the writer's tid while it runs; the kernel clears it */
static char g_altstack[ALTSTACK_SIZE] __attribute__((aligned(16)));
static char g_writer_stack[WRITER_STACK_SIZE] __attribute__((aligned(16)));

/* ---- output without stdio ---- */

struct out {
	int fd;                    /* < 0: keep in buf only (the record's head) */
	size_t n;
	char buf[2048];
};

/* write(2) through syscall(): a sanitizer's write interceptor would check
 * the bytes, and the writer shares the crashed thread's TLS. */
static long sys_write(int fd, const void *p, size_t n)
{
	return syscall(SYS_write, fd, p, n);
}

static void out_flush(struct out *o)
{
	size_t off = 0;
	if (o->fd < 0)
		return;
	while (off < o->n) {
		long w = sys_write(o->fd, o->buf + off, o->n - off);
		if (w <= 0)
			break;   /* EINTR cannot happen: signals are blocked; give up on errors */
		off += (size_t)w;
	}
	o->n = 0;
}

static void out_str(struct out *o, const char *s)
{
	for (; *s; s++) {
		if (o->n == sizeof(o->buf))
			out_flush(o);
		if (o->n < sizeof(o->buf))
			o->buf[o->n++] = *s;
	}
}

static void out_dec(struct out *o, long long v)
{
	char b[24];
	int i = (int)sizeof(b) - 1;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	b[i] = '\0';
	do
		b[--i] = (char)('0' + u % 10);
	while ((u /= 10) && i > 1);
	if (v < 0)
		b[--i] = '-';
	out_str(o, b + i);
}

static void out_hex(struct out *o, uintptr_t v)
{
	char b[2 + 2 * sizeof(v) + 1];
	int i = (int)sizeof(b) - 1;
	b[i] = '\0';
	do
		b[--i] = "0123456789abcdef"[v & 15];
	while ((v >>= 4) && i > 2);
	b[--i] = 'x';
	b[--i] = '0';
	out_str(o, b + i);
}

static void out_line_hex(struct out *o, const char *name, uintptr_t v)
{
	out_str(o, name);
	out_hex(o, v);
	out_str(o, "\n");
}

static const char *sig_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGABRT: return "SIGABRT";
	}
	return "SIG?";
}

static pid_t gettid_raw(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Sleep on *word while it holds val, until deadline (monotonic ns). */
static void futex_wait_until(int *word, int val, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline - now_ns();
		if (left <= 0 || __atomic_load_n(word, __ATOMIC_SEQ_CST) != val)
			return;
		struct timespec ts = { .tv_sec = left / 1000000000, .tv_nsec = left % 1000000000 };
		syscall(SYS_futex, word, FUTEX_WAIT, val, &ts, NULL, 0);
	}
}

/* ---- where the stack is ---- */

/* The first two fields of a /proc/self/maps line ("start-end perms ...");
 * false when the line does not start that way. */
static bool map_range(const char *line, uintptr_t v[2], const char **rest)
{
	int k = 0;
	const char *p = line;
	v[0] = v[1] = 0;
	for (; *p && k < 2; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
		if (d >= 0)
			v[k] = v[k] << 4 | (uintptr_t)d;
		else if (*p == (k ? ' ' : '-'))
			k++;
		else
			return false;
	}
	*rest = p;
	return k == 2;
}

/* One line of /proc/self/maps against the spans. */
static void span_match(struct span *s, int n, const char *line)
{
	uintptr_t v[2];
	const char *p;
	if (!map_range(line, v, &p) || *p != 'r')    /* an unreadable mapping is never copied */
		return;
	for (int i = 0; i < n; i++) {
		if (s[i].from >= v[0] && s[i].from < v[1])
			s[i].end = v[1];
		else if (v[0] > s[i].from && v[0] - s[i].from <= STACK_GAP_MAX &&
			 (!s[i].above || v[0] < s[i].above)) {
			s[i].above = v[0];
			s[i].above_end = v[1];
		}
	}
}

/* Bound each span by the readable mapping that holds its start (or, for an
 * sp pushed below its stack by an overflow, the one just above it). */
static void span_finish(struct span *s, int n)
{
	for (int i = 0; i < n; i++) {
		if (!s[i].end && s[i].above) {
			s[i].from = s[i].above;
			s[i].end = s[i].above_end;
		}
		if (s[i].limit && s[i].end > s[i].limit)
			s[i].end = s[i].limit;
		if (s[i].end <= s[i].from)
			s[i].end = 0;
		else if (s[i].end - s[i].from > STACK_COPY_MAX)
			s[i].end = s[i].from + STACK_COPY_MAX;
	}
}

/* Whether a /proc/self/maps line names a file or a region ([vdso], ...):
 * six fields. Anonymous memory is left out of the copy: the unwinder finds
 * stack bytes in the stack copies, code in the files. */
static bool map_named(const char *line)
{
	int fields = 0;
	bool in = false;
	for (const char *p = line; *p; p++) {
		if (*p == ' ') {
			in = false;
		} else if (!in) {
			in = true;
			if (++fields == 6)
				return true;
		}
	}
	return false;
}

/* One pass over /proc/self/maps: the spans bounded, and (when o is not
 * NULL) the named lines into the record. */
static void maps_pass(struct out *o, struct span *s, int n)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char buf[2048], line[4096 + 256];
	size_t len = 0;
	long r;
	while ((r = syscall(SYS_read, fd, buf, sizeof(buf))) > 0) {
		for (long i = 0; i < r; i++) {
			if (buf[i] != '\n') {
				if (len < sizeof(line) - 1)
					line[len++] = buf[i];
				continue;
			}
			line[len] = '\0';
			span_match(s, n, line);
			if (o && map_named(line)) {
				out_str(o, line);
				out_str(o, "\n");
			}
			len = 0;
		}
	}
	close(fd);
	span_finish(s, n);
}

#ifndef CRASH_BACKTRACE

/*
 * A handler of the program's that ran on an alternate signal stack and
 * passed the signal on to ours (Python's faulthandler does): the stack we
 * were called from is that alternate stack, and the crashing code's stack
 * is elsewhere. The signal that switched to the alternate stack put its
 * frame at the top, and its ucontext names this alternate stack in
 * uc_stack: the highest such ucontext holds the crashing code's sp.
 */
static uintptr_t chained_sp(const ucontext_t *uc, const stack_t *alt)
{
	uintptr_t lo = (uintptr_t)alt->ss_sp, hi = lo + alt->ss_size, sp = context_sp(uc);
	/* [sp, hi) is the program handler's stack in use: mapped */
	size_t at = offsetof(ucontext_t, uc_stack);
	for (uintptr_t p = (hi - sizeof(ucontext_t)) & ~(uintptr_t)7; p >= sp; p -= 8) {
		const ucontext_t *o = (const ucontext_t *)p;
		const stack_t *st = (const stack_t *)(p + at);
		if (st->ss_sp != alt->ss_sp || st->ss_size != alt->ss_size)
			continue;
		uintptr_t osp = context_sp(o);
		if (osp < lo || osp >= hi)
			return osp;
	}
	return 0;
}

#endif

/* Whether the interrupted code ran on this thread's alternate signal stack. */
static bool on_altstack(const ucontext_t *uc, stack_t *alt)
{
	uintptr_t sp = context_sp(uc);
	return uc && sigaltstack(NULL, alt) == 0 && !(alt->ss_flags & SS_DISABLE) &&
	       sp >= (uintptr_t)alt->ss_sp && sp - (uintptr_t)alt->ss_sp < alt->ss_size;
}

/*
 * Whether jostle sent this signal: not a crash. Sent to us directly, the
 * siginfo says so (kill(2), SI_USER, from JOSTLE_PID). Passed on by a
 * handler of the program's (faulthandler raises it again; without
 * SA_SIGINFO the kernel does not even keep the original siginfo), only
 * jostle's mark DIR/PID.sent does; it is removed here.
 */
static bool sent_by_jostle(const siginfo_t *si)
{
	if (g_jostle_pid && si && si->si_code == SI_USER && si->si_pid == g_jostle_pid)
		return true;
	char path[sizeof(g_prefix) + 32];
	struct out o = { .fd = -1 };
	out_dec(&o, getpid());
	out_str(&o, ".sent");
	if (g_dir_len + o.n >= sizeof(path))
		return false;
	memcpy(path, g_prefix, g_dir_len);
	memcpy(path + g_dir_len, o.buf, o.n);
	path[g_dir_len + o.n] = '\0';
	return unlink(path) == 0;
}

/* ---- the record ---- */

/* LEN bytes from FROM into the file; what cannot be read (EFAULT) as
 * zeros, so that the length the record announced holds. Returns how many
 * bytes were really copied. */
static size_t copy_raw(int fd, uintptr_t from, size_t len)
{
	static const char zeros[512];
	size_t off = 0, copied;
	while (off < len) {
		long w = sys_write(fd, (const void *)(from + off), len - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	copied = off;
	while (off < len) {
		size_t k = len - off < sizeof(zeros) ? len - off : sizeof(zeros);
		long w = sys_write(fd, zeros, k);
		if (w <= 0)
			break;   /* the disk is full: the reader takes a cut-short record */
		off += (size_t)w;
	}
	return copied;
}

static void write_head(struct out *o, const struct crash_state *c)
{
#ifdef CRASH_BACKTRACE
	out_str(o, "jostle-crash 1\nsignal ");
#else
	out_str(o, "jostle-crash 3\nsignal ");
#endif
	out_dec(o, c->sig);
	out_str(o, " ");
	out_str(o, sig_name(c->sig));
	out_str(o, "\ncode ");
	out_dec(o, c->code);
	out_str(o, "\naddr ");
	out_hex(o, c->addr);
	out_str(o, "\npid ");
	out_dec(o, c->pid);
	out_str(o, "\ntid ");
	out_dec(o, c->tid);
	out_str(o, "\n");
#ifndef CRASH_BACKTRACE
	if (!c->regs)
		return;
	out_str(o, "arch " CRASH_ARCH "\n");
	out_line_hex(o, "pc ", c->pc);
	for (int i = 0; i < NREGS; i++) {
		out_str(o, "reg ");
		out_dec(o, i);
		out_line_hex(o, " ", c->reg[i]);
	}
#endif
}

/*
 * The record file, with HEAD already in it: created unnamed and linked
 * under PATH once it holds the head, so that no reader ever finds it
 * empty. Where O_TMPFILE or /proc is missing, created under its name.
 */
static int record_create(const char *dir, const char *path, const struct out *head)
{
	int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (fd >= 0) {
		char proc[64];
		struct out p = { .fd = -1 };
		out_str(&p, "/proc/self/fd/");
		out_dec(&p, fd);
		p.buf[p.n] = '\0';
		memcpy(proc, p.buf, p.n + 1);
		if (sys_write(fd, head->buf, head->n) == (long)head->n) {
			unlink(path);   /* an earlier record of the same name (a replay) */
			if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0)
				return fd;
		}
		close(fd);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0 && sys_write(fd, head->buf, head->n) != (long)head->n) {
		close(fd);
		return -1;
	}
	return fd;
}

#ifdef CRASH_BACKTRACE
/* The interrupted pc, so that the faulting function is frame 0, then the
 * return addresses backtrace() finds from there on (in the crashing thread). */
static void write_pcs(struct out *o, const ucontext_t *uc)
{
	uintptr_t pc = 0;
#if defined(__i386__)
	pc = uc ? (uintptr_t)uc->uc_mcontext.gregs[REG_EIP] : 0;
#else
	(void)uc;
#endif
	void *bt[MAX_PCS];
	int n = g_backtrace ? g_backtrace(bt, MAX_PCS) : 0;
	/* bt holds this handler, the kernel's signal trampoline, then the
	 * interrupted frame (whose pc is the context's): start there. */
	int first = -1;
	for (int i = 0; pc && i < n && first < 0; i++)
		if ((uintptr_t)bt[i] == pc)
			first = i + 1;
	if (first < 0)
		first = n > 2 ? 2 : n;   /* no unwind info at pc: skip handler and trampoline */
	if (pc)
		out_line_hex(o, "pc ", pc);
	for (int i = first; i < n; i++)
		out_line_hex(o, "pc ", (uintptr_t)bt[i]);
}
#endif

/* The record of c, with the notes of other crashing threads. uc is the
 * crashing thread's context when the crashing thread writes it (backtrace()
 * needs to run there), else NULL. */
static void write_record(const struct crash_state *c, const ucontext_t *uc)
{
	char path[sizeof(g_prefix) + 32], dir[sizeof(g_prefix)];
	struct out o = { .fd = -1 };
	out_dec(&o, c->pid);
	out_str(&o, ".txt");
	if (g_prefix_len + o.n >= sizeof(path))
		return;
	memcpy(path, g_prefix, g_prefix_len);
	memcpy(path + g_prefix_len, o.buf, o.n);
	path[g_prefix_len + o.n] = '\0';
	memcpy(dir, g_prefix, g_dir_len - 1);
	dir[g_dir_len - 1] = '\0';

	o.n = 0;
	write_head(&o, c);
#ifdef CRASH_BACKTRACE
	write_pcs(&o, uc);
#else
	(void)uc;
#endif
	o.fd = record_create(dir[0] ? dir : "/", path, &o);
	if (o.fd < 0)
		return;
	o.n = 0;

	struct span s[2];
	memcpy(s, c->span, sizeof(s));
	out_str(&o, "maps\n");
	maps_pass(&o, s, c->nspan);
	for (int i = 0; i < c->nspan; i++) {
		out_str(&o, "stack ");
		out_hex(&o, s[i].end ? s[i].from : c->span[i].from);
		out_str(&o, " ");
		out_dec(&o, s[i].end ? (long long)(s[i].end - s[i].from) : 0);
		out_str(&o, "\n");
		out_flush(&o);
		size_t len = s[i].end ? s[i].end - s[i].from : 0;
		size_t got = len ? copy_raw(o.fd, s[i].from, len) : 0;
		out_str(&o, "\n");
		if (got < len) {   /* unmapped meanwhile: the rest of the copy is zeros */
			out_str(&o, "hole ");
			out_hex(&o, s[i].from + got);
			out_str(&o, " ");
			out_dec(&o, (long long)(len - got));
			out_str(&o, "\n");
		}
	}
	int nn = __atomic_load_n(&g_nnote, __ATOMIC_SEQ_CST);
	for (int i = 0; i < nn && i < MAX_NOTES; i++) {
		if (!__atomic_load_n(&g_note_ready[i], __ATOMIC_ACQUIRE))
			continue;
		out_str(&o, "also ");
		out_dec(&o, g_note[i].tid);
		out_str(&o, " ");
		out_dec(&o, g_note[i].sig);
		out_str(&o, " ");
		out_hex(&o, g_note[i].pc);
		out_str(&o, " ");
		out_hex(&o, g_note[i].addr);
		out_str(&o, "\n");
	}
	if (nn > MAX_NOTES) {
		out_str(&o, "also-more ");
		out_dec(&o, nn - MAX_NOTES);
		out_str(&o, "\n");
	}
	out_str(&o, "end\n");
	out_flush(&o);
	close(o.fd);
}

/* ---- the handler ---- */

static void capture(struct crash_state *c, int sig, const siginfo_t *si, const ucontext_t *uc)
{
	memset(c, 0, sizeof(*c));
	c->sig = sig;
	c->code = si ? si->si_code : 0;
	c->addr = si ? (uintptr_t)si->si_addr : 0;
	c->pid = getpid();
	c->tid = gettid_raw();
#ifndef CRASH_BACKTRACE
	if (!uc)
		return;
	c->regs = true;
	c->pc = context_pc(uc);
	for (int i = 0; i < NREGS; i++)
		c->reg[i] = context_reg(uc, i);
	c->span[c->nspan++].from = context_sp(uc);
	stack_t alt;
	if (on_altstack(uc, &alt)) {
		c->span[0].limit = (uintptr_t)alt.ss_sp + alt.ss_size;
		uintptr_t osp = chained_sp(uc, &alt);
		if (osp)
			c->span[c->nspan++].from = osp;
	}
#else
	(void)uc;
#endif
}

/* The writer (a process sharing our memory, see the top of the file). */
static int writer_main(void *arg)
{
	(void)arg;   /* every signal is blocked (record() saw to it) */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (size_t i = 0; i < NSIGNALS; i++)   /* its own table: not shared */
		sigaction(crash_signals[i], &dfl, NULL);
	write_record(&g_crash, NULL);
	return 0;
}

/* The first crashing thread: its state copied, the writer started. */
static void record(int sig, const siginfo_t *si, const ucontext_t *uc)
{
	capture(&g_crash, sig, si, uc);
#ifndef CRASH_BACKTRACE
	/* CLONE_PARENT_SETTID sets g_writer before clone() returns here;
	 * CLONE_CHILD_CLEARTID clears it (and wakes us) when the writer ends.
	 * Exit signal 0: no SIGCHLD for the program; jostle reaps with __WALL. */
	/* The writer starts with every signal blocked: jostle's SIGTERM to
	 * what a run left behind may come before its first instruction. */
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	int rc = clone(writer_main, g_writer_stack + sizeof(g_writer_stack),
		       CLONE_VM | CLONE_UNTRACED | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID,
		       NULL, &g_writer, NULL, &g_writer);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (rc > 0) {
		if (g_wait_writer)
			futex_wait_until(&g_writer, rc, now_ns() + FIRST_WAIT_NS);
		return;
	}
#endif
	write_record(&g_crash, uc);
}

/* A thread that crashed after the first: a note for the record, then wait
 * for the first to end the process. */
static void note_and_wait(int sig, const siginfo_t *si, const ucontext_t *uc)
{
	int i = __atomic_fetch_add(&g_nnote, 1, __ATOMIC_SEQ_CST);
	if (i < MAX_NOTES) {
		g_note[i].tid = gettid_raw();
		g_note[i].sig = sig;
		g_note[i].addr = si ? (uintptr_t)si->si_addr : 0;
#ifndef CRASH_BACKTRACE
		g_note[i].pc = uc ? context_pc(uc) : 0;
#else
		(void)uc;
#endif
		__atomic_store_n(&g_note_ready[i], 1, __ATOMIC_RELEASE);
	}
	futex_wait_until(&g_taken, 1, now_ns() + OTHER_WAIT_NS);
}

static void on_crash(int sig, siginfo_t *si, void *ctx)
{
	int saved = errno;
	const ucontext_t *uc = ctx;
	if (!sent_by_jostle(si)) {
		int idle = 0;
		if (__atomic_compare_exchange_n(&g_taken, &idle, 1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			record(sig, si, uc);
		else
			note_and_wait(sig, si, uc);
	}
	/* The default action, then the signal again to this thread: it is
	 * blocked until we return, and then ends the process as it would have
	 * without us. */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	syscall(SYS_tgkill, getpid(), gettid_raw(), sig);
	errno = saved;
}

/* Whether the kernel is older than MAJOR.MINOR. */
static bool kernel_before(int major, int minor)
{
	struct utsname u;
	if (uname(&u) < 0)
		return true;
	char *end;
	long a = strtol(u.release, &end, 10), b = *end == '.' ? strtol(end + 1, NULL, 10) : 0;
	return a < major || (a == major && b < minor);
}

__attribute__((constructor))
static void crash_init(void)
{
	const char *dir = getenv("JOSTLE_CRASH_DIR");
	const char *run = getenv("JOSTLE_RUN");
	const char *jpid = getenv("JOSTLE_PID");
	if (!dir || !*dir)
		return;
	if (!run || !*run)
		run = "x";
	size_t dl = strlen(dir), rl = strlen(run);
	if (dl + rl + 2 >= sizeof(g_prefix))
		return;
	memcpy(g_prefix, dir, dl);
	g_prefix[dl] = '/';
	memcpy(g_prefix + dl + 1, run, rl);
	g_prefix[dl + 1 + rl] = '.';
	g_prefix_len = dl + rl + 2;
	g_dir_len = dl + 1;
	g_jostle_pid = jpid ? (pid_t)strtol(jpid, NULL, 10) : 0;
	/* Before 5.16 a core dump killed every process sharing the dumping
	 * one's memory, the writer too (whether a core is written or not). */
	g_wait_writer = kernel_before(5, 16);

#ifdef CRASH_BACKTRACE
	/* glibc's backtrace itself, not a sanitizer's interceptor of it (which
	 * allocates); the first call loads libgcc_s, so make it here. */
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	if (libc)
		g_backtrace = (int (*)(void **, int))dlsym(libc, "backtrace");
	if (!g_backtrace)
		g_backtrace = backtrace;
	void *warm[4];
	(void)g_backtrace(warm, 4);
#endif

	stack_t old;
	if (sigaltstack(NULL, &old) == 0 && (old.ss_flags & SS_DISABLE)) {
		stack_t ss = { .ss_sp = g_altstack, .ss_size = sizeof(g_altstack), .ss_flags = 0 };
		sigaltstack(&ss, NULL);
	}
	for (size_t i = 0; i < NSIGNALS; i++) {
		struct sigaction cur;
		if (sigaction(crash_signals[i], NULL, &cur) < 0)
			continue;
		if ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL)
			continue;
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_crash;
		/* no SA_RESETHAND: a second crashing thread must come here too */
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
		sigemptyset(&sa.sa_mask);
		for (size_t k = 0; k < NSIGNALS; k++)
			sigaddset(&sa.sa_mask, crash_signals[k]);
		sigaction(crash_signals[i], &sa, NULL);
	}
}
