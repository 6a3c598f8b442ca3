/*
 * cpuset.c: CPU id sets (see cpuset.h). Sets are kept as sorted arrays
 * rather than cpu_set_t so that they print, compare and subset simply, and
 * the parsing is pure so the unit tests cover every form of --cpus.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pressure/cpuset.h"
#include "util/banned.h"

static void add(struct cpuset *c, int cpu)
{
	int i = c->n;

	if (cpuset_has(c, cpu))
		return;
	while (i > 0 && c->cpu[i - 1] > cpu) {
		c->cpu[i] = c->cpu[i - 1];
		i--;
	}
	c->cpu[i] = (unsigned short)cpu;
	c->n++;
}

static int parse_id(const char **p, long *v)
{
	char *end;

	if (**p < '0' || **p > '9')
		return -EINVAL;
	errno = 0;
	*v = strtol(*p, &end, 10);
	if (errno || *v < 0 || *v >= CPUSET_MAX)
		return -EINVAL;
	*p = end;
	return 0;
}

int cpuset_parse_list(const char *s, struct cpuset *out)
{
	const char *p = s;

	out->n = 0;
	for (;;) {
		long a, b;

		if (parse_id(&p, &a) < 0)
			return -EINVAL;
		b = a;
		if (*p == '-') {
			p++;
			if (parse_id(&p, &b) < 0 || b < a)
				return -EINVAL;
		}
		for (long i = a; i <= b; i++)
			add(out, (int)i);
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '\n')
			p++;
		return *p ? -EINVAL : 0;
	}
}

int cpuset_resolve(const char *arg, const struct cpuset *avail, struct cpuset *out,
		   char *why, size_t whylen)
{
	char have[256];

	cpuset_format(avail, have, sizeof(have));
	out->n = 0;
	if (*arg && !strpbrk(arg, ",-") && strcmp(arg, "0") != 0) {
		char *end;
		long n;

		errno = 0;
		n = strtol(arg, &end, 10);
		if (errno || *end || end == arg || n < 1) {
			snprintf(why, whylen, "is not a CPU count or list; expected e.g. 2, 0, 0-1, 0,2-3");
			return -EINVAL;
		}
		if (n > avail->n) {
			snprintf(why, whylen, "asks for %ld CPUs but only %d %s available (%s)",
				 n, avail->n, avail->n == 1 ? "is" : "are", have);
			return -EINVAL;
		}
		cpuset_first(avail, (int)n, out);
		return 0;
	}
	if (cpuset_parse_list(arg, out) < 0 || !out->n) {
		snprintf(why, whylen, "is not a CPU count or list; expected e.g. 2, 0, 0-1, 0,2-3");
		out->n = 0;
		return -EINVAL;
	}
	if (out->n > avail->n) {
		snprintf(why, whylen, "lists %d CPUs but only %d %s available (%s)",
			 out->n, avail->n, avail->n == 1 ? "is" : "are", have);
		out->n = 0;
		return -EINVAL;
	}
	for (int i = 0; i < out->n; i++) {
		if (!cpuset_has(avail, out->cpu[i])) {
			snprintf(why, whylen, "names CPU %d, which is not available (available: %s)", out->cpu[i], have);
			out->n = 0;
			return -EINVAL;
		}
	}
	return 0;
}

int cpuset_available(struct cpuset *out)
{
	char buf[4096];
	struct cpuset online;
	cpu_set_t mask;
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	if (!n || cpuset_parse_list(buf, &online) < 0) {
		online.n = 0;
		for (int i = 0; i < CPU_SETSIZE && i < CPUSET_MAX; i++)
			online.cpu[online.n++] = (unsigned short)i;
	}
	if (sched_getaffinity(0, sizeof(mask), &mask) < 0)
		return -errno;
	out->n = 0;
	for (int i = 0; i < online.n; i++)
		if (CPU_ISSET(online.cpu[i], &mask))
			out->cpu[out->n++] = online.cpu[i];
	return out->n ? 0 : -ENODEV;
}

void cpuset_first(const struct cpuset *in, int n, struct cpuset *out)
{
	if (n > in->n)
		n = in->n;
	memmove(out->cpu, in->cpu, (size_t)n * sizeof(out->cpu[0]));
	out->n = n;
}

bool cpuset_has(const struct cpuset *c, int cpu)
{
	for (int i = 0; i < c->n; i++)
		if (c->cpu[i] == cpu)
			return true;
	return false;
}

bool cpuset_equal(const struct cpuset *a, const struct cpuset *b)
{
	return a->n == b->n && !memcmp(a->cpu, b->cpu, (size_t)a->n * sizeof(a->cpu[0]));
}

void cpuset_format(const struct cpuset *c, char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = 0;
	for (int i = 0; i < c->n;) {
		int j = i;
		int w;

		while (j + 1 < c->n && c->cpu[j + 1] == c->cpu[j] + 1)
			j++;
		if (j == i)
			w = snprintf(buf + used, len - used, "%s%d", i ? "," : "", c->cpu[i]);
		else
			w = snprintf(buf + used, len - used, "%s%d-%d", i ? "," : "", c->cpu[i], c->cpu[j]);
		if (w < 0 || (size_t)w >= len - used)
			return;
		used += (size_t)w;
		i = j + 1;
	}
}

void cpuset_to_mask(const struct cpuset *c, cpu_set_t *mask)
{
	CPU_ZERO(mask);
	for (int i = 0; i < c->n; i++)
		if (c->cpu[i] < CPU_SETSIZE)
			CPU_SET(c->cpu[i], mask);
}
