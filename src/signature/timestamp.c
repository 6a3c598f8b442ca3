/*
 * timestamp.c: ISO 8601 parsing and formatting for log times (see
 * timestamp.h). Civil-date arithmetic is Howard Hinnant's days_from_civil,
 * so the result never depends on TZ or the locale.
 */
#include <stdio.h>
#include <string.h>

#include "signature/timestamp.h"
#include "util/banned.h"

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int *y, unsigned *m, unsigned *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t yy = (int64_t)yoe + era * 400;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int)(yy + (*m <= 2));
}

static bool digits(const char *s, size_t n, size_t at, size_t count, unsigned *out)
{
	unsigned v = 0;
	if (at + count > n)
		return false;
	for (size_t i = at; i < at + count; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	*out = v;
	return true;
}

static const unsigned char mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

size_t timestamp_parse(const char *s, size_t n, bool need_time, int64_t *out)
{
	unsigned y, mo, d, h = 0, mi = 0, sec = 0;
	size_t i;
	if (!digits(s, n, 0, 4, &y) || n < 10 || s[4] != '-' || !digits(s, n, 5, 2, &mo) ||
	    s[7] != '-' || !digits(s, n, 8, 2, &d))
		return 0;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || (n > 10 && s[10] >= '0' && s[10] <= '9'))
		return 0;
	i = 10;
	bool have_time = false;
	if (i + 6 <= n && (s[i] == 'T' || s[i] == ' ') && digits(s, n, i + 1, 2, &h) &&
	    s[i + 3] == ':' && digits(s, n, i + 4, 2, &mi)) {
		if (h > 23 || mi > 59)
			return 0;
		have_time = true;
		i += 6;
		if (i + 3 <= n && s[i] == ':' && digits(s, n, i + 1, 2, &sec)) {
			if (sec > 60)
				return 0;
			i += 3;
			if (i + 1 < n && (s[i] == '.' || s[i] == ',') && s[i + 1] >= '0' && s[i + 1] <= '9')
				for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
					;
		}
	}
	if (need_time && !have_time)
		return 0;
	int64_t t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
	if (have_time && i < n) {
		unsigned oh, om = 0;
		if (s[i] == 'Z') {
			i++;
		} else if ((s[i] == '+' || s[i] == '-') && digits(s, n, i + 1, 2, &oh)) {
			size_t k = i + 3;
			if (k < n && s[k] == ':' && digits(s, n, k + 1, 2, &om))
				k += 3;
			else if (digits(s, n, k, 2, &om))
				k += 2;
			else
				om = 0;
			if (oh <= 23 && om <= 59) {
				int64_t off = oh * 3600 + om * 60;
				t += s[i] == '+' ? -off : off;
				i = k;
			}
		}
	}
	*out = t;
	return i;
}

bool timestamp_find(const char *s, size_t n, int64_t *out)
{
	const char *p = s, *end = s + n;
	while ((p = memchr(p, '-', (size_t)(end - p))) != NULL) {
		/* p is the '-' after a year: the candidate starts 4 bytes earlier. */
		if (p - s >= 4 && end - p >= 12 && p[3] == '-') {
			const char *c = p - 4;
			bool boundary = c == s || !((c[-1] >= '0' && c[-1] <= '9'));
			if (boundary && timestamp_parse(c, (size_t)(end - c), true, out))
				return true;
		}
		p++;
	}
	return false;
}

size_t timestamp_ci_prefix(const char *s, size_t n)
{
	int64_t t;
	if (n < 21 || s[4] != '-' || s[10] != 'T')
		return 0;
	size_t k = timestamp_parse(s, n, true, &t);
	if (k && k < n && s[k - 1] == 'Z' && s[k] == ' ')
		return k + 1;
	return 0;
}

int64_t timestamp_day(int64_t t)
{
	return t >= 0 ? t / 86400 : -((-t + 86399) / 86400);
}

void timestamp_day_str(int64_t day, char buf[16])
{
	int y;
	unsigned m, d;
	civil_from_days(day, &y, &m, &d);
	snprintf(buf, 16, "%04d-%02u-%02u", y, m, d);
}

void timestamp_iso(int64_t t, char *buf, size_t len)
{
	int64_t day = timestamp_day(t), rem = t - day * 86400;
	int y;
	unsigned m, d;
	civil_from_days(day, &y, &m, &d);
	snprintf(buf, len, "%04d-%02u-%02uT%02d:%02d:%02dZ", y, m, d, (int)(rem / 3600),
		 (int)(rem / 60 % 60), (int)(rem % 60));
}
