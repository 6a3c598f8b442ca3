/* Unit tests of the stall look (src/diagnose/stall.h): the pure rules, and
 * live children in the waits that make a tree still or not. */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diagnose/procfs.h"
#include "diagnose/stall.h"
#include "tap.h"

static enum stall_wait wait_of(char state, long nr, uint64_t a1, uint64_t a2, uint64_t a3)
{
	const uint64_t args[6] = { 0x1000, a1, a2, a3, 0, 0 };
	return stall_wait_of(state, nr, args);
}

static void pure_rules(void)
{
	/* a mutex or a condition variable: untimed futex waits */
	CHECK(wait_of('S', SYS_futex, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 2, 0) == STALL_UNTIMED);
	/* not marked private (a join, a named semaphore): where its word lies decides */
	CHECK(wait_of('S', SYS_futex, FUTEX_WAIT, 2, 0) == STALL_SHARED);
	const char *maps = "55d0c0a00000-55d0c0a21000 r--p 00000000 fd:01 123 /usr/bin/prog\n"
			   "7f0000000000-7f0000800000 rw-p 00000000 00:00 0 \n"
			   "7f1000000000-7f1000001000 rw-s 00000000 00:1a 77 /dev/shm/sem.gpu\n";
	CHECK(!stall_maps_shared(maps, 0x7f0000000100));   /* a thread's stack */
	CHECK(stall_maps_shared(maps, 0x7f1000000010));    /* the named semaphore */
	CHECK(stall_maps_shared(maps, 0x1000));            /* in no mapping: unknown */
	CHECK(stall_maps_shared("garbage\n", 0x7f0000000100));
	CHECK(stall_maps_shared("", 0x7f0000000100));
	CHECK(wait_of('S', SYS_futex, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 0, 0) == STALL_UNTIMED);
	CHECK(wait_of('S', SYS_futex, FUTEX_LOCK_PI | FUTEX_PRIVATE_FLAG, 0, 0) == STALL_UNTIMED);
	/* a timed wait wakes by itself; a wake is no wait */
	CHECK(wait_of('S', SYS_futex, FUTEX_WAIT_BITSET | 256 /* the clock flag */, 0, 0x7ffc0000) ==
	      STALL_BUSY);
	CHECK(wait_of('S', SYS_futex, FUTEX_WAKE, 1, 0) == STALL_BUSY);
	/* children and signals */
	CHECK(wait_of('S', SYS_wait4, 0, 0, 0) == STALL_UNTIMED);
	CHECK(wait_of('S', SYS_rt_sigsuspend, 0, 8, 0) == STALL_SIGNAL);
	CHECK(wait_of('S', SYS_rt_sigtimedwait, 0, 0, 8) == STALL_SIGNAL);
	CHECK(wait_of('S', SYS_rt_sigtimedwait, 0, 0x7ffc0000, 8) == STALL_BUSY);
	/* what someone outside might end: I/O, sleeps, polls */
	CHECK(wait_of('S', SYS_read, 0, 0, 0) == STALL_BUSY);
	CHECK(wait_of('S', SYS_nanosleep, 0, 0, 0) == STALL_BUSY);
	CHECK(wait_of('S', SYS_poll, 0, 0, 0) == STALL_BUSY);
	/* not asleep, or not in a system call */
	CHECK(wait_of('R', SYS_futex, FUTEX_WAIT, 0, 0) == STALL_BUSY);
	CHECK(wait_of('D', SYS_futex, FUTEX_WAIT, 0, 0) == STALL_BUSY);
	CHECK(wait_of('T', SYS_futex, FUTEX_WAIT, 0, 0) == STALL_BUSY);
	CHECK(wait_of('S', -1, 0, 0, 0) == STALL_BUSY);

	/* the syscall file */
	long nr = 0;
	uint64_t a[6];
	CHECK(procfs_parse_syscall_args("202 0x55d0c0a0 0x80 0x2 0x0 0x0 0x0 0x7ffd 0x7f01\n", &nr, a) == 0);
	CHECK(nr == 202 && a[0] == 0x55d0c0a0 && a[1] == 0x80 && a[2] == 2 && a[3] == 0);
	CHECK(procfs_parse_syscall_args("running\n", &nr, a) == 1);
	CHECK(procfs_parse_syscall_args("-1 0x7ffd 0x7f01\n", &nr, a) == 0 && nr == -1);
	CHECK(procfs_parse_syscall_args("202 0x1 zz\n", &nr, a) < 0);
	CHECK(procfs_parse_syscall_args("", &nr, a) < 0);
	CHECK(procfs_parse_syscall_args("202 0x11111111111111111 0 0 0 0 0\n", &nr, a) < 0);

	/* how long a still tree must stay so */
	struct stall_look l = { .threads = 3, .waiting = 3, .complete = true, .cpu_ns = 5 };
	CHECK(stall_look_still(&l));
	CHECK_NEAR(stall_window_s(&l, 0), 0.3, 1e-9);
	CHECK_NEAR(stall_window_s(&l, 0.5), 1.5, 1e-9);
	l.signal_wait = true;
	CHECK_NEAR(stall_window_s(&l, 0), 1.0, 1e-9);
	l.wakeable = true;   /* an itimer may be what it waits for */
	CHECK(stall_window_s(&l, 0) < 0);
	CHECK_NEAR(stall_window_s(&l, 0.05), 2.0, 1e-9);
	CHECK_NEAR(stall_window_s(&l, 1.0), 10.0, 1e-9);
	struct stall_look m = l;
	CHECK(stall_look_same(&l, &m));
	m.cpu_ns++;   /* something ran between the looks */
	CHECK(!stall_look_same(&l, &m));
	m = l;
	m.waiting--;
	CHECK(!stall_look_still(&m) && !stall_look_same(&l, &m));
	m = l;
	m.complete = false;
	CHECK(!stall_look_still(&m));
	struct stall_look none = { .complete = true };
	CHECK(!stall_look_still(&none));
}

/* ---- live children -------------------------------------------------- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void *wait_forever(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;)
		pthread_cond_wait(&cv, &mu);
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
}

enum shape { DEADLOCK, DEADLOCK_GRANDCHILD, PAUSE_ALARM, SLEEPER, READER, SPINNER, SHARED_SEM };

/* main joins a thread that waits for a signal never sent */
static void deadlock(void)
{
	pthread_t t;
	pthread_create(&t, NULL, wait_forever, NULL);
	pthread_join(t, NULL);
	_exit(0);
}

static void child(enum shape shape)
{
	int fds[2];
	switch (shape) {
	case DEADLOCK:
		deadlock();
		break;
	case DEADLOCK_GRANDCHILD:   /* waits for a child that deadlocked */
		if (fork() == 0)
			deadlock();
		wait(NULL);
		break;
	case PAUSE_ALARM:
		signal(SIGALRM, on_alarm);
		pause();
		break;
	case SLEEPER:
		for (;;)
			sleep(10);
	case READER:
		if (pipe(fds) == 0) {
			char c;
			while (read(fds[0], &c, 1) < 0)
				;
		}
		break;
	case SPINNER:
		for (volatile unsigned long i = 0;; i++)
			;
	case SHARED_SEM: {   /* waits on a semaphore another process could post */
		sem_t *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (s == MAP_FAILED || sem_init(s, 1, 0) < 0)
			_exit(1);
		while (sem_wait(s) < 0)
			;
		break;
	}
	}
	_exit(0);
}

/* Look until the tree is still twice in a row with nothing run between,
 * or give up after many looks (a loaded machine only makes this slower). */
static bool settles(pid_t pid, struct stall_look *out)
{
	struct stall_look prev = { 0 };
	for (int i = 0; i < 400; i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		if (stall_look(&pid, 1, out) < 0)
			return false;
		if (stall_look_same(&prev, out))
			return true;
		prev = *out;
	}
	return false;
}

static pid_t start(enum shape shape)
{
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);   /* end() kills the group: no grandchild left behind */
		child(shape);
	}
	setpgid(pid, pid);
	return pid;
}

static void end(pid_t pid)
{
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void live(void)
{
	struct stall_look l;
	pid_t pid = start(DEADLOCK);
	CHECK(settles(pid, &l));
	CHECK(l.threads == 2 && !l.signal_wait && !l.wakeable);
	end(pid);

	pid = start(DEADLOCK_GRANDCHILD);
	CHECK(settles(pid, &l));
	CHECK(l.threads == 3);   /* the parent in wait4, the child's two threads */
	end(pid);

	pid = start(PAUSE_ALARM);
	CHECK(settles(pid, &l));
	CHECK(l.signal_wait && l.wakeable);
	CHECK(stall_window_s(&l, 0) < 0);
	end(pid);

	/* never still: a sleep ends by itself, a read or a process-shared semaphore may be
	 * answered from outside, a spin runs */
	static const enum shape moving[] = { SLEEPER, READER, SPINNER, SHARED_SEM };
	for (size_t i = 0; i < sizeof(moving) / sizeof(moving[0]); i++) {
		pid = start(moving[i]);
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		bool still = false;
		for (int k = 0; k < 20; k++) {
			CHECK(stall_look(&pid, 1, &l) == 0);
			still |= stall_look_still(&l);
		}
		CHECK(!still);
		end(pid);
	}

	pid_t gone = start(SLEEPER);
	end(gone);
	CHECK(stall_look(&gone, 1, &l) == -ESRCH);
}

int main(void)
{
	pure_rules();
	live();
	return tap_done();
}
