/*
 * utf8.h: UTF-8 validation, the one decoder behind jsonw (JSON strings)
 * and escape (report text).
 *
 * utf8_seq() looks at the sequence starting at s (at most n bytes, n >= 1)
 * and returns its length, 1 to 4, when it is well-formed UTF-8: no overlong
 * forms, no surrogates (U+D800..U+DFFF), nothing past U+10FFFF, and not
 * truncated by n. It returns 0 otherwise; the caller then replaces one
 * byte and moves on. ASCII bytes, control characters included, are
 * always length 1: quoting them is the caller's business.
 *
 * UTF8_STRICT also rejects code points that are well-formed but unwanted
 * in reports: the C1 controls U+0080..U+009F (terminals act on them) and
 * U+FFFE/U+FFFF (not characters; XML 1.0 forbids them).
 */
#ifndef JOSTLE_UTF8_H
#define JOSTLE_UTF8_H

#include <stddef.h>

enum { UTF8_STRICT = 1u << 0 };

size_t utf8_seq(const unsigned char *s, size_t n, unsigned flags);

#endif
