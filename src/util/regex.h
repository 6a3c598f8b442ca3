/*
 * regex.h: PCRE2 patterns, compiled once with JIT where available. Used for
 * --fail-on, --ignore, --signature, the signature extractors and survey.
 *
 *   char err[128];
 *   struct regex *re = regex_new("FAILED (\\S+)", 0, err, sizeof(err));
 *   if (!re) -> err says why (for a one-line usage error)
 *   regex_search(re, text, len, &m) -> 1 match, 0 none
 *   regex_free(re);
 *
 * A struct regex owns its match data, so one regex must not be used from two
 * threads at once (jostle is single-threaded).
 */
#ifndef JOSTLE_REGEX_H
#define JOSTLE_REGEX_H

#include <stddef.h>

struct regex;

struct regex_match {
	size_t start, end;          /* the whole match */
	size_t cap_start, cap_end;  /* group 1, or the whole match without groups */
	int has_group;
};

/* flags: REGEX_MULTILINE makes ^ and $ match at line boundaries. */
#define REGEX_MULTILINE 1u
#define REGEX_CASELESS  2u

struct regex *regex_new(const char *pattern, unsigned flags, char *err, size_t errlen);
int regex_search(struct regex *re, const char *subject, size_t len, struct regex_match *m);
/* Search starting at offset (for iterating over all matches). */
int regex_search_at(struct regex *re, const char *subject, size_t len, size_t offset,
		    struct regex_match *m);
/* Start/end of the named group in the last successful match, -1 if unset. */
int regex_named(struct regex *re, const char *name, size_t *start, size_t *end);
const char *regex_pattern(const struct regex *re);
void regex_free(struct regex *re);

#endif
