/*
 * parse.c: option value parsers (see parse.h).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/parse.h"
#include "util/banned.h"

int parse_duration_ns(const char *s, int64_t *out)
{
	char *end;
	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	double mult;
	if (!*end || !strcmp(end, "s"))
		mult = 1e9;
	else if (!strcmp(end, "ms"))
		mult = 1e6;
	else if (!strcmp(end, "us"))
		mult = 1e3;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		mult = 60e9;
	else if (!strcmp(end, "h"))
		mult = 3600e9;
	else if (!strcmp(end, "d"))
		mult = 86400e9;
	else
		return -EINVAL;
	double ns = v * mult;
	if (ns > 9.0e18)
		return -EINVAL;
	*out = (int64_t)ns;
	return 0;
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	char *end;
	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || !isfinite(v) || v < 0)
		return -EINVAL;
	double mult = 1;
	if (*end) {
		switch (toupper((unsigned char)*end)) {
		case 'K': mult = 1024.0; break;
		case 'M': mult = 1024.0 * 1024; break;
		case 'G': mult = 1024.0 * 1024 * 1024; break;
		case 'B': mult = 1; break;
		default: return -EINVAL;
		}
		const char *rest = end + 1;
		if (toupper((unsigned char)*end) != 'B' &&
		    *rest && strcmp(rest, "B") && strcmp(rest, "iB") && strcmp(rest, "b"))
			return -EINVAL;
		if (toupper((unsigned char)*end) == 'B' && *rest)
			return -EINVAL;
	}
	double b = v * mult;
	if (b > 1.8e19)
		return -EINVAL;
	*out = (uint64_t)b;
	return 0;
}

int parse_seed(const char *s, uint64_t *out)
{
	char *end;
	if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}
