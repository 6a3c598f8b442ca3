/*
 * clock.h: time in nanoseconds. Monotonic for deadlines and durations,
 * realtime only for what a person reads (timestamps in records).
 */
#ifndef JOSTLE_CLOCK_H
#define JOSTLE_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#define NS_PER_MS 1000000LL
#define NS_PER_S  1000000000LL

int64_t clock_mono_ns(void);
int64_t clock_real_ns(void);
/* ISO 8601 UTC with milliseconds, "2026-11-29T23:58:47.123Z", into buf (>= 32 bytes). */
void clock_iso8601(int64_t real_ns, char *buf, size_t len);
/* Compact UTC stamp for directory names, "20261129T235847Z". */
void clock_stamp(int64_t real_ns, char *buf, size_t len);

#endif
