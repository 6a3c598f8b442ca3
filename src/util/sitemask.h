/*
 * sitemask.h: the site mask of one run of `jostle localize`: which sites of
 * a plan file the preload library delays at. Header-only, so that the
 * library (preload/chaos.c), the engine's pressure layer (which draws and
 * records a run's mask) and the analysis (which reads it back from
 * runs.jsonl) agree on one spelling.
 *
 * A mask is a string of hex digits, most significant bit first within each
 * digit: bit B is bit (3 - B % 4) of digit B / 4, so "8" is site 0 alone,
 * "1" site 3 alone and "01" site 7. Digits past the string's end are 0: ""
 * is the empty mask. A plan has at most SITEMASK_MAX bits.
 */
#ifndef JOSTLE_SITEMASK_H
#define JOSTLE_SITEMASK_H

#include <stdbool.h>
#include <stddef.h>

#define SITEMASK_MAX 1024
#define SITEMASK_HEX (SITEMASK_MAX / 4 + 1)   /* a buffer for the longest mask */

static inline int sitemask_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Is bit B set in HEX (NUL-terminated)? Not a hex digit reads as 0. */
static inline bool sitemask_get(const char *hex, size_t bit)
{
	size_t i;
	int d;

	for (i = 0; i < bit / 4; i++)
		if (!hex[i])
			return false;
	d = sitemask_digit(hex[bit / 4]);
	return d > 0 && (d >> (3 - bit % 4)) & 1;
}

/* Write the mask of bits[0..n) (n <= SITEMASK_MAX) into hex
 * (SITEMASK_HEX bytes): ceil(n / 4) digits, lower case. */
static inline void sitemask_format(const bool *bits, size_t n, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	size_t nd = (n + 3) / 4;

	for (size_t i = 0; i < nd; i++) {
		int d = 0;
		for (size_t b = 0; b < 4; b++)
			if (i * 4 + b < n && bits[i * 4 + b])
				d |= 8 >> b;
		hex[i] = digits[d];
	}
	hex[nd] = '\0';
}

#endif
