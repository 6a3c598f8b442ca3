/* Unit tests of the --cpus parser and CPU list helpers. */
#include <errno.h>
#include "pressure/cpuset.h"
#include "tap.h"

static const char *fmt(const struct cpuset *c)
{
	static char buf[256];
	cpuset_format(c, buf, sizeof(buf));
	return buf;
}

int main(void)
{
	struct cpuset c, avail, out;
	char why[256];

	CHECK(cpuset_parse_list("0", &c) == 0 && c.n == 1 && c.cpu[0] == 0);
	CHECK(cpuset_parse_list("0-1", &c) == 0 && c.n == 2);
	CHECK(cpuset_parse_list("0,2-3", &c) == 0 && c.n == 3);
	CHECK_STR(fmt(&c), "0,2-3");
	CHECK(cpuset_parse_list("3,1,2,1", &c) == 0 && c.n == 3);
	CHECK_STR(fmt(&c), "1-3");
	CHECK(cpuset_parse_list("0-7\n", &c) == 0 && c.n == 8);
	CHECK_STR(fmt(&c), "0-7");
	CHECK(cpuset_parse_list("", &c) == -EINVAL);
	CHECK(cpuset_parse_list("1-", &c) == -EINVAL);
	CHECK(cpuset_parse_list("3-1", &c) == -EINVAL);
	CHECK(cpuset_parse_list("a", &c) == -EINVAL);
	CHECK(cpuset_parse_list("0,,1", &c) == -EINVAL);
	CHECK(cpuset_parse_list("-1", &c) == -EINVAL);
	CHECK(cpuset_parse_list("99999", &c) == -EINVAL);
	CHECK(cpuset_parse_list("0 1", &c) == -EINVAL);

	cpuset_parse_list("0-3", &avail);
	CHECK(cpuset_resolve("2", &avail, &out, why, sizeof(why)) == 0);
	CHECK_STR(fmt(&out), "0-1");
	CHECK(cpuset_resolve("4", &avail, &out, why, sizeof(why)) == 0);
	CHECK_STR(fmt(&out), "0-3");
	CHECK(cpuset_resolve("0", &avail, &out, why, sizeof(why)) == 0);
	CHECK_STR(fmt(&out), "0");
	CHECK(cpuset_resolve("2-3", &avail, &out, why, sizeof(why)) == 0);
	CHECK_STR(fmt(&out), "2-3");
	CHECK(cpuset_resolve("5", &avail, &out, why, sizeof(why)) == -EINVAL);
	CHECK_STR(why, "asks for 5 CPUs but only 4 are available (0-3)");
	CHECK(cpuset_resolve("0-5", &avail, &out, why, sizeof(why)) == -EINVAL);
	CHECK_STR(why, "lists 6 CPUs but only 4 are available (0-3)");
	CHECK(cpuset_resolve("7", &avail, &out, why, sizeof(why)) == -EINVAL);
	CHECK(cpuset_resolve("1,7", &avail, &out, why, sizeof(why)) == -EINVAL);
	CHECK_STR(why, "names CPU 7, which is not available (available: 0-3)");
	CHECK(cpuset_resolve("x", &avail, &out, why, sizeof(why)) == -EINVAL);
	CHECK(cpuset_resolve("-2", &avail, &out, why, sizeof(why)) == -EINVAL);
	CHECK(cpuset_resolve("", &avail, &out, why, sizeof(why)) == -EINVAL);

	cpuset_parse_list("1,3", &avail);
	CHECK(cpuset_resolve("1", &avail, &out, why, sizeof(why)) == 0);
	CHECK_STR(fmt(&out), "1");
	cpuset_first(&avail, 2, &out);
	CHECK(cpuset_equal(&out, &avail));
	{
		cpu_set_t m;
		cpuset_to_mask(&avail, &m);
		CHECK(CPU_COUNT(&m) == 2 && CPU_ISSET(3, &m) && !CPU_ISSET(0, &m));
	}
	CHECK(cpuset_available(&c) == 0 && c.n >= 1);
	return tap_done();
}
