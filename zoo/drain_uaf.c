/*
 * drain_uaf: the host drain use-after-free of seed 003 (simpler #901).
 *
 * An orchestrator owns a ring of task slot states and a scheduler thread
 * that executes ready tasks and completes them. on_task_complete() records
 * the result, decrements the active-task count (waking drain() when it
 * reaches 0), and only then releases the task's fanout: it still touches the
 * slot after the decrement. drain() waits for the active count to reach 0 and
 * resets the ring (Ring::reset_to_empty), freeing the slot states, while the
 * scheduler thread may still be inside on_task_complete: a heap-use-after-free
 * (under ASan: READ in on_task_complete, freed by ring_reset_to_empty from
 * drain); without ASan a SIGSEGV through the freed slot's fanout pointer or a
 * corrupted slot in the next round.
 *
 * --fixed: drain()'s teardown is serialized against the scheduler loop with
 * a loop mutex: the scheduler holds it for a whole task, drain takes it
 * before reset_to_empty.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "zoo.h"

#ifndef RING_SLOTS
#define RING_SLOTS 8		/* tasks submitted per drain */
#endif
#ifndef TASK_ROUNDS
#define TASK_ROUNDS 400		/* executing one task */
#endif
#ifndef CONSUMERS
#define CONSUMERS 4		/* fanout entries released per completion */
#endif

enum slot_state { SLOT_EMPTY, SLOT_READY, SLOT_DONE, SLOT_RELEASED };

struct fanout {
	int n;
	int consumer[CONSUMERS];
	uint64_t released;	/* bitmask of consumers notified */
};

/* TaskSlotState: the fanout pointer comes first, as in the runtime's layout. */
struct task_slot_state {
	struct fanout *fanout;
	atomic_int state;
	int task_id;
	uint64_t result;
};

struct orchestrator {
	pthread_mutex_t m;
	pthread_cond_t work;	/* scheduler: tasks ready or stop */
	pthread_cond_t idle;	/* drain: active reached 0 */
	pthread_mutex_t loop_mutex;	/* the fix: held by the scheduler for a whole task */
	struct task_slot_state *slot[RING_SLOTS];
	int ready[RING_SLOTS];
	int nready;
	atomic_int active;
	bool stop;
	bool fixed;
};

static struct task_slot_state *slot_new(int task_id)
{
	struct task_slot_state *s = malloc(sizeof(*s));
	struct fanout *f = malloc(sizeof(*f));

	if (!s || !f) {
		fprintf(stderr, "drain_uaf: out of memory\n");
		abort();
	}
	f->n = CONSUMERS;
	for (int i = 0; i < CONSUMERS; i++)
		f->consumer[i] = task_id * CONSUMERS + i;
	f->released = 0;
	s->fanout = f;
	atomic_init(&s->state, SLOT_READY);
	s->task_id = task_id;
	s->result = 0;
	return s;
}

/* Ring::reset_to_empty: free every slot state. */
__attribute__((noinline))
static void ring_reset_to_empty(struct orchestrator *o)
{
	for (int i = 0; i < RING_SLOTS; i++) {
		struct task_slot_state *s = o->slot[i];
		if (!s)
			continue;
		if (atomic_load(&s->state) != SLOT_RELEASED && atomic_load(&s->state) != SLOT_DONE)
			zoo_die("drain_uaf: corrupted task slot %d (state %d) at reset\n", i,
				atomic_load(&s->state));
		free(s->fanout);
		free(s);
		o->slot[i] = NULL;
	}
}

/* The completion path of the scheduler thread. */
__attribute__((noinline))
static void on_task_complete(struct orchestrator *o, struct task_slot_state *s)
{
	atomic_store(&s->state, SLOT_DONE);
	if (atomic_fetch_sub(&o->active, 1) == 1) {
		pthread_mutex_lock(&o->m);
		pthread_cond_broadcast(&o->idle);
		pthread_mutex_unlock(&o->m);
	}
	/* Release the fanout: the slot is touched after the decrement. */
	struct fanout *f = s->fanout;
	for (int i = 0; i < f->n; i++)
		f->released |= 1ULL << (f->consumer[i] & 63);
	atomic_store(&s->state, SLOT_RELEASED);
}

static void *scheduler_loop(void *arg)
{
	struct orchestrator *o = arg;

	pthread_mutex_lock(&o->m);
	for (;;) {
		while (!o->stop && o->nready == 0)
			pthread_cond_wait(&o->work, &o->m);
		if (o->nready == 0)
			break;
		int idx = o->ready[--o->nready];
		struct task_slot_state *s = o->slot[idx];
		pthread_mutex_unlock(&o->m);

		if (o->fixed)
			pthread_mutex_lock(&o->loop_mutex);
		s->result = zoo_work((uint64_t)s->task_id, TASK_ROUNDS);
		on_task_complete(o, s);
		if (o->fixed)
			pthread_mutex_unlock(&o->loop_mutex);

		pthread_mutex_lock(&o->m);
	}
	pthread_mutex_unlock(&o->m);
	return NULL;
}

/* The outputs of the drained round: every task ran once with the right result. */
static uint64_t collect_outputs(struct orchestrator *o)
{
	uint64_t sum = 0;

	for (int i = 0; i < RING_SLOTS; i++) {
		struct task_slot_state *s = o->slot[i];
		if (s->result != zoo_work((uint64_t)s->task_id, TASK_ROUNDS))
			zoo_die("drain_uaf: task %d: corrupted result\n", s->task_id);
		sum += s->result;
	}
	return sum;
}

/*
 * Orchestrator::drain: wait until no task is active, hand the outputs back,
 * reset the ring. Returns the outputs' checksum.
 */
__attribute__((noinline))
static uint64_t drain(struct orchestrator *o)
{
	pthread_mutex_lock(&o->m);
	while (atomic_load(&o->active) > 0)
		pthread_cond_wait(&o->idle, &o->m);
	pthread_mutex_unlock(&o->m);
	uint64_t sum = collect_outputs(o);
	if (o->fixed)
		pthread_mutex_lock(&o->loop_mutex);
	ring_reset_to_empty(o);
	if (o->fixed)
		pthread_mutex_unlock(&o->loop_mutex);
	return sum;
}

static void submit_batch(struct orchestrator *o, int round)
{
	pthread_mutex_lock(&o->m);
	for (int i = 0; i < RING_SLOTS; i++) {
		o->slot[i] = slot_new(round * RING_SLOTS + i);
		atomic_fetch_add(&o->active, 1);
		o->ready[o->nready++] = i;
	}
	pthread_cond_signal(&o->work);
	pthread_mutex_unlock(&o->m);
}

static struct zoo_opts opts;

/* One orchestrator and its scheduler thread: submit, drain, check, repeat. */
static void *orchestrator_main(void *arg)
{
	struct orchestrator *o = arg;
	pthread_t sched;
	uint64_t sum = 0;

	if (pthread_create(&sched, NULL, scheduler_loop, o)) {
		fprintf(stderr, "drain_uaf: cannot create the scheduler thread\n");
		_exit(ZOO_FAIL);
	}
	for (long r = 0; r < opts.iters; r++) {
		submit_batch(o, (int)(r % 1000000));
		sum += drain(o);
	}
	pthread_mutex_lock(&o->m);
	o->stop = true;
	pthread_cond_signal(&o->work);
	pthread_mutex_unlock(&o->m);
	pthread_join(sched, NULL);
	return (void *)(uintptr_t)sum;
}

int main(int argc, char **argv)
{
	static const struct zoo_prog prog = {
		.name = "drain_uaf",
		.summary = "seed 003 (segfault): drain() frees task slot states while the scheduler is still in on_task_complete",
		.threads_help = "orchestrators, each with its own scheduler thread",
		.iters_help = "submit-and-drain rounds per orchestrator",
		.threads = 1, .min_threads = 1, .max_threads = 64,
		.iters = 1000, .max_iters = 100000000,
	};
	int rc = zoo_opts_parse(&prog, argc, argv, &opts);
	if (rc >= 0)
		return rc;

	struct orchestrator *o = calloc((size_t)opts.threads, sizeof(*o));
	pthread_t *t = calloc((size_t)opts.threads, sizeof(*t));
	if (!o || !t) {
		fprintf(stderr, "drain_uaf: out of memory\n");
		return ZOO_FAIL;
	}
	for (int i = 0; i < opts.threads; i++) {
		pthread_mutex_init(&o[i].m, NULL);
		pthread_mutex_init(&o[i].loop_mutex, NULL);
		pthread_cond_init(&o[i].work, NULL);
		pthread_cond_init(&o[i].idle, NULL);
		o[i].fixed = opts.fixed;
		if (pthread_create(&t[i], NULL, orchestrator_main, &o[i])) {
			fprintf(stderr, "drain_uaf: cannot create orchestrator %d\n", i);
			return ZOO_FAIL;
		}
	}
	uint64_t sum = 0;
	for (int i = 0; i < opts.threads; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum += (uintptr_t)r;
	}
	free(t);
	free(o);
	printf("drain_uaf: %d x %ld rounds of %d tasks drained (checksum %016llx)%s\n", opts.threads,
	       opts.iters, RING_SLOTS, (unsigned long long)sum, opts.fixed ? " (fixed)" : "");
	return ZOO_PASS;
}
