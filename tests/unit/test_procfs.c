/* Unit tests of the /proc parsers (procfs.c) and the tree builder (proctree.c) on fixture text. */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diagnose/procfs.h"
#include "diagnose/proctree.h"
#include "slurp.h"
#include "tap.h"

static bool adopt_even(pid_t pid, void *ctx)
{
	(void)ctx;
	return pid % 2 == 0;
}

int main(void)
{
	struct procfs_stat st;
	char *t = slurp("proc_stat.txt", NULL);
	CHECK(procfs_parse_stat(t, &st) == 0);
	CHECK(st.pid == 4242);
	CHECK_STR(st.comm, "a) R 1 (b");
	CHECK(st.state == 'S');
	CHECK(st.ppid == 4200);
	CHECK(st.pgrp == 4242);
	CHECK(st.utime == 150 && st.stime == 25);
	CHECK(st.num_threads == 7);
	CHECK(st.starttime == 82730);
	CHECK(st.processor == 1);
	free(t);
	CHECK(procfs_parse_stat("", &st) == -EINVAL);
	CHECK(procfs_parse_stat("12 (x)", &st) == -EINVAL);
	CHECK(procfs_parse_stat("12 (x) R 1 2 3", &st) == -EINVAL);
	CHECK(procfs_parse_stat("x (y) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20", &st) == -EINVAL);

	struct procfs_status ss;
	t = slurp("proc_status.txt", NULL);
	CHECK(procfs_parse_status(t, &ss) == 0);
	CHECK_STR(ss.name, "python3");
	CHECK(ss.state == 'R');
	CHECK(ss.tgid == 1705 && ss.ppid == 1703 && ss.tracer == 0);
	CHECK(ss.threads == 7);
	CHECK(ss.vm_rss_kb == 12345);
	CHECK((ss.sig_caught >> (6 - 1)) & 1);   /* SIGABRT handled */
	free(t);
	CHECK(procfs_parse_status("State:\tS\n", &ss) == -EINVAL);

	char w[64];
	t = slurp("proc_wchan_none.txt", NULL);
	CHECK_STR(procfs_parse_wchan(t, w, sizeof(w)), "");
	free(t);
	t = slurp("proc_wchan_futex.txt", NULL);
	CHECK_STR(procfs_parse_wchan(t, w, sizeof(w)), "futex_do_wait");
	free(t);
	CHECK_STR(procfs_parse_wchan("a_very_long_wait_channel_name", w, 8), "a_very_");

	t = slurp("proc_syscall_futex.txt", NULL);
	CHECK(procfs_parse_syscall(t) == 202);
	free(t);
	t = slurp("proc_syscall_running.txt", NULL);
	CHECK(procfs_parse_syscall(t) == -1);
	free(t);
	t = slurp("proc_syscall_blocked.txt", NULL);
	CHECK(procfs_parse_syscall(t) == -2);
	free(t);
	CHECK(procfs_parse_syscall("") == -2);

	/* schedstat: the first field, ns on CPU (one parser for churn.c and diagnose.c) */
	uint64_t ns = 0;
	CHECK(procfs_parse_schedstat("123456789 4567 89\n", &ns) == 0 && ns == 123456789);
	CHECK(procfs_parse_schedstat("18446744073709551615 0 0\n", &ns) == 0 && ns == UINT64_MAX);
	CHECK(procfs_parse_schedstat("", &ns) == -EINVAL);
	CHECK(procfs_parse_schedstat("x 1 2\n", &ns) == -EINVAL);

	pid_t *pids = NULL;
	size_t nr = 0, alloc = 0;
	t = slurp("proc_children.txt", NULL);
	CHECK(procfs_parse_pids(t, &pids, &nr, &alloc) == 3);
	CHECK(nr == 3 && pids[0] == 101 && pids[1] == 205 && pids[2] == 3000);
	free(t);
	CHECK(procfs_parse_pids("", &pids, &nr, &alloc) == 0);
	CHECK(procfs_parse_pids("7 x", &pids, &nr, &alloc) == -EINVAL);
	free(pids);

	CHECK(procfs_parse_pid_name("123") == 123);
	CHECK(procfs_parse_pid_name("self") == 0);
	CHECK(procfs_parse_pid_name("12a") == 0);
	CHECK(procfs_parse_pid_name("0") == 0);
	CHECK(procfs_parse_pid_name("99999999999") == 0);

	size_t len, vl;
	t = slurp("proc_environ.bin", &len);
	const char *v = procfs_environ_get(t, len, "JOSTLE_RUN", &vl);
	CHECK(v && vl == 2 && !memcmp(v, "17", 2));
	v = procfs_environ_get(t, len, "HOME", &vl);
	CHECK(v && vl == 5 && !memcmp(v, "/root", 5));
	CHECK(procfs_environ_get(t, len, "JOSTLE", &vl) == NULL);
	free(t);

	/* Readers on ourselves: a live process, and a vanished one. */
	int fd = procfs_open(getpid());
	CHECK(fd >= 0);
	char buf[1024];
	CHECK(procfs_read(fd, "stat", buf, sizeof(buf)) > 0);
	CHECK(procfs_parse_stat(buf, &st) == 0 && st.pid == getpid());
	pid_t *tids;
	CHECK(procfs_tasks(fd, &tids) == 1 && tids[0] == getpid());
	free(tids);
	CHECK(procfs_read(fd, "no-such-file", buf, sizeof(buf)) == -ESRCH);
	close(fd);
	pid_t c = fork();
	if (c == 0)
		_exit(0);
	waitpid(c, NULL, 0);
	CHECK(procfs_open(c) == -ESRCH);

	/* The tree: 10 -> 11 -> 12, 10 -> 13; 20 and 22 are children of the
	 * adopter 1000 (reparented), 22 -> 23; 30 is unrelated. */
	struct proctree_proc all[] = {
		{ .pid = 12, .ppid = 11 }, { .pid = 10, .ppid = 1 }, { .pid = 11, .ppid = 10 },
		{ .pid = 13, .ppid = 10 }, { .pid = 21, .ppid = 1000 }, { .pid = 22, .ppid = 1000 },
		{ .pid = 23, .ppid = 22 }, { .pid = 30, .ppid = 1 }, { .pid = 10, .ppid = 1000 },
	};
	struct proctree tr = PROCTREE_INIT;
	proctree_build(&tr, all, 8, 10, 1000, adopt_even, NULL);
	CHECK(tr.nr == 6);
	CHECK(tr.v[0].pid == 10 && tr.v[0].depth == 0 && !tr.v[0].adopted);
	CHECK(tr.v[1].pid == 12 || tr.v[1].pid == 11);
	CHECK(tr.v[1].pid == 11 && tr.v[2].pid == 12 && tr.v[2].depth == 2);
	CHECK(tr.v[3].pid == 13 && tr.v[3].depth == 1);
	CHECK(tr.v[4].pid == 22 && tr.v[4].adopted && tr.v[5].pid == 23 && tr.v[5].depth == 1);
	proctree_release(&tr);
	proctree_build(&tr, all, 8, 99, 0, NULL, NULL);
	CHECK(tr.nr == 0);
	proctree_release(&tr);
	/* issue 19: jostle (11 here) inside the tree it examines is left out,
	 * with what it started (12) */
	proctree_build(&tr, all, 8, 10, 11, NULL, NULL);
	CHECK(tr.nr == 2 && tr.v[0].pid == 10 && tr.v[1].pid == 13);
	proctree_release(&tr);
	CHECK(proctree_collect(&tr, getpid(), NULL, NULL) == 0 && tr.nr == 1);
	proctree_release(&tr);
	CHECK(proctree_collect(&tr, c, NULL, NULL) == -ESRCH);
	proctree_release(&tr);
	return tap_done();
}
