/*
 * diagnose.c: hang diagnosis (see diagnose.h).
 *
 * Why sample states many times instead of once: with 100 spinning threads
 * on 2 CPUs each thread is on a CPU 2% of the time, so one look at utime
 * says little; being runnable (R) in most samples, or using CPU at all by
 * schedstat's nanosecond counter, says "busy". Why look at the syscall
 * number before the wait channel: wchan names change between kernels
 * (futex_wait_queue_me, futex_wait_queue, do_futex...), syscall numbers do
 * not, and both are read without stopping the thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "diagnose/crashlog.h"
#include "diagnose/diagnose.h"
#include "diagnose/procfs.h"
#include "diagnose/pystack.h"
#include "signature/frame.h"
#include "util/clock.h"
#include "util/jsonw.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *const kind_names[] = {
	[DIAG_GONE] = "gone",
	[DIAG_LIVELOCK] = "livelock",
	[DIAG_DEADLOCK] = "deadlock",
	[DIAG_BLOCKED_IO] = "blocked-io",
	[DIAG_SLEEPING] = "sleeping",
	[DIAG_STOPPED] = "stopped",
	[DIAG_MIXED] = "mixed",
	[DIAG_PROGRESSING] = "progressing",
};

static const char *const kind_text[] = {
	[DIAG_GONE] = "the process tree exited before it could be examined",
	[DIAG_LIVELOCK] = "threads runnable and burning CPU, nothing blocked",
	[DIAG_DEADLOCK] = "all threads blocked in futex waits (locks, condition variables, joins)",
	[DIAG_BLOCKED_IO] = "all threads blocked on I/O",
	[DIAG_SLEEPING] = "all threads in timed sleeps",
	[DIAG_STOPPED] = "all threads stopped",
	[DIAG_MIXED] = "threads busy, blocked and waiting together",
	[DIAG_PROGRESSING] = "busy threads moving through their work, not stuck",
};

static const char *const role_names[] = {
	[DIAG_ROLE_SPIN] = "busy",
	[DIAG_ROLE_LOCK] = "futex",
	[DIAG_ROLE_IO] = "io",
	[DIAG_ROLE_SLEEP] = "sleep",
	[DIAG_ROLE_STOPPED] = "stopped",
	[DIAG_ROLE_CHILD] = "wait-child",
	[DIAG_ROLE_ZOMBIE] = "exited",
};

static const char state_letters[DIAG_ST_NR] = { 'R', 'S', 'D', 'T', 'Z', '?' };

const char *diag_kind_name(enum diag_kind k)
{
	return (unsigned)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "?";
}

const char *diag_role_name(enum diag_role r)
{
	return (unsigned)r < DIAG_ROLE_NR ? role_names[r] : "?";
}

static int state_index(char s)
{
	switch (s) {
	case 'R': return DIAG_ST_R;
	case 'S': case 'I': return DIAG_ST_S;
	case 'D': return DIAG_ST_D;
	case 'T': case 't': return DIAG_ST_T;
	case 'Z': case 'X': case 'x': return DIAG_ST_Z;
	default: return DIAG_ST_OTHER;
	}
}

static bool is_syscall(long nr, const long *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == nr)
			return true;
	return false;
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const long lock_calls[] = {
	SYS_futex,
#ifdef SYS_futex_waitv
	SYS_futex_waitv,
#endif
#ifdef SYS_futex_wait
	SYS_futex_wait,
#endif
};

static const long child_calls[] = {
	SYS_wait4, SYS_waitid,
};

static const long io_calls[] = {
	SYS_read, SYS_write, SYS_readv, SYS_writev, SYS_pread64, SYS_pwrite64,
	SYS_recvfrom, SYS_recvmsg, SYS_sendto, SYS_sendmsg, SYS_accept4, SYS_connect,
	SYS_ppoll, SYS_pselect6, SYS_epoll_pwait, SYS_openat, SYS_fsync, SYS_fdatasync,
	SYS_flock, SYS_fcntl, SYS_ioctl,
#ifdef SYS_poll
	SYS_poll,
#endif
#ifdef SYS_select
	SYS_select,
#endif
#ifdef SYS_epoll_wait
	SYS_epoll_wait,
#endif
#ifdef SYS_accept
	SYS_accept,
#endif
#ifdef SYS_epoll_pwait2
	SYS_epoll_pwait2,
#endif
#ifdef SYS_io_uring_enter
	SYS_io_uring_enter,
#endif
};

enum diag_role diag_role_of(char state, uint64_t cpu_ns, int64_t window_ns,
			    unsigned r_samples, unsigned samples, long syscall, const char *wchan)
{
	int st = state_index(state);
	if (st == DIAG_ST_Z)
		return DIAG_ROLE_ZOMBIE;
	if (st == DIAG_ST_T)
		return DIAG_ROLE_STOPPED;
	/*
	 * Busy: runnable in at least half the samples, or >= 5% of a CPU; but
	 * a thread never seen runnable that waits for a child is a shell
	 * starting commands (the CPU is fork's), not a spinner (issue 19).
	 */
	bool by_wchan = syscall < 0 || syscall == SYS_restart_syscall;
	bool child_wait = (!by_wchan && is_syscall(syscall, child_calls, NELEM(child_calls))) ||
			  (by_wchan && wchan && !strstr(wchan, "futex") &&
			   (strstr(wchan, "do_wait") || strstr(wchan, "wait_consider")));
	if (st == DIAG_ST_R || (samples && 2 * r_samples >= samples && r_samples) ||
	    (window_ns > 0 && cpu_ns * 20 >= (uint64_t)window_ns && (r_samples || !child_wait)))
		return DIAG_ROLE_SPIN;
	if (st == DIAG_ST_D)
		return DIAG_ROLE_IO;
	/*
	 * restart_syscall says only that a wait was interrupted (SIGSTOP and
	 * SIGCONT, as when jostle held the run) and resumed: the wait channel
	 * tells which wait.
	 */
	if (syscall >= 0 && syscall != SYS_restart_syscall) {
		if (is_syscall(syscall, lock_calls, NELEM(lock_calls)))
			return DIAG_ROLE_LOCK;
		if (is_syscall(syscall, child_calls, NELEM(child_calls)))
			return DIAG_ROLE_CHILD;
		if (is_syscall(syscall, io_calls, NELEM(io_calls)))
			return DIAG_ROLE_IO;
		return DIAG_ROLE_SLEEP;
	}
	if (wchan && *wchan) {
		if (strstr(wchan, "futex"))
			return DIAG_ROLE_LOCK;
		if (strstr(wchan, "do_wait") || strstr(wchan, "wait_consider"))
			return DIAG_ROLE_CHILD;
		static const char *const io_wchans[] = { "pipe", "sock", "tcp", "unix", "poll",
			"select", "ep_", "wait_woken", "read", "write", "io_", NULL };
		for (const char *const *p = io_wchans; *p; p++)
			if (strstr(wchan, *p))
				return DIAG_ROLE_IO;
	}
	return DIAG_ROLE_SLEEP;
}

enum diag_kind diag_classify(const unsigned roles[DIAG_ROLE_NR], unsigned d_state)
{
	unsigned spin = roles[DIAG_ROLE_SPIN], lock = roles[DIAG_ROLE_LOCK];
	unsigned io = roles[DIAG_ROLE_IO], sleep = roles[DIAG_ROLE_SLEEP];
	unsigned stopped = roles[DIAG_ROLE_STOPPED];
	unsigned active = spin + lock + io + sleep + stopped;
	if (!active)
		return roles[DIAG_ROLE_CHILD] ? DIAG_MIXED : DIAG_GONE;
	if (stopped == active)
		return DIAG_STOPPED;
	if (spin)
		return !stopped && !d_state ? DIAG_LIVELOCK : DIAG_MIXED;
	if (stopped)
		return DIAG_MIXED;
	if (lock && !io)
		return DIAG_DEADLOCK;
	if (io && !lock)
		return DIAG_BLOCKED_IO;
	if (!lock && !io)
		return DIAG_SLEEPING;
	return DIAG_MIXED;
}

void diag_format_summary(enum diag_kind k, const unsigned states[DIAG_ST_NR],
			 const unsigned roles[DIAG_ROLE_NR], size_t nthreads, char *buf, size_t len)
{
	char detail[96] = "";
	switch (k) {
	case DIAG_LIVELOCK:
		snprintf(detail, sizeof(detail), "%u of %zu threads busy", roles[DIAG_ROLE_SPIN], nthreads);
		break;
	case DIAG_DEADLOCK:
		snprintf(detail, sizeof(detail), "%u of %zu threads in futex waits", roles[DIAG_ROLE_LOCK], nthreads);
		break;
	case DIAG_BLOCKED_IO:
		snprintf(detail, sizeof(detail), "%u of %zu threads waiting on I/O", roles[DIAG_ROLE_IO], nthreads);
		break;
	default:
		snprintf(detail, sizeof(detail), "%zu threads", nthreads);
		break;
	}
	snprintf(buf, len, "%s: %s; %s (R %u, S %u, D %u, T %u, Z %u)",
		 diag_kind_name(k), kind_text[k], detail, states[DIAG_ST_R], states[DIAG_ST_S],
		 states[DIAG_ST_D], states[DIAG_ST_T], states[DIAG_ST_Z] + states[DIAG_ST_OTHER]);
}

/* Per-thread sampling state. */
struct sample {
	uint64_t cpu0;           /* ns at the first sample */
	unsigned hist[DIAG_ST_NR];
	bool gone;
};

/* CPU time of a thread in ns: schedstat when present, else stat ticks. */
static bool read_cpu(int pfd, pid_t tid, uint64_t *ns, char *state)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "task/%d/stat", (int)tid);
	if (procfs_read(pfd, path, buf, sizeof(buf)) <= 0)
		return false;
	struct procfs_stat st;
	if (procfs_parse_stat(buf, &st))
		return false;
	*state = st.state;
	snprintf(path, sizeof(path), "task/%d/schedstat", (int)tid);
	if (procfs_read(pfd, path, buf, sizeof(buf)) > 0 && !procfs_parse_schedstat(buf, ns))
		return true;
	long tck = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
	*ns = (st.utime + st.stime) * (uint64_t)(NS_PER_S / tck);
	return true;
}

static bool read_state(int pfd, pid_t tid, char *state)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "task/%d/stat", (int)tid);
	struct procfs_stat st;
	if (procfs_read(pfd, path, buf, sizeof(buf)) <= 0 || procfs_parse_stat(buf, &st))
		return false;
	*state = st.state;
	return true;
}

/*
 * The thread's wait: its syscall and wait channel. A later read replaces an
 * earlier one only when it found the thread in a syscall, so a thread that
 * happens to be running (woken, continued) at one read keeps its wait.
 */
static void read_wait(int pfd, struct diag_thread *t)
{
	char path[64], buf[512], wchan[sizeof(t->wchan)] = "";
	snprintf(path, sizeof(path), "task/%d/syscall", (int)t->tid);
	long nr = procfs_read(pfd, path, buf, sizeof(buf)) > 0 ? procfs_parse_syscall(buf) : -2;
	if (nr < 0 && t->syscall >= 0)
		return;
	snprintf(path, sizeof(path), "task/%d/wchan", (int)t->tid);
	if (procfs_read(pfd, path, buf, sizeof(buf)) >= 0)
		procfs_parse_wchan(buf, wchan, sizeof(wchan));
	t->syscall = nr;
	memcpy(t->wchan, wchan, sizeof(wchan));
}

static void read_detail(int pfd, struct diag_thread *t)
{
	char path[64], buf[512];
	read_wait(pfd, t);
	snprintf(path, sizeof(path), "task/%d/comm", (int)t->tid);
	if (procfs_read(pfd, path, buf, sizeof(buf)) > 0) {
		size_t n = strcspn(buf, "\n");
		if (n >= sizeof(t->comm))
			n = sizeof(t->comm) - 1;
		memcpy(t->comm, buf, n);
		t->comm[n] = '\0';
	}
}

/*
 * Whether thread tid (state T) is held by a tracer of the diagnosed tree
 * itself: LeakSanitizer at exit, or a program's own crash handler, stops
 * every thread from a child it clones. Such a thread waits for its own
 * tree (its tracer's state says what the tree does), it is not stopped
 * from outside as by SIGSTOP or a debugger.
 */
static bool traced_within(const struct diag *d, int pfd, pid_t tid)
{
	char path[64], buf[4096];
	struct procfs_status st;

	snprintf(path, sizeof(path), "task/%d/status", (int)tid);
	if (procfs_read(pfd, path, buf, sizeof(buf)) <= 0 || procfs_parse_status(buf, &st) || st.tracer <= 0)
		return false;
	for (size_t i = 0; i < d->nthreads; i++)
		if (d->threads[i].tid == st.tracer || d->threads[i].pid == st.tracer)
			return true;
	return false;
}

static void probe_python(int pfd, struct diag_proc *p)
{
	char buf[4096];
	char exe[512];
	ssize_t n = readlinkat(pfd, "exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	const char *base = frame_basename(exe);
	p->python = !strncmp(base, "python", 6) || !strncmp(p->comm, "python", 6);
	if (!p->python) {
		/* a program that embeds libpython; the loader maps it early,
		 * so the head of a long maps file is enough */
		enum { MAPS_HEAD = 64 * 1024 };
		char *maps = xmalloc(MAPS_HEAD);
		p->python = procfs_read(pfd, "maps", maps, MAPS_HEAD) > 0 && pystack_maps_python(maps);
		free(maps);
	}
	if (!p->python)
		return;
	struct procfs_status st;
	if (procfs_read(pfd, "status", buf, sizeof(buf)) > 0 && !procfs_parse_status(buf, &st))
		p->faulthandler = (st.sig_caught >> (SIGABRT - 1)) & 1;
}

static void sleep_ns(int64_t ns)
{
	if (ns <= 0)
		return;
	struct timespec ts = { .tv_sec = ns / NS_PER_S, .tv_nsec = ns % NS_PER_S };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Process-level state T (group-stopped or stopped before we came). */
static bool proc_is_stopped(pid_t pid)
{
	int fd = procfs_open(pid);
	if (fd < 0)
		return false;
	char buf[1024];
	struct procfs_stat st;
	bool stopped = procfs_read(fd, "stat", buf, sizeof(buf)) > 0 && !procfs_parse_stat(buf, &st) &&
		       (st.state == 'T' || st.state == 't');
	close(fd);
	return stopped;
}

/* Wait (bounded) until every thread of pid is stopped, exited or gone. */
static void wait_all_stopped(pid_t pid, int max_ms)
{
	int fd = procfs_open(pid);
	if (fd < 0)
		return;
	int64_t deadline = clock_mono_ns() + (int64_t)max_ms * NS_PER_MS;
	for (;;) {
		pid_t *tids;
		int n = procfs_tasks(fd, &tids);
		bool all = true;
		for (int i = 0; i < n && all; i++) {
			char st;
			if (read_state(fd, tids[i], &st))
				all = st == 'T' || st == 't' || st == 'Z' || st == 'X';
		}
		free(tids);
		if (all || n <= 0 || clock_mono_ns() >= deadline)
			break;
		sleep_ns(NS_PER_MS);
	}
	close(fd);
}

static bool stop_asked(const struct diag_opts *o, struct diag *d)
{
	if (o->stop && atomic_load(o->stop))
		d->stopped = true;
	return d->stopped;
}

/* The Python stacks of p, merged into d->stacks (the tree is stopped). */
static void python_stacks(struct diag *d, struct diag_proc *p)
{
	struct pystack ps;
	int n = pystack_read(p->pid, &ps);
	if (ps.version)
		pyoffsets_version_str(ps.version, p->py_version, sizeof(p->py_version));
	p->py_finalizing = ps.finalizing;
	if (n > 0)
		p->py_threads = (unsigned)pystack_merge(&ps, &d->stacks, p->pid);
	p->py_frames = p->py_threads > 0;
	if (n == 0)
		strvec_push(&p->py_problems, "no Python thread states (the interpreter is not running Python code)");
	for (size_t i = 0; i < ps.problems.nr; i++)
		strvec_push(&p->py_problems, ps.problems.v[i]);
	pystack_release(&ps);
}

/*
 * Threads started after the sampling have no state or role: their stacks
 * are left out, and counted, so the summary's thread count and the folded
 * stacks speak of the same threads.
 */
static void keep_sampled(struct diag *d)
{
	size_t n = 0;
	for (size_t i = 0; i < d->stacks.nr; i++) {
		struct stack_thread *t = &d->stacks.v[i];
		bool sampled = false;
		for (size_t j = 0; j < d->nthreads && !sampled; j++)
			sampled = d->threads[j].tid == t->tid;
		if (sampled) {
			d->stacks.v[n++] = *t;
			continue;
		}
		for (size_t j = 0; j < t->nr; j++) {
			free(t->frames[j].fn);
			free(t->frames[j].module);
		}
		free(t->frames);
		d->late_threads++;
	}
	d->stacks.nr = n;
}


/*
 * Stop the processes of d (all, or those with busy threads), unwind them
 * into set, continue them. The whole tree is stopped first (SIGSTOP, then
 * SIGCONT): attaching to 100 threads that spin on 2 CPUs one by one waits
 * for each to be scheduled, and each one released competes with us for the
 * CPU again; a stopped tree costs one round.
 */
static void capture_stacks(struct diag *d, struct stack_set *set, bool busy_only,
			   const struct diag_opts *o)
{
	bool *want = xcalloc(d->nprocs + 1, sizeof(*want));
	bool *stopped = xcalloc(d->nprocs + 1, sizeof(*stopped));
	for (size_t i = 0; i < d->nprocs; i++) {
		want[i] = !busy_only;
		for (size_t j = 0; j < d->nthreads && !want[i]; j++)
			want[i] = d->threads[j].pid == d->procs[i].pid && d->threads[j].role == DIAG_ROLE_SPIN &&
				  !d->threads[j].bystander;
	}
	for (size_t i = 0; i < d->nprocs; i++)
		stopped[i] = want[i] && !proc_is_stopped(d->procs[i].pid) && d->procs[i].pid > 1 &&
			     !kill(d->procs[i].pid, SIGSTOP);
	for (size_t i = 0; i < d->nprocs; i++)
		if (stopped[i])
			wait_all_stopped(d->procs[i].pid, 500);
	for (size_t i = 0; i < d->nprocs; i++) {
		struct diag_proc *p = &d->procs[i];
		if (!want[i] || stop_asked(o, d))
			continue;
		char err[sizeof(p->stack_error)];
		const char *backend = NULL;
		int n = stack_capture(p->pid, set, &backend, err, sizeof(err));
		if (set != &d->stacks)
			continue;   /* a later snapshot: the first one said what failed */
		p->backend = backend;
		snprintf(p->stack_error, sizeof(p->stack_error), "%s", n > 0 ? "" : err);
		if (o->python && p->python) {
			int64_t p0 = clock_mono_ns();
			python_stacks(d, p);
			d->python_ns += clock_mono_ns() - p0;
		}
	}
	for (size_t i = 0; i < d->nprocs; i++)
		if (stopped[i])
			kill(d->procs[i].pid, SIGCONT);
	free(stopped);
	free(want);
}

/* A thread waiting to acquire a mutex (not a condition, an event, a join). */
static bool in_mutex_wait(const struct stack_thread *t)
{
	static const char *const lock_fns[] = { "lll_lock_wait", "pthread_mutex_lock", "pthread_mutex_timedlock",
		"pthread_rwlock_rdlock", "pthread_rwlock_wrlock", "mutex::lock", "mutex_lock_full",
		"futex_lock_pi", NULL };
	for (size_t i = 0; t && i < t->nr; i++)
		for (const char *const *f = lock_fns; *f; f++)
			if (strstr(t->frames[i].fn, *f))
				return true;
	return false;
}

/*
 * A deadlock is not turned into a livelock by a busy bystander: when some
 * process has no busy thread and a thread waiting for a mutex, the busy
 * threads of the other processes (a mailbox poller, a watchdog, the test
 * runner's pump) are set aside and the class is decided without them.
 */
static void set_bystanders(struct diag *d)
{
	if (!d->roles[DIAG_ROLE_SPIN])
		return;
	bool *stuck = xcalloc(d->nprocs + 1, sizeof(*stuck));
	bool any = false;
	for (size_t i = 0; i < d->nprocs; i++) {
		bool busy = false, mutex = false;
		for (size_t j = 0; j < d->nthreads; j++) {
			const struct diag_thread *t = &d->threads[j];
			if (t->pid != d->procs[i].pid)
				continue;
			busy |= t->role == DIAG_ROLE_SPIN;
			mutex |= t->role == DIAG_ROLE_LOCK && in_mutex_wait(stack_set_find(&d->stacks, t->tid));
		}
		stuck[i] = mutex && !busy;
		any |= stuck[i];
	}
	if (any) {
		for (size_t j = 0; j < d->nthreads; j++) {
			struct diag_thread *t = &d->threads[j];
			if (t->role != DIAG_ROLE_SPIN)
				continue;
			t->bystander = true;
			d->bystanders++;
			d->roles[DIAG_ROLE_SPIN]--;
		}
		d->kind = diag_classify(d->roles, d->states[DIAG_ST_D]);
		diag_format_summary(d->kind, d->states, d->roles, d->nthreads, d->summary, sizeof(d->summary));
		size_t n = strlen(d->summary);
		snprintf(d->summary + n, sizeof(d->summary) - n, "; %u busy thread%s of other processes set aside",
			 d->bystanders, d->bystanders == 1 ? "" : "s");
	}
	free(stuck);
}

/*
 * Exit cleanup: a Python process whose main thread is busy tearing the
 * interpreter down (the interpreter's finalizing flag where it could be
 * read, else the main thread's native frames: motion_exit_cleanup), and no
 * busy thread outside such processes. Freeing tens of millions of objects
 * takes seconds, in C, at one spot of the stack and without a page fault:
 * to the motion signs it would look stuck.
 */
static void set_exit_cleanup(struct diag *d)
{
	unsigned busy = 0, cleaning = 0;
	for (size_t i = 0; i < d->nprocs; i++) {
		struct diag_proc *p = &d->procs[i];
		if (!p->python)
			continue;
		const struct diag_thread *main = NULL;
		for (size_t j = 0; j < d->nthreads && !main; j++)
			if (d->threads[j].tid == p->pid)
				main = &d->threads[j];
		const struct stack_thread *sk = stack_set_find(&d->stacks, p->pid);
		bool teardown = p->py_finalizing >= 0 ? p->py_finalizing > 0 : sk && motion_exit_cleanup(sk);
		p->exit_cleanup = main && main->role == DIAG_ROLE_SPIN && !main->bystander && teardown;
	}
	for (size_t j = 0; j < d->nthreads; j++) {
		const struct diag_thread *t = &d->threads[j];
		if (t->role != DIAG_ROLE_SPIN || t->bystander)
			continue;
		busy++;
		for (size_t i = 0; i < d->nprocs; i++)
			if (d->procs[i].pid == t->pid && d->procs[i].exit_cleanup) {
				cleaning++;
				break;
			}
	}
	d->exit_cleanup = busy && cleaning == busy;
}

/* Page faults and CPU of the processes there at the start, since then;
 * the resident set of those still alive now into *rss_kb, how many into
 * *live. From the stat the churn look just before read (churn_sample):
 * one read of /proc/PID/stat per look. */
static void tree_faults(struct diag *d, struct motion *m, uint64_t *rss_kb, unsigned *live)
{
	uint64_t ticks = 0;
	long page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
	*rss_kb = 0;
	*live = 0;
	for (size_t j = 0; j < d->nprocs; j++) {
		const struct procfs_stat *st = churn_sample(&d->churn, d->procs[j].pid, d->procs[j].starttime);
		if (st) {   /* a zombie still has its CPU times: not yet its parent's */
			uint64_t f = st->minflt + st->majflt;
			m->faults += f > d->procs[j].faults0 ? f - d->procs[j].faults0 : 0;
			uint64_t t = st->utime + st->stime + st->cutime + st->cstime;
			ticks += t > d->procs[j].ticks0 ? t - d->procs[j].ticks0 : 0;
			if (st->state != 'Z' && st->state != 'X') {
				*rss_kb += st->rss_pages * (uint64_t)page / 1024;
				++*live;
			}
		}
	}
	long tck = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
	m->cpu_ns = (int64_t)(ticks * (uint64_t)(NS_PER_S / tck));
}

/*
 * Not a definite hang: look again. With busy threads, MOTION_SNAPSHOTS
 * stacks of the busy processes in a row (the first is d->stacks); then the
 * tree, its CPU and its page faults since the window began. A tree that
 * moves is progressing, not stuck (motion.h).
 */
static void look_again(struct diag *d, const struct diag_opts *o, int64_t window_start)
{
	d->more = xcalloc(MOTION_SNAPSHOTS, sizeof(*d->more));
	struct stack_set *all = xcalloc(MOTION_SNAPSHOTS, sizeof(*all));
	all[0] = d->stacks;
	struct motion *m = &d->motion;
	memset(m, 0, sizeof(*m));
	/* the resident set at every look: memory being freed (motion.h) */
	struct motion_rss rss = { 0 };
	struct motion scratch;
	uint64_t kb;
	(void)churn_look(&d->churn, d->root, o->adopt, o->adopt_ctx);
	unsigned live;
	tree_faults(d, &scratch, &kb, &live);
	motion_rss_look(&rss, kb, live);
	for (size_t k = 1; k < MOTION_SNAPSHOTS && d->roles[DIAG_ROLE_SPIN] && !stop_asked(o, d); k++) {
		sleep_ns((int64_t)(o->motion_gap_ms > 0 ? o->motion_gap_ms : 40) * NS_PER_MS);
		d->more[d->nmore] = (struct stack_set)STACK_SET_INIT;
		capture_stacks(d, &d->more[d->nmore], true, o);
		all[k] = d->more[d->nmore++];
		(void)churn_look(&d->churn, d->root, o->adopt, o->adopt_ctx);
		tree_faults(d, &scratch, &kb, &live);
		motion_rss_look(&rss, kb, live);
		/* Count; stop looking once no majority can reach MOTION_DISTINCT
		 * (a livelock shows that after three looks). */
		unsigned busy = 0, moving = 0, possible = 0;
		for (size_t i = 0; i < d->nthreads; i++) {
			const struct diag_thread *t = &d->threads[i];
			if (t->role != DIAG_ROLE_SPIN || t->bystander)
				continue;
			unsigned distinct;
			unsigned seen = motion_distinct(all, k + 1, t->tid, &distinct);
			unsigned left = (unsigned)(MOTION_SNAPSHOTS - 1 - k);
			if (seen + left < MOTION_DISTINCT)
				continue;   /* not enough looks at it to tell */
			busy++;
			moving += distinct >= MOTION_DISTINCT;
			possible += distinct + left >= MOTION_DISTINCT;
		}
		m->busy = busy;
		m->moving = moving;
		if (2 * possible <= busy)
			break;
	}
	free(all);
	m->runnable = d->roles[DIAG_ROLE_SPIN];
	unsigned busy = m->busy, moving = m->moving;
	/*
	 * Watch the tree for processes that come and go until it used enough
	 * CPU to tell (a build driver shows a compiler ending by then, however
	 * loaded the machine) or for a bounded time: CPU, not the wall clock,
	 * so the verdict does not fade with the load. A tree with nothing
	 * runnable, no child waited for and no change is stuck at once.
	 */
	int64_t w0 = clock_mono_ns();
	for (;;) {
		memset(m, 0, sizeof(*m));
		m->busy = busy;
		m->moving = moving;
		m->runnable = d->roles[DIAG_ROLE_SPIN];
		(void)churn_look(&d->churn, d->root, o->adopt, o->adopt_ctx);
		m->born = churn_born(&d->churn);
		m->ended = churn_ended(&d->churn);
		m->work_ns = churn_work_ns(&d->churn, MOTION_BORN_BUSY_NS);
		tree_faults(d, m, &kb, &live);
		motion_rss_look(&rss, kb, live);
		m->rss = rss;
		m->span_ns = clock_mono_ns() - window_start;
		motion_judge(m);
		bool idle = !m->runnable && !d->roles[DIAG_ROLE_CHILD] && !m->born && !m->ended;
		if (m->progressing || idle || churn_cpu_ns(&d->churn) >= MOTION_WATCH_CPU_NS ||
		    clock_mono_ns() - w0 >= (int64_t)MOTION_WATCH_MAX_MS * NS_PER_MS || stop_asked(o, d))
			break;
		sleep_ns((int64_t)MOTION_WATCH_GAP_MS * NS_PER_MS);
	}
	d->motion_done = true;
	if (m->progressing) {
		d->kind = DIAG_PROGRESSING;
		snprintf(d->summary, sizeof(d->summary), "progressing: %s; %s (%u busy thread%s)",
			 kind_text[DIAG_PROGRESSING], m->evidence, d->roles[DIAG_ROLE_SPIN],
			 d->roles[DIAG_ROLE_SPIN] == 1 ? "" : "s");
	}
}

/* A tree in exit cleanup: progressing, said at once (no second look: the
 * sooner a late run is judged, the sooner its slot is free). */
static void cleanup_found(struct diag *d)
{
	struct motion *m = &d->motion;
	memset(m, 0, sizeof(*m));
	m->runnable = d->roles[DIAG_ROLE_SPIN];
	for (size_t i = 0; i < d->nprocs; i++)
		if (d->procs[i].exit_cleanup) {
			m->cleanup_pid = d->procs[i].pid;
			m->cleanup_by = d->procs[i].py_finalizing > 0 ? "the interpreter's finalizing flag"
								      : "its main thread's frames";
			break;
		}
	m->cleanup = true;
	motion_judge(m);
	d->motion_done = true;
	d->kind = DIAG_PROGRESSING;
	snprintf(d->summary, sizeof(d->summary), "progressing: %s; %s (%u busy thread%s)",
		 kind_text[DIAG_PROGRESSING], m->evidence, d->roles[DIAG_ROLE_SPIN],
		 d->roles[DIAG_ROLE_SPIN] == 1 ? "" : "s");
}

int diag_run(struct diag *d, pid_t root, const struct diag_opts *o)
{
	memset(d, 0, sizeof(*d));
	d->root = root;
	/*
	 * A hung tree often spins on every CPU; at equal priority each of our
	 * reads waits behind it. Raise our own priority for the diagnosis where
	 * we may (root, CAP_SYS_NICE), and put it back at the end.
	 */
	errno = 0;
	int old_nice = getpriority(PRIO_PROCESS, 0);
	bool reniced = errno == 0 && old_nice > -10 && !setpriority(PRIO_PROCESS, 0, -10);
	d->window_ms = o->window_ms > 0 ? o->window_ms : 200;
	int nsamples = o->samples > 0 ? o->samples : 10;
	int64_t t0 = clock_mono_ns();

	struct proctree tree = PROCTREE_INIT;
	int rc = proctree_collect(&tree, root, o->adopt, o->adopt_ctx);
	if (rc < 0) {
		proctree_release(&tree);
		d->kind = DIAG_GONE;
		diag_format_summary(d->kind, d->states, d->roles, 0, d->summary, sizeof(d->summary));
		d->total_ns = clock_mono_ns() - t0;
		if (reniced)
			(void)setpriority(PRIO_PROCESS, 0, old_nice);
		return rc;
	}

	/* Open every process once and list its threads. */
	d->procs = xcalloc(tree.nr, sizeof(*d->procs));
	int *pfds = xcalloc(tree.nr, sizeof(*pfds));
	size_t talloc = 0;
	for (size_t i = 0; i < tree.nr; i++) {
		struct diag_proc *p = &d->procs[d->nprocs];
		p->pid = tree.v[i].pid;
		p->ppid = tree.v[i].ppid;
		p->depth = tree.v[i].depth;
		p->adopted = tree.v[i].adopted;
		p->py_finalizing = -1;
		memcpy(p->comm, tree.v[i].comm, sizeof(p->comm));
		int fd = procfs_open(p->pid);
		if (fd < 0)
			continue;
		pid_t *tids;
		int nt = procfs_tasks(fd, &tids);
		if (nt <= 0) {
			close(fd);
			continue;
		}
		probe_python(fd, p);
		char sbuf[1024];
		struct procfs_stat pst;
		if (procfs_read(fd, "stat", sbuf, sizeof(sbuf)) > 0 && !procfs_parse_stat(sbuf, &pst)) {
			p->starttime = pst.starttime;
			p->faults0 = pst.minflt + pst.majflt;
			p->ticks0 = pst.utime + pst.stime + pst.cutime + pst.cstime;
		}
		pfds[d->nprocs++] = fd;
		for (int j = 0; j < nt; j++) {
			ALLOC_GROW(d->threads, d->nthreads + 1, talloc);
			struct diag_thread *t = &d->threads[d->nthreads++];
			memset(t, 0, sizeof(*t));
			t->pid = p->pid;
			t->tid = tids[j];
			t->syscall = -2;
		}
		free(tids);
	}
	proctree_release(&tree);
	if (o->motion)
		(void)churn_look(&d->churn, d->root, o->adopt, o->adopt_ctx);

	/* Sample: CPU and details at the start, states throughout, CPU and wait at the end. */
	struct sample *s = xcalloc(d->nthreads ? d->nthreads : 1, sizeof(*s));
	int64_t window_ns = (int64_t)d->window_ms * NS_PER_MS;
	int64_t start = clock_mono_ns();
	size_t pi = 0;
	for (size_t i = 0; i < d->nthreads; i++) {
		while (d->procs[pi].pid != d->threads[i].pid)
			pi++;
		char st;
		if (!read_cpu(pfds[pi], d->threads[i].tid, &s[i].cpu0, &st)) {
			s[i].gone = true;
			continue;
		}
		s[i].hist[state_index(st)]++;
		d->threads[i].samples++;
		read_detail(pfds[pi], &d->threads[i]);
	}
	for (int k = 1; k <= nsamples; k++) {
		sleep_ns(start + window_ns * k / nsamples - clock_mono_ns());
		if (stop_asked(o, d))
			break;
		pi = 0;
		for (size_t i = 0; i < d->nthreads; i++) {
			while (d->procs[pi].pid != d->threads[i].pid)
				pi++;
			if (s[i].gone)
				continue;
			char st;
			uint64_t cpu1;
			bool ok = k == nsamples ? read_cpu(pfds[pi], d->threads[i].tid, &cpu1, &st)
						: read_state(pfds[pi], d->threads[i].tid, &st);
			if (!ok) {
				s[i].gone = true;
				continue;
			}
			/*
			 * The wait again at the end: a run just continued after
			 * being held is "running" at the start while its threads
			 * go back to the waits they were in.
			 */
			if (k == nsamples)
				read_wait(pfds[pi], &d->threads[i]);
			s[i].hist[state_index(st)]++;
			d->threads[i].samples++;
			if (k == nsamples)
				d->threads[i].cpu_ns = cpu1 > s[i].cpu0 ? cpu1 - s[i].cpu0 : 0;
		}
	}
	int64_t measured = clock_mono_ns() - start;
	size_t pi2 = 0;
	for (size_t i = 0; i < d->nthreads; i++) {
		struct diag_thread *t = &d->threads[i];
		int best = -1;
		for (int k = 0; k < DIAG_ST_NR; k++)
			if (s[i].hist[k] && (best < 0 || s[i].hist[k] > s[i].hist[best]))
				best = k;
		t->state = best < 0 ? 'X' : state_letters[best];
		t->r_samples = s[i].hist[DIAG_ST_R];
		t->role = s[i].gone && !t->samples ? DIAG_ROLE_ZOMBIE
			: diag_role_of(t->state, t->cpu_ns, measured, t->r_samples, t->samples,
				       t->syscall, t->wchan);
		while (d->procs[pi2].pid != t->pid)
			pi2++;
		if (t->role == DIAG_ROLE_STOPPED && traced_within(d, pfds[pi2], t->tid))
			t->role = DIAG_ROLE_CHILD;
		d->states[best < 0 ? DIAG_ST_Z : best]++;
		d->roles[t->role]++;
	}
	free(s);
	d->sample_ns = clock_mono_ns() - start;
	d->kind = diag_classify(d->roles, d->states[DIAG_ST_D]);
	diag_format_summary(d->kind, d->states, d->roles, d->nthreads, d->summary, sizeof(d->summary));
	for (size_t i = 0; i < d->nprocs; i++)
		close(pfds[i]);
	free(pfds);

	/*
	 * Stacks last: unwinding stops threads. Then, with busy threads, the
	 * question whether they move (motion.h), and the busy threads of other
	 * processes than a deadlocked one set aside as bystanders.
	 */
	int64_t s0 = clock_mono_ns();
	if (o->stacks) {
		capture_stacks(d, &d->stacks, false, o);
		keep_sampled(d);
		set_bystanders(d);
		set_exit_cleanup(d);
		if (d->exit_cleanup)
			cleanup_found(d);
		else if (o->motion && !d->stopped &&
		    (d->kind == DIAG_LIVELOCK || d->kind == DIAG_MIXED || d->kind == DIAG_SLEEPING))
			look_again(d, o, start);
		d->nfolds = stack_fold(&d->stacks, o->fold_frames ? o->fold_frames : 16, &d->folds);
	}
	d->stack_ns = clock_mono_ns() - s0;
	d->total_ns = clock_mono_ns() - t0;
	if (reniced)
		(void)setpriority(PRIO_PROCESS, 0, old_nice);
	return 0;
}

void diag_release(struct diag *d)
{
	for (size_t i = 0; i < d->nprocs; i++)
		strvec_release(&d->procs[i].py_problems);
	for (size_t k = 0; k < d->nmore; k++)
		stack_set_release(&d->more[k]);
	free(d->more);
	churn_release(&d->churn);
	free(d->procs);
	free(d->threads);
	stack_set_release(&d->stacks);
	stack_fold_free(d->folds, d->nfolds);
	memset(d, 0, sizeof(*d));
}

static const char *syscall_name(long nr)
{
	if (nr == -1)
		return "running";
	if (nr < 0)
		return "";
	if (is_syscall(nr, lock_calls, NELEM(lock_calls)))
		return "futex";
	if (is_syscall(nr, child_calls, NELEM(child_calls)))
		return "wait";
	if (nr == SYS_read) return "read";
	if (nr == SYS_write) return "write";
	if (nr == SYS_clock_nanosleep) return "clock_nanosleep";
#ifdef SYS_nanosleep
	if (nr == SYS_nanosleep) return "nanosleep";
#endif
#ifdef SYS_poll
	if (nr == SYS_poll) return "poll";
#endif
	if (nr == SYS_ppoll) return "ppoll";
#ifdef SYS_select
	if (nr == SYS_select) return "select";
#endif
	if (nr == SYS_pselect6) return "pselect6";
#ifdef SYS_epoll_wait
	if (nr == SYS_epoll_wait) return "epoll_wait";
#endif
	if (nr == SYS_epoll_pwait) return "epoll_pwait";
	if (nr == SYS_sched_yield) return "sched_yield";
	return NULL;
}

static double cpu_percent(const struct diag *d, const struct diag_thread *t)
{
	return d->sample_ns ? 100.0 * (double)t->cpu_ns / (double)d->sample_ns : 0.0;
}

void diag_write_text(const struct diag *d, struct dbuf *out)
{
	dbuf_addf(out, "hang diagnosis of pid %d: %zu process%s, %zu thread%s, window %d ms\n",
		  (int)d->root, d->nprocs, d->nprocs == 1 ? "" : "es", d->nthreads,
		  d->nthreads == 1 ? "" : "s", d->window_ms);
	dbuf_addf(out, "%s\n", d->summary);
	dbuf_addf(out, "took %.0f ms (sampling %.0f ms, stacks %.0f ms", (double)d->total_ns / 1e6,
		  (double)d->sample_ns / 1e6, (double)d->stack_ns / 1e6);
	if (d->python_ns)
		dbuf_addf(out, " of which Python frames %.0f ms", (double)d->python_ns / 1e6);
	dbuf_adds(out, ")\n");
	if (d->motion_done && d->exit_cleanup)
		dbuf_addf(out, "stuck or slow: %s\n", d->motion.evidence);
	else if (d->motion_done)
		dbuf_addf(out, "stuck or slow: %s (%zu stack snapshots of the busy threads, %u of %u moving; "
			  "%u processes started, %u ended; %" PRIu64 " page faults in %.0f ms)\n",
			  d->motion.progressing ? d->motion.evidence : "stuck", d->nmore + 1, d->motion.moving,
			  d->motion.busy, d->motion.born, d->motion.ended, d->motion.faults,
			  (double)d->motion.span_ns / 1e6);
	dbuf_addc(out, '\n');

	dbuf_adds(out, "processes:\n");
	for (size_t i = 0; i < d->nprocs; i++) {
		const struct diag_proc *p = &d->procs[i];
		unsigned nt = 0;
		for (size_t j = 0; j < d->nthreads; j++)
			nt += d->threads[j].pid == p->pid;
		char py[96] = "";
		if (p->python && p->py_frames)
			snprintf(py, sizeof(py), " [python %s: Python frames of %u thread%s]", p->py_version,
				 p->py_threads, p->py_threads == 1 ? "" : "s");
		else if (p->python)
			snprintf(py, sizeof(py), " [python%s%s]", p->py_version[0] ? " " : "", p->py_version);
		dbuf_addf(out, "  %*s%d %s (%u thread%s)%s%s%s%s\n", 2 * p->depth, "", (int)p->pid, p->comm,
			  nt, nt == 1 ? "" : "s", p->adopted ? " [reparented to jostle]" : "",
			  py, p->python && p->faulthandler ? " [faulthandler]" : "",
			  p->exit_cleanup ? " [exit cleanup]" : "");
	}

	dbuf_adds(out, "\nthreads:\n      PID      TID ST ROLE        CPU%  WAIT                 NAME\n");
	for (size_t i = 0; i < d->nthreads; i++) {
		const struct diag_thread *t = &d->threads[i];
		const char *sc = syscall_name(t->syscall);
		char wait[64];
		if (t->wchan[0])
			snprintf(wait, sizeof(wait), "%s", t->wchan);
		else if (sc)
			snprintf(wait, sizeof(wait), "%s", sc);
		else
			snprintf(wait, sizeof(wait), "syscall %ld", t->syscall);
		dbuf_addf(out, "  %7d  %7d %c  %-10s %5.1f  %-20s %s%s\n", (int)t->pid, (int)t->tid, t->state,
			  diag_role_name(t->role), cpu_percent(d, t), wait, t->comm,
			  t->bystander ? " [bystander]" : "");
	}

	dbuf_adds(out, "\nstacks, folded (most common first):\n");
	if (d->late_threads)
		dbuf_addf(out, "  (%zu thread%s started after the sampling window, not shown)\n",
			  d->late_threads, d->late_threads == 1 ? "" : "s");
	if (!d->nfolds)
		dbuf_adds(out, "  (none)\n");
	for (size_t i = 0; i < d->nfolds; i++)
		dbuf_addf(out, "  %u x %s\n", d->folds[i].count, d->folds[i].line);
	for (size_t i = 0; i < d->nprocs; i++) {
		const struct diag_proc *p = &d->procs[i];
		if (p->stack_error[0])
			dbuf_addf(out, "  no stacks for %d %s: %s\n", (int)p->pid, p->comm, p->stack_error);
		for (size_t j = 0; j < p->py_problems.nr; j++)
			dbuf_addf(out, "  python %d %s: %s\n", (int)p->pid, p->comm, p->py_problems.v[j]);
	}
	struct evidence ev;
	diag_evidence(d, &ev);
	dbuf_addf(out, "\nsignature: %s; frames:", ev.kind);
	for (size_t i = 0; i < ev.nframes; i++)
		dbuf_addf(out, " %s", ev.frames[i]);
	dbuf_adds(out, ev.nframes ? "\n" : " (none)\n");
}

static void write_counts(const struct diag *d, struct dbuf *out)
{
	jsonw_key(out, "counts");
	dbuf_addc(out, '{');
	for (int k = 0; k < DIAG_ST_NR; k++) {
		char key[2] = { state_letters[k], 0 };
		if (k)
			dbuf_addc(out, ',');
		jsonw_kint(out, k == DIAG_ST_OTHER ? "other" : key, d->states[k]);
	}
	dbuf_adds(out, "},");
	jsonw_key(out, "roles");
	dbuf_addc(out, '{');
	for (int r = 0; r < DIAG_ROLE_NR; r++) {
		if (r)
			dbuf_addc(out, ',');
		jsonw_kint(out, role_names[r], d->roles[r]);
	}
	dbuf_addc(out, '}');
}

static void write_evidence(const struct diag *d, struct dbuf *out)
{
	struct evidence ev;
	diag_evidence(d, &ev);
	jsonw_key(out, "signature");
	dbuf_addc(out, '{');
	jsonw_kstr(out, "kind", ev.kind);
	dbuf_addc(out, ',');
	jsonw_kstr(out, "key_line", ev.key_line);
	dbuf_addc(out, ',');
	jsonw_key(out, "frames");
	dbuf_addc(out, '[');
	for (size_t i = 0; i < ev.nframes; i++) {
		if (i)
			dbuf_addc(out, ',');
		jsonw_string(out, ev.frames[i], strlen(ev.frames[i]));
	}
	dbuf_adds(out, "]}");
}

static void write_folds(const struct diag *d, struct dbuf *out, size_t max)
{
	jsonw_key(out, "stacks");
	dbuf_addc(out, '[');
	for (size_t i = 0; i < d->nfolds && i < max; i++) {
		if (i)
			dbuf_addc(out, ',');
		char *line = xasprintf("%u x %s", d->folds[i].count, d->folds[i].line);
		jsonw_string(out, line, strlen(line));
		free(line);
	}
	dbuf_addc(out, ']');
}

enum diag_pystacks diag_pystacks_of(const struct diag_proc *p)
{
	if (!p->python)
		return DIAG_PY_NONE;
	if (p->py_frames)
		return DIAG_PY_FRAMES;
	/* in its exit cleanup there is no Python code to show, and it is
	 * slow, not hung: no SIGABRT for it */
	return p->faulthandler && !p->exit_cleanup ? DIAG_PY_FAULTHANDLER : DIAG_PY_NONE;
}

const char *diag_pystacks_name(enum diag_pystacks k)
{
	return k == DIAG_PY_FRAMES ? "frames" : k == DIAG_PY_FAULTHANDLER ? "faulthandler" : "none";
}

static void write_problems(const char *key, const struct strvec *v, struct dbuf *out)
{
	jsonw_key(out, key);
	dbuf_addc(out, '[');
	for (size_t i = 0; i < v->nr; i++) {
		if (i)
			dbuf_addc(out, ',');
		jsonw_string(out, v->v[i], strlen(v->v[i]));
	}
	dbuf_addc(out, ']');
}

/* "python_version", "python_stacks", "python_threads", "python_problems" of
 * one Python process, each followed by a comma */
static void write_python(const struct diag_proc *p, struct dbuf *out)
{
	jsonw_kstr(out, "python_version", p->py_version[0] ? p->py_version : NULL);
	dbuf_addc(out, ',');
	jsonw_kstr(out, "python_stacks", diag_pystacks_name(diag_pystacks_of(p)));
	dbuf_addc(out, ',');
	jsonw_kint(out, "python_threads", p->py_threads);
	dbuf_addc(out, ',');
	write_problems("python_problems", &p->py_problems, out);
	dbuf_addc(out, ',');
}

void diag_write_json(const struct diag *d, struct dbuf *out)
{
	dbuf_addc(out, '{');
	jsonw_kint(out, "pid", d->root);
	dbuf_addc(out, ',');
	jsonw_kstr(out, "kind", diag_kind_name(d->kind));
	dbuf_addc(out, ',');
	jsonw_kstr(out, "summary", d->summary);
	dbuf_addc(out, ',');
	jsonw_kint(out, "window_ms", d->window_ms);
	dbuf_addc(out, ',');
	jsonw_kdbl(out, "elapsed_ms", (double)d->total_ns / 1e6);
	dbuf_addc(out, ',');
	jsonw_kdbl(out, "sampling_ms", (double)d->sample_ns / 1e6);
	dbuf_addc(out, ',');
	jsonw_kdbl(out, "stacks_ms", (double)d->stack_ns / 1e6);
	dbuf_addc(out, ',');
	jsonw_kdbl(out, "python_ms", (double)d->python_ns / 1e6);
	dbuf_addc(out, ',');
	jsonw_kint(out, "threads", (int64_t)d->nthreads);
	dbuf_addc(out, ',');
	write_counts(d, out);
	dbuf_addc(out, ',');
	jsonw_key(out, "processes");
	dbuf_addc(out, '[');
	for (size_t i = 0; i < d->nprocs; i++) {
		const struct diag_proc *p = &d->procs[i];
		if (i)
			dbuf_addc(out, ',');
		dbuf_addc(out, '{');
		jsonw_kint(out, "pid", p->pid);
		dbuf_addc(out, ',');
		jsonw_kint(out, "ppid", p->ppid);
		dbuf_addc(out, ',');
		jsonw_kstr(out, "comm", p->comm);
		dbuf_addc(out, ',');
		jsonw_kint(out, "depth", p->depth);
		dbuf_addc(out, ',');
		jsonw_kbool(out, "adopted", p->adopted);
		dbuf_addc(out, ',');
		jsonw_kbool(out, "python", p->python);
		dbuf_addc(out, ',');
		jsonw_kbool(out, "faulthandler", p->faulthandler);
		dbuf_addc(out, ',');
		jsonw_kbool(out, "exit_cleanup", p->exit_cleanup);
		dbuf_addc(out, ',');
		jsonw_kstr(out, "backend", p->backend);
		dbuf_addc(out, ',');
		jsonw_kstr(out, "stack_error", p->stack_error[0] ? p->stack_error : NULL);
		dbuf_addc(out, ',');
		if (p->python)
			write_python(p, out);
		jsonw_key(out, "threads");
		dbuf_addc(out, '[');
		bool first = true;
		for (size_t j = 0; j < d->nthreads; j++) {
			const struct diag_thread *t = &d->threads[j];
			if (t->pid != p->pid)
				continue;
			if (!first)
				dbuf_addc(out, ',');
			first = false;
			char st[2] = { t->state, 0 };
			dbuf_addc(out, '{');
			jsonw_kint(out, "tid", t->tid);
			dbuf_addc(out, ',');
			jsonw_kstr(out, "comm", t->comm);
			dbuf_addc(out, ',');
			jsonw_kstr(out, "state", st);
			dbuf_addc(out, ',');
			jsonw_kstr(out, "role", diag_role_name(t->role));
			dbuf_addc(out, ',');
			jsonw_kstr(out, "wchan", t->wchan);
			dbuf_addc(out, ',');
			jsonw_kint(out, "syscall", t->syscall);
			dbuf_addc(out, ',');
			jsonw_kdbl(out, "cpu_ms", (double)t->cpu_ns / 1e6);
			dbuf_addc(out, ',');
			const struct stack_thread *sk = stack_set_find(&d->stacks, t->tid);
			jsonw_key(out, "frames");
			dbuf_addc(out, '[');
			for (size_t k = 0; sk && k < sk->nr; k++) {
				if (k)
					dbuf_addc(out, ',');
				char label[512];
				stack_frame_label(&sk->frames[k], label, sizeof(label));
				jsonw_string(out, label, strlen(label));
			}
			dbuf_adds(out, "]}");
		}
		dbuf_adds(out, "]}");
	}
	dbuf_adds(out, "],");
	write_folds(d, out, (size_t)-1);
	dbuf_addc(out, ',');
	write_evidence(d, out);
	dbuf_addc(out, '}');
}

/*
 * The record says how the Python stacks were had, "python":{"stacks":
 * "frames"|"faulthandler"|"none","processes":N,"problems":[...]}, when the
 * tree has Python processes: "frames" when every one was read from
 * outside, "faulthandler" when any falls back to SIGABRT, else "none".
 * Followed by a comma when written.
 */
static void write_python_record(const struct diag *d, struct dbuf *out)
{
	unsigned n = 0, frames = 0, fault = 0;
	struct strvec problems = STRVEC_INIT;
	for (size_t i = 0; i < d->nprocs; i++) {
		const struct diag_proc *p = &d->procs[i];
		enum diag_pystacks k = diag_pystacks_of(p);
		n += p->python;
		frames += k == DIAG_PY_FRAMES;
		fault += k == DIAG_PY_FAULTHANDLER;
		for (size_t j = 0; j < p->py_problems.nr && problems.nr < 8; j++)
			strvec_push(&problems, p->py_problems.v[j]);
	}
	if (!n)
		return;
	jsonw_key(out, "python");
	dbuf_addc(out, '{');
	enum diag_pystacks k = frames == n ? DIAG_PY_FRAMES : fault ? DIAG_PY_FAULTHANDLER : DIAG_PY_NONE;
	jsonw_kstr(out, "stacks", diag_pystacks_name(k));
	dbuf_addc(out, ',');
	jsonw_kint(out, "processes", n);
	dbuf_addc(out, ',');
	write_problems("problems", &problems, out);
	dbuf_adds(out, "},");
	strvec_release(&problems);
}

void diag_write_record(const struct diag *d, struct dbuf *out)
{
	dbuf_addc(out, '{');
	jsonw_kstr(out, "kind", diag_kind_name(d->kind));
	dbuf_addc(out, ',');
	jsonw_kstr(out, "summary", d->summary);
	dbuf_addc(out, ',');
	jsonw_kint(out, "processes", (int64_t)d->nprocs);
	dbuf_addc(out, ',');
	jsonw_kint(out, "threads", (int64_t)d->nthreads);
	dbuf_addc(out, ',');
	write_counts(d, out);
	dbuf_addc(out, ',');
	write_folds(d, out, 5);
	dbuf_addc(out, ',');
	write_python_record(d, out);
	jsonw_kint(out, "window_ms", d->window_ms);
	dbuf_addc(out, ',');
	jsonw_kdbl(out, "elapsed_ms", (double)d->total_ns / 1e6);
	if (d->motion_done) {
		jsonw_key(out, "motion");
		dbuf_addc(out, '{');
		jsonw_kbool(out, "progressing", d->motion.progressing);
		jsonw_kstr(out, "evidence", d->motion.evidence);
		jsonw_kint(out, "busy", d->motion.busy);
		jsonw_kint(out, "moving", d->motion.moving);
		jsonw_kint(out, "born", d->motion.born);
		jsonw_kint(out, "ended", d->motion.ended);
		jsonw_kuint(out, "faults", d->motion.faults);
		dbuf_addc(out, '}');
	}
	if (d->exit_cleanup)
		jsonw_kbool(out, "exit_cleanup", true);
	if (d->bystanders)
		jsonw_kint(out, "bystanders", d->bystanders);
	jsonw_kdbl(out, "late_ms", (double)d->late_ns / 1e6);
	jsonw_kdbl(out, "queued_ms", (double)d->queued_ns / 1e6);
	if (d->stopped)
		jsonw_kbool(out, "stopped", true);
	dbuf_addc(out, '}');
}

bool diag_record_exit_cleanup(const char *json)
{
	return strstr(json, "\"exit_cleanup\":true") != NULL;
}

/* The roles whose threads decide a class, for the culprit frames. */
static bool deciding(enum diag_kind k, enum diag_role r)
{
	switch (k) {
	case DIAG_LIVELOCK: return r == DIAG_ROLE_SPIN;
	case DIAG_DEADLOCK: return r == DIAG_ROLE_LOCK;
	case DIAG_BLOCKED_IO: return r == DIAG_ROLE_IO;
	case DIAG_STOPPED: return r == DIAG_ROLE_STOPPED;
	default: return r != DIAG_ROLE_CHILD && r != DIAG_ROLE_ZOMBIE;
	}
}

struct culprit {
	const char *fn;
	unsigned count;
	bool decides;
};

static int cmp_culprit(const void *a, const void *b)
{
	const struct culprit *x = a, *y = b;
	if (x->decides != y->decides)
		return x->decides ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->fn, y->fn);
}

/* Count the culprit of thread t in one snapshot into c. */
static void count_culprit(const struct diag *d, const struct diag_thread *t, const struct stack_set *snap,
			  struct culprit *c, size_t *nc)
{
	const struct stack_thread *sk = stack_set_find(snap, t->tid);
	const char *fn = sk ? stack_program_frame(sk, 0) : NULL;
	if (!fn)
		return;
	bool dec = deciding(d->kind, t->role);
	size_t j;
	for (j = 0; j < *nc; j++)
		if (!strcmp(c[j].fn, fn) && c[j].decides == dec)
			break;
	if (j == *nc)
		c[(*nc)++] = (struct culprit){ .fn = fn, .decides = dec };
	c[j].count++;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

void diag_evidence(const struct diag *d, struct evidence *ev)
{
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->kind, sizeof(ev->kind), "%s", diag_kind_name(d->kind));
	snprintf(ev->key_line, sizeof(ev->key_line), "hang: %s", diag_kind_name(d->kind));
	/* every snapshot counts: a thread caught between two spins in one
	 * look is in its loop in the others */
	struct culprit *c = xcalloc((d->nthreads + 1) * (d->nmore + 1), sizeof(*c));
	size_t nc = 0;
	for (size_t i = 0; i < d->nthreads; i++) {
		const struct diag_thread *t = &d->threads[i];
		if (t->role == DIAG_ROLE_CHILD || t->role == DIAG_ROLE_ZOMBIE || t->bystander)
			continue;
		count_culprit(d, t, &d->stacks, c, &nc);
		for (size_t k = 0; k < d->nmore; k++)
			count_culprit(d, t, &d->more[k], c, &nc);
	}
	qsort(c, nc, sizeof(*c), cmp_culprit);
	/*
	 * Only the dominant culprits make the signature: those of the threads
	 * that decide the class, each held by more than half as many threads
	 * as the most common one. Which other frames a sample happens to catch
	 * (main in a join, a thread between two spins) varies from run to run
	 * and would split one bug into several signatures; the stacks file
	 * still shows every thread. They are listed by name, not by count, so
	 * that two culprits of about equal weight do not swap places.
	 */
	bool any_deciding = nc && c[0].decides;
	unsigned top = nc ? c[0].count : 0;
	for (size_t i = 0; i < nc && ev->nframes < EVIDENCE_FRAMES; i++) {
		if (c[i].decides != any_deciding || 2 * c[i].count <= top)
			break;
		bool dup = false;
		for (size_t j = 0; j < ev->nframes; j++)
			dup |= !strcmp(ev->frames[j], c[i].fn);
		if (!dup)
			snprintf(ev->frames[ev->nframes++], sizeof(ev->frames[0]), "%s", c[i].fn);
	}
	qsort(ev->frames, ev->nframes, sizeof(ev->frames[0]), cmp_str);
	free(c);
}

void diag_evidence_hot(const struct diag *d, struct evidence *ev)
{
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->kind, sizeof(ev->kind), "busy-wait");
	snprintf(ev->key_line, sizeof(ev->key_line), "hang: busy-wait");
	uint64_t top = 0;
	for (size_t i = 0; i < d->nthreads; i++)
		if (d->threads[i].cpu_ns > top && d->threads[i].role != DIAG_ROLE_ZOMBIE)
			top = d->threads[i].cpu_ns;
	/* the hottest threads: at least half the CPU of the hottest one over
	 * the window (on a crowded CPU a spinner may get none in it: then the
	 * busy ones); each snapshot's top program frame of each, as a
	 * livelock's culprits are counted (diag_evidence) */
	struct culprit *c = xcalloc((d->nthreads + 1) * (d->nmore + 1), sizeof(*c));
	size_t nc = 0;
	for (size_t i = 0; i < d->nthreads; i++) {
		const struct diag_thread *t = &d->threads[i];
		bool hot = top ? 2 * t->cpu_ns >= top : t->role == DIAG_ROLE_SPIN;
		if (t->role == DIAG_ROLE_ZOMBIE || !hot)
			continue;
		for (size_t k = 0; k <= d->nmore; k++) {
			const struct stack_thread *sk = stack_set_find(k ? &d->more[k - 1] : &d->stacks, t->tid);
			const char *fn = sk ? stack_program_frame(sk, 0) : NULL;
			if (!fn)
				continue;
			size_t j;
			for (j = 0; j < nc && strcmp(c[j].fn, fn); j++)
				;
			if (j == nc)
				c[nc++] = (struct culprit){ .fn = fn, .decides = true };
			c[j].count++;
		}
	}
	qsort(c, nc, sizeof(*c), cmp_culprit);
	unsigned most = nc ? c[0].count : 0;
	for (size_t i = 0; i < nc && ev->nframes < EVIDENCE_FRAMES && 2 * c[i].count > most; i++)
		snprintf(ev->frames[ev->nframes++], sizeof(ev->frames[0]), "%s", c[i].fn);
	qsort(ev->frames, ev->nframes, sizeof(ev->frames[0]), cmp_str);
	free(c);
}

static bool proc_ended(pid_t pid)
{
	int fd = procfs_open(pid);
	if (fd < 0)
		return true;
	char buf[1024];
	struct procfs_stat st;
	bool ended = procfs_read(fd, "stat", buf, sizeof(buf)) <= 0 || procfs_parse_stat(buf, &st) ||
		     st.state == 'Z' || st.state == 'X';
	close(fd);
	return ended;
}

/*
 * Innermost first: a Python process's traceback goes to its stdout and
 * stderr, which are often pipes its parent (a test runner) reads. Aborting
 * the parent first, or both at once, loses the child's traceback in a
 * dead parent's pipe; the deepest one goes first, and each level gets its
 * share of the wait to print and die before the next.
 */
int diag_python_end(const struct diag *d, int wait_ms, const char *crash_dir)
{
	int sent = 0, maxdepth = -1;
	for (size_t i = 0; i < d->nprocs; i++)
		if (diag_pystacks_of(&d->procs[i]) == DIAG_PY_FAULTHANDLER && d->procs[i].depth > maxdepth)
			maxdepth = d->procs[i].depth;
	int64_t end = clock_mono_ns() + (int64_t)wait_ms * NS_PER_MS;
	for (int depth = maxdepth; depth >= 0; depth--) {
		int here = 0;
		for (size_t i = 0; i < d->nprocs; i++) {
			const struct diag_proc *p = &d->procs[i];
			if (diag_pystacks_of(p) != DIAG_PY_FAULTHANDLER || p->depth != depth || p->pid <= 1)
				continue;
			if (crash_dir)   /* our SIGABRT is no crash: no record */
				(void)crashlog_mark_sent(crash_dir, p->pid);
			if (!kill(p->pid, SIGABRT))
				here++;
		}
		sent += here;
		int64_t now = clock_mono_ns();
		int64_t level_end = now + (end - now) / (depth + 1);
		while (here && clock_mono_ns() < level_end) {
			bool all = true;
			for (size_t i = 0; i < d->nprocs && all; i++) {
				const struct diag_proc *p = &d->procs[i];
				if (diag_pystacks_of(p) == DIAG_PY_FAULTHANDLER && p->depth == depth)
					all = proc_ended(p->pid);
			}
			if (all)
				break;
			sleep_ns(10 * NS_PER_MS);
		}
	}
	for (size_t i = 0; crash_dir && i < d->nprocs; i++) {
		const struct diag_proc *p = &d->procs[i];
		if (diag_pystacks_of(p) == DIAG_PY_FAULTHANDLER && p->pid > 1 && proc_ended(p->pid))
			crashlog_unmark_sent(crash_dir, p->pid);
	}
	return sent;
}
