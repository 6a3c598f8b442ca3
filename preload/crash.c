/*
 * crash.c: libjostle-crash.so, the crash handler `jostle run` preloads into
 * every run so that a plain crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGABRT) leaves the crashing thread's stack behind without a core file.
 *
 * Environment (read once, in the constructor; jostle sets them per run):
 *   JOSTLE_CRASH_DIR   folder for the records; without it nothing happens
 *   JOSTLE_RUN         the run's index: the record is DIR/RUN.PID.txt
 *
 * The record (src/crashlog.h parses it; one small text file):
 *   jostle-crash 1
 *   signal 11 SIGSEGV
 *   code 1
 *   addr 0x0
 *   pid 1234
 *   tid 1234
 *   pc 0x55d0c3a0114d          one line per frame, the faulting pc first,
 *   pc 0x55d0c3a01190          then the return addresses of its callers
 *   maps                       then a copy of /proc/self/maps, to the end
 *   55d0c3a00000-55d0c3a01000 r--p 00000000 08:01 1234 /path/to/exe
 *   ...
 * jostle symbolizes the pcs offline from the maps copy (crashlog.c), so the
 * handler needs no symbol tables, no malloc and no locks.
 *
 * Rules this file keeps, because it runs inside programs it knows nothing of:
 *   - a handler is installed only where the disposition is SIG_DFL: a
 *     handler the program (or its sanitizer runtime) installed first is left
 *     alone, and one it installs later simply replaces ours;
 *   - the handler is async-signal-safe apart from backtrace(), whose one
 *     unsafe step (loading libgcc_s) is done in the constructor; it writes
 *     with open/write only, nothing to stdout or stderr;
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
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#define MAX_PCS 64
#define ALTSTACK_SIZE (64 * 1024)

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

static char g_prefix[4096];        /* "DIR/RUN." */
static size_t g_prefix_len;
static int (*g_backtrace)(void **, int);
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

/* The interrupted pc, so that the faulting function is frame 0. */
static uintptr_t context_pc(const void *ctx)
{
	const ucontext_t *uc = ctx;
	if (!uc)
		return 0;
#if defined(__x86_64__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__i386__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_EIP];
#elif defined(__aarch64__)
	return (uintptr_t)uc->uc_mcontext.pc;
#else
	return 0;
#endif
}

static void write_record(int sig, const siginfo_t *si, const void *ctx)
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

	void *bt[MAX_PCS];
	int n = g_backtrace ? g_backtrace(bt, MAX_PCS) : 0;
	uintptr_t pc = context_pc(ctx);
	/* bt holds this handler, the kernel's signal trampoline, then the
	 * interrupted frame (whose pc is the context's): start there. */
	int first = -1;
	for (int i = 0; pc && i < n && first < 0; i++)
		if ((uintptr_t)bt[i] == pc)
			first = i + 1;
	if (first < 0)
		first = n > 2 ? 2 : n;   /* no unwind info at pc: skip handler and trampoline */

	out_str(&o, "jostle-crash 1\nsignal ");
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
	if (pc) {
		out_str(&o, "pc ");
		out_hex(&o, pc);
		out_str(&o, "\n");
	}
	for (int i = first; i < n; i++) {
		out_str(&o, "pc ");
		out_hex(&o, (uintptr_t)bt[i]);
		out_str(&o, "\n");
	}
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

	/* glibc's backtrace itself, not a sanitizer's interceptor of it (which
	 * allocates); the first call loads libgcc_s, so make it here. */
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	if (libc)
		g_backtrace = (int (*)(void **, int))dlsym(libc, "backtrace");
	if (!g_backtrace)
		g_backtrace = backtrace;
	void *warm[4];
	(void)g_backtrace(warm, 4);

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
