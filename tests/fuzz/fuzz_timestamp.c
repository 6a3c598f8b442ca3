/*
 * fuzz_timestamp.c: ISO 8601 timestamps as CI logs print them
 * (timestamp.c): parsing at a position, finding one anywhere, GitHub's line
 * prefix, and the day/ISO renderings of whatever was parsed (which must
 * parse back to the same time).
 */
#include "fuzz.h"

#include "signature/timestamp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	int64_t t = 0;
	for (int need = 0; need < 2; need++) {
		size_t n = timestamp_parse(s, size, need, &t);
		if (n > size)
			abort();
		if (n) {
			char iso[32], day[16];
			timestamp_iso(t, iso, sizeof(iso));
			timestamp_day_str(timestamp_day(t), day);
			int64_t back = 0;
			if (timestamp_parse(iso, strlen(iso), true, &back) != strlen(iso) || back != t)
				abort();   /* the rendering does not read back */
		}
	}
	if (timestamp_find(s, size, &t)) {
		char iso[32];
		timestamp_iso(t, iso, sizeof(iso));
	}
	if (timestamp_ci_prefix(s, size) > size)
		abort();
	return 0;
}
