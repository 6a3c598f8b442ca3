/* Unit tests of each run's share of the machine's time (src/run/share.h). */
#include "run/share.h"
#include "tap.h"

#define MS 1000000LL

int main(void)
{
	struct share_clock c = { 0 };

	/* alone: its whole wall time */
	double a = share_enter(&c, 0);
	CHECK_NEAR(share_leave(&c, 100 * MS, a), 0.1, 1e-12);
	CHECK(c.n == 0);

	/* idle time goes to nobody */
	a = share_enter(&c, 500 * MS);
	CHECK_NEAR(share_leave(&c, 600 * MS, a), 0.1, 1e-12);

	/*
	 * A plain run of 4 ms that starts while a crowd of sixteen drains:
	 * 16 runs from t = 1 s to 1.030 s, the plain run from 1.002 s; its
	 * wall time is 28 ms (it ends with the crowd), its share 28 / 17 ms.
	 */
	double crowd[16];
	for (int i = 0; i < 16; i++)
		crowd[i] = share_enter(&c, 1000 * MS);
	double plain = share_enter(&c, 1002 * MS);
	double sum = 0;
	for (int i = 0; i < 16; i++)
		sum += share_leave(&c, 1030 * MS, crowd[i]);
	double ps = share_leave(&c, 1030 * MS, plain);
	CHECK_NEAR(ps, 0.028 / 17, 1e-12);
	/* the shares add up to the time anything ran */
	CHECK_NEAR(sum + ps, 0.030, 1e-12);

	/* staggered: the time two overlap is halved between them */
	a = share_enter(&c, 2000 * MS);
	double b = share_enter(&c, 2010 * MS);
	double sa = share_leave(&c, 2020 * MS, a), sb = share_leave(&c, 2040 * MS, b);
	CHECK_NEAR(sa, 0.010 + 0.005, 1e-12);
	CHECK_NEAR(sb, 0.005 + 0.020, 1e-12);
	CHECK_NEAR(sa + sb, 0.040, 1e-12);

	/* a clock that reads earlier than the last event (two clocks read
	 * in a different order) charges nothing negative */
	a = share_enter(&c, 3000 * MS);
	CHECK(share_leave(&c, 2999 * MS, a) == 0);
	CHECK(c.n == 0);
	return tap_done();
}
