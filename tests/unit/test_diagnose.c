/* Unit tests of hang classification (diagnose.c): roles, classes, summary, evidence. */
#include <string.h>
#include <sys/syscall.h>

#include "diagnose/diagnose.h"
#include "tap.h"

#define MS 1000000LL

int main(void)
{
	/* roles */
	CHECK(diag_role_of('R', 0, 200 * MS, 10, 11, -1, "") == DIAG_ROLE_SPIN);
	CHECK(diag_role_of('S', 50 * MS, 200 * MS, 2, 11, SYS_futex, "") == DIAG_ROLE_SPIN);
	CHECK(diag_role_of('S', 0, 200 * MS, 0, 11, SYS_futex, "futex_do_wait") == DIAG_ROLE_LOCK);
	CHECK(diag_role_of('S', 0, 200 * MS, 0, 11, -2, "futex_wait_queue_me") == DIAG_ROLE_LOCK);
	/* a wait resumed after SIGSTOP/SIGCONT (a held run): the wait channel decides */
	CHECK(diag_role_of('S', 0, 200 * MS, 0, 11, SYS_restart_syscall, "futex_wait_queue") == DIAG_ROLE_LOCK);
	CHECK(diag_role_of('S', 0, 200 * MS, 0, 11, SYS_restart_syscall, "hrtimer_nanosleep") == DIAG_ROLE_SLEEP);
	CHECK(diag_role_of('S', 0, 200 * MS, 0, 11, SYS_restart_syscall, "do_wait") == DIAG_ROLE_CHILD);
	/* issue 19: a shell that forks commands uses CPU while waiting for them,
	 * never seen runnable: not busy */
	CHECK(diag_role_of('S', 30 * MS, 200 * MS, 0, 11, SYS_wait4, "do_wait") == DIAG_ROLE_CHILD);
	CHECK(diag_role_of('S', 30 * MS, 200 * MS, 0, 11, -2, "do_wait") == DIAG_ROLE_CHILD);
	CHECK(diag_role_of('S', 30 * MS, 200 * MS, 3, 11, SYS_wait4, "do_wait") == DIAG_ROLE_SPIN);
	CHECK(diag_role_of('S', 30 * MS, 200 * MS, 0, 11, -2, "futex_do_wait") == DIAG_ROLE_SPIN);
	CHECK(diag_role_of('S', 0, 200 * MS, 0, 11, SYS_read, "pipe_read") == DIAG_ROLE_IO);
	CHECK(diag_role_of('S', 0, 200 * MS, 0, 11, -2, "pipe_read") == DIAG_ROLE_IO);
	CHECK(diag_role_of('D', 0, 200 * MS, 0, 11, -2, "") == DIAG_ROLE_IO);
	CHECK(diag_role_of('S', 0, 200 * MS, 0, 11, SYS_clock_nanosleep, "hrtimer_nanosleep") == DIAG_ROLE_SLEEP);
	CHECK(diag_role_of('S', 0, 200 * MS, 0, 11, SYS_wait4, "do_wait") == DIAG_ROLE_CHILD);
	CHECK(diag_role_of('S', 0, 200 * MS, 0, 11, -2, "do_wait") == DIAG_ROLE_CHILD);
	CHECK(diag_role_of('T', 0, 200 * MS, 0, 11, -2, "do_signal_stop") == DIAG_ROLE_STOPPED);
	CHECK(diag_role_of('t', 0, 200 * MS, 0, 11, -2, "") == DIAG_ROLE_STOPPED);
	CHECK(diag_role_of('Z', 0, 200 * MS, 0, 11, -2, "") == DIAG_ROLE_ZOMBIE);
	/* 1 ms of CPU in 200 ms is not busy; 10 ms (5%) is. */
	CHECK(diag_role_of('S', 1 * MS, 200 * MS, 0, 11, SYS_futex, "") == DIAG_ROLE_LOCK);
	CHECK(diag_role_of('S', 10 * MS, 200 * MS, 0, 11, SYS_futex, "") == DIAG_ROLE_SPIN);

	/* classes */
	unsigned r[DIAG_ROLE_NR];
#define ROLES(spin, lock, io, slp, stop, child, zombie) \
	(r[DIAG_ROLE_SPIN] = spin, r[DIAG_ROLE_LOCK] = lock, r[DIAG_ROLE_IO] = io, \
	 r[DIAG_ROLE_SLEEP] = slp, r[DIAG_ROLE_STOPPED] = stop, r[DIAG_ROLE_CHILD] = child, \
	 r[DIAG_ROLE_ZOMBIE] = zombie, r)
	CHECK(diag_classify(ROLES(98, 1, 0, 1, 0, 1, 0), 0) == DIAG_LIVELOCK);
	CHECK(diag_classify(ROLES(98, 1, 0, 1, 0, 1, 0), 1) == DIAG_MIXED);
	CHECK(diag_classify(ROLES(0, 3, 0, 0, 0, 0, 0), 0) == DIAG_DEADLOCK);
	CHECK(diag_classify(ROLES(0, 3, 0, 2, 0, 2, 1), 0) == DIAG_DEADLOCK);
	CHECK(diag_classify(ROLES(0, 0, 2, 0, 0, 1, 0), 1) == DIAG_BLOCKED_IO);
	CHECK(diag_classify(ROLES(0, 2, 2, 0, 0, 0, 0), 0) == DIAG_MIXED);
	CHECK(diag_classify(ROLES(0, 0, 0, 3, 0, 0, 0), 0) == DIAG_SLEEPING);
	CHECK(diag_classify(ROLES(0, 0, 0, 0, 4, 0, 0), 0) == DIAG_STOPPED);
	CHECK(diag_classify(ROLES(1, 0, 0, 0, 4, 0, 0), 0) == DIAG_MIXED);
	CHECK(diag_classify(ROLES(0, 0, 0, 0, 0, 0, 0), 0) == DIAG_GONE);
	CHECK(diag_classify(ROLES(0, 0, 0, 0, 0, 0, 2), 0) == DIAG_GONE);
	CHECK_STR(diag_kind_name(DIAG_LIVELOCK), "livelock");
	CHECK_STR(diag_kind_name(DIAG_BLOCKED_IO), "blocked-io");
	CHECK_STR(diag_role_name(DIAG_ROLE_LOCK), "futex");

	unsigned st[DIAG_ST_NR] = { 99, 1, 0, 0, 0, 0 };
	char line[256];
	diag_format_summary(DIAG_LIVELOCK, st, ROLES(99, 0, 0, 1, 0, 0, 0), 100, line, sizeof(line));
	CHECK_STR(line, "livelock: threads runnable and burning CPU, nothing blocked; 99 of 100 threads busy "
			"(R 99, S 1, D 0, T 0, Z 0)");

	/* evidence from a hand-built diagnosis: seed 003's shape */
	struct diag d;
	memset(&d, 0, sizeof(d));
	d.kind = DIAG_LIVELOCK;
	struct diag_thread th[5];
	memset(th, 0, sizeof(th));
	for (int i = 0; i < 5; i++) {
		th[i].pid = 100;
		th[i].tid = 100 + i;
		th[i].role = i == 0 ? DIAG_ROLE_LOCK : i == 1 ? DIAG_ROLE_SLEEP : DIAG_ROLE_SPIN;
	}
	d.threads = th;
	d.nthreads = 5;
	for (int i = 0; i < 5; i++) {
		struct stack_thread *t = stack_set_add(&d.stacks, 100, 100 + i);
		stack_thread_push(t, i == 0 ? "__pthread_clockjoin_ex" : i == 1 ? "pthread_cond_wait" : "aicore_execute",
				  i < 2 ? "/lib/x86_64-linux-gnu/libc.so.6" : "/tmp/hang", 0);
		stack_thread_push(t, i == 0 ? "main" : i == 1 ? "_ZN16SchedulerContext19handshake_all_coresEv" : "start_thread",
				  i == 1 ? "/tmp/hang" : NULL, 0);
	}
	struct evidence ev;
	diag_evidence(&d, &ev);
	CHECK_STR(ev.kind, "livelock");
	CHECK_STR(ev.key_line, "hang: livelock");
	/* only the spinners' culprit: the waiting threads' frames vary by sample */
	CHECK(ev.nframes == 1);
	CHECK_STR(ev.frames[0], "aicore_execute");

	/* two spinners in different functions, one each: both, in name order */
	th[2].role = DIAG_ROLE_SLEEP;
	d.stacks.v[4].frames[0].fn[0] = 'b';
	diag_evidence(&d, &ev);
	CHECK(ev.nframes == 2);
	CHECK_STR(ev.frames[0], "aicore_execute");
	CHECK_STR(ev.frames[1], "bicore_execute");

	/* nothing decides (no spinner caught with a frame): the most common */
	for (int i = 2; i < 5; i++)
		th[i].role = DIAG_ROLE_SLEEP;
	diag_evidence(&d, &ev);
	CHECK(ev.nframes == 1);
	CHECK_STR(ev.frames[0], "aicore_execute");
	stack_set_release(&d.stacks);
	return tap_done();
}
