/*
 * chaos.c: thread chaos and the preload library's environment (see chaos.h).
 *
 * Thread ids come from /proc/PID/task, read with a dirfd per call; a thread
 * that exits between the listing and the change is simply skipped. Priority
 * changes use sched_setscheduler / setpriority on the tid and affinity uses
 * sched_setaffinity on the tid: both act on one thread, which is the point.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "chaos.h"
#include "rng.h"
#include "xalloc.h"
#include "banned.h"

static const char *const mode_names[] = {
	[CHAOS_NONE] = "none", [CHAOS_THREADS] = "threads", [CHAOS_SYNC] = "sync",
	[CHAOS_ALL] = "all", [CHAOS_AUTO] = "auto",
};

const char *chaos_mode_name(enum chaos_mode m)
{
	return (unsigned)m <= CHAOS_AUTO ? mode_names[m] : "?";
}

int chaos_mode_parse(const char *s, enum chaos_mode *out)
{
	for (int m = CHAOS_NONE; m <= CHAOS_AUTO; m++) {
		if (!strcmp(s, mode_names[m])) {
			*out = (enum chaos_mode)m;
			return 0;
		}
	}
	return -EINVAL;
}

static int64_t draw_gap(struct chaos_run *c)
{
	/* uniform in [gap/4, 7gap/4): mean gap, never back to back */
	return c->gap_ns / 4 + (int64_t)rng_below(&c->rng, (uint64_t)(c->gap_ns * 3 / 2) + 1);
}

void chaos_start(struct chaos_run *c, pid_t pid, uint64_t seed, const struct cpuset *cpus,
		 int intensity, int64_t now_ns)
{
	static const int changes[] = { 3, 6, 12 };
	static const int64_t gaps[] = { 40 * 1000000LL, 15 * 1000000LL, 5 * 1000000LL };
	uint64_t s = seed ^ 0x7468726561647321ULL;

	if (intensity < 0)
		intensity = 0;
	if (intensity > 2)
		intensity = 2;
	memset(c, 0, sizeof(*c));
	c->pid = pid;
	c->rng = rng_splitmix64(&s);
	if (cpus && cpus->n)
		c->cpus = *cpus;
	else if (cpuset_available(&c->cpus) < 0)
		c->cpus.n = 0;
	c->changes_left = changes[intensity];
	c->gap_ns = gaps[intensity];
	/* the first change point comes early: many races are in start-up */
	c->next_ns = now_ns + (int64_t)rng_below(&c->rng, (uint64_t)c->gap_ns / 2 + 1);
	c->last_ns = now_ns;
}

int64_t chaos_next_ns(const struct chaos_run *c)
{
	/* between change points, look for new threads every 2 ms */
	int64_t look = c->last_ns + 2 * 1000000LL;

	return c->changes_left > 0 && c->next_ns < look ? c->next_ns : look;
}

static bool seen(struct chaos_run *c, pid_t tid)
{
	for (int i = 0; i < c->ntids; i++)
		if (c->tid[i] == tid)
			return true;
	if (c->ntids < CHAOS_MAX_TIDS)
		c->tid[c->ntids++] = tid;
	return false;
}

static void set_low(pid_t tid, bool low)
{
	struct sched_param sp = { .sched_priority = 0 };

	if (low) {
		if (sched_setscheduler(tid, SCHED_IDLE, &sp) < 0)
			setpriority(PRIO_PROCESS, (id_t)tid, 19);
	} else {
		if (sched_setscheduler(tid, SCHED_OTHER, &sp) == 0)
			setpriority(PRIO_PROCESS, (id_t)tid, 0);
	}
}

static void set_cpu(pid_t tid, int cpu)
{
	cpu_set_t m;

	CPU_ZERO(&m);
	CPU_SET(cpu, &m);
	sched_setaffinity(tid, sizeof(m), &m);
}

static void set_cpus(pid_t tid, const struct cpuset *cpus)
{
	cpu_set_t m;

	cpuset_to_mask(cpus, &m);
	sched_setaffinity(tid, sizeof(m), &m);
}

void chaos_tick(struct chaos_run *c, int64_t now_ns)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	bool change = c->changes_left > 0 && now_ns >= c->next_ns;
	/* at a change point: pack onto one CPU, spread, or leave CPUs alone */
	int how = change ? (int)rng_below(&c->rng, 3) : 1;
	int pack_cpu = c->cpus.n ? c->cpus.cpu[rng_below(&c->rng, (uint64_t)c->cpus.n)] : -1;
	/* the fraction of threads made low-priority at this change point */
	double low_share = 0.25 + 0.5 * rng_unit(&c->rng);

	c->last_ns = now_ns;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)c->pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		bool is_new;

		if (*end || tid <= 0)
			continue;
		is_new = !seen(c, (pid_t)tid);
		if (!is_new && !change)
			continue;
		set_low((pid_t)tid, rng_unit(&c->rng) < low_share);
		if (c->cpus.n > 1) {
			if (how == 0 && pack_cpu >= 0)
				set_cpu((pid_t)tid, pack_cpu);
			else if (how == 1)
				set_cpu((pid_t)tid, c->cpus.cpu[rng_below(&c->rng, (uint64_t)c->cpus.n)]);
			else
				set_cpus((pid_t)tid, &c->cpus);
		}
		c->moves++;
	}
	closedir(d);
	if (change) {
		c->changes++;
		c->changes_left--;
		c->next_ns = now_ns + draw_gap(c);
	}
}

void chaos_sync_level(int intensity, double *prob, int *max_us)
{
	static const double probs[] = { 0.01, 0.05, 0.2 };
	static const int maxes[] = { 50, 200, 1000 };

	if (intensity < 0)
		intensity = 0;
	if (intensity > 2)
		intensity = 2;
	*prob = probs[intensity];
	*max_us = maxes[intensity];
}

void chaos_sync_env(struct strvec *env, const char *lib, double prob, int max_us)
{
	const char *old = strvec_getenv(env, "LD_PRELOAD");
	const char *asan = strvec_getenv(env, "ASAN_OPTIONS");
	char buf[64];

	if (old && *old) {
		char *v = xasprintf("%s:%s", lib, old);
		strvec_setenv(env, "LD_PRELOAD", v);
		free(v);
	} else {
		strvec_setenv(env, "LD_PRELOAD", lib);
	}
	/* ASan insists on coming first in the library list; our library only
	 * forwards to whatever comes next, so the order is safe to relax. */
	if (!asan || !strstr(asan, "verify_asan_link_order")) {
		char *v = asan && *asan ? xasprintf("%s:verify_asan_link_order=0", asan)
					: xstrdup("verify_asan_link_order=0");
		strvec_setenv(env, "ASAN_OPTIONS", v);
		free(v);
	}
	snprintf(buf, sizeof(buf), "%g", prob);
	strvec_setenv(env, "JOSTLE_CHAOS_PROB", buf);
	snprintf(buf, sizeof(buf), "%d", max_us);
	strvec_setenv(env, "JOSTLE_CHAOS_MAX_US", buf);
}

static char *try_lib(const char *dir, const char *rel)
{
	char *p = xasprintf("%s/%s", dir, rel);

	if (access(p, R_OK) == 0)
		return p;
	free(p);
	return NULL;
}

char *chaos_find_lib(void)
{
	const char *env = getenv("JOSTLE_CHAOS_LIB");
	char exe[PATH_MAX], *slash, *p;
	ssize_t n;

	if (env && *env)
		return access(env, R_OK) == 0 ? xstrdup(env) : NULL;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = 0;
	if ((p = try_lib(exe, "libjostle-chaos.so")))
		return p;
	return try_lib(exe, "../lib/jostle/libjostle-chaos.so");
}
