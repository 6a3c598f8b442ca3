/*
 * chaos.c: libjostle-chaos.so, the in-process half of `--chaos sync`.
 *
 * Loaded with LD_PRELOAD, it interposes the pthread synchronization calls
 * (mutex, rwlock, spin lock, condition variable, semaphore), thread start,
 * sched_yield, the sleep calls and the signal waits. Around each one it
 * may inject a seeded perturbation: a yield, a short busy-spin or a short
 * sleep. A thread held up just before it takes a lock, or just after it
 * releases one, is exactly the thread that loses a race; injecting that at
 * random points with a fixed seed makes rare interleavings common and
 * repeatable in distribution.
 *
 * Environment (read once, in the constructor; jostle sets them per run):
 *   JOSTLE_CHAOS_PROB    probability of a perturbation at each interposed
 *                        call, 0..1 (default 0.05; 0 = count only)
 *   JOSTLE_CHAOS_MAX_US  longest injected delay in microseconds (default 100,
 *                        at most 100000)
 *   JOSTLE_CHAOS_BUDGET_US  the most time a thread may spend in injected
 *                        perturbations, in microseconds (default 0: no limit);
 *                        once spent, its calls pass straight through. It bounds
 *                        how much chaos can slow a run, so a heavy setting (a
 *                        high probability, long delays) is safe on a program
 *                        that makes many calls or has its own deadlines (per
 *                        thread, not per process: threads are held up side by
 *                        side, and a program of a hundred threads would spend
 *                        a process's budget in its first thread starts)
 *   JOSTLE_CHAOS_STEP    "1": `--chaos step`, holds threads up before single
 *                        instructions ("instruction steps" below; x86-64)
 *   JOSTLE_CHAOS_STEPS   with it: the most instructions a process is stepped
 *                        through (default 60000)
 *   JOSTLE_CHAOS_STEP_THREADS  with it: the threads stepped, a mask of their
 *                        ordinals in creation order (bit 0 the first, bit 7
 *                        the 7th and every later one); default: every one
 *                        but the first, or every one, by the seed
 *   JOSTLE_SEED          the run's seed (0x-prefixed hex or decimal)
 *   JOSTLE_CHAOS_STATS   if set, a file to which each process appends one line
 *                        "jostle-chaos: pid P: N calls interposed, D delays"
 *                        at exit (one O_APPEND write, atomic below PIPE_BUF)
 *   JOSTLE_DELAY_FILE, JOSTLE_DELAY_SLOT
 *                        jostle's per-run account of what this library did
 *                        (src/run/late.h): a file of 64-byte slots, this
 *                        run's at index SLOT, three counters every process of
 *                        the run adds to with atomic adds on a MAP_SHARED
 *                        mapping (so it holds even for a run killed at its
 *                        deadline): the time its threads were held up (ns, as
 *                        elapsed), of which spinning (ns: CPU the run burned
 *                        for us), and instructions stepped
 *   JOSTLE_CHAOS_SITES   `jostle localize`: a plan file; call sites are
 *                        recorded and, in its mask mode, delays go only to
 *                        the sites JOSTLE_CHAOS_MASK names (see "call sites"
 *                        below; JOSTLE_OUT and JOSTLE_RUN name the table)
 *
 * Rules this file keeps, because it runs inside programs it knows nothing of:
 *   - no malloc and no stdio on the hot path: per-thread state is a static
 *     initial-exec TLS block, perturbations are raw syscalls or a spin on the
 *     vDSO clock; pthread_create's wrapper takes its record from a static
 *     pool (it must not touch the program's allocator: "Thread start");
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
 * Where a thread may be held up: before it takes a lock and just after it
 * got it (a longer critical section: a lock-free reader of what the lock
 * guards sees it half-updated for longer), after it releases one, at
 * condition variables, semaphores, yields and sleeps, before a signal wait
 * (pause, sigsuspend, sigwait*), when a new thread starts (before its
 * function runs), in the creating thread just after pthread_create
 * returns (the child runs first: a program that reads what the child sets
 * up meets its bug) and in the thread that ends the process, as the
 * library's destructor runs (threads the program never joined get further
 * before exit ends them).
 *
 * Per-thread generator: JOSTLE_SEED mixed with the thread's ordinal (0 for
 * the first thread seen, then in pthread_create order), so a run's
 * perturbations follow from its seed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "util/rng.h"
#include "util/sitemask.h"
#include "util/sitetable.h"
#include "util/x86access.h"

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
	uint64_t delays;  /* perturbations of this thread (jostle_chaos_thread_delays) */
	uint64_t spent_ns; /* time spent perturbing (with a budget) */
	int inited;
	int busy;         /* inside the library: nested calls pass through */
	int stepping;     /* --chaos step: this thread runs one instruction at a time */
	int step_decided; /* step_begin ran */
};

static TLS struct tstate ts;

static uint64_t g_seed;
static uint64_t g_threshold;      /* perturb when rng < threshold; 0 = never */
static uint64_t g_max_ns = 100000;
static uint64_t g_calls;          /* atomic */
static uint64_t g_delays;         /* atomic */
static uint64_t g_budget_ns;      /* per thread; 0: no limit */
static uint64_t g_next_ordinal;   /* atomic */
static int g_step;                /* JOSTLE_CHAOS_STEP: the step perturbation on */
static int g_resolved;            /* atomic */
static char g_stats_path[512];
/* JOSTLE_DELAY_FILE's slot of this run (above), or NULL */
enum { DELAY_NS, DELAY_SPIN_NS, DELAY_STEPS };
static uint64_t *g_delay;

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
static int (*real_pause)(void);
static int (*real_sigsuspend)(const sigset_t *);
static int (*real_sigwait)(const sigset_t *, int *);
static int (*real_sigwaitinfo)(const sigset_t *, siginfo_t *);
static int (*real_sigtimedwait)(const sigset_t *, siginfo_t *, const struct timespec *);
static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);
static sighandler_t (*real_signal)(int, sighandler_t);

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
	SET(real_pause, sym("pause"));
	SET(real_sigsuspend, sym("sigsuspend"));
	SET(real_sigwait, sym("sigwait"));
	SET(real_sigwaitinfo, sym("sigwaitinfo"));
	SET(real_sigtimedwait, sym("sigtimedwait"));
	SET(real_sigaction, sym("sigaction"));
	SET(real_signal, sym("signal"));
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

static uint64_t mono_ns(void)
{
	struct timespec a;

	clock_gettime(CLOCK_MONOTONIC, &a);
	return (uint64_t)a.tv_sec * 1000000000ULL + (uint64_t)a.tv_nsec;
}

static void spin_ns(uint64_t ns)
{
	uint64_t t0 = mono_ns();

	do
		cpu_relax();
	while (mono_ns() - t0 < ns);
}

/* Into the run's account (JOSTLE_DELAY_FILE): held up for ns, spinning
 * for spin_ns of them. */
static void account_delay(uint64_t ns, uint64_t spin_ns)
{
	if (!g_delay)
		return;
	__atomic_fetch_add(&g_delay[DELAY_NS], ns, __ATOMIC_RELAXED);
	if (spin_ns)
		__atomic_fetch_add(&g_delay[DELAY_SPIN_NS], spin_ns, __ATOMIC_RELAXED);
}

/*
 * One perturbation, unconditionally: a yield, a spin or a sleep. What it
 * asked for is charged to the budget (a yield as 10 us), not the time it
 * took: on a loaded machine a 1 ms sleep lasts 10 or 20 until the thread
 * runs again, and charging that spent a 20 ms budget in one or two
 * delays (queue_bad under sync-hi: 100% of runs failing without a budget,
 * 38% with one charged by elapsed time, at load 40).
 */
static void perturb_now(struct tstate *t)
{
	uint64_t r = rng_splitmix64(&t->rng);
	uint64_t ns = g_max_ns ? 1000 + (r >> 8) % g_max_ns : 0;
	int saved = errno;
	uint64_t t0 = g_delay ? mono_ns() : 0, spun = 0;

	__atomic_fetch_add(&g_delays, 1, __ATOMIC_RELAXED);
	t->delays++;
	switch (r & 3) {
	case 0:
		syscall(SYS_sched_yield);
		ns = 10000;
		break;
	case 1:
	case 2:
		spin_ns(ns);
		spun = ns;
		break;
	default:
		raw_sleep_ns(ns);
		break;
	}
	t->spent_ns += ns;
	if (g_delay)
		account_delay(mono_ns() - t0, spun);
	errno = saved;
}

/* Whether thread t may be perturbed at all (a threshold and budget left). */
static inline int armed(const struct tstate *t)
{
	return g_threshold && (!g_budget_ns || t->spent_ns < g_budget_ns);
}

/* With the configured probability, perturb thread t now. */
static inline void maybe_perturb(struct tstate *t)
{
	if (armed(t) && rng_splitmix64(&t->rng) < g_threshold) {
		t->busy = 1;
		perturb_now(t);
		t->busy = 0;
	}
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

/* ---- call sites: `jostle localize` ----------------------------------
 *
 * With JOSTLE_CHAOS_SITES=PLAN every interposed call is attributed to its
 * call site: the return address into the caller, and which call it made.
 * Sites live in a fixed open-addressing table (util/sitetable.h; slots
 * claimed once by compare-and-swap and never freed: no lock and no
 * allocation on the hot path). A site is resolved once, when first seen,
 * to module + offset with _dl_find_object (lock-free) and looked up in the
 * plan. In record mode the table is a MAP_SHARED mapping of
 * $JOSTLE_OUT/sites/RUN.PID.tab, so the counts are in the file however
 * the process ends; in mask mode it is private memory.
 *
 * The plan, written by jostle and read once by the constructor:
 *   jostle-sites 1
 *   mode record | mask
 *   module ID PATH
 *   site BIT ID OFFSET PROB        (OFFSET: of the return address, hex)
 * `record` (discovery): the usual seeded chaos at every call, and the table.
 * `mask`: a delay only at the plan's sites whose BIT is set in
 * JOSTLE_CHAOS_MASK (util/sitemask.h), at each of their calls with
 * probability PROB, and nowhere else. site_decide() is the one place that
 * decides; the rest of this file only hands it the return address.
 */
enum { SITES_OFF, SITES_RECORD, SITES_MASK };

#define SITE_PROBES 64

struct plan_site {
	uint64_t off, thr;
	int bit, mod;        /* mod: index into g_plan_mod */
	int on;              /* this run's mask has the bit */
};

static int g_sites;                  /* SITES_* */
static struct sitetable *g_tab;      /* mapped in the constructor */
static char g_exe[SITETABLE_PATH];
static struct plan_site *g_plan;     /* from the constructor on, read only */
static size_t g_nplan;
static char **g_plan_mod;            /* into g_plan_text */
static size_t g_nplan_mod;
__attribute__((used)) static char *g_plan_text;   /* kept for the life of the process */

/* The index of PATH in the table's modules, added if new; -1 when full. */
static int mod_intern(const char *path)
{
	struct sitetable *t = g_tab;
	uint32_t n, i;

	while (__atomic_exchange_n(&t->lock, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
	n = __atomic_load_n(&t->nmods, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++)
		if (!strncmp(t->mods[i], path, SITETABLE_PATH - 1))
			break;
	if (i == n && n < SITETABLE_MODS) {
		size_t len = strlen(path);
		if (len >= SITETABLE_PATH)
			len = SITETABLE_PATH - 1;
		memcpy(t->mods[n], path, len);
		t->mods[n][len] = '\0';
		__atomic_store_n(&t->nmods, n + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&t->lock, 0, __ATOMIC_RELEASE);
	return i < SITETABLE_MODS ? (int)i : -1;
}

/* The module holding PC and PC's offset in it (PC minus the load bias: the
 * address as the file's program headers number it). */
static int module_of(uintptr_t pc, uint64_t *off)
{
	struct link_map *lm = NULL;
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 35)
	struct dl_find_object fo;

	if (_dl_find_object((void *)pc, &fo) == 0)
		lm = fo.dlfo_link_map;
#else
	Dl_info info;

	if (!dladdr1((void *)pc, &info, (void **)&lm, RTLD_DL_LINKMAP))
		lm = NULL;
#endif
	if (!lm)
		return -1;
	*off = pc - lm->l_addr;
	if (lm->l_name && lm->l_name[0] && lm->l_name[0] != '/') {
		/* dlopen("lib/x.so") names it as given: relative to the
		 * working directory, as the loader found it */
		char abs[SITETABLE_PATH];
		size_t n;
		if (!getcwd(abs, sizeof(abs) - 2))
			return -1;
		n = strlen(abs);
		abs[n++] = '/';
		abs[n] = '\0';
		if (n + strlen(lm->l_name) >= sizeof(abs))
			return -1;
		memcpy(abs + n, lm->l_name, strlen(lm->l_name) + 1);
		return mod_intern(abs);
	}
	return mod_intern(lm->l_name && lm->l_name[0] ? lm->l_name : g_exe);
}

static void site_resolve(struct sitetable_slot *s, uintptr_t ra, int call, uintptr_t start)
{
	s->call = call;
	s->bit = -1;
	s->thr = 0;
	s->start_mod = start ? module_of(start, &s->start_off) : -1;
	s->mod = module_of(ra, &s->off);
	for (size_t i = 0; s->mod >= 0 && i < g_nplan; i++) {
		const struct plan_site *p = &g_plan[i];
		if (p->off == s->off && !strcmp(g_plan_mod[p->mod], g_tab->mods[s->mod])) {
			s->bit = p->bit;
			s->thr = p->on ? p->thr : 0;
			break;
		}
	}
	__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
}

/* The site of return address RA, claimed and resolved if new (START: the
 * start routine of a pthread_create); NULL when the table has no room
 * (counted) or another thread is still resolving it. */
static struct sitetable_slot *site_get(uintptr_t ra, int call, uintptr_t start)
{
	uint64_t h = ((uint64_t)ra * 0x9e3779b97f4a7c15ULL) >> 52;   /* 12 bits: SITETABLE_SLOTS */

	for (unsigned i = 0; i < SITE_PROBES; i++) {
		struct sitetable_slot *s = &g_tab->slot[(h + i) & (SITETABLE_SLOTS - 1)];
		uint64_t cur = __atomic_load_n(&s->ra, __ATOMIC_ACQUIRE);

		if (!cur) {
			if (__atomic_compare_exchange_n(&s->ra, &cur, (uint64_t)ra, 0, __ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE)) {
				/* a call from a signal handler meanwhile passes
				 * through instead of spinning on the module lock */
				int busy = ts.busy;
				ts.busy = 1;
				site_resolve(s, ra, call, start);
				ts.busy = busy;
				return s;
			}
		}
		if (cur == ra)
			return __atomic_load_n(&s->ready, __ATOMIC_ACQUIRE) ? s : NULL;
	}
	__atomic_fetch_add(&g_tab->overflow, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* Whether this call at site s is delayed: in mask mode the site's own
 * probability, in record mode the usual one. Counts the call. */
static int site_decide(struct tstate *t, struct sitetable_slot *s)
{
	uint64_t thr;

	if (s)
		__atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
	thr = g_sites == SITES_MASK ? (s ? s->thr : 0) : g_threshold;
	if (!thr || (thr != UINT64_MAX && rng_splitmix64(&t->rng) >= thr))
		return 0;
	if (s)
		__atomic_fetch_add(&s->delays, 1, __ATOMIC_RELAXED);
	return 1;
}

/* enter() with sites on. */
static int sites_enter(struct tstate *t, void *ra, int call)
{
	if (site_decide(t, site_get((uintptr_t)ra, call, 0))) {
		t->busy = 1;
		perturb_now(t);
		t->busy = 0;
	}
	return 1;
}

/* Read the whole of PATH into a new NUL-terminated buffer (constructor
 * only: it allocates). */
static char *slurp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 4096;
	char *buf = fd < 0 ? NULL : malloc(cap);

	while (buf) {
		ssize_t n;
		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			buf[len] = '\0';
			break;
		}
		len += (size_t)n;
	}
	if (fd >= 0)
		close(fd);
	return buf;
}

/* Parse the plan (format above); returns its mode, SITES_OFF when it
 * cannot be read. A malformed line is skipped: a plan is written by
 * jostle, and a run must never fail because of the library. */
static int plan_load(const char *path, const char *mask)
{
	char *text = slurp(path), *line, *next;
	size_t nlines = 1;
	int mode = SITES_RECORD;

	if (!text)
		return SITES_OFF;
	g_plan_text = text;
	for (char *c = text; *c; c++)
		nlines += *c == '\n';
	g_plan = calloc(nlines, sizeof(*g_plan));
	g_plan_mod = calloc(nlines, sizeof(*g_plan_mod));
	if (!g_plan || !g_plan_mod)
		return SITES_OFF;
	for (line = text; line && *line; line = next) {
		char *end;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strcmp(line, "mode mask")) {
			mode = SITES_MASK;
		} else if (!strncmp(line, "module ", 7)) {
			unsigned long id = strtoul(line + 7, &end, 10);
			if (*end == ' ' && id == g_nplan_mod)
				g_plan_mod[g_nplan_mod++] = end + 1;
		} else if (!strncmp(line, "site ", 5)) {
			struct plan_site *p = &g_plan[g_nplan];
			unsigned long bit = strtoul(line + 5, &end, 10);
			unsigned long mod = strtoul(end, &end, 10);
			uint64_t off = strtoull(end, &end, 16);
			double prob = strtod(end, &end);
			if (*end || bit >= SITEMASK_MAX || mod >= g_nplan_mod || !(prob >= 0 && prob <= 1))
				continue;
			p->bit = (int)bit;
			p->mod = (int)mod;
			p->off = off;
			p->thr = prob >= 1 ? UINT64_MAX : (uint64_t)(prob * 18446744073709551616.0);
			p->on = mask && sitemask_get(mask, bit);
			g_nplan++;
		}
	}
	return mode;
}

/* The table: in record mode the shared mapping of a new file
 * $JOSTLE_OUT/sites/RUN.PID[.N].tab (private memory when there is none);
 * in mask mode private memory. NULL when nothing could be mapped. */
static struct sitetable *table_map(int mode)
{
	const char *out = getenv("JOSTLE_OUT"), *run = getenv("JOSTLE_RUN");
	char path[1024], *p;
	int fd = -1;
	void *m;

	if (mode == SITES_RECORD && out && strlen(out) + 80 < sizeof(path)) {
		p = put_str(path, out);
		p = put_str(p, "/sites");
		*p = '\0';
		(void)mkdir(path, 0755);
		p = put_str(p, "/");
		p = put_str(p, run && strlen(run) < 24 ? run : "x");
		p = put_str(p, ".");
		p = put_u64(p, (uint64_t)getpid());
		for (int n = 0; n < 100 && fd < 0; n++) {
			char *q = p;
			if (n) {
				q = put_str(q, ".");
				q = put_u64(q, (uint64_t)n);
			}
			q = put_str(q, ".tab");
			*q = '\0';
			fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			if (fd < 0 && errno != EEXIST)
				break;
		}
		if (fd >= 0 && ftruncate(fd, sizeof(struct sitetable)) < 0) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0) {
		m = mmap(NULL, sizeof(struct sitetable), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
	} else {
		m = mmap(NULL, sizeof(struct sitetable), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	if (m == MAP_FAILED)
		return NULL;
	struct sitetable *t = m;
	t->version = SITETABLE_VERSION;
	t->slots = SITETABLE_SLOTS;
	t->mode = (uint32_t)mode;
	t->pid = (uint64_t)getpid();
	memcpy(t->magic, SITETABLE_MAGIC, sizeof(t->magic));   /* last: the table is valid */
	return t;
}

static void sites_init(void)
{
	const char *plan = getenv("JOSTLE_CHAOS_SITES");
	int mode;
	ssize_t n;

	if (!plan || !*plan)
		return;
	n = readlink("/proc/self/exe", g_exe, sizeof(g_exe) - 1);
	g_exe[n > 0 ? n : 0] = '\0';
	mode = plan_load(plan, getenv("JOSTLE_CHAOS_MASK"));
	if (mode != SITES_OFF && (g_tab = table_map(mode)))
		g_sites = mode;
}

/* The child of a fork gets a table of its own (the parent's file stays
 * the parent's); its sites are found again as it reaches them. */
static void sites_after_fork(void)
{
	if (!g_sites)
		return;
	g_tab = table_map(g_sites);
	if (!g_tab)
		g_sites = SITES_OFF;
}

/* ---- end of call sites ------------------------------------------------ */

/* ---- instruction steps (`--chaos step`) -------------------------------- */

/*
 * The delays at pthread calls cannot reach a race between plain memory
 * accesses (`a = 1; b = -1;` read half-done by another thread, a counter
 * incremented under two different locks): no call sits inside the window.
 * The step perturbation reaches it on the unmodified binary, in the spirit
 * of PCT (Burckhardt et al., ASPLOS 2010) without a controlled scheduler:
 * each thread runs with the x86 trap flag set, so the kernel sends it
 * SIGTRAP after every instruction, and before an instruction of the
 * program's own code that touches shared memory (util/x86access.h) the
 * handler holds it up with the run's probability (log-uniform, 1/1000 to
 * 1: a thread of ten instructions and one of a million both get a few
 * change points) for 20 us to JOSTLE_CHAOS_MAX_US, out of the thread's
 * JOSTLE_CHAOS_BUDGET_US; meanwhile the others go through the window. New
 * threads start after a random share of that delay (a random order, as
 * PCT's priorities give).
 *
 * Costs and bounds: a step is a signal (2-11 us here), so the process stops
 * stepping after JOSTLE_CHAOS_STEPS instructions in all (default 60000,
 * about half a second: a cap per thread let a zoo program of eight busy
 * threads run past a 4 s timeout in every run), and a thread once its
 * delay budget is spent. Only code outside the system's library
 * folders is the program's own: libc's internals are stepped through, never
 * held up in. x86-64 only (elsewhere the setting does nothing).
 *
 * What the program sees is unchanged: a SIGTRAP handler of its own is kept
 * and called for every trap that is not a step (sigaction and signal are
 * answered from that record), and a thread that blocks SIGTRAP stops
 * stepping first (a blocked trap would kill the process).
 */
#if defined(__x86_64__)
#define STEP_TF 0x100ULL
#define STEP_RANGES 32

static int64_t g_steps_left = 60000;   /* instructions, the process's threads together */
static uint64_t g_step_threshold;      /* hold up at a shared access when rng < this */
static unsigned g_step_who;            /* the threads stepped: bit k thread k (bit 7: 7 and later) */
static uintptr_t g_code_lo[STEP_RANGES], g_code_hi[STEP_RANGES];
static int g_code_nr;
static struct sigaction g_user_trap;   /* the program's own SIGTRAP action */
static int g_user_trap_set;

static void tf_set(void)
{
	__asm__ __volatile__("pushfq; orq $0x100, (%%rsp); popfq" ::: "memory", "cc");
}

static void tf_clear(void)
{
	__asm__ __volatile__("pushfq; andq $~0x100, (%%rsp); popfq" ::: "memory", "cc");
}

static int own_code(uintptr_t pc)
{
	for (int i = 0; i < g_code_nr; i++)
		if (pc >= g_code_lo[i] && pc < g_code_hi[i])
			return 1;
	return 0;
}

/* Pass a trap that is not ours to the program's action, as the kernel
 * would have. */
static void trap_forward(int sig, siginfo_t *si, void *uc)
{
	if (!g_user_trap_set || g_user_trap.sa_handler == SIG_DFL) {
		struct sigaction dfl;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		real_sigaction(SIGTRAP, &dfl, NULL);
		raise(SIGTRAP);
		return;
	}
	if (g_user_trap.sa_handler == SIG_IGN)
		return;
	if (g_user_trap.sa_flags & SA_SIGINFO)
		g_user_trap.sa_sigaction(sig, si, uc);
	else
		g_user_trap.sa_handler(sig);
}

/*
 * Whether the next instruction is a system call that blocks SIGTRAP: a
 * trap while it is blocked kills the process, so the thread stops stepping
 * first. Seen at the syscall itself, it covers every way in: the program's
 * sigprocmask, and libc's own (pthread_create and posix_spawn block all
 * signals around clone).
 */
static int blocks_trap(const ucontext_t *uc, const unsigned char *pc)
{
	const greg_t *g = uc->uc_mcontext.gregs;
	const void *set = (const void *)g[REG_RSI];
	uint64_t mask = 0;

	if (pc[0] != 0x0f || pc[1] != 0x05 || g[REG_RAX] != SYS_rt_sigprocmask || g[REG_RDI] == SIG_UNBLOCK ||
	    !set)
		return 0;
	/* the set is the program's pointer: read through the kernel, which
	 * says EFAULT where a plain read would crash in this handler (and the
	 * call itself will fail the same way, blocking nothing) */
	{
		struct iovec local = { &mask, sizeof(mask) }, remote = { (void *)set, sizeof(mask) };
		int saved = errno;
		long n = syscall(SYS_process_vm_readv, (long)getpid(), &local, 1L, &remote, 1L, 0L);
		int e = errno;

		errno = saved;
		if (n != (long)sizeof(mask)) {
			if (e == EFAULT)
				return 0;
			memcpy(&mask, set, sizeof(mask));   /* the call refused (a sandbox): read it */
		}
	}
	return (mask & (1ULL << (SIGTRAP - 1))) != 0;
}

static int lost_step(const struct tstate *t, const siginfo_t *si, const ucontext_t *uc)
{
	return (si->si_code == TRAP_BRKPT || si->si_code == TRAP_HWBKPT) && t->stepping &&
	       (uc->uc_mcontext.gregs[REG_EFL] & (greg_t)STEP_TF) &&
	       (!g_user_trap_set || g_user_trap.sa_handler == SIG_DFL);
}

static void step_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	struct tstate *t = &ts;
	uintptr_t pc;

	/* A trap with no step status (TRAP_BRKPT, the kernel's icebp case, or
	 * TRAP_HWBKPT, a stale breakpoint status) in a thread that runs stepped,
	 * the trap flag set, and no SIGTRAP action of the program's: taken as a
	 * step whose status was lost on the way (a hypervisor may lose it; a
	 * correct program died of SIGTRAP in 3 of 1,713 step runs on the
	 * project's VM, and no other way to die so was found). Forwarded, the
	 * default action would end the process. */
	if (si->si_code != TRAP_TRACE && !lost_step(t, si, uc)) {
		trap_forward(sig, si, ucv);
		return;
	}
	/* not stepping: the flag came with a clone() made while stepping */
	if (!t->stepping || __atomic_sub_fetch(&g_steps_left, 1, __ATOMIC_RELAXED) < 0 ||
	    (g_budget_ns && t->spent_ns >= g_budget_ns)) {
		t->stepping = 0;
		uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)STEP_TF;
		return;
	}
	pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	if (blocks_trap(uc, (const unsigned char *)pc)) {
		t->stepping = 0;
		uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)STEP_TF;
		return;
	}
	if (g_delay)
		__atomic_fetch_add(&g_delay[DELAY_STEPS], 1, __ATOMIC_RELAXED);
	if (t->busy || !own_code(pc) || !x86_shared_access((const unsigned char *)pc) ||
	    rng_splitmix64(&t->rng) >= g_step_threshold)
		return;
	{
		uint64_t ns = 20000 + rng_splitmix64(&t->rng) % (g_max_ns ? g_max_ns : 1);
		int saved = errno;
		uint64_t t0 = g_delay ? mono_ns() : 0;
		raw_sleep_ns(ns);
		if (g_delay)
			account_delay(mono_ns() - t0, 0);
		t->spent_ns += ns;
		t->delays++;
		__atomic_fetch_add(&g_delays, 1, __ATOMIC_RELAXED);
		errno = saved;
	}
}

/* The program's own code: every executable segment of an object outside
 * the system's library folders, and not of jostle's preload libraries. */
static int code_range(struct dl_phdr_info *info, size_t size, void *unused)
{
	const char *n = info->dlpi_name, *base = strrchr(n, '/');

	(void)size;
	(void)unused;
	if (!strncmp(n, "/lib/", 5) || !strncmp(n, "/lib64/", 7) || !strncmp(n, "/usr/lib/", 9) ||
	    !strncmp(n, "/usr/lib64/", 11) || strstr(n, "linux-vdso") ||
	    !strncmp(base ? base + 1 : n, "libjostle-", 10))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && g_code_nr < STEP_RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			g_code_lo[g_code_nr] = info->dlpi_addr + ph->p_vaddr;
			g_code_hi[g_code_nr] = g_code_lo[g_code_nr] + ph->p_memsz;
			g_code_nr++;
		}
	}
	return 0;
}

static void step_init(void)
{
	const char *v = getenv("JOSTLE_CHAOS_STEP");
	struct sigaction sa;
	uint64_t s;
	int ok;

	if (!v || strcmp(v, "1") != 0)
		return;
	v = getenv("JOSTLE_CHAOS_STEPS");
	if (v) {
		uint64_t n = parse_u64(v, &ok);
		if (ok)
			g_steps_left = n > INT64_MAX / 2 ? INT64_MAX / 2 : (int64_t)n;
	}
	/* per run: a log-uniform probability of a hold-up at each shared
	 * access, 1/1000 to 1 (2^-u, u uniform in [0, 10), linear between
	 * powers of two), so a run of a ten-instruction thread and one of a
	 * million-instruction thread both see a few */
	s = g_seed ^ 0x73746570ULL;
	{
		double u = 9.966 * rng_unit(&s), f;
		int k = (int)u;
		f = u - k;
		g_step_threshold = (UINT64_MAX >> k) - (uint64_t)((double)(UINT64_MAX >> (k + 1)) * f);
	}
	/* which threads: jostle's draw (JOSTLE_CHAOS_STEP_THREADS), else
	 * every one but the first, or every one, in half the runs each */
	g_step_who = rng_splitmix64(&s) & 1 ? 0xff : 0xfe;
	v = getenv("JOSTLE_CHAOS_STEP_THREADS");
	if (v) {
		uint64_t who = parse_u64(v, &ok);
		if (ok && (who & 0xff))
			g_step_who = (unsigned)(who & 0xff);
	}
	dl_iterate_phdr(code_range, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = step_trap;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (real_sigaction(SIGTRAP, &sa, &g_user_trap) == 0) {
		g_user_trap_set = g_user_trap.sa_handler != SIG_DFL;
		g_step = 1;
	}
}

/* Step thread t (again), unless SIGTRAP is blocked in it. */
/* Whether SIGTRAP still reaches step_trap: a runtime that sets its
 * handlers with the raw system call (Go's, under cgo) replaces ours
 * unseen, and would take every step for a crash. */
static int trap_is_ours(void)
{
	struct {   /* the kernel's struct sigaction on x86-64 */
		void *handler;
		unsigned long flags;
		void *restorer;
		uint64_t mask;
	} k;

	return syscall(SYS_rt_sigaction, SIGTRAP, NULL, &k, sizeof(k.mask)) == 0 &&
	       k.handler == (void *)step_trap;
}

static void step_resume(struct tstate *t)
{
	sigset_t cur;

	if (pthread_sigmask(SIG_BLOCK, NULL, &cur) == 0 && sigismember(&cur, SIGTRAP))
		return;
	if (!trap_is_ours()) {
		g_step = 0;   /* for good: no thread of this process is stepped */
		return;
	}
	t->stepping = 1;
	tf_set();
}

/*
 * Start stepping thread t. A new thread first waits a random share of the
 * longest delay: threads then start in a random order, as PCT's random
 * priorities run them (the last of ten setters may run before the checker
 * created after it). Only the threads of g_step_who are stepped then (the
 * first thread from its first pthread_create on): holding the first one up
 * makes the race of a program whose main thread takes part, and hides one
 * whose main thread only creates the others; stepping one thread alone
 * holds it up while the others run at full speed.
 */
static void step_begin(struct tstate *t)
{
	if (!g_step || t->step_decided)
		return;
	t->step_decided = 1;
	if (t->ordinal) {
		uint64_t ns = (uint64_t)(rng_unit(&t->rng) * (double)g_max_ns);
		uint64_t t0 = g_delay ? mono_ns() : 0;
		raw_sleep_ns(ns);
		if (g_delay)
			account_delay(mono_ns() - t0, 0);
		t->spent_ns += ns;
	}
	if (!(g_step_who & (1u << (t->ordinal < 7 ? t->ordinal : 7))))
		return;
	step_resume(t);
}

static void step_end(struct tstate *t)
{
	if (t->stepping) {
		t->stepping = 0;
		tf_clear();
	}
}

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!__atomic_load_n(&real_sigaction, __ATOMIC_ACQUIRE) && !ensure_resolved()) {
		errno = ENOSYS; /* only from inside dlsym, in our constructor: never seen */
		return -1;
	}
	if (sig != SIGTRAP || !g_step)
		return real_sigaction(sig, act, old);
	/* the program's SIGTRAP action is kept here, and called by step_trap */
	if (old) {
		if (g_user_trap_set) {
			*old = g_user_trap;
		} else {
			memset(old, 0, sizeof(*old));
			old->sa_handler = SIG_DFL;
		}
	}
	if (act) {
		g_user_trap = *act;
		g_user_trap_set = 1;
	}
	return 0;
}

EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction sa, old;

	if (sig != SIGTRAP || !g_step) {
		if (!__atomic_load_n(&real_signal, __ATOMIC_ACQUIRE) && !ensure_resolved())
			return SIG_ERR;
		return real_signal(sig, handler);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

#else
static void step_init(void)
{
}

static void step_resume(struct tstate *t)
{
	(void)t;
}

static void step_begin(struct tstate *t)
{
	(void)t;
}

static void step_end(struct tstate *t)
{
	(void)t;
}
#endif

/* ---- end of instruction steps ------------------------------------------ */

/*
 * The hot path, entered by every wrapper: count the call and, with the
 * configured probability, perturb. Returns 0 when the caller must pass the
 * call straight through without touching anything (nested or bootstrap).
 */
static inline int enter(void *ra, int call)
{
	struct tstate *t;

	if (__builtin_expect(ts.busy, 0))
		return 0;
	t = self();
	if (++t->calls >= FLUSH_EVERY)
		flush_calls(t);
	if (__builtin_expect(g_sites != SITES_OFF, 0))
		return sites_enter(t, ra, call);
	maybe_perturb(t);
	return 1;
}

#define ENTER(call) enter(__builtin_return_address(0), (call))

/* A second point of the same call (after a lock was taken): perturb maybe,
 * count nothing (not in site mode: a site is the call's return address). */
static inline void point(void)
{
	if (__builtin_expect(!ts.busy, 1) && g_sites == SITES_OFF)
		maybe_perturb(self());
}

#define PASS(real, ...) do { \
	if (__builtin_expect(!__atomic_load_n(&real, __ATOMIC_ACQUIRE), 0) && !ensure_resolved()) \
		return 0; /* bootstrap: single-threaded, nothing to exclude */ \
	return real(__VA_ARGS__); \
} while (0)

/* After a lock was taken (rc == 0): hold it a little longer, sometimes. */
#define HOLD(real, ...) do { \
	int rc_; \
	if (__builtin_expect(!__atomic_load_n(&real, __ATOMIC_ACQUIRE), 0) && !ensure_resolved()) \
		return 0; \
	rc_ = real(__VA_ARGS__); \
	if (rc_ == 0) \
		point(); \
	return rc_; \
} while (0)

EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	ENTER(CALL_MUTEX_LOCK);
	HOLD(real_mutex_lock, m);
}

EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	ENTER(CALL_MUTEX_TRYLOCK);
	HOLD(real_mutex_trylock, m);
}

EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	int rc;

	if (!__atomic_load_n(&real_mutex_unlock, __ATOMIC_ACQUIRE) && !ensure_resolved())
		return 0;
	rc = real_mutex_unlock(m);
	ENTER(CALL_MUTEX_UNLOCK); /* after the release: let another thread take it first */
	return rc;
}

EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	ENTER(CALL_RWLOCK_RDLOCK);
	HOLD(real_rwlock_rdlock, l);
}

EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	ENTER(CALL_RWLOCK_WRLOCK);
	HOLD(real_rwlock_wrlock, l);
}

EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *l)
{
	int rc;

	if (!__atomic_load_n(&real_rwlock_unlock, __ATOMIC_ACQUIRE) && !ensure_resolved())
		return 0;
	rc = real_rwlock_unlock(l);
	ENTER(CALL_RWLOCK_UNLOCK);
	return rc;
}

EXPORT int pthread_spin_lock(pthread_spinlock_t *l)
{
	ENTER(CALL_SPIN_LOCK);
	HOLD(real_spin_lock, l);
}

EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	ENTER(CALL_COND_WAIT);
	PASS(real_cond_wait, c, m);
}

EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime)
{
	ENTER(CALL_COND_TIMEDWAIT);
	PASS(real_cond_timedwait, c, m, abstime);
}

EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	ENTER(CALL_COND_SIGNAL);
	PASS(real_cond_signal, c);
}

EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	ENTER(CALL_COND_BROADCAST);
	PASS(real_cond_broadcast, c);
}

EXPORT int sem_wait(sem_t *s)
{
	ENTER(CALL_SEM_WAIT);
	HOLD(real_sem_wait, s);
}

EXPORT int sem_post(sem_t *s)
{
	ENTER(CALL_SEM_POST);
	PASS(real_sem_post, s);
}

EXPORT int sched_yield(void)
{
	if (!__atomic_load_n(&real_sched_yield, __ATOMIC_ACQUIRE) && !ensure_resolved())
		return (int)syscall(SYS_sched_yield);
	ENTER(CALL_SCHED_YIELD);
	return real_sched_yield();
}

EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	if (!__atomic_load_n(&real_nanosleep, __ATOMIC_ACQUIRE) && !ensure_resolved())
		return (int)syscall(SYS_nanosleep, req, rem);
	ENTER(CALL_NANOSLEEP);
	return real_nanosleep(req, rem);
}

EXPORT int usleep(useconds_t us)
{
	if (!__atomic_load_n(&real_usleep, __ATOMIC_ACQUIRE) && !ensure_resolved()) {
		struct timespec req = { .tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000 };
		return (int)syscall(SYS_nanosleep, &req, NULL);
	}
	ENTER(CALL_USLEEP);
	return real_usleep(us);
}

EXPORT int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)
{
	if (!__atomic_load_n(&real_clock_nanosleep, __ATOMIC_ACQUIRE) && !ensure_resolved()) {
		/* clock_nanosleep returns the error instead of setting errno */
		long rc = syscall(SYS_clock_nanosleep, clk, flags, req, rem);
		return rc < 0 ? errno : 0;
	}
	ENTER(CALL_CLOCK_NANOSLEEP);
	return real_clock_nanosleep(clk, flags, req, rem);
}

/*
 * Signal waits: a thread held up just before it waits for a signal is the
 * thread whose signal came a moment too early (a flag tested, then pause():
 * a SIGHUP between the two is handled and pause() waits for good). The
 * delay is no signal wait of its own: a sleep cut short by the signal it
 * misses still ends in the real wait. Bootstrap paths (a resolution in
 * progress on this thread, in constructors only) make the system call.
 */
#define SIGSET_BYTES (_NSIG / 8)

EXPORT int pause(void)
{
	if (!__atomic_load_n(&real_pause, __ATOMIC_ACQUIRE) && !ensure_resolved())
		return (int)syscall(SYS_ppoll, NULL, 0, NULL, NULL, 0);
	ENTER(CALL_PAUSE);
	return real_pause();
}

EXPORT int sigsuspend(const sigset_t *mask)
{
	if (!__atomic_load_n(&real_sigsuspend, __ATOMIC_ACQUIRE) && !ensure_resolved())
		return (int)syscall(SYS_rt_sigsuspend, mask, SIGSET_BYTES);
	ENTER(CALL_SIGSUSPEND);
	return real_sigsuspend(mask);
}

EXPORT int sigwait(const sigset_t *set, int *sig)
{
	if (!__atomic_load_n(&real_sigwait, __ATOMIC_ACQUIRE) && !ensure_resolved()) {
		/* sigwait returns the error instead of setting errno */
		long rc = syscall(SYS_rt_sigtimedwait, set, NULL, NULL, SIGSET_BYTES);
		if (rc < 0)
			return errno;
		*sig = (int)rc;
		return 0;
	}
	ENTER(CALL_SIGWAIT);
	return real_sigwait(set, sig);
}

EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	if (!__atomic_load_n(&real_sigwaitinfo, __ATOMIC_ACQUIRE) && !ensure_resolved())
		return (int)syscall(SYS_rt_sigtimedwait, set, info, NULL, SIGSET_BYTES);
	ENTER(CALL_SIGWAITINFO);
	return real_sigwaitinfo(set, info);
}

EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
	if (!__atomic_load_n(&real_sigtimedwait, __ATOMIC_ACQUIRE) && !ensure_resolved())
		return (int)syscall(SYS_rt_sigtimedwait, set, info, timeout, SIGSET_BYTES);
	ENTER(CALL_SIGTIMEDWAIT);
	return real_sigtimedwait(set, info, timeout);
}

/* Thread start: the new thread gets its ordinal from its creator (so the
 * numbering follows creation order) and is perturbed once before it runs
 * (with sites on, as the pthread_create call site decides).
 *
 * The record that carries them comes from a static pool, not malloc: a
 * free() at the new thread's start would set up that thread's malloc arena
 * and tcache before the program's code runs, and a thread's first
 * allocation being slow is a timing real bugs depend on (a flag published
 * before a lazily built table is allocated fails 1 run in 4 here without
 * the library, and 1 in 20 with a malloc'd record). The heap is the
 * fallback only when every slot is taken by a thread not yet started. */
struct start {
	void *(*fn)(void *);
	void *arg;
	uint64_t ordinal;
	int delay;
	int used;          /* pool slot taken (atomic) */
};

#define START_POOL 256
static struct start g_start_pool[START_POOL];
static unsigned g_start_hint;

static struct start *start_get(void)
{
	unsigned h = __atomic_fetch_add(&g_start_hint, 1, __ATOMIC_RELAXED);

	for (unsigned i = 0; i < START_POOL; i++) {
		struct start *s = &g_start_pool[(h + i) % START_POOL];

		if (!__atomic_exchange_n(&s->used, 1, __ATOMIC_ACQUIRE))
			return s;
	}
	return malloc(sizeof(struct start));
}

static void start_put(struct start *s)
{
	if (s >= g_start_pool && s < g_start_pool + START_POOL)
		__atomic_store_n(&s->used, 0, __ATOMIC_RELEASE);
	else
		free(s);
}

static void thread_end(void *unused)
{
	(void)unused;
	flush_calls(&ts);
}

static void *thread_start(void *p)
{
	struct start s = *(struct start *)p;
	void *ret;

	start_put(p);
	thread_init(s.ordinal);
	if (s.delay) {
		ts.busy = 1;
		perturb_now(&ts);
		ts.busy = 0;
	}
	pthread_cleanup_push(thread_end, NULL);
	step_begin(&ts);
	ret = s.fn(s.arg);
	step_end(&ts);
	pthread_cleanup_pop(1);
	return ret;
}

EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	void *ra = __builtin_return_address(0);
	struct start *s;
	int delay;

	if (!__atomic_load_n(&real_create, __ATOMIC_ACQUIRE) && !ensure_resolved())
		return EAGAIN;
	self();
	ts.calls++;
	if (g_sites != SITES_OFF && !ts.busy) {
		delay = site_decide(&ts, site_get((uintptr_t)ra, CALL_CREATE, (uintptr_t)fn));
	} else
		delay = g_threshold != 0;
	s = start_get();
	if (!s)
		return real_create(th, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	s->delay = delay;
	s->ordinal = __atomic_fetch_add(&g_next_ordinal, 1, __ATOMIC_RELAXED);
	{
		int was = ts.stepping, rc;

		/* libc blocks every signal around clone: a stepped creator stops
		 * stepping there, and goes on afterwards */
		step_end(&ts);
		rc = real_create(th, attr, thread_start, s);
		if (was)
			step_resume(&ts);
		if (rc) {
			start_put(s);
		} else {
			point();   /* the creator held up: the child runs first */
			step_begin(&ts); /* the first thread, once it has company */
		}
		return rc;
	}
}

/* For fixtures: the number of interposed calls so far in this process
 * (found with dlsym(RTLD_DEFAULT, "jostle_chaos_calls")). */
EXPORT uint64_t jostle_chaos_calls(void)
{
	return __atomic_load_n(&g_calls, __ATOMIC_RELAXED) + ts.calls;
}

/* For fixtures: the perturbations the calling thread has had so far. */
EXPORT uint64_t jostle_chaos_thread_delays(void)
{
	return ts.delays;
}

/* For fixtures: the time the calling thread's perturbations asked for so
 * far, in ns (a yield as 10 us). */
EXPORT uint64_t jostle_chaos_thread_delay_ns(void)
{
	return ts.spent_ns;
}

static void after_fork_child(void)
{
	uint64_t s = g_seed ^ ((uint64_t)getpid() << 20);

	ts.rng = rng_splitmix64(&s);
	ts.calls = 0;
	/* the threads that held pool slots (created, not yet started) are
	 * not in the child */
	for (unsigned i = 0; i < START_POOL; i++)
		__atomic_store_n(&g_start_pool[i].used, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&g_calls, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&g_delays, 0, __ATOMIC_RELAXED);
	sites_after_fork();
}

/* Map this run's slot of JOSTLE_DELAY_FILE (see the top); none: no account. */
static void delay_init(void)
{
	const char *path = getenv("JOSTLE_DELAY_FILE"), *v = getenv("JOSTLE_DELAY_SLOT");
	int ok = 0;
	uint64_t slot = v ? parse_u64(v, &ok) : 0;
	long page = sysconf(_SC_PAGESIZE);

	if (!path || !*path || !ok || slot > (1u << 20) || page <= 0)
		return;
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	uint64_t off = slot * 64, base = off / (uint64_t)page * (uint64_t)page;
	struct stat st;
	if (fstat(fd, &st) == 0 && (uint64_t)st.st_size >= off + 64) {
		void *m = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)base);
		if (m != MAP_FAILED)
			g_delay = (uint64_t *)((char *)m + (off - base));
	}
	close(fd);
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
	v = getenv("JOSTLE_CHAOS_BUDGET_US");
	if (v) {
		uint64_t us = parse_u64(v, &ok);
		if (ok)
			g_budget_ns = (us > 60000000 ? 60000000 : us) * 1000;
	}
	v = getenv("JOSTLE_CHAOS_STATS");
	if (v && strlen(v) < sizeof(g_stats_path))
		memcpy(g_stats_path, v, strlen(v) + 1);
	delay_init();
	sites_init();
	resolve_all();
	step_init();
	pthread_atfork(NULL, NULL, after_fork_child);
	ts.busy = 0;
	self();
}

__attribute__((destructor)) static void chaos_fini(void)
{
	char line[160], *p = line;
	int fd;

	/* the exiting thread held up: threads the program did not join get
	 * further before the process ends (their last checks, or use of what
	 * exit is tearing down) */
	point();
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
