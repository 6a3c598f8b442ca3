/* ISO 8601 parsing for log times and --since. */
#include <string.h>

#include "signature/timestamp.h"
#include "tap.h"

static int64_t parse(const char *s, bool need_time, size_t *used)
{
	int64_t t = -1;
	*used = timestamp_parse(s, strlen(s), need_time, &t);
	return t;
}

int main(void)
{
	size_t n;
	char buf[32];
	CHECK(parse("1970-01-01", false, &n) == 0 && n == 10);
	CHECK(parse("2026-07-15T16:55:01Z", false, &n) == 1784134501 && n == 20);
	CHECK(parse("2026-07-15T16:55:01.1234567Z rest", false, &n) == 1784134501 && n == 28);
	CHECK(parse("2026-07-15 16:55:01,123", false, &n) == 1784134501 && n == 23);
	CHECK(parse("2026-07-15T18:55:01+02:00", false, &n) == 1784134501 && n == 25);
	CHECK(parse("2026-07-15T11:55:01-0500", false, &n) == 1784134501 && n == 24);
	CHECK(parse("2026-07-15T16:55", false, &n) == 1784134500 && n == 16);
	CHECK(parse("2024-02-29", false, &n) == 1709164800 && n == 10);
	parse("2026-02-30", false, &n);
	CHECK(n == 0);
	parse("2026-13-01", false, &n);
	CHECK(n == 0);
	parse("2026-07-15", true, &n);
	CHECK(n == 0);
	parse("20260715", false, &n);
	CHECK(n == 0);
	parse("2026-07-155", false, &n);
	CHECK(n == 0);
	parse("2026-07-15T25:00", false, &n);
	CHECK(n == 0);

	int64_t t;
	const char *hdr = "Run 12345 id 2026-07 build-2026-07-15\nstarted at 2026-07-16 01:02:03 UTC\n";
	CHECK(timestamp_find(hdr, strlen(hdr), &t) && t == 1784163723);
	CHECK(!timestamp_find("no time here 12-34-56", 21, &t));
	CHECK(timestamp_ci_prefix("2026-07-15T16:55:01.1234567Z hello", 34) == 29);
	CHECK(timestamp_ci_prefix("2026-07-15 16:55:01 hello", 25) == 0);
	CHECK(timestamp_ci_prefix("hello", 5) == 0);

	timestamp_day_str(timestamp_day(1784134501), buf);
	CHECK_STR(buf, "2026-07-15");
	timestamp_day_str(timestamp_day(-1), buf);
	CHECK_STR(buf, "1969-12-31");
	timestamp_iso(1784134501, buf, sizeof(buf));
	CHECK_STR(buf, "2026-07-15T16:55:01Z");
	return tap_done();
}
