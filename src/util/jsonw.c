/*
 * jsonw.c: JSON output with escaping and UTF-8 repair (see jsonw.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/jsonw.h"
#include "util/utf8.h"
#include "util/banned.h"

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
			size_t len = utf8_seq(s + i, n - i, 0);
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
	/* A member after a value gets its comma here, so writers need not
	 * write one between members (an explicit one is still fine). */
	if (b->len && !strchr("{[,:", b->buf[b->len - 1]))
		dbuf_addc(b, ',');
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

void jsonw_kstrs(struct dbuf *b, const char *key, char *const *v, size_t n)
{
	jsonw_key(b, key);
	dbuf_addc(b, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			dbuf_addc(b, ',');
		jsonw_string(b, v[i], strlen(v[i]));
	}
	dbuf_addc(b, ']');
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
