/*
 * cpuset.h: sets of CPU ids, the `--cpus` option, and the CPUs this machine
 * offers.
 *
 * A set is a small sorted array of ids (no allocation). The parsers are pure
 * functions; cpuset_available() is the only one that reads the system.
 *
 *   --cpus N       a count: the first N CPUs available to jostle
 *   --cpus LIST    ids and ranges: 0 | 0-1 | 0,2-3 (a bare 0 is CPU 0; CPU k
 *                  alone is written k-k, since a bare k is a count)
 */
#ifndef JOSTLE_CPUSET_H
#define JOSTLE_CPUSET_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#define CPUSET_MAX 1024

struct cpuset {
	int n;                         /* number of ids in cpu[] */
	unsigned short cpu[CPUSET_MAX]; /* ascending, distinct */
};

/* Parse a Linux CPU list ("0-3,8,10-11"; surrounding newline allowed).
 * Returns 0, or -EINVAL (malformed, descending range, id >= CPUSET_MAX). */
int cpuset_parse_list(const char *s, struct cpuset *out);

/*
 * The value of --cpus against the CPUs available (avail). Returns 0 and the
 * chosen set, or -EINVAL with a one-line reason in why (for the CLI to print
 * after "jostle: --cpus 'ARG': "), e.g. "only 2 CPUs are available (0-1)".
 */
int cpuset_resolve(const char *arg, const struct cpuset *avail, struct cpuset *out,
		   char *why, size_t whylen);

/* The CPUs jostle may use: online and in its own affinity mask. 0 or -errno. */
int cpuset_available(struct cpuset *out);

/* The first n ids of in (n <= in->n) into out. */
void cpuset_first(const struct cpuset *in, int n, struct cpuset *out);

bool cpuset_has(const struct cpuset *c, int cpu);
bool cpuset_equal(const struct cpuset *a, const struct cpuset *b);

/* Canonical list form ("0-1,3") into buf; "" for an empty set. */
void cpuset_format(const struct cpuset *c, char *buf, size_t len);

/* As a cpu_set_t for sched_setaffinity. */
void cpuset_to_mask(const struct cpuset *c, cpu_set_t *mask);

#endif
