/*
 * chaos.c: libjostle-chaos.so, the in-process half of `--chaos sync`.
 *
 * Loaded with LD_PRELOAD, it interposes the pthread synchronization calls
 * (mutex, rwlock, spin lock, condition variable, semaphore), thread start,
 * sched_yield and the sleep calls. Around each one it may inject a seeded
 * perturbation: a yield, a short busy-spin or a short sleep. A thread held up
 * just before it takes a lock, or just after it releases one, is exactly the
 * thread that loses a race; injecting that at random points with a fixed
 * seed makes rare interleavings common and repeatable in distribution.
 *
 * Environment (read once, in the constructor; jostle sets them per run):
 *   JOSTLE_CHAOS_PROB    probability of a perturbation at each interposed
 *                        call, 0..1 (default 0.05; 0 = count only)
 *   JOSTLE_CHAOS_MAX_US  longest injected delay in microseconds (default 100,
 *                        at most 100000)
 *   JOSTLE_SEED          the run's seed (0x-prefixed hex or decimal)
 *   JOSTLE_CHAOS_STATS   if set, a file to which each process appends one line
 *                        "jostle-chaos: pid P: N calls interposed, D delays"
 *                        at exit (one O_APPEND write, atomic below PIPE_BUF)
 *
 * Rules this file keeps, because it runs inside programs it knows nothing of:
 *   - no malloc and no stdio on the hot path: per-thread state is a static
 *     initial-exec TLS block, perturbations are raw syscalls or a spin on the
 *     vDSO clock; pthread_create's wrapper allocates one small record, as
 *     pthread_create itself does;
 *   - never changes semantics: each wrapper calls the real function with the
 *     same arguments and returns its result; errno is saved around anything
 *     we do ourselves;
 *   - no recursion into itself: a thread-local flag makes nested calls (from
 *     dlsym during resolution, or from anything we call) go straight through;
 *   - the real functions are resolved once with dlsym(RTLD_NEXT) (dlvsym for
 *     the condition variables, whose unversioned lookup may give the old
 *     GLIBC_2.2.5 ABI) in the constructor, or lazily by the first wrapper
 *     called before it. If a resolution recurses into a wrapper (a malloc
 *     replacement that takes a pthread mutex inside dlsym's calloc), that
 *     nested call happens while the process is still single-threaded in its
 *     constructors, and is answered on a bootstrap path: success without
 *     effect for lock/unlock pairs, the direct syscall for yield and sleep;
 *   - correct after fork: a pthread_atfork child handler reseeds the forking
 *     thread from the child's pid and restarts the counters.
 *
 * Per-thread generator: JOSTLE_SEED mixed with the thread's ordinal (0 for
 * the first thread seen, then in pthread_create order), so a run's
 * perturbations follow from its seed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/rng.h"

#define EXPORT __attribute__((visibility("default")))
#define TLS __thread __attribute__((tls_model("initial-exec")))
#define FLUSH_EVERY 256

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ __volatile__("yield")
#else
#define cpu_relax() do { } while (0)
#endif

struct tstate {
	uint64_t rng;
	uint64_t calls;   /* not yet added to g_calls */
	uint64_t ordinal;
	int inited;
	int busy;         /* inside the library: nested calls pass through */
};

static TLS struct tstate ts;

static uint64_t g_seed;
static uint64_t g_threshold;      /* perturb when rng < threshold; 0 = never */
static uint64_t g_max_ns = 100000;
static uint64_t g_calls;          /* atomic */
static uint64_t g_delays;         /* atomic */
static uint64_t g_next_ordinal;   /* atomic */
static int g_resolved;            /* atomic */
static char g_stats_path[512];

/* The real functions. */
static int (*real_mutex_lock)(pthread_mutex_t *);
static int (*real_mutex_trylock)(pthread_mutex_t *);
static int (*real_mutex_unlock)(pthread_mutex_t *);
static int (*real_rwlock_rdlock)(pthread_rwlock_t *);
static int (*real_rwlock_wrlock)(pthread_rwlock_t *);
static int (*real_rwlock_unlock)(pthread_rwlock_t *);
static int (*real_spin_lock)(pthread_spinlock_t *);
static int (*real_cond_wait)(pthread_cond_t *, pthread_mutex_t *);
static int (*real_cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
static int (*real_cond_signal)(pthread_cond_t *);
static int (*real_cond_broadcast)(pthread_cond_t *);
static int (*real_sem_wait)(sem_t *);
static int (*real_sem_post)(sem_t *);
static int (*real_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static int (*real_sched_yield)(void);
static int (*real_nanosleep)(const struct timespec *, struct timespec *);
static int (*real_usleep)(useconds_t);
static int (*real_clock_nanosleep)(clockid_t, int, const struct timespec *, struct timespec *);

static void *sym(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static void *sym_cond(const char *name)
{
	void *p = dlvsym(RTLD_NEXT, name, "GLIBC_2.3.2");
	return p ? p : dlsym(RTLD_NEXT, name);
}

#define SET(var, expr) __atomic_store_n(&(var), (__typeof__(var))(expr), __ATOMIC_RELEASE)

static void resolve_all(void)
{
	SET(real_mutex_lock, sym("pthread_mutex_lock"));
	SET(real_mutex_trylock, sym("pthread_mutex_trylock"));
	SET(real_mutex_unlock, sym("pthread_mutex_unlock"));
	SET(real_rwlock_rdlock, sym("pthread_rwlock_rdlock"));
	SET(real_rwlock_wrlock, sym("pthread_rwlock_wrlock"));
	SET(real_rwlock_unlock, sym("pthread_rwlock_unlock"));
	SET(real_spin_lock, sym("pthread_spin_lock"));
	SET(real_cond_wait, sym_cond("pthread_cond_wait"));
	SET(real_cond_timedwait, sym_cond("pthread_cond_timedwait"));
	SET(real_cond_signal, sym_cond("pthread_cond_signal"));
	SET(real_cond_broadcast, sym_cond("pthread_cond_broadcast"));
	SET(real_sem_wait, sym("sem_wait"));
	SET(real_sem_post, sym("sem_post"));
	SET(real_create, sym("pthread_create"));
	SET(real_sched_yield, sym("sched_yield"));
	SET(real_nanosleep, sym("nanosleep"));
	SET(real_usleep, sym("usleep"));
	SET(real_clock_nanosleep, sym("clock_nanosleep"));
	__atomic_store_n(&g_resolved, 1, __ATOMIC_RELEASE);
}

/* Resolve if not done yet; false while a resolution on this thread is in
 * progress (the caller takes the bootstrap path). */
static int ensure_resolved(void)
{
	if (__atomic_load_n(&g_resolved, __ATOMIC_ACQUIRE))
		return 1;
	if (ts.busy)
		return 0;
	ts.busy = 1;
	resolve_all();
	ts.busy = 0;
	return 1;
}

static uint64_t parse_u64(const char *s, int *ok)
{
	char *end;
	uint64_t v;

	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		v = strtoull(s + 2, &end, 16);
	else
		v = strtoull(s, &end, 10);
	*ok = !errno && end != s && !*end;
	return v;
}

static void thread_init(uint64_t ordinal)
{
	uint64_t s = g_seed ^ (ordinal * 0x9e3779b97f4a7c15ULL) ^ 0x6a6f73746c65ULL;

	ts.ordinal = ordinal;
	ts.rng = rng_splitmix64(&s);
	ts.inited = 1;
}

static inline struct tstate *self(void)
{
	if (__builtin_expect(!ts.inited, 0))
		thread_init(__atomic_fetch_add(&g_next_ordinal, 1, __ATOMIC_RELAXED));
	return &ts;
}

static void flush_calls(struct tstate *t)
{
	if (t->calls) {
		__atomic_fetch_add(&g_calls, t->calls, __ATOMIC_RELAXED);
		t->calls = 0;
	}
}

static void raw_sleep_ns(uint64_t ns)
{
	struct timespec req = { .tv_sec = (time_t)(ns / 1000000000ULL), .tv_nsec = (long)(ns % 1000000000ULL) };

	syscall(SYS_nanosleep, &req, NULL);
}

static void spin_ns(uint64_t ns)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (;;) {
		cpu_relax();
		clock_gettime(CLOCK_MONOTONIC, &b);
		if ((uint64_t)((b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec)) >= ns)
			return;
	}
}

/* One perturbation, unconditionally: a yield, a spin or a sleep. */
static void perturb_now(struct tstate *t)
{
	uint64_t r = rng_splitmix64(&t->rng);
	uint64_t ns = g_max_ns ? 1000 + (r >> 8) % g_max_ns : 0;
	int saved = errno;

	__atomic_fetch_add(&g_delays, 1, __ATOMIC_RELAXED);
	switch (r & 3) {
	case 0:
		syscall(SYS_sched_yield);
		break;
	case 1:
	case 2:
		spin_ns(ns);
		break;
	default:
		raw_sleep_ns(ns);
		break;
	}
	errno = saved;
}

/*
 * The hot path, entered by every wrapper: count the call and, with the
 * configured probability, perturb. Returns 0 when the caller must pass the
 * call straight through without touching anything (nested or bootstrap).
 */
static inline int enter(void)
{
	struct tstate *t;

	if (__builtin_expect(ts.busy, 0))
		return 0;
	t = self();
	if (++t->calls >= FLUSH_EVERY)
		flush_calls(t);
	if (g_threshold && rng_splitmix64(&t->rng) < g_threshold) {
		t->busy = 1;
		perturb_now(t);
		t->busy = 0;
	}
	return 1;
}

#define PASS(real, ...) do { \
	if (__builtin_expect(!__atomic_load_n(&real, __ATOMIC_ACQUIRE), 0) && !ensure_resolved()) \
		return 0; /* bootstrap: single-threaded, nothing to exclude */ \
	return real(__VA_ARGS__); \
} while (0)

EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	enter();
	PASS(real_mutex_lock, m);
}

EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	enter();
	PASS(real_mutex_trylock, m);
}

EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	int rc;

	if (!__atomic_load_n(&real_mutex_unlock, __ATOMIC_ACQUIRE) && !ensure_resolved())
		return 0;
	rc = real_mutex_unlock(m);
	enter(); /* after the release: let another thread take it first */
	return rc;
}

EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	enter();
	PASS(real_rwlock_rdlock, l);
}

EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	enter();
	PASS(real_rwlock_wrlock, l);
}

EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	int rc;

	if (!__atomic_load_n(&real_rwlock_unlock, __ATOMIC_ACQUIRE) && !ensure_resolved())
		return 0;
	rc = real_rwlock_unlock(l);
	enter();
	return rc;
}

EXPORT int pthread_spin_lock(pthread_spinlock_t *l)
{
	enter();
	PASS(real_spin_lock, l);
}

EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	enter();
	PASS(real_cond_wait, c, m);
}

EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime)
{
	enter();
	PASS(real_cond_timedwait, c, m, abstime);
}

EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	enter();
	PASS(real_cond_signal, c);
}

EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	enter();
	PASS(real_cond_broadcast, c);
}

EXPORT int sem_wait(sem_t *s)
{
	enter();
	PASS(real_sem_wait, s);
}

EXPORT int sem_post(sem_t *s)
{
	enter();
	PASS(real_sem_post, s);
}

EXPORT int sched_yield(void)
{
	if (!__atomic_load_n(&real_sched_yield, __ATOMIC_ACQUIRE) && !ensure_resolved())
		return (int)syscall(SYS_sched_yield);
	enter();
	return real_sched_yield();
}

EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	if (!__atomic_load_n(&real_nanosleep, __ATOMIC_ACQUIRE) && !ensure_resolved())
		return (int)syscall(SYS_nanosleep, req, rem);
	enter();
	return real_nanosleep(req, rem);
}

EXPORT int usleep(useconds_t us)
{
	if (!__atomic_load_n(&real_usleep, __ATOMIC_ACQUIRE) && !ensure_resolved()) {
		struct timespec req = { .tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000 };
		return (int)syscall(SYS_nanosleep, &req, NULL);
	}
	enter();
	return real_usleep(us);
}

EXPORT int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)
{
	if (!__atomic_load_n(&real_clock_nanosleep, __ATOMIC_ACQUIRE) && !ensure_resolved()) {
		/* clock_nanosleep returns the error instead of setting errno */
		long rc = syscall(SYS_clock_nanosleep, clk, flags, req, rem);
		return rc < 0 ? errno : 0;
	}
	enter();
	return real_clock_nanosleep(clk, flags, req, rem);
}

/* Thread start: the new thread gets its ordinal from its creator (so the
 * numbering follows creation order) and is perturbed once before it runs. */
struct start {
	void *(*fn)(void *);
	void *arg;
	uint64_t ordinal;
};

static void thread_end(void *unused)
{
	(void)unused;
	flush_calls(&ts);
}

static void *thread_start(void *p)
{
	struct start s = *(struct start *)p;
	void *ret;

	free(p);
	thread_init(s.ordinal);
	if (g_threshold) {
		ts.busy = 1;
		perturb_now(&ts);
		ts.busy = 0;
	}
	pthread_cleanup_push(thread_end, NULL);
	ret = s.fn(s.arg);
	pthread_cleanup_pop(1);
	return ret;
}

EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	struct start *s;

	if (!__atomic_load_n(&real_create, __ATOMIC_ACQUIRE) && !ensure_resolved())
		return EAGAIN;
	self();
	ts.calls++;
	s = malloc(sizeof(*s));
	if (!s)
		return real_create(th, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	s->ordinal = __atomic_fetch_add(&g_next_ordinal, 1, __ATOMIC_RELAXED);
	{
		int rc = real_create(th, attr, thread_start, s);
		if (rc)
			free(s);
		return rc;
	}
}

/* For fixtures: the number of interposed calls so far in this process
 * (found with dlsym(RTLD_DEFAULT, "jostle_chaos_calls")). */
EXPORT uint64_t jostle_chaos_calls(void)
{
	return __atomic_load_n(&g_calls, __ATOMIC_RELAXED) + ts.calls;
}

static void after_fork_child(void)
{
	uint64_t s = g_seed ^ ((uint64_t)getpid() << 20);

	ts.rng = rng_splitmix64(&s);
	ts.calls = 0;
	__atomic_store_n(&g_calls, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&g_delays, 0, __ATOMIC_RELAXED);
}

static char *put_u64(char *p, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

__attribute__((constructor)) static void chaos_init(void)
{
	const char *v;
	int ok;

	ts.busy = 1;
	v = getenv("JOSTLE_SEED");
	if (v) {
		uint64_t s = parse_u64(v, &ok);
		if (ok)
			g_seed = s;
	}
	{
		double prob = 0.05;
		v = getenv("JOSTLE_CHAOS_PROB");
		if (v) {
			char *end;
			double p = strtod(v, &end);
			if (end != v && !*end && p >= 0 && p <= 1)
				prob = p;
		}
		g_threshold = prob >= 1 ? UINT64_MAX : (uint64_t)(prob * 18446744073709551616.0);
	}
	v = getenv("JOSTLE_CHAOS_MAX_US");
	if (v) {
		uint64_t us = parse_u64(v, &ok);
		if (ok)
			g_max_ns = (us > 100000 ? 100000 : us) * 1000;
	}
	v = getenv("JOSTLE_CHAOS_STATS");
	if (v && strlen(v) < sizeof(g_stats_path))
		memcpy(g_stats_path, v, strlen(v) + 1);
	resolve_all();
	pthread_atfork(NULL, NULL, after_fork_child);
	ts.busy = 0;
	self();
}

__attribute__((destructor)) static void chaos_fini(void)
{
	char line[160], *p = line;
	int fd;

	flush_calls(&ts);
	if (!g_stats_path[0])
		return;
	p = put_str(p, "jostle-chaos: pid ");
	p = put_u64(p, (uint64_t)getpid());
	p = put_str(p, ": ");
	p = put_u64(p, __atomic_load_n(&g_calls, __ATOMIC_RELAXED));
	p = put_str(p, " calls interposed, ");
	p = put_u64(p, __atomic_load_n(&g_delays, __ATOMIC_RELAXED));
	p = put_str(p, " delays\n");
	fd = open(g_stats_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	(void)!write(fd, line, (size_t)(p - line));
	close(fd);
}
