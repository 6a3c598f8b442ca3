/*
 * stats.c: interval estimates for failure rates (see stats.h).
 */
#include <math.h>

#include "stats.h"
#include "banned.h"

void stats_wilson(uint64_t k, uint64_t n, double z, double *lo, double *hi)
{
	if (n == 0) {
		*lo = 0.0;
		*hi = 1.0;
		return;
	}
	double nn = (double)n, p = (double)k / nn, z2 = z * z;
	double denom = 1.0 + z2 / nn;
	double centre = (p + z2 / (2.0 * nn)) / denom;
	double half = z * sqrt(p * (1.0 - p) / nn + z2 / (4.0 * nn * nn)) / denom;
	*lo = k == 0 ? 0.0 : fmax(0.0, centre - half);
	*hi = k == n ? 1.0 : fmin(1.0, centre + half);
}

double stats_cp_upper0(uint64_t n, double alpha)
{
	if (n == 0)
		return 1.0;
	return 1.0 - pow(alpha, 1.0 / (double)n);
}
