/*
 * escape.h: program output made safe for each place a report puts it.
 *
 * Everything a tested program printed is untrusted: it may hold invalid
 * UTF-8, NUL and other control bytes, terminal escape sequences, markup
 * ("</script>", "<img onerror=...>") or megabyte-long lines. Every function
 * here first repairs the text (invalid UTF-8 bytes and control characters
 * other than newline and tab become U+FFFD, which is also valid in XML 1.0)
 * and then applies the quoting of its target. All append to a dbuf and take
 * an explicit length, so NUL bytes inside the text are handled too.
 */
#ifndef JOSTLE_ESCAPE_H
#define JOSTLE_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/dbuf.h"

/* Repaired text, no quoting (terminal, Markdown code blocks). */
void escape_text(struct dbuf *b, const char *s, size_t len);
/* HTML/XML text and attribute values: & < > " ' as entities. */
void escape_html(struct dbuf *b, const char *s, size_t len);
/* One Markdown inline code span: newlines become spaces, the backtick
 * fence is longer than any run of backticks inside; in_table also turns
 * '|' into "\|" as a GFM table cell needs. An empty string gives nothing. */
void escape_md_code(struct dbuf *b, const char *s, size_t len, bool in_table);
/* The fence for a Markdown code block around s: at least three backticks,
 * more than the longest run of backticks in s. Returns its length. */
size_t escape_md_fence(const char *s, size_t len);
/* One word for a POSIX shell: as is when it is made of safe characters,
 * else in single quotes ('\'' for a quote). Not repaired: a command line
 * or a path is quoted byte for byte, as the shell must see it. */
void escape_shell(struct dbuf *b, const char *s);

#endif
