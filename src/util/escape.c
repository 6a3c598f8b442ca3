/*
 * escape.c: repair and quote untrusted text for reports (see escape.h).
 *
 * One decoder walks the bytes: a valid UTF-8 sequence (utf8_seq() with
 * UTF8_STRICT: no overlongs, no surrogates, nothing past U+10FFFF, no C1
 * controls, and not U+FFFE/U+FFFF which XML forbids) is passed to the
 * target's quoting; anything else becomes U+FFFD.
 */
#include <stdbool.h>
#include <string.h>

#include "util/escape.h"
#include "util/utf8.h"
#include "util/banned.h"

#define REPLACEMENT "\xef\xbf\xbd"

enum target { T_TEXT, T_HTML, T_MD_CODE, T_MD_CELL };

static void emit(struct dbuf *b, const char *str, size_t n, enum target t)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < n) {
		unsigned c = s[i];
		size_t run = i;
		/* copy plain ASCII in one go */
		while (run < n && s[run] >= 0x20 && s[run] < 0x7f &&
		       !(t == T_HTML && (s[run] == '&' || s[run] == '<' || s[run] == '>' ||
					  s[run] == '"' || s[run] == '\'')) &&
		       !(t == T_MD_CELL && s[run] == '|'))
			run++;
		if (run > i) {
			dbuf_add(b, s + i, run - i);
			i = run;
			continue;
		}
		c = s[i];
		if (c == '\n' || c == '\t') {
			if (t == T_MD_CODE || t == T_MD_CELL)
				dbuf_addc(b, ' ');
			else
				dbuf_addc(b, (char)c);
			i++;
		} else if (c == '\r') {
			if (t == T_MD_CODE || t == T_MD_CELL)
				dbuf_addc(b, ' ');
			i++;   /* CRLF output reads as LF */
		} else if (c < 0x20 || c == 0x7f) {
			dbuf_adds(b, REPLACEMENT);
			i++;
		} else if (t == T_HTML && c < 0x80) {
			dbuf_adds(b, c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" :
				     c == '"' ? "&quot;" : "&#39;");
			i++;
		} else if (t == T_MD_CELL && c == '|') {
			dbuf_adds(b, "\\|");
			i++;
		} else {
			size_t len = utf8_seq(s + i, n - i, UTF8_STRICT);
			if (len == 0) {
				dbuf_adds(b, REPLACEMENT);
				i++;
			} else {
				dbuf_add(b, s + i, len);
				i += len;
			}
		}
	}
}

void escape_text(struct dbuf *b, const char *s, size_t len)
{
	emit(b, s, len, T_TEXT);
}

void escape_html(struct dbuf *b, const char *s, size_t len)
{
	emit(b, s, len, T_HTML);
}

static size_t longest_backticks(const char *s, size_t len)
{
	size_t best = 0, cur = 0;
	for (size_t i = 0; i < len; i++) {
		cur = s[i] == '`' ? cur + 1 : 0;
		if (cur > best)
			best = cur;
	}
	return best;
}

size_t escape_md_fence(const char *s, size_t len)
{
	size_t n = longest_backticks(s, len) + 1;
	return n < 3 ? 3 : n;
}

void escape_md_code(struct dbuf *b, const char *s, size_t len, bool in_table)
{
	if (len == 0)
		return;
	size_t fence = longest_backticks(s, len) + 1;
	bool pad = s[0] == '`' || s[len - 1] == '`' || s[0] == ' ' || s[len - 1] == ' ';
	for (size_t i = 0; i < fence; i++)
		dbuf_addc(b, '`');
	if (pad)
		dbuf_addc(b, ' ');
	emit(b, s, len, in_table ? T_MD_CELL : T_MD_CODE);
	if (pad)
		dbuf_addc(b, ' ');
	for (size_t i = 0; i < fence; i++)
		dbuf_addc(b, '`');
}

static bool shell_plain(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+,-",
			    *s))
			return false;
	return true;
}

void escape_shell(struct dbuf *b, const char *s)
{
	if (shell_plain(s)) {
		dbuf_adds(b, s);
		return;
	}
	dbuf_addc(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			dbuf_adds(b, "'\\''");
		else
			dbuf_addc(b, *s);
	}
	dbuf_addc(b, '\'');
}
