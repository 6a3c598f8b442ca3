/*
 * jsonw.c: JSON output with escaping and UTF-8 repair (see jsonw.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jsonw.h"
#include "banned.h"

/* Length of a valid UTF-8 sequence at s (max n bytes), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
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
	return len;
}

void jsonw_string(struct dbuf *b, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	dbuf_addc(b, '"');
	size_t i = 0;
	while (i < n) {
		unsigned c = s[i];
		if (c == '"' || c == '\\') {
			dbuf_addc(b, '\\');
			dbuf_addc(b, (char)c);
			i++;
		} else if (c == '\n') {
			dbuf_adds(b, "\\n");
			i++;
		} else if (c == '\t') {
			dbuf_adds(b, "\\t");
			i++;
		} else if (c == '\r') {
			dbuf_adds(b, "\\r");
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			dbuf_addf(b, "\\u%04x", c);
			i++;
		} else {
			size_t len = utf8_len(s + i, n - i);
			if (len == 0) {
				dbuf_adds(b, "\xef\xbf\xbd");
				i++;
			} else {
				dbuf_add(b, s + i, len);
				i += len;
			}
		}
	}
	dbuf_addc(b, '"');
}

void jsonw_key(struct dbuf *b, const char *key)
{
	jsonw_string(b, key, strlen(key));
	dbuf_addc(b, ':');
}

void jsonw_kstr(struct dbuf *b, const char *key, const char *s)
{
	jsonw_key(b, key);
	if (s)
		jsonw_string(b, s, strlen(s));
	else
		dbuf_adds(b, "null");
}

void jsonw_kint(struct dbuf *b, const char *key, int64_t v)
{
	jsonw_key(b, key);
	dbuf_addf(b, "%" PRId64, v);
}

void jsonw_kuint(struct dbuf *b, const char *key, uint64_t v)
{
	jsonw_key(b, key);
	dbuf_addf(b, "%" PRIu64, v);
}

void jsonw_kdbl(struct dbuf *b, const char *key, double v)
{
	jsonw_key(b, key);
	if (isfinite(v))
		dbuf_addf(b, "%.6g", v);
	else
		dbuf_adds(b, "null");
}

void jsonw_kbool(struct dbuf *b, const char *key, bool v)
{
	jsonw_key(b, key);
	dbuf_adds(b, v ? "true" : "false");
}
