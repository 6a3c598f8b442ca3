/*
 * utf8.c: UTF-8 validation (see utf8.h). Decodes the code point so that
 * overlongs and out-of-range values are caught by value, not by a table
 * of byte ranges.
 */
#include <stdint.h>

#include "util/utf8.h"
#include "util/banned.h"

size_t utf8_seq(const unsigned char *s, size_t n, unsigned flags)
{
	unsigned c = s[0];
	size_t len;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	if ((flags & UTF8_STRICT) && (cp == 0xfffe || cp == 0xffff || (cp >= 0x80 && cp < 0xa0)))
		return 0;
	return len;
}
