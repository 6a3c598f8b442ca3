/*
 * survey.h: classify a corpus of CI job logs by failure signature and
 * aggregate the result (`jostle survey`).
 *
 * One file is one job log. Each log is scanned once, in blocks, by the
 * extractor scanner (extractor.h); it counts once for each distinct
 * signature of its best tier, and its primary signature is the one
 * `jostle run` would pick for the same output. Logs without any finding are
 * counted apart; files that cannot be read are recorded and skipped.
 *
 *   struct survey *sv = survey_new(set);               set borrowed
 *   survey_add_group(sv, "python=Python (3\\.\\d+t?)", err, sizeof err);
 *   survey_set_since(sv, t);
 *   survey_path(sv, "ci-logs/");                       any number of times
 *   survey_write(sv, SURVEY_MD, stdout);               survey_report.c
 *   survey_free(sv);
 *
 * Memory is bounded by the number of distinct signatures, group values and
 * days (each capped), never by the size of the logs.
 */
#ifndef JOSTLE_SURVEY_H
#define JOSTLE_SURVEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/strvec.h"

struct extractor_set;

#define SURVEY_HEADER_BYTES (256u << 10) /* where --group-by and the log time look */
#define SURVEY_EXAMPLES 3
#define SURVEY_MAX_GROUPS 16
#define SURVEY_MAX_VALUES 200            /* distinct values kept per counter */
#define SURVEY_MAX_DAYS 20000           /* days kept per signature (55 years) */
#define SURVEY_MAX_SIGS 100000

/* A small name -> count table; values past the cap are summed in other. */
struct survey_counter {
	struct survey_count { char *name; uint64_t n; } *v;
	size_t nr, alloc;
	uint64_t other;
};

struct survey_sig {
	char id[9];
	char kind[32];
	char *extractor, *key, *key_line;            /* owned */
	struct strvec frames;                        /* owned, innermost first */
	uint64_t logs, primary, occurrences;
	int64_t first, last;                         /* log times */
	struct strvec examples;                      /* first SURVEY_EXAMPLES paths */
	struct survey_counter tests, days;
	struct survey_counter groups[SURVEY_MAX_GROUPS];
};

struct survey_day {
	int64_t day;
	uint64_t logs, failed, none;
};

struct survey_group {
	char *name;          /* owned */
	char *pattern;       /* owned */
	void *code;          /* pcre2_code, owned */
};

struct survey {
	const struct extractor_set *set;   /* borrowed */
	struct survey_group groups[SURVEY_MAX_GROUPS];
	size_t ngroups;
	bool has_since;
	int64_t since;

	uint64_t logs, failed, none, unreadable, before_since, bytes, dropped_sigs;
	int64_t first, last;
	struct survey_sig *sigs;            /* owned */
	size_t nsigs, sigs_alloc;
	uint32_t *index;                    /* open addressing over sigs, owned */
	size_t index_size;
	struct survey_day *days;            /* owned, unsorted */
	size_t ndays, days_alloc;
	struct survey_counter none_groups[SURVEY_MAX_GROUPS];
	struct survey_counter all_groups[SURVEY_MAX_GROUPS];   /* every log */
	struct strvec none_examples;
	struct strvec errors;               /* "path: why", the first 1000 */

	void *scan;                         /* struct extractor_scan, owned */
	void *ls;                           /* struct logscan, owned */
	void *md;                           /* pcre2 match data, owned */
	/* the log being read */
	const char *cur_path;
	int64_t cur_time, cur_mtime;
	bool cur_has_time, cur_skip;
	char *cur_groups[SURVEY_MAX_GROUPS];
};

enum survey_format { SURVEY_TEXT, SURVEY_MD, SURVEY_HTML, SURVEY_JSON };

struct survey *survey_new(const struct extractor_set *set);
/* "KEY=REGEX": 0, or -EINVAL with err set. */
int survey_add_group(struct survey *sv, const char *spec, char *err, size_t errlen);
void survey_set_since(struct survey *sv, int64_t t);
/* Survey a file or a folder (recursively). Unreadable files are recorded in
 * sv->errors and reported through warn (may be NULL), one line each. */
void survey_path(struct survey *sv, const char *path, void (*warn)(const char *line));
/* Signatures in report order (most logs first); the array is owned by sv. */
struct survey_sig **survey_sorted(const struct survey *sv, size_t *n);
void survey_free(struct survey *sv);

/* survey_report.c */
int survey_write(const struct survey *sv, enum survey_format fmt, FILE *out);

/* Helpers shared by the writers and tests. */
void survey_counter_add(struct survey_counter *c, const char *name, uint64_t n);
/* Entries sorted by count (desc), then name; caller frees the array only. */
struct survey_count **survey_counter_sorted(const struct survey_counter *c, size_t *n);

#endif
