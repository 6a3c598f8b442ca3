/*
 * drain_election: the sync_start drain null-deref of seed 003 (simpler #898).
 *
 * Several AICPU scheduler threads dispatch work; a sync_start task puts them
 * all in drain mode. Each thread that sees drain mode first quiesces its own
 * cores, then enters handle_drain_mode(), which elects a leader by reading the
 * shared pending-task pointer (a plain, non-atomic read) and dereferencing it
 * without a null check. The leader runs the drain, clears pending_task and
 * leaves drain mode. A thread that saw drain mode but was delayed while it
 * quiesced reads pending_task after the leader cleared it: NULL, and the
 * election dereferences it: SIGSEGV in handle_drain_mode (under UBSan: member
 * access within null pointer).
 *
 * --fixed: pending_task is read with an atomic acquire load and a NULL
 * pending task means "the drain is already over": the thread goes back to
 * dispatching (#898). The fixed variant also carries #893's spin-wait hint
 * in the non-leaders' wait: without it, a fixed run on a box oversubscribed
 * many times over crawled past a 60 s limit once in ~1000 runs (waiters
 * spinning out whole time slices while the leader waits for a CPU).
 */
#include <pthread.h>
#include <stdatomic.h>

#include "zoo.h"

#ifndef DISPATCH_ROUNDS
#define DISPATCH_ROUNDS 200	/* one dispatch step of a scheduler thread */
#endif
#ifndef QUIESCE_ROUNDS
#define QUIESCE_ROUNDS 50000	/* waiting for this thread's cores to go idle */
#endif
#ifndef DRAIN_ROUNDS
#define DRAIN_ROUNDS 60000	/* the leader's sync_start work */
#endif
#ifndef DISPATCHES_PER_DRAIN
#define DISPATCHES_PER_DRAIN 2	/* thread 0 raises a drain every this many steps */
#endif

enum task_kind { TASK_SYNC_START = 7 };

struct task {
	enum task_kind kind;
	atomic_int leader;	/* -1 until elected */
	uint64_t result;
};

static struct zoo_opts opts;
static struct task *tasks;	/* one per drain, never reused within a run */
static struct task *pending_task;	/* the buggy field: plain pointer */
static _Atomic(struct task *) pending_task_atomic;	/* the fixed field */
static atomic_int drain_mode;
static atomic_long drains_done;
static atomic_bool stop;

static void set_pending(struct task *t)
{
	if (opts.fixed)
		atomic_store_explicit(&pending_task_atomic, t, memory_order_release);
	else
		pending_task = t;
}

/*
 * handle_drain_mode: elect a leader for the pending sync_start task; the
 * leader runs it and ends drain mode, the others wait for that.
 */
__attribute__((noinline))
static void handle_drain_mode(int me)
{
	struct task *t;

	if (opts.fixed) {
		t = atomic_load_explicit(&pending_task_atomic, memory_order_acquire);
		if (!t)
			return;	/* the drain already ended */
	} else {
		t = pending_task;
	}
	if (t->kind != TASK_SYNC_START)
		return;
	int expected = -1;
	if (atomic_compare_exchange_strong(&t->leader, &expected, me)) {
		t->result = zoo_work((uintptr_t)(t - tasks), DRAIN_ROUNDS);
		set_pending(NULL);
		atomic_fetch_add(&drains_done, 1);
		atomic_store_explicit(&drain_mode, 0, memory_order_release);
		return;
	}
	unsigned spins = 0;
	while (atomic_load_explicit(&drain_mode, memory_order_acquire) &&
	       !atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (opts.fixed)
			zoo_spin_hint(&spins);
		else
			zoo_cpu_relax();
	}
}

/* Stop dispatching and wait for this thread's cores to finish their tasks. */
__attribute__((noinline))
static uint64_t quiesce_cores(int me)
{
	return zoo_work((uint64_t)me, QUIESCE_ROUNDS);
}

static void *aicpu_scheduler(void *arg)
{
	int me = (int)(intptr_t)arg;
	uint64_t acc = 0;
	long raised = 0, steps = 0;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (atomic_load_explicit(&drain_mode, memory_order_acquire)) {
			acc += quiesce_cores(me);
			handle_drain_mode(me);
			continue;
		}
		acc += zoo_work(acc + (uint64_t)me, DISPATCH_ROUNDS);
		/* Thread 0 also runs the orchestration that raises sync_start drains. */
		if (me == 0 && ++steps % DISPATCHES_PER_DRAIN == 0) {
			if (atomic_load(&drains_done) == raised) {
				if (raised == opts.iters) {
					atomic_store(&stop, true);
					break;
				}
				struct task *t = &tasks[raised++];
				t->kind = TASK_SYNC_START;
				atomic_store(&t->leader, -1);
				set_pending(t);
				atomic_store_explicit(&drain_mode, 1, memory_order_release);
			}
		}
	}
	return (void *)(uintptr_t)acc;
}

int main(int argc, char **argv)
{
	static const struct zoo_prog prog = {
		.name = "drain_election",
		.summary = "seed 003 (segfault): concurrent sync_start drains elect a leader through a pending-task pointer read without atomics or a null check",
		.threads_help = "AICPU scheduler threads",
		.iters_help = "sync_start drains",
		.threads = 2, .min_threads = 2, .max_threads = 64,
		.iters = 50, .max_iters = 10000000,
	};
	int rc = zoo_opts_parse(&prog, argc, argv, &opts);
	if (rc >= 0)
		return rc;

	tasks = calloc((size_t)opts.iters, sizeof(*tasks));
	pthread_t *t = calloc((size_t)opts.threads, sizeof(*t));
	if (!tasks || !t) {
		fprintf(stderr, "drain_election: out of memory\n");
		return ZOO_FAIL;
	}
	for (int i = 0; i < opts.threads; i++) {
		if (pthread_create(&t[i], NULL, aicpu_scheduler, (void *)(intptr_t)i)) {
			fprintf(stderr, "drain_election: cannot create scheduler thread %d\n", i);
			return ZOO_FAIL;
		}
	}
	for (int i = 0; i < opts.threads; i++)
		pthread_join(t[i], NULL);
	uint64_t sum = 0;
	long led = 0;
	for (long i = 0; i < opts.iters; i++) {
		if (tasks[i].result != zoo_work((uint64_t)i, DRAIN_ROUNDS)) {
			fprintf(stderr, "drain_election: sync_start task %ld was not run by a leader\n", i);
			return ZOO_FAIL;
		}
		sum += tasks[i].result;
		led++;
	}
	free(tasks);
	free(t);
	printf("drain_election: %d threads, %ld drains, each led once (checksum %016llx)%s\n",
	       opts.threads, led, (unsigned long long)sum, opts.fixed ? " (fixed)" : "");
	return ZOO_PASS;
}
