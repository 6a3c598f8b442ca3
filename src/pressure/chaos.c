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
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "pressure/chaos.h"
#include "pressure/preload.h"
#include "util/rng.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *const mode_names[] = {
	[CHAOS_NONE] = "none", [CHAOS_THREADS] = "threads", [CHAOS_SYNC] = "sync",
	[CHAOS_ALL] = "all", [CHAOS_AUTO] = "auto", [CHAOS_STEP] = "step",
};

#define NMODES (int)(sizeof(mode_names) / sizeof(mode_names[0]))

const char *chaos_mode_name(enum chaos_mode m)
{
	return (int)m >= 0 && (int)m < NMODES && mode_names[m] ? mode_names[m] : "?";
}

int chaos_mode_parse(const char *s, enum chaos_mode *out)
{
	for (int m = CHAOS_NONE; m < NMODES; m++) {
		if (mode_names[m] && !strcmp(s, mode_names[m])) {
			*out = (enum chaos_mode)m;
			return 0;
		}
	}
	return -EINVAL;
}

/* The gap before change point k+1: about gap * 2^k, jittered by +-50%. */
static int64_t draw_gap(struct chaos_run *c)
{
	int k = c->changes < 20 ? c->changes : 20;
	int64_t g = c->gap_ns << k;

	return g / 2 + (int64_t)rng_below(&c->rng, (uint64_t)g + 1);
}

static int cmp_ns(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

void chaos_start(struct chaos_run *c, pid_t pid, uint64_t seed, const struct cpuset *cpus,
		 int intensity, int64_t span_ns, int64_t now_ns)
{
	static const int changes[] = { 3, 6, 12 };
	static const int64_t gaps[] = { 40 * 1000000LL, 15 * 1000000LL, 5 * 1000000LL };
	static const int64_t windows[] = { 10 * 1000000LL, 20 * 1000000LL, 40 * 1000000LL };
	/* with a span: fewer, longer perturbations (a share of the span each) */
	static const int span_changes[] = { 2, 4, 8 };
	static const int span_share[] = { 12, 8, 6 };
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
	c->start_ns = now_ns;
	c->last_ns = now_ns;
	if (span_ns > 0) {
		int n = span_changes[intensity];
		int64_t w = span_ns / span_share[intensity];

		c->span_ns = span_ns;
		c->changes_left = n;
		c->window_ns = w < 10 * 1000000LL ? 10 * 1000000LL : w > 250 * 1000000LL ? 250 * 1000000LL : w;
		for (int i = 0; i < n; i++)
			c->at_ns[i] = (int64_t)rng_below(&c->rng, (uint64_t)(span_ns + span_ns / 4) + 1);
		qsort(c->at_ns, (size_t)n, sizeof(c->at_ns[0]), cmp_ns);
		c->next_ns = now_ns + c->at_ns[0];
		return;
	}
	/* then on at gaps that keep doubling, for as long as the run lasts: a
	 * run that starts its threads late (a loaded machine, a slow start-up)
	 * or races late is still perturbed (t420's cpuinfo, at load 8, saw no
	 * change in 1 run of 3 when the points ended after half a second) */
	c->changes_left = changes[intensity] + CHAOS_LATE_CHANGES;
	c->gap_ns = gaps[intensity];
	c->window_ns = windows[intensity];
	/* the first change point comes early: many races are in start-up */
	c->next_ns = now_ns + (int64_t)rng_below(&c->rng, (uint64_t)c->gap_ns / 2 + 1);
}

int64_t chaos_next_ns(const struct chaos_run *c)
{
	int64_t t = c->changes_left > 0 ? c->next_ns : INT64_MAX;

	if (c->restore_ns) {
		/* inside a window: look for new threads every 2 ms */
		int64_t look = c->last_ns + 2 * 1000000LL;
		if (c->restore_ns < t)
			t = c->restore_ns;
		if (look < t)
			t = look;
	}
	return t;
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

static void perturb(struct chaos_run *c, pid_t tid)
{
	set_low(tid, rng_unit(&c->rng) < c->low_share);
	if (c->cpus.n > 1) {
		if (c->how == 0 && c->pack_cpu >= 0)
			set_cpu(tid, c->pack_cpu);
		else if (c->how == 1)
			set_cpu(tid, c->cpus.cpu[rng_below(&c->rng, (uint64_t)c->cpus.n)]);
		else
			set_cpus(tid, &c->cpus);
	}
	c->moves++;
}

static void restore(struct chaos_run *c, pid_t tid)
{
	set_low(tid, false);
	if (c->cpus.n > 1)
		set_cpus(tid, &c->cpus);
}

void chaos_tick(struct chaos_run *c, int64_t now_ns)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	bool change = c->changes_left > 0 && now_ns >= c->next_ns;
	bool end = !change && c->restore_ns && now_ns >= c->restore_ns;

	c->last_ns = now_ns;
	if (!change && !c->restore_ns)
		return;
	if (change) {
		/* this window: pack onto one CPU, spread, or leave CPUs alone,
		 * and the share of threads made low-priority */
		c->how = (int)rng_below(&c->rng, 3);
		c->pack_cpu = c->cpus.n ? c->cpus.cpu[rng_below(&c->rng, (uint64_t)c->cpus.n)] : -1;
		c->low_share = 0.25 + 0.5 * rng_unit(&c->rng);
	}
	snprintf(path, sizeof(path), "/proc/%d/task", (int)c->pid);
	d = opendir(path);
	if (d) {
		while ((de = readdir(d))) {
			char *e;
			long tid = strtol(de->d_name, &e, 10);
			bool is_new;

			if (*e || tid <= 0)
				continue;
			is_new = !seen(c, (pid_t)tid);
			if (end)
				restore(c, (pid_t)tid);
			else if (change || is_new)
				perturb(c, (pid_t)tid);
		}
		closedir(d);
	}
	if (change) {
		c->changes++;
		c->changes_left--;
		c->restore_ns = now_ns + c->window_ns;
		c->next_ns = c->span_ns ? c->start_ns + c->at_ns[c->changes < CHAOS_MAX_CHANGES ? c->changes : 0]
					: now_ns + draw_gap(c);
		if (c->next_ns < c->restore_ns)
			c->next_ns = c->restore_ns;
	} else if (end) {
		c->restore_ns = 0;
	}
}

void chaos_sync_level(int intensity, double *prob, int *max_us)
{
	static const double probs[] = { 0.01, 0.05, 0.1 };
	static const int maxes[] = { 50, 200, 1000 };

	if (intensity < 0)
		intensity = 0;
	if (intensity > 2)
		intensity = 2;
	*prob = probs[intensity];
	*max_us = maxes[intensity];
}

int chaos_step_threads_draw(uint64_t seed)
{
	uint64_t s = seed ^ 0x7374657077686fULL;   /* "stepwho": apart from the run's other draws */

	return chaos_step_whos[rng_pick(&s, chaos_step_who_odds, CHAOS_STEP_WHOS)];
}

void chaos_sync_env(struct strvec *env, const char *lib, double prob, int max_us, int budget_us, int steps,
		    int step_threads)
{
	char buf[64];

	preload_env_add(env, lib);
	snprintf(buf, sizeof(buf), "%g", prob);
	strvec_setenv(env, "JOSTLE_CHAOS_PROB", buf);
	snprintf(buf, sizeof(buf), "%d", max_us);
	strvec_setenv(env, "JOSTLE_CHAOS_MAX_US", buf);
	snprintf(buf, sizeof(buf), "%d", budget_us > 0 ? budget_us : 0);
	strvec_setenv(env, "JOSTLE_CHAOS_BUDGET_US", buf);
	if (steps > 0) {
		strvec_setenv(env, "JOSTLE_CHAOS_STEP", "1");
		snprintf(buf, sizeof(buf), "%d", steps);
		strvec_setenv(env, "JOSTLE_CHAOS_STEPS", buf);
		if (step_threads > 0) {
			snprintf(buf, sizeof(buf), "%d", step_threads & CHAOS_STEP_THREADS_ALL);
			strvec_setenv(env, "JOSTLE_CHAOS_STEP_THREADS", buf);
		}
	}
}

char *chaos_find_lib(void)
{
	return preload_find("libjostle-chaos.so", "JOSTLE_CHAOS_LIB");
}
