/*
 * bisect_sim.c: whole searches of jostle bisect's posterior (the choice of
 * the next commit and the stopping rule of src/bisect/posterior.c) on
 * simulated commits, without git, builds or runs: how often the stated
 * confidence is right and how many runs it takes, over many trials.
 *
 *   cc -O2 -D_GNU_SOURCE -iquote src -o /tmp/bisect_sim bench/bisect_sim.c \
 *      src/bisect/posterior.c src/util/xalloc.c -lm
 *   /tmp/bisect_sim COMMITS BACKGROUND BAD_RATE BATCH CONFIDENCE TRIALS
 *   /tmp/bisect_sim 64 0 0.02 20 0.95 600
 *
 * The culprit is drawn uniformly from 1..COMMITS; the bad revision is run
 * first until it fails, as bisect.c does. Prints right/trials, the median
 * and mean runs, and where the runs went (the bad revision, the commit
 * before the culprit, the culprit, before, after).
 */
#include <stdio.h>
#include <stdlib.h>

#include "bisect/posterior.h"
#include "util/rng.h"

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc != 7) {
		fprintf(stderr, "usage: bisect_sim COMMITS BACKGROUND BAD_RATE BATCH CONFIDENCE TRIALS\n");
		return 2;
	}
	size_t n = (size_t)atoi(argv[1]);
	double b = atof(argv[2]), r = atof(argv[3]), conf = atof(argv[5]), where[5] = { 0 };
	unsigned m = (unsigned)atoi(argv[4]);
	int trials = atoi(argv[6]), right = 0;
	uint64_t rng = 12345, *runs = calloc((size_t)trials, sizeof(*runs)), sum = 0;

	for (int t = 0; t < trials; t++) {
		size_t k = 1 + (size_t)rng_below(&rng, n);
		size_t best = posterior_simulate(n, k, b, r, m, conf, 1000000, &rng, &runs[t], where);
		right += best == k;
		sum += runs[t];
	}
	qsort(runs, (size_t)trials, sizeof(*runs), cmp);
	printf("commits %zu, rates %g -> %g, batch %u, confidence %g: right %d/%d, runs median %llu mean %.0f "
	       "(bad %.0f, culprit-1 %.0f, culprit %.0f, before %.0f, after %.0f)\n", n, b, r, m, conf, right,
	       trials, (unsigned long long)runs[trials / 2], (double)sum / trials, where[0] / trials,
	       where[1] / trials, where[2] / trials, where[3] / trials, where[4] / trials);
	free(runs);
	return 0;
}
