/*
 * stats.h: the statistics behind every rate jostle prints. Pure functions,
 * no I/O; tested against known values in tests/unit/test_stats.c.
 */
#ifndef JOSTLE_STATS_H
#define JOSTLE_STATS_H

#include <stdint.h>

/* Wilson score interval for k successes in n trials (z = 1.96 for 95%).
 * n == 0 gives [0, 1]. */
void stats_wilson(uint64_t k, uint64_t n, double z, double *lo, double *hi);

/* One-sided exact (Clopper-Pearson) upper bound on the rate when 0 of n
 * trials failed: 1 - alpha^(1/n). n == 0 gives 1. */
double stats_cp_upper0(uint64_t n, double alpha);

#endif
