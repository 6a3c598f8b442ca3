/*
 * stall.c: a tree in which nothing can run again (see stall.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "diagnose/procfs.h"
#include "diagnose/stall.h"
#include "util/dbuf.h"
#include "util/fileio.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* A still tree is called stalled after this long at the least (s). */
#define STALL_MIN_S 0.3
/* ... and this many passing runs' wall time. */
#define STALL_REF_TIMES 3.0
/* A thread waits for a signal: another thread of the tree might still
 * send one in a way no look can see (a handler that posts). */
#define STALL_SIGNAL_MIN_S 1.0
#define STALL_SIGNAL_REF_TIMES 5.0
/* The kernel may wake it (an itimer, POSIX timers, SIGIO). */
#define STALL_WAKEABLE_MIN_S 2.0
#define STALL_WAKEABLE_REF_TIMES 10.0

/* linux/futex.h's flag that says which clock a wait's timeout is on (its
 * name is spelled out nowhere else: t820 keeps wall-clock reads in one file) */
#define FUTEX_CLOCK_FLAG 256

static bool futex_untimed(const uint64_t args[6])
{
	unsigned cmd = (unsigned)args[1] & ~(unsigned)(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_FLAG);
	bool waits = cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_LOCK_PI ||
		     cmd == FUTEX_WAIT_REQUEUE_PI;
#ifdef FUTEX_LOCK_PI2
	waits |= cmd == FUTEX_LOCK_PI2;
#endif
	return waits && args[3] == 0;   /* no timeout */
}

enum stall_wait stall_wait_of(char state, long nr, const uint64_t args[6])
{
	if (state != 'S' || nr < 0)
		return STALL_BUSY;
	if (nr == SYS_futex) {
		if (!futex_untimed(args))
			return STALL_BUSY;
		return args[1] & FUTEX_PRIVATE_FLAG ? STALL_UNTIMED : STALL_SHARED;
	}
	if (nr == SYS_wait4 || nr == SYS_waitid)
		return STALL_UNTIMED;   /* blocked: no WNOHANG; its children are in the tree */
#ifdef SYS_pause
	if (nr == SYS_pause)
		return STALL_SIGNAL;
#endif
	if (nr == SYS_rt_sigsuspend)
		return STALL_SIGNAL;
	if (nr == SYS_rt_sigtimedwait)
		return args[2] == 0 ? STALL_SIGNAL : STALL_BUSY;
	return STALL_BUSY;
}

bool stall_maps_shared(const char *maps, uint64_t addr)
{
	const char *p = maps;
	while (p && *p) {
		char *end;
		unsigned long long lo = strtoull(p, &end, 16);
		if (end == p || *end != '-')
			return true;
		const char *hi_at = end + 1;
		unsigned long long hi = strtoull(hi_at, &end, 16);
		if (end == hi_at || *end != ' ' || strlen(end) < 5)
			return true;
		if (addr >= lo && addr < hi)
			return end[4] != 'p';   /* " rw-p": private; 's': shared */
		p = strchr(end, '\n');
		p = p ? p + 1 : NULL;
	}
	return true;
}

bool stall_look_still(const struct stall_look *l)
{
	return l->complete && l->threads > 0 && l->waiting == l->threads;
}

bool stall_look_same(const struct stall_look *a, const struct stall_look *b)
{
	return stall_look_still(a) && stall_look_still(b) && a->threads == b->threads &&
	       a->cpu_ns == b->cpu_ns;
}

double stall_window_s(const struct stall_look *l, double ref_wall_s)
{
	double ref = ref_wall_s > 0 ? ref_wall_s : 0;
	if (l->wakeable) {
		if (ref <= 0)
			return -1;
		double w = STALL_WAKEABLE_REF_TIMES * ref;
		return w > STALL_WAKEABLE_MIN_S ? w : STALL_WAKEABLE_MIN_S;
	}
	if (l->signal_wait) {
		double w = STALL_SIGNAL_REF_TIMES * ref;
		return w > STALL_SIGNAL_MIN_S ? w : STALL_SIGNAL_MIN_S;
	}
	double w = STALL_REF_TIMES * ref;
	return w > STALL_MIN_S ? w : STALL_MIN_S;
}

/* Signals whose handler the kernel may run with no thread of the tree
 * doing anything: timers and asynchronous I/O. glibc's own (32, 33) are
 * sent by threads, never by a timer; realtime signals may be a POSIX
 * timer's. */
static bool catches_wakers(uint64_t caught)
{
	static const int sigs[] = { SIGALRM, SIGVTALRM, SIGPROF, SIGIO };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (caught & (1ull << (sigs[i] - 1)))
			return true;
	for (int sig = 34; sig <= 64; sig++)
		if (caught & (1ull << (sig - 1)))
			return true;
	return false;
}

struct walk {
	pid_t *todo;
	size_t nr, alloc, next;
};

static void walk_push(struct walk *w, pid_t pid)
{
	for (size_t i = 0; i < w->nr; i++)
		if (w->todo[i] == pid)
			return;
	ALLOC_GROW(w->todo, w->nr + 1, w->alloc);
	w->todo[w->nr++] = pid;
}

/* The process's maps, read once per look and only when a thread of it
 * waits on a futex not marked private. */
struct maps {
	struct dbuf text;
	bool read, ok;
};

static bool futex_shared(int pfd, struct maps *m, uint64_t addr)
{
	if (!m->read) {
		m->read = true;
		int fd = openat(pfd, "maps", O_RDONLY | O_CLOEXEC);
		m->ok = fd >= 0 && fileio_read_fd(fd, &m->text) == 0;
		if (fd >= 0)
			close(fd);
	}
	return !m->ok || stall_maps_shared(dbuf_str(&m->text), addr);
}

/* One thread: its wait, its CPU, its children. */
static void look_thread(int pfd, pid_t tid, struct maps *maps, struct walk *w,
			struct stall_look *l)
{
	char buf[512];
	int tfd = procfs_open_task(pfd, tid);
	if (tfd < 0)
		return;   /* gone: exited between the listing and now */
	struct procfs_stat st;
	if (procfs_read(tfd, "stat", buf, sizeof(buf)) <= 0 || procfs_parse_stat(buf, &st)) {
		close(tfd);
		return;
	}
	if (st.state == 'Z' || st.state == 'X') {
		close(tfd);
		return;
	}
	l->threads++;
	long nr = -1;
	uint64_t args[6] = { 0 };
	uint64_t ns = 0;
	bool read_all = procfs_read(tfd, "syscall", buf, sizeof(buf)) > 0 &&
			procfs_parse_syscall_args(buf, &nr, args) >= 0 &&
			procfs_read(tfd, "schedstat", buf, sizeof(buf)) > 0 &&
			procfs_parse_schedstat(buf, &ns) == 0;
	if (!read_all)
		l->complete = false;
	enum stall_wait wait = read_all ? stall_wait_of(st.state, nr, args) : STALL_BUSY;
	if (wait == STALL_SHARED)
		wait = futex_shared(pfd, maps, args[0]) ? STALL_BUSY : STALL_UNTIMED;
	if (wait != STALL_BUSY)
		l->waiting++;
	l->signal_wait |= wait == STALL_SIGNAL;
	l->cpu_ns += ns;
	char kids[4096];
	pid_t *pids = NULL;
	size_t n = 0, alloc = 0;
	if (procfs_read(tfd, "children", kids, sizeof(kids)) >= 0 &&
	    procfs_parse_pids(kids, &pids, &n, &alloc) >= 0)
		for (size_t i = 0; i < n; i++)
			walk_push(w, pids[i]);
	else
		l->complete = false;   /* no children file: the tree cannot be seen whole */
	free(pids);
	close(tfd);
}

/* One process: its signal handlers and timers, then every thread. */
static bool look_process(pid_t pid, struct walk *w, struct stall_look *l)
{
	char buf[4096];
	int pfd = procfs_open(pid);
	if (pfd < 0)
		return false;
	struct procfs_status status;
	if (procfs_read(pfd, "status", buf, sizeof(buf)) > 0 && !procfs_parse_status(buf, &status))
		l->wakeable |= catches_wakers(status.sig_caught);
	else
		l->complete = false;
	if (procfs_read(pfd, "timers", buf, sizeof(buf)) > 0)
		l->wakeable = true;   /* POSIX timers (the file is empty without) */
	pid_t *tids = NULL;
	int n = procfs_tasks(pfd, &tids);
	if (n < 0)
		l->complete = false;
	struct maps maps = { .read = false };
	dbuf_init(&maps.text, 16u << 20);   /* a large process's maps: a few MB at most */
	for (int i = 0; i < n && l->threads < STALL_MAX_THREADS; i++)
		look_thread(pfd, tids[i], &maps, w, l);
	dbuf_release(&maps.text);
	if (l->threads >= STALL_MAX_THREADS)
		l->complete = false;
	free(tids);
	close(pfd);
	return true;
}

int stall_look(const pid_t *roots, size_t nroots, struct stall_look *out)
{
	memset(out, 0, sizeof(*out));
	out->complete = true;
	struct walk w = { 0 };
	for (size_t i = 0; i < nroots; i++)
		if (roots[i] > 1)
			walk_push(&w, roots[i]);
	bool any = false;
	while (w.next < w.nr && out->complete)
		any |= look_process(w.todo[w.next++], &w, out);
	free(w.todo);
	return any ? 0 : -ESRCH;
}
