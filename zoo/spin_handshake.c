/*
 * spin_handshake: the oversubscription hang of seed 003 (simpler, a2a3 sim).
 *
 * On the simulator every AICPU and AICore is a host thread. One scheduler
 * thread (the AICPU) and N core threads (AICores, N well above the CPU count)
 * do a two-phase startup handshake with mutual busy-spins that never yield:
 *   AICPU  handshake_all_cores: publish aicpu_ready, spin until every core's
 *          aicore_regs_ready; publish aicpu_regs_ready, spin until aicore_done
 *   AICore aicore_execute: spin until aicpu_ready, publish regs_ready; spin
 *          until aicpu_regs_ready, publish done; then poll the task mailbox
 * then run a few task batches and a deinit with an acknowledgement timeout.
 * A spinning thread keeps its CPU for a whole time slice while the thread it
 * waits for is not running; on an oversubscribed box (other processes doing
 * the same) each phase takes many rounds of time slices: the run livelocks,
 * threads burning CPU in handshake_all_cores and aicore_execute, or trips
 * "aicore deinit ACK timeout".
 *
 * --fixed: SPIN_WAIT_HINT in every spin (pause, then sched_yield with
 * backoff) and the deinit timeout widened tenfold, as in the real fix (#893).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "zoo.h"

#ifndef TASK_ROUNDS
#define TASK_ROUNDS 2000	/* the work of one task on a core */
#endif
#ifndef DEINIT_TIMEOUT_MS
#define DEINIT_TIMEOUT_MS 100	/* the sim's 1 s, scaled; x10 when fixed */
#endif
#define TASK_DEINIT (-1)

/* One core's handshake block, alone on its cache line(s). */
struct hank {
	atomic_int aicpu_ready;
	atomic_int aicore_regs_ready;
	atomic_int aicpu_regs_ready;
	atomic_int aicore_done;
	atomic_int task;	/* mailbox: 0 empty, > 0 a task id, TASK_DEINIT */
	atomic_int task_done;	/* the id of the last task completed */
	atomic_int deinit_ack;
	uint64_t result;
} __attribute__((aligned(128)));

static struct zoo_opts opts;
static struct hank *hanks;

/*
 * spin_wait: wait until *flag != 0. Buggy: the bare `while (!flag) {}` of
 * the runtime. Fixed: SPIN_WAIT_HINT(): pause for a while, then give the CPU
 * away with sched_yield, spinning longer between yields as the wait grows.
 */
__attribute__((noinline))
static void spin_wait(atomic_int *flag, int value_not)
{
	if (!opts.fixed) {
		while (atomic_load_explicit(flag, memory_order_acquire) == value_not) {
		}
		return;
	}
	unsigned spins = 0, backoff = 1;
	while (atomic_load_explicit(flag, memory_order_acquire) == value_not) {
		if (++spins < 64) {
			zoo_cpu_relax();
			continue;
		}
		for (unsigned i = 0; i < backoff; i++)
			zoo_cpu_relax();
		sched_yield();
		if (backoff < 64)
			backoff <<= 1;
	}
}

/* The AICore side: handshake, then execute tasks until deinit. */
__attribute__((noinline))
static void aicore_execute(struct hank *my_hank, int core)
{
	spin_wait(&my_hank->aicpu_ready, 0);
	atomic_store_explicit(&my_hank->aicore_regs_ready, 1, memory_order_release);
	spin_wait(&my_hank->aicpu_regs_ready, 0);
	atomic_store_explicit(&my_hank->aicore_done, 1, memory_order_release);

	int last = 0;
	for (;;) {
		spin_wait(&my_hank->task, last);
		int task = atomic_load_explicit(&my_hank->task, memory_order_acquire);
		if (task == TASK_DEINIT)
			break;
		my_hank->result = zoo_work((uint64_t)task * 131 + (uint64_t)core, TASK_ROUNDS);
		atomic_store_explicit(&my_hank->task_done, task, memory_order_release);
		last = task;
	}
	atomic_store_explicit(&my_hank->deinit_ack, 1, memory_order_release);
}

static void *aicore_main(void *arg)
{
	int core = (int)(intptr_t)arg;

	aicore_execute(&hanks[core], core);
	return NULL;
}

/* SchedulerContext::handshake_all_cores */
__attribute__((noinline))
static void handshake_all_cores(int n)
{
	for (int i = 0; i < n; i++)
		atomic_store_explicit(&hanks[i].aicpu_ready, 1, memory_order_release);
	for (int i = 0; i < n; i++)
		spin_wait(&hanks[i].aicore_regs_ready, 0);
	for (int i = 0; i < n; i++)
		atomic_store_explicit(&hanks[i].aicpu_regs_ready, 1, memory_order_release);
	for (int i = 0; i < n; i++)
		spin_wait(&hanks[i].aicore_done, 0);
}

/* Dispatch one task to every core and wait for all of them. */
__attribute__((noinline))
static void run_batch(int n, int id)
{
	for (int i = 0; i < n; i++)
		atomic_store_explicit(&hanks[i].task, id, memory_order_release);
	for (int i = 0; i < n; i++)
		while (atomic_load_explicit(&hanks[i].task_done, memory_order_acquire) != id)
			spin_wait(&hanks[i].task_done, id - 1);
}

/* Deinit: every core must acknowledge within the timeout. Returns the missing count. */
__attribute__((noinline))
static int deinit_all_cores(int n, long timeout_ms)
{
	uint64_t deadline = zoo_now_ns() + (uint64_t)timeout_ms * 1000000ULL;
	int missing = 0;

	for (int i = 0; i < n; i++)
		atomic_store_explicit(&hanks[i].task, TASK_DEINIT, memory_order_release);
	for (int i = 0; i < n; i++) {
		while (!atomic_load_explicit(&hanks[i].deinit_ack, memory_order_acquire)) {
			if (zoo_now_ns() >= deadline)
				break;
			if (opts.fixed)
				sched_yield();
		}
	}
	for (int i = 0; i < n; i++)
		missing += !atomic_load_explicit(&hanks[i].deinit_ack, memory_order_acquire);
	return missing;
}

static void *aicpu_main(void *arg)
{
	int n = opts.threads;
	pthread_t *cores = arg;

	for (int i = 0; i < n; i++) {
		if (pthread_create(&cores[i], NULL, aicore_main, (void *)(intptr_t)i)) {
			fprintf(stderr, "spin_handshake: cannot create core thread %d\n", i);
			_exit(ZOO_FAIL);
		}
	}
	handshake_all_cores(n);
	for (long b = 1; b <= opts.iters; b++)
		run_batch(n, (int)b);
	long timeout = opts.fixed ? 10 * DEINIT_TIMEOUT_MS : DEINIT_TIMEOUT_MS;
	int missing = deinit_all_cores(n, timeout);
	if (missing)
		zoo_die("[aicpu] aicore deinit ACK timeout: %d of %d cores did not acknowledge within %ld ms\n"
			"spin_handshake: device deinit failed (rc=-1)\n", missing, n, timeout);
	for (int i = 0; i < n; i++)
		pthread_join(cores[i], NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct zoo_prog prog = {
		.name = "spin_handshake",
		.summary = "seed 003 (hang): AICPU/AICore startup handshake with busy-spins that never yield",
		.threads_help = "AICore threads (plus one AICPU scheduler thread)",
		.iters_help = "task batches after the handshake",
		.threads = 8, .min_threads = 1, .max_threads = 512,
		.iters = 2, .max_iters = 1000000,
	};
	int rc = zoo_opts_parse(&prog, argc, argv, &opts);
	if (rc >= 0)
		return rc;

	pthread_t aicpu, *cores = calloc((size_t)opts.threads, sizeof(*cores));
	hanks = aligned_alloc(128, sizeof(*hanks) * (size_t)opts.threads);
	if (!cores || !hanks) {
		fprintf(stderr, "spin_handshake: out of memory\n");
		return ZOO_FAIL;
	}
	memset(hanks, 0, sizeof(*hanks) * (size_t)opts.threads);
	if (pthread_create(&aicpu, NULL, aicpu_main, cores)) {
		fprintf(stderr, "spin_handshake: cannot create the AICPU thread\n");
		return ZOO_FAIL;
	}
	pthread_join(aicpu, NULL);
	uint64_t sum = 0;
	for (int i = 0; i < opts.threads; i++)
		sum += hanks[i].result;
	free(hanks);
	free(cores);
	printf("spin_handshake: %d cores, %ld batches, deinit acknowledged (checksum %016llx)%s\n",
	       opts.threads, opts.iters, (unsigned long long)sum, opts.fixed ? " (fixed)" : "");
	return ZOO_PASS;
}
