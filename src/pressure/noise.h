/*
 * noise.h: background load for a series (`--noise cpu:N,mem:SIZE,cache:N`).
 *
 * Hogs are processes forked by jostle, all in one process group of their
 * own, pinned to the CPUs the runs use:
 *   cpu:N      N processes spinning
 *   mem:SIZE   one process streaming writes through SIZE bytes (memory
 *              bandwidth)
 *   cache:N    N processes touching a 32 MiB buffer at random lines
 *              (evicting the runs' cache lines)
 *   jitter:N   N processes, each pinned to one of the CPUs in turn, that
 *              sleep 20-500 us and then spin 5-20 us, at random: every few
 *              hundred microseconds a run's thread is preempted at a random
 *              point, for a few microseconds (what turns a narrow race
 *              window into a likely one; little CPU taken away)
 * Each hog has PR_SET_PDEATHSIG(SIGKILL), so even a SIGKILLed jostle leaves
 * none behind; noise_stop() ends and reaps them on every other exit path.
 */
#ifndef JOSTLE_NOISE_H
#define JOSTLE_NOISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pressure/cpuset.h"

#define NOISE_MAX_PROCS 64

struct noise_spec {
	int cpu;         /* spinning processes */
	uint64_t mem;    /* bytes streamed by the memory hog (0: none) */
	int cache;       /* cache thrashers */
	int jitter;      /* wake-and-spin preempters */
};

struct noise {
	pid_t pgid;                     /* 0 when stopped */
	int n;
	pid_t pid[NOISE_MAX_PROCS];
};

/* Parse "cpu:2,mem:256M,cache:1" (any subset, any order). 0 or -EINVAL with
 * a reason in why. */
int noise_parse(const char *s, struct noise_spec *out, char *why, size_t whylen);

/* Canonical form of a spec ("cpu:2,mem:268435456"), "" when empty. */
void noise_format(const struct noise_spec *spec, char *buf, size_t len);

bool noise_empty(const struct noise_spec *spec);

/* Start the hogs (cpus NULL: not pinned). 0 or -errno (nothing left running). */
int noise_start(struct noise *n, const struct noise_spec *spec, const struct cpuset *cpus);

/* SIGKILL the group and reap every hog. Idempotent. */
void noise_stop(struct noise *n);

/* For signal handlers: SIGKILL the group without reaping (async-signal-safe). */
void noise_kill(const struct noise *n);

#endif
