/* Unit tests of the descriptor count of a series (fdlimit.h). */
#include "run/fdlimit.h"
#include "tap.h"

int main(void)
{
	CHECK(fdlimit_need(64) == 64 + FDLIMIT_MARGIN);
	CHECK(fdlimit_jobs_within(64, 1024) == 64);
	CHECK(fdlimit_jobs_within(64, 64 + FDLIMIT_MARGIN) == 64);
	CHECK(fdlimit_jobs_within(64, 100) == 100 - FDLIMIT_MARGIN);
	CHECK(fdlimit_jobs_within(64, FDLIMIT_MARGIN) == 1);    /* never 0 */
	CHECK(fdlimit_jobs_within(64, 3) == 1);
	CHECK(fdlimit_jobs_within(1, 3) == 1);
	return tap_done();
}
