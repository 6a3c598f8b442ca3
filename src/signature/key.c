/*
 * key.c: key-line normalization and the stable id (see key.h).
 *
 * Normalization is a single hand-written pass: it runs on every failing
 * run's key line and on every line survey keys, and must never depend on
 * the run (addresses, pids, thread ids, temp names, durations, build paths).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "signature/key.h"
#include "util/banned.h"

static int is_word(int c)
{
	return isalnum(c) || c == '_';
}

static int is_hex(int c)
{
	return isxdigit(c);
}

/* Length of a standalone hex word of 8+ digits (build ids, hashes, checksums,
 * raw pointers printed without 0x), or 0. One without a decimal digit
 * (ffffffff, deadbeef) counts when its letters are all of one case: no
 * English word of 8 letters is made of a-f alone, and a mixed-case one is
 * more likely a name than a number. */
static size_t hexword_len(const char *s, size_t n)
{
	size_t i = 0;
	int digit = 0, lower = 0, upper = 0;
	while (i < n && is_hex((unsigned char)s[i])) {
		digit |= isdigit((unsigned char)s[i]);
		lower |= islower((unsigned char)s[i]);
		upper |= isupper((unsigned char)s[i]);
		i++;
	}
	if (i < 8 || (!digit && lower && upper) || (i < n && is_word((unsigned char)s[i])))
		return 0;
	return i;
}

/* Length of a duration unit at s that another number follows ("1m30s":
 * the "m"), or 0. */
static size_t unit_then_number(const char *s, size_t n)
{
	static const char *const units[] = { "ms", "us", "ns", "min", "h", "m", "s", "d", NULL };
	for (const char *const *u = units; *u; u++) {
		size_t k = strlen(*u);
		if (k < n && !strncmp(s, *u, k) && isdigit((unsigned char)s[k]))
			return k;
	}
	return 0;
}

/* Whether the digits at line[i] number a thread, a worker or a core: the
 * word before them ends in one of these names ("worker3", "aicore_7",
 * "Thread-12" is a separate number already), and they end the word. Which
 * one failed varies from run to run; "sm_80" or "x86_64" stay. */
static bool thread_number(const char *line, size_t i, size_t len)
{
	static const char *const names[] = { "thread", "worker", "pool", "executor", "task", "core",
					     "cpu", "rank", "proc", "job", "stream", "queue", "shard",
					     "conn", "client", "loop", "dummy", "tid", "pid", NULL };
	size_t e = i;
	while (e < len && isdigit((unsigned char)line[e]))
		e++;
	if (e < len && is_word((unsigned char)line[e]))
		return false;
	size_t w = i;
	if (w > 0 && (line[w - 1] == '_' || line[w - 1] == '#'))
		w--;
	for (const char *const *nm = names; *nm; nm++) {
		size_t k = strlen(*nm);
		if (w >= k && !strncasecmp(line + w - k, *nm, k))
			return true;
	}
	return false;
}

/* Length of a UUID at s (8-4-4-4-12 hex), or 0. */
static size_t uuid_len(const char *s, size_t n)
{
	static const int groups[] = { 8, 4, 4, 4, 12 };
	size_t i = 0;
	for (int g = 0; g < 5; g++) {
		for (int k = 0; k < groups[g]; k++, i++)
			if (i >= n || !is_hex((unsigned char)s[i]))
				return 0;
		if (g < 4) {
			if (i >= n || s[i] != '-')
				return 0;
			i++;
		}
	}
	return i;
}

/* Length of an ISO 8601 date-time at s (2026-07-15T16:55:01[.123][Z|+00:00]), or 0. */
static size_t timestamp_len(const char *s, size_t n)
{
	static const char shape[] = "dddd-dd-dd?dd:dd:dd";
	size_t i = 0;
	for (; shape[i]; i++) {
		if (i >= n)
			return 0;
		char c = s[i];
		if (shape[i] == 'd' && !isdigit((unsigned char)c))
			return 0;
		if (shape[i] == '?' && c != 'T' && c != ' ')
			return 0;
		if (shape[i] != 'd' && shape[i] != '?' && c != shape[i])
			return 0;
	}
	if (i < n && (s[i] == '.' || s[i] == ','))
		for (i++; i < n && isdigit((unsigned char)s[i]); i++)
			;
	if (i < n && s[i] == 'Z')
		i++;
	else if (i + 5 < n && (s[i] == '+' || s[i] == '-') && isdigit((unsigned char)s[i + 1]) &&
		 isdigit((unsigned char)s[i + 2]))
		i += (s[i + 3] == ':') ? 6 : 5;
	return i;
}

/* Length of a path token at s (starts with '/' or "./", runs to a delimiter). */
static size_t path_len(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && !isspace((unsigned char)s[i]) && !strchr("\"'`,;()[]{}<>", s[i]) &&
	       !(s[i] == ':' && (i + 1 >= n || !isalpha((unsigned char)s[i + 1]))))
		i++;
	return i;
}

void key_normalize(const char *line, size_t len, struct dbuf *out)
{
	size_t start_len = out->len;
	size_t i = 0;
	int last_space = 1;
	/* Skip leading whitespace and a leading timestamp (CI prefixes). */
	while (i < len && isspace((unsigned char)line[i]))
		i++;
	while (i < len && out->len - start_len < KEY_MAX) {
		unsigned char c = (unsigned char)line[i];
		size_t n;
		int prev_word = i > 0 && is_word((unsigned char)line[i - 1]);
		if (isspace(c) || c < 0x20) {
			if (!last_space)
				dbuf_addc(out, ' ');
			last_space = 1;
			i++;
			continue;
		}
		last_space = 0;
		if (!prev_word && (n = timestamp_len(line + i, len - i))) {
			dbuf_adds(out, "<time>");
			i += n;
		} else if (!prev_word && (n = uuid_len(line + i, len - i))) {
			dbuf_adds(out, "<uuid>");
			i += n;
		} else if (!prev_word && c == '0' && i + 2 < len && (line[i + 1] == 'x' || line[i + 1] == 'X') &&
			   is_hex((unsigned char)line[i + 2])) {
			for (i += 2; i < len && is_hex((unsigned char)line[i]); i++)
				;
			dbuf_adds(out, "0x<hex>");
		} else if (c == '/' && (i == 0 || !is_word((unsigned char)line[i - 1])) &&
			   (n = path_len(line + i, len - i)) > 1 && memchr(line + i + 1, '/', n - 1)) {
			/* Keep only the last component: build trees and temp dirs differ. */
			const char *p = line + i, *base = p;
			for (size_t k = 0; k < n; k++)
				if (p[k] == '/')
					base = p + k + 1;
			if (!strncmp(p, "/tmp/", 5) || !strncmp(p, "/var/tmp/", 9) || base == p + n)
				dbuf_adds(out, "<path>");
			else
				dbuf_add(out, base, (size_t)(p + n - base));
			i += n;
		} else if (!prev_word && (n = hexword_len(line + i, len - i))) {
			dbuf_adds(out, "<hex>");
			i += n;
		} else if (isdigit(c) && !prev_word) {
			/* A standalone number; digits inside identifiers (test_3d, sm_80) stay. */
			size_t k = i;
			while (k < len && is_hex((unsigned char)line[k]))
				k++;
			if (k - i >= 8) {
				dbuf_adds(out, "<hex>");
				i = k;
				continue;
			}
			for (;;) {
				while (i < len && (isdigit((unsigned char)line[i]) ||
						   (line[i] == '.' && i + 1 < len && isdigit((unsigned char)line[i + 1]))))
					i++;
				dbuf_addc(out, 'N');
				/* "1m30s", "2h5m": every part of a duration */
				size_t u = unit_then_number(line + i, len - i);
				/* "ThreadPoolExecutor-0_3": the index after the pool's */
				if (!u && i + 1 < len && line[i] == '_' && isdigit((unsigned char)line[i + 1]))
					u = 1;
				if (!u)
					break;
				dbuf_add(out, line + i, u);
				i += u;
			}
		} else if (isdigit(c) && thread_number(line, i, len)) {
			while (i < len && isdigit((unsigned char)line[i]))
				i++;
			dbuf_addc(out, 'N');
		} else {
			dbuf_addc(out, (char)c);
			i++;
		}
	}
	while (out->len > start_len && out->buf[out->len - 1] == ' ')
		out->buf[--out->len] = '\0';
}

void key_id(const char *kind, const char *key, char *const *frames, size_t nframes,
		  char out[9])
{
	key_id_scoped(kind, key, frames, nframes, NULL, out);
}

void key_id_scoped(const char *kind, const char *key, char *const *frames, size_t nframes,
		   const char *scope, char out[9])
{
	uint64_t h = 0xcbf29ce484222325ULL;
#define FNV(c) do { h ^= (unsigned char)(c); h *= 0x100000001b3ULL; } while (0)
	for (const char *p = kind ? kind : ""; *p; p++)
		FNV(*p);
	FNV('\n');
	for (const char *p = key ? key : ""; *p; p++)
		FNV(*p);
	FNV('\n');
	for (size_t i = 0; i < nframes; i++) {
		if (i)
			FNV('\n');
		for (const char *p = frames[i]; *p; p++)
			FNV(*p);
	}
	if (scope && *scope) {
		FNV('\n');
		FNV('@');
		for (const char *p = scope; *p; p++)
			FNV(*p);
	}
#undef FNV
	snprintf(out, 9, "%08x", (unsigned)(h >> 32));
}
