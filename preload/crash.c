/*
 * crash.c: libjostle-crash.so, the crash handler `jostle run` preloads into
 * every run so that a plain crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGABRT) leaves the crashing thread's stack behind without a core file.
 *
 * Environment (read once, in the constructor; jostle sets them per run):
 *   JOSTLE_CRASH_DIR   folder for the records; without it nothing happens
 *   JOSTLE_RUN         the run's index: the record is DIR/RUN.PID.txt
 *
 * The record (docs/FORMAT.md; src/crashlog.h reads it):
 *   jostle-crash 2
 *   signal 11 SIGSEGV
 *   code 1
 *   addr 0x0
 *   pid 1234
 *   tid 1234
 *   arch x86_64
 *   pc 0x55d0c3a0114d          the interrupted pc
 *   reg 0 0x0                  the general registers, DWARF numbering
 *   ...
 *   stack 0x7ffd4a2c1e40 2496  that many raw bytes of the stack, then '\n'
 *   maps                       then a copy of /proc/self/maps, to the end
 * The handler does not unwind: jostle unwinds the stack copy offline with
 * libdwfl and the files named in the maps copy (crashlog.c). So the handler
 * needs no unwinder, no symbol tables, no malloc and no locks, and loading
 * the library costs a process nothing beyond mapping it (backtrace(), used
 * before, made the constructor load libgcc_s: 0.3 ms per process start).
 * On an architecture whose registers this file does not know, it falls back
 * to that: backtrace()'s return addresses as "pc" lines (record version 1).
 *
 * Rules this file keeps, because it runs inside programs it knows nothing of:
 *   - a handler is installed only where the disposition is SIG_DFL: a
 *     handler the program (or its sanitizer runtime) installed first is left
 *     alone, and one it installs later simply replaces ours;
 *   - the handler is async-signal-safe: open/read/write/close and a few
 *     other system calls, nothing to stdout or stderr; the stack is copied
 *     by write(2) straight from memory, so a page that cannot be read ends
 *     the copy with EFAULT instead of a second fault;
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
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
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
#include <dlfcn.h>
#include <execinfo.h>
#define MAX_PCS 64
static int (*g_backtrace)(void **, int);
#endif

#define ALTSTACK_SIZE (64 * 1024)
#define STACK_COPY_MAX (64 * 1024)  /* enough for 64 frames of most programs */
#define STACK_GAP_MAX (64 * 1024)   /* sp below its mapping: an overflow's frame */

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

static char g_prefix[4096];        /* "DIR/RUN." */
static size_t g_prefix_len;
static int g_busy;                 /* one record per process, first signal wins */
static char g_altstack[ALTSTACK_SIZE] __attribute__((aligned(16)));

/* ---- output without stdio ---- */

struct out {
	int fd;
	size_t n;
	char buf[1024];
};

static void out_flush(struct out *o)
{
	size_t off = 0;
	while (off < o->n) {
		ssize_t w = write(o->fd, o->buf + off, o->n - off);
		if (w <= 0)
			break;   /* EINTR cannot happen: we block nothing else; give up on errors */
		off += (size_t)w;
	}
	o->n = 0;
}

static void out_str(struct out *o, const char *s)
{
	for (; *s; s++) {
		if (o->n == sizeof(o->buf))
			out_flush(o);
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

#ifndef CRASH_BACKTRACE

/* ---- the stack copy ---- */

struct span {
	uintptr_t from, end;       /* [from, end): copied; end 0: nothing found */
	uintptr_t above, above_end;   /* the nearest mapping above from, if none holds it */
	uintptr_t limit;           /* not 0: end at most here (an alternate stack's top) */
};

/* One line of /proc/self/maps, "start-end perms ...", against the spans. */
static void span_match(struct span *s, int n, const char *line)
{
	uintptr_t v[2] = { 0, 0 };
	int k = 0;
	const char *p = line;
	for (; *p && k < 2; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
		if (d >= 0)
			v[k] = v[k] << 4 | (uintptr_t)d;
		else if (*p == (k ? ' ' : '-'))
			k++;
		else
			return;
	}
	if (k != 2 || *p != 'r')    /* an unreadable mapping is never copied */
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
static void span_bound(struct span *s, int n)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char buf[1024], line[64];
	size_t len = 0;
	ssize_t r;
	while ((r = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < r; i++) {
			if (buf[i] != '\n') {
				if (len < sizeof(line) - 1)
					line[len++] = buf[i];
				continue;
			}
			line[len] = '\0';
			span_match(s, n, line);
			len = 0;
		}
	}
	close(fd);
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

/* Whether the interrupted code ran on this thread's alternate signal stack. */
static bool on_altstack(const ucontext_t *uc, stack_t *alt)
{
	uintptr_t sp = context_sp(uc);
	return sigaltstack(NULL, alt) == 0 && !(alt->ss_flags & SS_DISABLE) &&
	       sp >= (uintptr_t)alt->ss_sp && sp - (uintptr_t)alt->ss_sp < alt->ss_size;
}

/* LEN bytes from FROM into the file; what cannot be read (EFAULT) as
 * zeros, so that the length the record announced holds. write(2) through
 * syscall(): a sanitizer's write interceptor would check the bytes. */
static void copy_raw(int fd, uintptr_t from, size_t len)
{
	static const char zeros[512];
	size_t off = 0;
	while (off < len) {
		long w = syscall(SYS_write, fd, (const void *)(from + off), len - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	while (off < len) {
		size_t k = len - off < sizeof(zeros) ? len - off : sizeof(zeros);
		long w = syscall(SYS_write, fd, zeros, k);
		if (w <= 0)
			return;   /* the disk is full: the reader takes a cut-short record */
		off += (size_t)w;
	}
}

static void write_context(struct out *o, const ucontext_t *uc)
{
	if (!uc)
		return;
	out_str(o, "arch " CRASH_ARCH "\n");
	out_line_hex(o, "pc ", context_pc(uc));
	for (int i = 0; i < NREGS; i++) {
		out_str(o, "reg ");
		out_dec(o, i);
		out_line_hex(o, " ", context_reg(uc, i));
	}
	struct span s[2];
	memset(s, 0, sizeof(s));
	int n = 0;
	s[n++].from = context_sp(uc);
	stack_t alt;
	if (on_altstack(uc, &alt)) {
		s[0].limit = (uintptr_t)alt.ss_sp + alt.ss_size;
		uintptr_t osp = chained_sp(uc, &alt);
		if (osp)
			s[n++].from = osp;
	}
	span_bound(s, n);
	for (int i = 0; i < n; i++) {
		if (s[i].end <= s[i].from)
			continue;
		out_str(o, "stack ");
		out_hex(o, s[i].from);
		out_str(o, " ");
		out_dec(o, (long long)(s[i].end - s[i].from));
		out_str(o, "\n");
		out_flush(o);
		copy_raw(o->fd, s[i].from, s[i].end - s[i].from);
		out_str(o, "\n");
	}
}

#else

/* The interrupted pc, so that the faulting function is frame 0, then the
 * return addresses backtrace() finds from there on. */
static void write_context(struct out *o, const ucontext_t *uc)
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

static void write_record(int sig, const siginfo_t *si, const ucontext_t *uc)
{
	pid_t pid = getpid();
	char path[sizeof(g_prefix) + 32];
	memcpy(path, g_prefix, g_prefix_len);
	struct out o = { .fd = -1 };
	/* the pid into path, through the buffer's digits */
	o.n = 0;
	out_dec(&o, pid);
	out_str(&o, ".txt");
	if (g_prefix_len + o.n >= sizeof(path))
		return;
	memcpy(path + g_prefix_len, o.buf, o.n);
	path[g_prefix_len + o.n] = '\0';
	o.n = 0;
	o.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o.fd < 0)
		return;

#ifdef CRASH_BACKTRACE
	out_str(&o, "jostle-crash 1\nsignal ");
#else
	out_str(&o, "jostle-crash 2\nsignal ");
#endif
	out_dec(&o, sig);
	out_str(&o, " ");
	out_str(&o, sig_name(sig));
	out_str(&o, "\ncode ");
	out_dec(&o, si ? si->si_code : 0);
	out_str(&o, "\naddr ");
	out_hex(&o, si ? (uintptr_t)si->si_addr : 0);
	out_str(&o, "\npid ");
	out_dec(&o, pid);
	out_str(&o, "\ntid ");
	out_dec(&o, (long long)syscall(SYS_gettid));
	out_str(&o, "\n");
	write_context(&o, uc);
	out_str(&o, "maps\n");
	out_flush(&o);

	int mfd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (mfd >= 0) {
		ssize_t r;
		while ((r = read(mfd, o.buf, sizeof(o.buf))) > 0) {
			o.n = (size_t)r;
			out_flush(&o);
		}
		close(mfd);
	}
	close(o.fd);
}

static void on_crash(int sig, siginfo_t *si, void *ctx)
{
	int saved = errno;
	if (!__atomic_exchange_n(&g_busy, 1, __ATOMIC_SEQ_CST))
		write_record(sig, si, ctx);
	/* SA_RESETHAND made the action SIG_DFL already; make sure, then send the
	 * signal again to this thread: it is blocked until we return, and then
	 * ends the process as it would have without us. */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
	errno = saved;
}

__attribute__((constructor))
static void crash_init(void)
{
	const char *dir = getenv("JOSTLE_CRASH_DIR");
	const char *run = getenv("JOSTLE_RUN");
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
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++) {
		struct sigaction cur;
		if (sigaction(crash_signals[i], NULL, &cur) < 0)
			continue;
		if ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL)
			continue;
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_crash;
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
		sigemptyset(&sa.sa_mask);
		sigaction(crash_signals[i], &sa, NULL);
	}
}
