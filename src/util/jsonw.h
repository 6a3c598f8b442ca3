/*
 * jsonw.h: a minimal JSON writer that appends to a dbuf. Writing is on the
 * hot path of every run (one record each), so it is done by hand; reading
 * records back uses cJSON.
 *
 * The caller opens and closes objects and arrays ("{", "}"); a key written
 * after a value gets its separating comma, so members need no punctuation
 * in between. Helpers emit `"key":value`. Strings are escaped as JSON requires and any
 * invalid UTF-8 byte is replaced by U+FFFD, so program output can be stored
 * safely.
 */
#ifndef JOSTLE_JSONW_H
#define JOSTLE_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/dbuf.h"

void jsonw_string(struct dbuf *b, const char *s, size_t len);
void jsonw_kstr(struct dbuf *b, const char *key, const char *s); /* NULL -> null */
void jsonw_kint(struct dbuf *b, const char *key, int64_t v);
void jsonw_kuint(struct dbuf *b, const char *key, uint64_t v);
void jsonw_kdbl(struct dbuf *b, const char *key, double v);  /* %.6g; NaN/inf -> null */
void jsonw_kbool(struct dbuf *b, const char *key, bool v);
void jsonw_key(struct dbuf *b, const char *key);             /* `"key":` */
/* `"key":["v[0]",...]`, n strings (a strvec's v and nr, a frame list) */
void jsonw_kstrs(struct dbuf *b, const char *key, char *const *v, size_t n);

#endif
