/*
 * lock_twice.c: a lock created twice by racing threads; one unlocks the
 * other's (abort). A test program of bench/auto_floor.sh, of a shape the
 * bugs corpus does not have (issue 43's first held-out program): the bug
 * fails often without help, so a plain loop finds it and auto must not
 * lose to one.
 *
 * A registry's lock is made on first use, unsynchronized: two threads
 * that both see no lock yet each make one. The first locks its own, the
 * second's then replaces it, and the first unlocks the lock it finds
 * there, which it does not hold: an error-checking mutex says EPERM and
 * the program aborts. --fixed makes the lock once (pthread_once).
 *
 *   cc -O1 -g -pthread -o lock_twice bench/lock_twice.c
 *   ./lock_twice [--fixed]     exit 0, or abort (SIGABRT)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define ROUNDS 50
#ifndef WORK
#define WORK 20000
#endif
#ifndef SETUP
#define SETUP 5000
#endif

static pthread_mutex_t *registry_lock;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_barrier_t start;
static int fixed;
static long entries;

static void make_lock(void)
{
	pthread_mutex_t *m = malloc(sizeof(*m));
	pthread_mutexattr_t a;

	if (!m)
		abort();
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	/* the registry's table is set up before the lock is published */
	for (volatile int i = 0; i < SETUP; i++)
		;
	registry_lock = m;
}

/* The bug: check, then make, with nothing held. */
static pthread_mutex_t *lock_get(void)
{
	if (fixed)
		pthread_once(&once, make_lock);
	else if (!registry_lock)
		make_lock();
	return registry_lock;
}

static void registry_add(int id)
{
	int rc = pthread_mutex_lock(lock_get());

	if (rc) {
		fprintf(stderr, "lock_twice: thread %d: lock: %s\n", id, strerror(rc));
		abort();
	}
	for (volatile int i = 0; i < WORK; i++)
		entries++;
	rc = pthread_mutex_unlock(lock_get());
	if (rc) {
		fprintf(stderr, "lock_twice: thread %d unlocked a registry lock it does not hold: %s\n", id,
			strerror(rc));
		abort();
	}
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;

	pthread_barrier_wait(&start);
	for (int r = 0; r < ROUNDS; r++)
		registry_add(id);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];

	fixed = argc > 1 && !strcmp(argv[1], "--fixed");
	if (argc > 1 && !fixed) {
		fprintf(stderr, "usage: lock_twice [--fixed]\n");
		return 2;
	}
	pthread_barrier_init(&start, NULL, THREADS);
	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i)) {
			perror("lock_twice: pthread_create");
			return 1;
		}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
