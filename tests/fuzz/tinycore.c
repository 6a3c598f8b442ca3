/* tinycore.c: a two-thread program that aborts after asking for the smallest
 * core (coredump_filter 0: notes and headers, no memory); seed.sh keeps it
 * as the core reader's seed. Not part of any build. */
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <unistd.h>
static void *idle(void *a) { (void)a; pause(); return NULL; }
int main(void)
{
	FILE *f = fopen("/proc/self/coredump_filter", "w");
	if (f) { fputs("0", f); fclose(f); }
	pthread_t t;
	pthread_create(&t, NULL, idle, NULL);
	usleep(10000);
	abort();
}
