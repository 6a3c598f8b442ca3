/*
 * clock.c: clock readings and timestamp formatting (see clock.h).
 */
#include <stdio.h>
#include <time.h>

#include "util/clock.h"
#include "util/banned.h"

static int64_t read_clock(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

int64_t clock_mono_ns(void)
{
	return read_clock(CLOCK_MONOTONIC);
}

int64_t clock_real_ns(void)
{
	return read_clock(CLOCK_REALTIME);
}

void clock_iso8601(int64_t real_ns, char *buf, size_t len)
{
	time_t t = (time_t)(real_ns / NS_PER_S);
	struct tm tm;
	gmtime_r(&t, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (int)((real_ns % NS_PER_S) / NS_PER_MS));
}

void clock_stamp(int64_t real_ns, char *buf, size_t len)
{
	time_t t = (time_t)(real_ns / NS_PER_S);
	struct tm tm;
	gmtime_r(&t, &tm);
	snprintf(buf, len, "%04d%02d%02dT%02d%02d%02dZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec);
}
