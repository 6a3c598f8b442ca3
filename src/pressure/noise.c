/*
 * noise.c: background hogs (see noise.h).
 *
 * The hogs are forked, not exec'd: their code is a few loops, and a fork of
 * the single-threaded harness is cheap and needs no helper binary on disk.
 * They never return into jostle's code: each ends in _exit. The process
 * group lets one kill() end them all; the pids let noise_stop() reap them
 * so none is left as a zombie for the engine's wait loop.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pressure/noise.h"
#include "util/clock.h"
#include "util/parse.h"
#include "util/rng.h"
#include "util/banned.h"

#define CACHE_BYTES (32u << 20)

int noise_parse(const char *s, struct noise_spec *out, char *why, size_t whylen)
{
	char buf[256], *save = NULL;

	memset(out, 0, sizeof(*out));
	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf) || !*s)
		goto bad;
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(w, ':');
		uint64_t v;

		if (!colon)
			goto bad;
		*colon = 0;
		if (!strcmp(w, "cpu") || !strcmp(w, "cache") || !strcmp(w, "jitter")) {
			if (parse_u64(colon + 1, 0, 32, &v) < 0) {
				snprintf(why, whylen, "'%.20s' takes a process count from 0 to 32", w);
				return -EINVAL;
			}
			if (w[1] == 'p')
				out->cpu = (int)v;
			else if (w[0] == 'c')
				out->cache = (int)v;
			else
				out->jitter = (int)v;
		} else if (!strcmp(w, "mem")) {
			if (parse_size(colon + 1, &v) < 0 || v > (64ULL << 30)) {
				snprintf(why, whylen, "'mem' takes a size such as 256M (at most 64G)");
				return -EINVAL;
			}
			out->mem = v;
		} else {
			snprintf(why, whylen, "unknown noise '%.40s' (expected cpu:N, mem:SIZE, cache:N, jitter:N)", w);
			return -EINVAL;
		}
	}
	if (out->cpu + out->cache + out->jitter + (out->mem ? 1 : 0) > NOISE_MAX_PROCS)
		goto bad;
	return 0;
bad:
	snprintf(why, whylen, "expected cpu:N,mem:SIZE,cache:N,jitter:N (any of them, e.g. cpu:2)");
	return -EINVAL;
}

void noise_format(const struct noise_spec *spec, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	if (spec->cpu)
		used += (size_t)snprintf(buf + used, len - used, "cpu:%d", spec->cpu);
	if (spec->mem && used < len)
		used += (size_t)snprintf(buf + used, len - used, "%smem:%llu", used ? "," : "",
					 (unsigned long long)spec->mem);
	if (spec->cache && used < len)
		used += (size_t)snprintf(buf + used, len - used, "%scache:%d", used ? "," : "", spec->cache);
	if (spec->jitter && used < len)
		snprintf(buf + used, len - used, "%sjitter:%d", used ? "," : "", spec->jitter);
}

bool noise_empty(const struct noise_spec *spec)
{
	return !spec->cpu && !spec->mem && !spec->cache && !spec->jitter;
}

static void __attribute__((noreturn)) hog_cpu(void)
{
	volatile uint64_t x = 1;

	for (;;)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
}

static void __attribute__((noreturn)) hog_mem(uint64_t bytes)
{
	unsigned char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char v = 0;

	if (p == MAP_FAILED)
		_exit(1);
	for (;;) {
		memset(p, v++, bytes);
		__asm__ __volatile__("" : : "r"(p) : "memory");
	}
}

static void __attribute__((noreturn)) hog_cache(uint64_t seed)
{
	volatile unsigned char *p = mmap(NULL, CACHE_BYTES, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(1);
	for (;;) {
		uint64_t r = rng_splitmix64(&seed);
		p[(r % (CACHE_BYTES / 64)) * 64] += 1;
	}
}

static void __attribute__((noreturn)) hog_jitter(uint64_t seed)
{
	for (;;) {
		uint64_t r = rng_splitmix64(&seed);
		struct timespec nap = { 0, (long)(20000 + r % 480000) };   /* 20-500 us */
		nanosleep(&nap, NULL);
		int64_t until = clock_mono_ns() + 5000 + (int64_t)((r >> 32) % 15000);   /* 5-20 us */
		while (clock_mono_ns() < until)
			;
	}
}

static int fork_hog(struct noise *n, const struct cpuset *cpus, int kind, uint64_t arg)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		struct sigaction dfl;
		sigset_t none;

		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		for (int s = 1; s < NSIG; s++)
			if (s != SIGKILL && s != SIGSTOP)
				sigaction(s, &dfl, NULL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		setpgid(0, n->pgid);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "jostle-noise");
		if (getppid() == 1)
			_exit(0);
		if (cpus && cpus->n) {
			cpu_set_t m;
			cpuset_to_mask(cpus, &m);
			sched_setaffinity(0, sizeof(m), &m);
		}
		switch (kind) {
		case 0: hog_cpu();
		case 1: hog_mem(arg);
		case 3: hog_jitter(arg);
		default: hog_cache(arg);
		}
	}
	/* Both sides set the group, so it exists before any kill. */
	setpgid(pid, n->pgid ? n->pgid : pid);
	if (!n->pgid)
		n->pgid = pid;
	n->pid[n->n++] = pid;
	return 0;
}

int noise_start(struct noise *n, const struct noise_spec *spec, const struct cpuset *cpus)
{
	int rc = 0;

	memset(n, 0, sizeof(*n));
	for (int i = 0; i < spec->cpu && !rc; i++)
		rc = fork_hog(n, cpus, 0, 0);
	if (spec->mem && !rc)
		rc = fork_hog(n, cpus, 1, spec->mem);
	for (int i = 0; i < spec->cache && !rc; i++)
		rc = fork_hog(n, cpus, 2, 0x5eed + (uint64_t)i);
	/* a preempter per CPU in turn: pinned, so each CPU gets its share */
	for (int i = 0; i < spec->jitter && !rc; i++) {
		struct cpuset one = { .n = 0 };
		if (cpus && cpus->n) {
			one.cpu[0] = cpus->cpu[i % cpus->n];
			one.n = 1;
		}
		rc = fork_hog(n, cpus && cpus->n ? &one : NULL, 3, 0x717e + (uint64_t)i);
	}
	if (rc)
		noise_stop(n);
	return rc;
}

void noise_kill(const struct noise *n)
{
	if (n->pgid > 1)
		kill(-n->pgid, SIGKILL);
}

void noise_stop(struct noise *n)
{
	if (n->pgid <= 1)
		return;
	noise_kill(n);
	for (int i = 0; i < n->n; i++) {
		if (n->pid[i] > 1) {
			kill(n->pid[i], SIGKILL); /* in case it had not joined the group yet */
			while (waitpid(n->pid[i], NULL, 0) < 0 && errno == EINTR)
				;
		}
	}
	n->n = 0;
	n->pgid = 0;
}
