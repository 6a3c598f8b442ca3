/*
 * signature.c: key-line selection and the signature of a run (see signature.h).
 *
 * The key line is chosen the way an engineer skims a log: a sanitizer's
 * ERROR line beats a Python fatal error, which beats pytest's FAILED line,
 * which beats an exception line, ... down to the last non-empty line. The
 * extractors are one table shared with `jostle survey` (extractor.h), so a
 * run and a CI log of the same failure get the same signature; after them
 * come the table's run-only last resorts (any exception or error line) and
 * the last non-empty line.
 *
 * Normalization and the id are key.c's.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "signature/extractor.h"
#include "signature/key.h"
#include "signature/signature.h"
#include "util/regex.h"
#include "util/xalloc.h"
#include "util/banned.h"

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

void signature_update_id(struct signature *sig)
{
	key_id_scoped(sig->kind, sig->key, sig->frames, sig->nframes, sig->scope, sig->id);
}

bool signature_scope(struct signature *sig, const char *program)
{
	if ((sig->from_report && !sig->stack_frames) || !program || !program[0])
		return false;
	snprintf(sig->scope, sizeof(sig->scope), "%s", program);
	signature_update_id(sig);
	return true;
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
		sig->from_report = true;
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
	const char *by = signature_pick_line(output, len, user, &a, &e);
	if (by) {
		sig->weak_key = strcmp(by, "user") != 0;
		sig->from_report = !sig->weak_key;
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
		dbuf_init(&d, KEY_MAX + 16);
		key_normalize(output + a, e - a, &d);
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

void signature_copy(struct signature *dst, const struct signature *src)
{
	*dst = *src;
	dst->key_line = src->key_line ? xstrdup(src->key_line) : NULL;
	dst->key = src->key ? xstrdup(src->key) : NULL;
	dst->frames = src->nframes ? xcalloc(src->nframes, sizeof(*dst->frames)) : NULL;
	for (size_t i = 0; i < src->nframes; i++)
		dst->frames[i] = xstrdup(src->frames[i]);
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
