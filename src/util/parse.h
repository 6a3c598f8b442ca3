/*
 * parse.h: parsing of option values. Pure functions returning 0 or -EINVAL,
 * so the CLI layer can print one line naming the option.
 */
#ifndef JOSTLE_PARSE_H
#define JOSTLE_PARSE_H

#include <stdint.h>

/* "90s", "10m", "1h", "250ms", "1.5s", "2d"; a bare number is seconds. */
int parse_duration_ns(const char *s, int64_t *out);
/* Decimal unsigned integer in [min, max], nothing trailing. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* "64K", "256KiB", "1M", "2G", or bytes. */
int parse_size(const char *s, uint64_t *out);
/* A seed: decimal or 0x hex. */
int parse_seed(const char *s, uint64_t *out);

#endif
