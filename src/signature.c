/*
 * signature.c: key-line selection, normalization and ids (see signature.h).
 *
 * The key line is chosen the way an engineer skims a log: a sanitizer's
 * ERROR line beats a Python fatal error, which beats pytest's FAILED line,
 * which beats an exception line, ... down to the last non-empty line. The
 * extractors are one table shared with `jostle survey` (extractor.h), so a
 * run and a CI log of the same failure get the same signature; after them
 * come the table's run-only last resorts (any exception or error line) and
 * the last non-empty line.
 *
 * Normalization is a single hand-written pass: it runs on every failing
 * run's key line and must never depend on the run (addresses, pids, thread
 * ids, temp names, durations, build paths).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extractor.h"
#include "regex.h"
#include "signature.h"
#include "xalloc.h"
#include "banned.h"

/* The tier-4 extractors of the shared table (run-only last resorts), compiled once. */
static struct regex *last_resort[8];
static const struct extractor *last_resort_ex[8];
static size_t nlast_resort;

static void compile_last_resorts(void)
{
	if (nlast_resort)
		return;
	for (size_t i = 0; i < extractor_count; i++) {
		const struct extractor *e = &extractor_table[i];
		if (e->tier != EXTRACTOR_TIER_RUN_ONLY || nlast_resort >= 8)
			continue;
		char err[128];
		struct regex *re = regex_new(e->pattern, REGEX_MULTILINE, err, sizeof(err));
		if (!re) {
			fprintf(stderr, "jostle: internal error: extractor '%s': %s\n", e->name, err);
			exit(3);
		}
		last_resort_ex[nlast_resort] = e;
		last_resort[nlast_resort++] = re;
	}
}

static int is_word(int c)
{
	return isalnum(c) || c == '_';
}

static int is_hex(int c)
{
	return isxdigit(c);
}

/* Length of a standalone hex word of 8+ digits with at least one decimal digit
 * (build ids, hashes, raw pointers printed without 0x), or 0. */
static size_t hexword_len(const char *s, size_t n)
{
	size_t i = 0;
	int digit = 0;
	while (i < n && is_hex((unsigned char)s[i])) {
		digit |= isdigit((unsigned char)s[i]);
		i++;
	}
	if (i < 8 || !digit || (i < n && is_word((unsigned char)s[i])))
		return 0;
	return i;
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

void signature_normalize(const char *line, size_t len, struct dbuf *out)
{
	size_t start_len = out->len;
	size_t i = 0;
	int last_space = 1;
	/* Skip leading whitespace and a leading timestamp (CI prefixes). */
	while (i < len && isspace((unsigned char)line[i]))
		i++;
	while (i < len && out->len - start_len < SIGNATURE_KEY_MAX) {
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
			} else {
				while (i < len && (isdigit((unsigned char)line[i]) ||
						   (line[i] == '.' && i + 1 < len && isdigit((unsigned char)line[i + 1]))))
					i++;
				dbuf_addc(out, 'N');
			}
		} else {
			dbuf_addc(out, (char)c);
			i++;
		}
	}
	while (out->len > start_len && out->buf[out->len - 1] == ' ')
		out->buf[--out->len] = '\0';
}

/* Bounds of the line containing offset pos. */
static void line_bounds(const char *s, size_t len, size_t pos, size_t *start, size_t *end)
{
	size_t a = pos, b = pos;
	while (a > 0 && s[a - 1] != '\n')
		a--;
	while (b < len && s[b] != '\n')
		b++;
	*start = a;
	*end = b;
}

/* Last match of re in s; returns 1 and the key bounds (group 1 or whole). */
static int last_match(struct regex *re, const char *s, size_t len, size_t *start, size_t *end)
{
	struct regex_match m;
	size_t off = 0;
	int found = 0;
	while (off <= len && regex_search_at(re, s, len, off, &m)) {
		found = 1;
		*start = m.cap_start;
		*end = m.cap_end;
		off = m.end > m.start ? m.end : m.start + 1;
	}
	return found;
}

const char *signature_pick_line(const char *output, size_t len, struct regex *user,
				size_t *start, size_t *end)
{
	struct regex_match m;
	if (user && regex_search(user, output, len, &m)) {
		*start = m.cap_start;
		*end = m.cap_end;
		if (!m.has_group)
			line_bounds(output, len, m.start, start, end);
		return "user";
	}
	compile_last_resorts();
	for (size_t i = 0; i < nlast_resort; i++)
		if (last_match(last_resort[i], output, len, start, end))
			return last_resort_ex[i]->name;
	/* The last non-blank line. */
	size_t b = len;
	while (b > 0) {
		size_t a, e;
		line_bounds(output, len, b - 1, &a, &e);
		for (size_t k = a; k < e; k++)
			if (!isspace((unsigned char)output[k])) {
				*start = a;
				*end = e;
				return "last-line";
			}
		b = a;
	}
	return NULL;
}

void signature_id(const char *kind, const char *key, char *const *frames, size_t nframes,
		  char out[9])
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
#undef FNV
	snprintf(out, 9, "%08x", (unsigned)(h >> 32));
}

void signature_update_id(struct signature *sig)
{
	signature_id(sig->kind, sig->key, sig->frames, sig->nframes, sig->id);
}

/*
 * The shared extractor table (extractor.h), exactly as `jostle survey` runs
 * it: the primary hit gives the key, the key line, the frames, and a finer
 * kind (asan-heap-use-after-free, tsan-data-race, ... from the crash parser,
 * or the extractor's own) when there is one.
 */
static bool from_extractors(struct signature *sig, const char *output, size_t len)
{
	static struct extractor_set *set;
	if (!set)
		set = extractor_set_new();
	struct extractor_scan sc;
	extractor_scan_init(&sc, set);
	extractor_scan_block(&sc, output, len);
	extractor_scan_end(&sc);
	const struct extractor_hit *h = extractor_scan_primary(&sc);
	if (h) {
		if (h->finer_kind)
			snprintf(sig->kind, sizeof(sig->kind), "%s", h->kind);
		sig->key = xstrdup(h->key);
		sig->key_line = xstrdup(h->key_line ? h->key_line : h->key);
		if (h->frames.nr) {
			sig->frames = xcalloc(h->frames.nr, sizeof(char *));
			for (size_t i = 0; i < h->frames.nr; i++)
				sig->frames[i] = xstrdup(h->frames.v[i]);
			sig->nframes = h->frames.nr;
		}
		signature_update_id(sig);
	}
	extractor_scan_release(&sc);
	return h != NULL;
}

void signature_from_output(struct signature *sig, const char *kind,
			   const char *output, size_t len, struct regex *user)
{
	size_t a, e;
	memset(sig, 0, sizeof(*sig));
	snprintf(sig->kind, sizeof(sig->kind), "%s", kind);
	if (!(user && regex_search(user, output, len, NULL)) && from_extractors(sig, output, len))
		return;
	if (signature_pick_line(output, len, user, &a, &e)) {
		while (a < e && isspace((unsigned char)output[a]))
			a++;
		while (e > a && isspace((unsigned char)output[e - 1]))
			e--;
		if (e - a > 1000)
			e = a + 1000;
		/* The key line is stored as text: NULs become spaces. */
		sig->key_line = xmalloc(e - a + 1);
		for (size_t k = a; k < e; k++)
			sig->key_line[k - a] = output[k] ? output[k] : ' ';
		sig->key_line[e - a] = '\0';
		struct dbuf d;
		dbuf_init(&d, SIGNATURE_KEY_MAX + 16);
		signature_normalize(output + a, e - a, &d);
		for (size_t k = 0; k < d.len; k++)
			if (!d.buf[k])
				d.buf[k] = ' ';
		sig->key = dbuf_detach(&d, NULL);
	}
	signature_update_id(sig);
}

void signature_set_frames(struct signature *sig, char **frames, size_t nframes)
{
	for (size_t i = 0; i < sig->nframes; i++)
		free(sig->frames[i]);
	free(sig->frames);
	sig->frames = frames;
	sig->nframes = nframes;
	signature_update_id(sig);
}

void signature_set_kind(struct signature *sig, const char *kind)
{
	snprintf(sig->kind, sizeof(sig->kind), "%s", kind);
	signature_update_id(sig);
}

void signature_release(struct signature *sig)
{
	free(sig->key_line);
	free(sig->key);
	for (size_t i = 0; i < sig->nframes; i++)
		free(sig->frames[i]);
	free(sig->frames);
	memset(sig, 0, sizeof(*sig));
}
