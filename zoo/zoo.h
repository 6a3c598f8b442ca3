/*
 * zoo.h: what every zoo program shares: the command line
 *
 *     NAME [--fixed] [--threads N] [--iters N] [--help]
 *
 * the exit statuses, a unit of real computation, a spin-wait hint and a
 * monotonic clock. It is header-only (static inline) so that each zoo/NAME.c
 * stays one self-contained program that a reader can take in at once.
 *
 * Exit statuses of every zoo program:
 *   0  the run passed (the race did not bite, or --fixed)
 *   1  the race's symptom was observed; the message the real code would
 *      print is on stderr
 *   2  bad usage: one line on stderr naming the option and what it expects
 *  77  skipped: the program needs something this machine lacks (a CUDA
 *      driver and device for cuda_graph_registry); one line on stderr says what
 * A crash stays a crash (SIGSEGV, an ASan report): that is the symptom.
 */
#ifndef ZOO_H
#define ZOO_H

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { ZOO_PASS = 0, ZOO_FAIL = 1, ZOO_USAGE = 2, ZOO_SKIP = 77 };

struct zoo_opts {
	bool fixed;
	int threads;
	long iters;
};

/* One program's identity and defaults, for parsing and --help. */
struct zoo_prog {
	const char *name;
	const char *summary;	/* one line: the report and the mechanism */
	const char *threads_help;	/* what --threads counts */
	const char *iters_help;	/* what --iters counts */
	int threads;		/* default */
	int min_threads;
	int max_threads;
	long iters;		/* default */
	long max_iters;
};

static inline void zoo_usage(const struct zoo_prog *p, FILE *to)
{
	fprintf(to,
		"usage: %s [--fixed] [--threads N] [--iters N]\n"
		"%s\n\n"
		"  --fixed       run the fixed variant (must never fail)\n"
		"  --threads N   %s (default %d, %d..%d)\n"
		"  --iters N     %s (default %ld, 1..%ld)\n"
		"  --help        this text\n\n"
		"exit status: 0 passed, 1 the race's symptom was observed, 2 bad usage;\n"
		"a crash (SIGSEGV, sanitizer report) is also the symptom where documented.\n",
		p->name, p->summary, p->threads_help, p->threads, p->min_threads,
		p->max_threads, p->iters_help, p->iters, p->max_iters);
}

static inline bool zoo_parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/*
 * zoo_opts_parse: fill *o from argv (defaults from *p). Returns -1 to run,
 * or the status to exit with: 0 after --help, 2 after a one-line error.
 */
static inline int zoo_opts_parse(const struct zoo_prog *p, int argc, char **argv,
				 struct zoo_opts *o)
{
	o->fixed = false;
	o->threads = p->threads;
	o->iters = p->iters;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		size_t nlen = strcspn(a, "=");
		bool is_threads = !strncmp(a, "--threads", nlen) && nlen == 9;
		bool is_iters = !strncmp(a, "--iters", nlen) && nlen == 7;

		if (!strcmp(a, "--fixed")) {
			o->fixed = true;
			continue;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			zoo_usage(p, stdout);
			return ZOO_PASS;
		}
		if (!is_threads && !is_iters) {
			fprintf(stderr, "%s: unknown option '%s' (try --help)\n", p->name, a);
			return ZOO_USAGE;
		}
		if (a[nlen] == '=') {
			val = a + nlen + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			fprintf(stderr, "%s: option '%.*s' expects a value\n", p->name, (int)nlen, a);
			return ZOO_USAGE;
		}
		long v;
		if (is_threads) {
			if (!zoo_parse_long(val, p->min_threads, p->max_threads, &v)) {
				fprintf(stderr, "%s: option '--threads' expects an integer from %d to %d, got '%s'\n",
					p->name, p->min_threads, p->max_threads, val);
				return ZOO_USAGE;
			}
			o->threads = (int)v;
		} else {
			if (!zoo_parse_long(val, 1, p->max_iters, &v)) {
				fprintf(stderr, "%s: option '--iters' expects an integer from 1 to %ld, got '%s'\n",
					p->name, p->max_iters, val);
				return ZOO_USAGE;
			}
			o->iters = v;
		}
	}
	return -1;
}

/*
 * zoo_work: a unit of real computation (a mixing loop the compiler cannot
 * remove), standing for what the runtime code does between two steps:
 * validating node parameters, copying a graph, executing a task. Its cost is
 * linear in rounds; the result must be used.
 */
static inline uint64_t zoo_work(uint64_t x, unsigned rounds)
{
	for (unsigned i = 0; i < rounds; i++) {
		x += 0x9e3779b97f4a7c15ULL;
		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
		x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
		x ^= x >> 31;
	}
	return x;
}

/* zoo_use: keep a computed value alive without storing it anywhere. */
static inline void zoo_use(uint64_t x)
{
	__asm__ __volatile__("" : : "r"(x));
}

/* zoo_cpu_relax: the CPU's spin-wait hint (pause), nothing else. */
static inline void zoo_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/*
 * zoo_spin_hint: one step of a polite spin-wait (SPIN_WAIT_HINT in the
 * runtimes of seed 003): pause for the first 64 steps, then give the CPU away
 * with sched_yield, spinning longer between yields as the wait grows. *spins
 * starts at 0 for each wait.
 */
static inline void zoo_spin_hint(unsigned *spins)
{
	if (++*spins < 64) {
		zoo_cpu_relax();
		return;
	}
	unsigned backoff = *spins - 63 < 64 ? *spins - 63 : 64;
	for (unsigned i = 0; i < backoff; i++)
		zoo_cpu_relax();
	sched_yield();
}

static inline uint64_t zoo_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * zoo_die: print the symptom and end the process with status 1 at once,
 * without running exit handlers while other threads are still inside the
 * race (they would only add noise to the report).
 */
__attribute__((format(printf, 1, 2), noreturn))
static inline void zoo_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	fflush(stdout);
	_exit(ZOO_FAIL);
}

#endif
