/* churn.c: the stat each look reads is the sample the diagnosis uses too. */
#include <stdlib.h>
#include <unistd.h>

#include "diagnose/churn.h"
#include "tap.h"

int main(void)
{
	struct churn c = CHURN_INIT;
	pid_t me = getpid();

	CHECK(churn_sample(&c, me, 0) == NULL);   /* no look yet */
	CHECK(churn_look(&c, me, NULL, NULL) >= 1);
	CHECK(c.nr >= 1 && c.v[0].pid == me);
	uint64_t start = c.v[0].starttime;
	const struct procfs_stat *st = churn_sample(&c, me, start);
	CHECK(st != NULL);
	CHECK(st && st->pid == me && st->starttime == start && st->minflt > 0 && st->rss_pages > 0);
	CHECK(churn_sample(&c, me, start + 1) == NULL);   /* another process with my pid */
	/* the next look's sample replaces it: faults only grow */
	uint64_t faults = st ? st->minflt : 0;
	volatile char *touch = malloc(1 << 22);
	for (size_t i = 0; touch && i < (1 << 22); i += 4096)
		touch[i] = 1;
	CHECK(churn_look(&c, me, NULL, NULL) >= 1);
	st = churn_sample(&c, me, start);
	CHECK(st && st->minflt > faults);
	free((void *)touch);
	churn_release(&c);
	return tap_done();
}
