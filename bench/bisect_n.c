/*
 * bisect_n.c: the runs per step of a fixed-n binary search, for
 * bench/bisect.sh: n = stats_runs_for_confidence(RATE, ALPHA), the
 * sample-size function jostle's reports use (0 failures in n runs bound the
 * rate below RATE at 1 - ALPHA). Built by the bench against src/results/stats.c.
 *
 *   bisect_n RATE ALPHA
 */
#include <stdio.h>
#include <stdlib.h>

#include "results/stats.h"

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	printf("%llu\n", (unsigned long long)stats_runs_for_confidence(atof(argv[1]), atof(argv[2])));
	return 0;
}
