/*
 * spawn_loop: the floor jostle's harness overhead is measured against: a
 * minimal posix_spawn + waitpid loop, N runs of a command, one at a time.
 * Prints "runs seconds runs_per_s".
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: spawn_loop N COMMAND [ARG...]\n");
		return 2;
	}
	long n = strtol(argv[1], NULL, 10);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		pid_t pid;
		if (posix_spawn(&pid, argv[2], NULL, NULL, argv + 2, environ) != 0)
			return 1;
		int st;
		waitpid(pid, &st, 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("%ld %.3f %.1f\n", n, s, (double)n / s);
	return 0;
}
