/*
 * Stacks of a live child through the libdw backend: the helper's answer
 * comes back whole, and the child's exit stays ours to reap even when it
 * is killed while being unwound (a run's root is jostle's child; an
 * in-process ptrace wait used to take that exit).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diagnose/stack.h"
#include "util/rng.h"
#include "tap.h"

static volatile unsigned long spin_sink;

static __attribute__((noinline)) pid_t spawn(bool spin)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (spin)
			for (;;)
				spin_sink++;
		for (;;)
			pause();
	}
	return pid;
}

struct job {
	pid_t pid;
	int rc;
	struct stack_set set;
	char err[256];
};

static void *capture(void *arg)
{
	struct job *j = arg;
	j->rc = stack_backend_libdw.capture(j->pid, &j->set, j->err, sizeof(j->err));
	return NULL;
}

/* The stacks of a paused child; no ptrace stop and no helper left behind. */
static void test_answer(void)
{
	pid_t pid = spawn(false);
	CHECK(pid > 0);
	struct timespec settle = { 0, 20 * 1000 * 1000 };
	nanosleep(&settle, NULL);
	struct job j = { .pid = pid, .set = STACK_SET_INIT };
	capture(&j);
	CHECK(j.rc == 1);
	if (j.rc != 1)
		printf("#   rc %d: %s\n", j.rc, j.err);
	CHECK(j.set.nr == 1 && j.set.v[0].pid == pid && j.set.v[0].tid == pid);
	CHECK(j.set.nr == 1 && j.set.v[0].nr >= 2);
	bool named = false;
	for (size_t i = 0; j.set.nr == 1 && i < j.set.v[0].nr; i++)
		if (j.set.v[0].frames[i].fn && strstr(j.set.v[0].frames[i].fn, "spawn"))
			named = true;
	CHECK(named);   /* a frame of this program, named by its symbol table */

	/* Only the child is left, running: the helper was reaped, and no
	 * stop of the child's is waiting for us. */
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	int w = waitid(P_ALL, 0, &si, WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL);
	CHECK(w == 0 && si.si_pid == 0);
	kill(pid, SIGKILL);
	int st = 0;
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	CHECK(waitpid(-1, NULL, WNOHANG | __WALL) < 0 && errno == ECHILD);
	stack_set_release(&j.set);
}

/*
 * A child killed at some moment of its unwinding, 40 times: its exit
 * status must reach us every time. The moments are fixed (a seeded draw
 * over 0-6 ms), the outcome is not a matter of timing.
 */
static void test_kill_during_capture(void)
{
	uint64_t seed = 12;
	int lost = 0, other = 0;
	for (int i = 0; i < 40; i++) {
		pid_t pid = spawn(true);
		struct job j = { .pid = pid, .set = STACK_SET_INIT };
		pthread_t t;
		pthread_create(&t, NULL, capture, &j);
		struct timespec d = { 0, (long)rng_below(&seed, 6000) * 1000 };
		nanosleep(&d, NULL);
		kill(pid, SIGKILL);
		pthread_join(t, NULL);
		int st = 0;
		pid_t w = waitpid(pid, &st, 0);
		if (w < 0)
			lost++;
		else if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
			other++;
		stack_set_release(&j.set);
	}
	CHECK(lost == 0);
	CHECK(other == 0);
	if (lost || other)
		printf("#   %d exits lost, %d not SIGKILL\n", lost, other);
	CHECK(waitpid(-1, NULL, WNOHANG | __WALL) < 0 && errno == ECHILD);
}

/* Called by hand with wrong arguments, the helper says what it is: exit 2. */
static void test_helper_bad_args(void)
{
	char *none[] = { (char *)"jostle", (char *)STACK_HELPER_ARG, NULL };
	char *word[] = { (char *)"jostle", (char *)STACK_HELPER_ARG, (char *)"abc", (char *)"1", NULL };
	char *zero[] = { (char *)"jostle", (char *)STACK_HELPER_ARG, (char *)"0", (char *)"1", NULL };
	CHECK(stack_helper_main(2, none) == 2);
	CHECK(stack_helper_main(4, word) == 2);
	CHECK(stack_helper_main(4, zero) == 2);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], STACK_HELPER_ARG))
		return stack_helper_main(argc, argv);
	test_answer();
	test_kill_during_capture();
	test_helper_bad_args();
	return tap_done();
}
