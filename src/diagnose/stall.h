/*
 * stall.h: a tree in which nothing can run again (docs/timeouts.md).
 *
 * A run whose every thread waits without a timeout for something only the
 * run itself could give (a futex: a mutex, a condition variable, a join, a
 * barrier; a child process; a signal) and whose threads used no CPU at all
 * between two looks is deadlocked: no thread of it can wake another. It is
 * a hang now, not after the user's --timeout: waiting would only cost the
 * machine time a deadlock needs no more of (a 10 s timeout and a deadlock
 * found in half a second are 20 times the failures per minute).
 *
 * What could still wake such a tree comes from outside it, and is looked
 * for: a futex in memory that another process may map; a process that catches a timer's signal or an asynchronous I/O
 * signal, or holds POSIX timers, may be woken by the kernel (an itimer
 * behind a pause()); series.c then waits much longer before it calls the
 * tree stalled (stall_window_s). A thread in any other wait (a read, a
 * poll, a timed wait, a sleep, an uninterruptible one), a running or
 * stopped thread, or a file that cannot be read makes the look say "not
 * stalled": the rule errs toward the timeout, never toward a false hang.
 *
 * stall_wait_of() and stall_window_s() are pure (tests/unit/test_stall.c);
 * stall_look() reads /proc.
 */
#ifndef JOSTLE_STALL_H
#define JOSTLE_STALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* How one thread waits, from its state and /proc/.../syscall. */
enum stall_wait {
	STALL_BUSY,          /* running, runnable, stopped, or in any other wait */
	STALL_UNTIMED,       /* an untimed wait on a process-private futex, or
				* waiting for a child */
	STALL_SHARED,        /* an untimed wait on a futex that is not marked
				* private: certain only where its word lies in
				* memory no other process maps (stall_maps_shared) */
	STALL_SIGNAL,        /* waiting for a signal: pause, sigsuspend, sigwait */
};

enum stall_wait stall_wait_of(char state, long nr, const uint64_t args[6]);

/*
 * Whether ADDR lies in a mapping another process may share (an 's' in its
 * permissions in MAPS, the text of /proc/PID/maps), or in none of them: a
 * futex there may be woken from outside the tree (a named semaphore that
 * serialises concurrent runs, a process-shared mutex). A join's futex, on
 * the thread's private stack, is not.
 */
bool stall_maps_shared(const char *maps, uint64_t addr);

/* One look at a tree. */
struct stall_look {
	unsigned threads;      /* threads seen (zombies not counted) */
	unsigned waiting;      /* of them in an untimed or a signal wait */
	bool signal_wait;      /* one of them waits for a signal */
	bool wakeable;         /* a process catches a timer's or an async signal,
				* or holds POSIX timers: the kernel may wake it */
	uint64_t cpu_ns;       /* the threads' CPU so far (schedstat), summed */
	bool complete;         /* every file of every thread was read */
};

/* All waiting, nothing unreadable, at least one thread. */
bool stall_look_still(const struct stall_look *l);
/* Two looks at the same tree with nothing run between them. */
bool stall_look_same(const struct stall_look *a, const struct stall_look *b);

/*
 * Look at the trees under ROOTS (their processes, every thread, and their
 * children by /proc's children files), at most STALL_MAX_THREADS threads.
 * Returns 0, or -ESRCH when no root is there.
 */
#define STALL_MAX_THREADS 4096
int stall_look(const pid_t *roots, size_t nroots, struct stall_look *out);

/*
 * How long a still tree must stay so before it is called stalled, in
 * seconds, given the median wall time of a passing run (0: none yet).
 * Negative: never (a wakeable tree before any run passed: an itimer might
 * be what the program waits for, and nothing says how long it is).
 */
double stall_window_s(const struct stall_look *l, double ref_wall_s);

#endif
