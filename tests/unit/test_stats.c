/* Interval estimates against independently computed values. */
#include <stdint.h>

#include "stats.h"
#include "tap.h"

int main(void)
{
	double lo, hi;
	/* 37/600 at 95%: Wilson [0.045067, 0.083843] (computed independently in Python). */
	stats_wilson(37, 600, 1.959963984540054, &lo, &hi);
	CHECK_NEAR(lo, 0.045067, 1e-5);
	CHECK_NEAR(hi, 0.083843, 1e-5);
	stats_wilson(0, 10, 1.959963984540054, &lo, &hi);
	CHECK_NEAR(lo, 0.0, 1e-12);
	CHECK_NEAR(hi, 0.277533, 1e-5);
	stats_wilson(10, 10, 1.959963984540054, &lo, &hi);
	CHECK_NEAR(lo, 0.722467, 1e-5);
	CHECK_NEAR(hi, 1.0, 1e-12);
	stats_wilson(1, 1, 1.959963984540054, &lo, &hi);
	CHECK_NEAR(lo, 0.206549, 1e-5);
	stats_wilson(0, 0, 1.96, &lo, &hi);
	CHECK(lo == 0.0 && hi == 1.0);
	/* 0 of 88: < 3.35%; 0 of 300: < 0.994% */
	CHECK_NEAR(stats_cp_upper0(88, 0.05), 0.033469, 1e-5);
	CHECK_NEAR(stats_cp_upper0(300, 0.05), 0.009936, 1e-5);
	CHECK_NEAR(stats_cp_upper0(1, 0.05), 0.95, 1e-12);
	CHECK(stats_cp_upper0(0, 0.05) == 1.0);
	return tap_done();
}
