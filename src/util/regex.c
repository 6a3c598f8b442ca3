/*
 * regex.c: a thin owner of PCRE2 code + match data + JIT (see regex.h).
 * PCRE2 is used rather than POSIX regex for JIT speed (survey scans GBs),
 * named captures (user rules) and Perl syntax people already write.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/regex.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct regex {
	pcre2_code *code;
	pcre2_match_data *md;
	char *pattern;
};

struct regex *regex_new(const char *pattern, unsigned flags, char *err, size_t errlen)
{
	int errcode;
	PCRE2_SIZE erroff;
	uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
	if (flags & REGEX_MULTILINE)
		opts |= PCRE2_MULTILINE;
	if (flags & REGEX_CASELESS)
		opts |= PCRE2_CASELESS;
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
					 opts, &errcode, &erroff, NULL);
	if (!code) {
		PCRE2_UCHAR msg[120];
		pcre2_get_error_message(errcode, msg, sizeof(msg));
		if (err)
			snprintf(err, errlen, "%s at offset %zu", (char *)msg, (size_t)erroff);
		return NULL;
	}
	/* JIT is an optimisation: without it (some architectures) matching still works. */
	(void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
	struct regex *re = xcalloc(1, sizeof(*re));
	re->code = code;
	re->md = pcre2_match_data_create_from_pattern(code, NULL);
	if (!re->md) {
		pcre2_code_free(code);
		free(re);
		if (err)
			snprintf(err, errlen, "out of memory");
		return NULL;
	}
	re->pattern = xstrdup(pattern);
	return re;
}

int regex_search_at(struct regex *re, const char *subject, size_t len, size_t offset,
		    struct regex_match *m)
{
	int rc = pcre2_match(re->code, (PCRE2_SPTR)subject, len, offset, 0, re->md, NULL);
	if (rc < 0)
		return 0;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(re->md);
	if (m) {
		m->start = ov[0];
		m->end = ov[1];
		if (rc > 1 && ov[2] != PCRE2_UNSET) {
			m->cap_start = ov[2];
			m->cap_end = ov[3];
			m->has_group = 1;
		} else {
			m->cap_start = ov[0];
			m->cap_end = ov[1];
			m->has_group = 0;
		}
	}
	return 1;
}

int regex_search(struct regex *re, const char *subject, size_t len, struct regex_match *m)
{
	return regex_search_at(re, subject, len, 0, m);
}

int regex_named(struct regex *re, const char *name, size_t *start, size_t *end)
{
	int n = pcre2_substring_number_from_name(re->code, (PCRE2_SPTR)name);
	if (n < 0)
		return -1;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(re->md);
	if (ov[2 * n] == PCRE2_UNSET)
		return -1;
	*start = ov[2 * n];
	*end = ov[2 * n + 1];
	return 0;
}

const char *regex_pattern(const struct regex *re)
{
	return re->pattern;
}

void regex_free(struct regex *re)
{
	if (!re)
		return;
	pcre2_match_data_free(re->md);
	pcre2_code_free(re->code);
	free(re->pattern);
	free(re);
}
