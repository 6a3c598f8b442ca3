/* Option value parsing: durations, integers, sizes, seeds. */
#include <stdint.h>

#include "util/parse.h"
#include "tap.h"

int main(void)
{
	int64_t ns;
	uint64_t u;
	CHECK(parse_duration_ns("90s", &ns) == 0 && ns == 90LL * 1000000000);
	CHECK(parse_duration_ns("10m", &ns) == 0 && ns == 600LL * 1000000000);
	CHECK(parse_duration_ns("1h", &ns) == 0 && ns == 3600LL * 1000000000);
	CHECK(parse_duration_ns("250ms", &ns) == 0 && ns == 250000000);
	CHECK(parse_duration_ns("1.5s", &ns) == 0 && ns == 1500000000);
	CHECK(parse_duration_ns("2", &ns) == 0 && ns == 2000000000);
	CHECK(parse_duration_ns("5x", &ns) < 0);
	CHECK(parse_duration_ns("", &ns) < 0);
	CHECK(parse_duration_ns("-1s", &ns) < 0);
	CHECK(parse_duration_ns("s", &ns) < 0);
	CHECK(parse_duration_ns("1e30h", &ns) < 0);
	CHECK(parse_u64("20000", 1, UINT64_MAX, &u) == 0 && u == 20000);
	CHECK(parse_u64("0", 1, 100, &u) < 0);
	CHECK(parse_u64("abc", 0, 100, &u) < 0);
	CHECK(parse_u64("12abc", 0, 100, &u) < 0);
	CHECK(parse_u64("-3", 0, 100, &u) < 0);
	CHECK(parse_u64("101", 0, 100, &u) < 0);
	CHECK(parse_size("64K", &u) == 0 && u == 65536);
	CHECK(parse_size("256KiB", &u) == 0 && u == 262144);
	CHECK(parse_size("1M", &u) == 0 && u == 1048576);
	CHECK(parse_size("2G", &u) == 0 && u == 2147483648ULL);
	CHECK(parse_size("100", &u) == 0 && u == 100);
	CHECK(parse_size("10Q", &u) < 0);
	CHECK(parse_size("K", &u) < 0);
	CHECK(parse_seed("0x10", &u) == 0 && u == 16);
	CHECK(parse_seed("42", &u) == 0 && u == 42);
	CHECK(parse_seed("4x", &u) < 0);
	return tap_done();
}
