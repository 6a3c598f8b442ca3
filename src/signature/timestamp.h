/*
 * timestamp.h: ISO 8601 timestamps as they appear in CI logs, parsed
 * without the C library's time zone machinery (pure functions, unit-tested).
 *
 * Accepted: YYYY-MM-DD, optionally followed by T or one space and
 * HH:MM[:SS[.fraction]], optionally followed by Z or +HH:MM / +HHMM / -HH:MM.
 * A value without an offset is taken as UTC. GitHub Actions prefixes every
 * line with "2026-07-15T16:55:01.1234567Z ", which is this shape.
 */
#ifndef JOSTLE_TIMESTAMP_H
#define JOSTLE_TIMESTAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Parse a timestamp at s (n bytes, not NUL-terminated). need_time: a bare
 * date is not enough. Returns the number of bytes consumed (0 when s does not
 * start with a timestamp) and stores seconds since the epoch (UTC) in *out.
 */
size_t timestamp_parse(const char *s, size_t n, bool need_time, int64_t *out);

/* The first date-time (with a time of day) anywhere in s; true when found. */
bool timestamp_find(const char *s, size_t n, int64_t *out);

/* Length of a GitHub Actions line prefix at s ("...Z " with a time), or 0. */
size_t timestamp_ci_prefix(const char *s, size_t n);

/* Days since 1970-01-01 of a time (floor), and back to "YYYY-MM-DD". */
int64_t timestamp_day(int64_t t);
void timestamp_day_str(int64_t day, char buf[16]);
/* "YYYY-MM-DDTHH:MM:SSZ" into buf (>= 24 bytes). */
void timestamp_iso(int64_t t, char *buf, size_t len);

#endif
