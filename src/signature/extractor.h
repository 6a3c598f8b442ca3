/*
 * extractor.h: the failure extractors (one table, shared by `jostle run`'s
 * key-line choice and `jostle survey`) and the scanner that runs them over
 * a log or a run's output, block by block, in bounded memory.
 *
 * An extractor is a const record: a literal anchor that every matching line
 * contains (the prefilter), a PCRE2 pattern applied to that one line (CI
 * timestamp prefix, "##[error]" and ANSI colours removed), a key template
 * ($1..$9 name capture groups; "" is the whole match), optional capture
 * groups naming the test and the frame, and a follow-up rule for reports
 * whose telling part is on the next lines: a crash report (sanitizers,
 * glibc, Fatal Python error, compute-sanitizer) is handed to the crash
 * parser (crash.h) for its finer kind and top program frames, exactly as
 * `jostle explain` does; a traceback's closing exception line; a Go panic's
 * first frame.
 *
 * Tiers decide what counts when a log holds several findings:
 *   1  a test framework's or a runtime's own report (sanitizers, glibc heap
 *      aborts, asserts, Fatal Python error, pytest, Google Test, CTest, Go)
 *   2  generic evidence (tracebacks, CUDA error names, segmentation faults,
 *      timeouts printed by plugins)
 *   3  process exit codes
 *   4  run-only last resorts without an anchor (any exception or error
 *      line): `jostle run` knows its output is a failure's; in a survey
 *      they would match nearly every log, so the scanner skips them
 * A log's signatures are the distinct signatures of its best tier; its
 * primary signature is the one of the first extractor in table order (user
 * rules come first), the last occurrence among equals. `jostle run` picks
 * exactly this primary signature for a failing run's output.
 *
 *   struct extractor_set *set = extractor_set_new();
 *   extractor_set_add_rule(set, "oom", "Killed process (?<proc>\\S+)", err, sizeof err);
 *   struct extractor_scan sc; extractor_scan_init(&sc, set);
 *   extractor_scan_block(&sc, block, len);   any number of times (whole lines)
 *   extractor_scan_end(&sc);                 then read sc.hits / extractor_scan_primary()
 *   extractor_scan_reset(&sc);               next log
 *   extractor_scan_release(&sc); extractor_set_free(set);
 */
#ifndef JOSTLE_EXTRACTOR_H
#define JOSTLE_EXTRACTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/dbuf.h"
#include "util/strvec.h"

enum extractor_follow {
	FOLLOW_NONE,
	FOLLOW_REPORT,        /* the report's next lines go to crash_parse (crash.h):
	                         finer kind and top program frames */
	FOLLOW_GO_FRAME,      /* first own function below "goroutine N [running]:" */
	FOLLOW_PY_EXCEPTION,  /* the key is the exception line closing the traceback */
};

struct extractor {
	const char *name;
	const char *kind;     /* finer signature kind (asan, tsan, ...), or NULL */
	const char *outcome;  /* what the failure implies: fail, crash, hang, exit */
	int tier;             /* 1..4 as above */
	const char *anchor;   /* literal contained in every matching line (NULL: tier 4) */
	const char *pattern;  /* PCRE2, applied to one cleaned line */
	const char *key;      /* template: "$2", "$1 $2", "Segmentation fault"; "" = match */
	int test;             /* capture group naming the test, 0 = none */
	int frame;            /* capture group naming the frame, 0 = none */
	enum extractor_follow follow;
	bool verbatim;        /* key is not normalized (exit codes, error names) */
};

/* The built-in table, in priority order (for docs and tests). */
extern const struct extractor extractor_table[];
extern const size_t extractor_count;

#define EXTRACTOR_TIER_RUN_ONLY 4

#define EXTRACTOR_MAX_HITS 256   /* distinct signatures kept per log */
#define EXTRACTOR_MAX_TESTS 8    /* distinct test names kept per hit */

struct extractor_hit {
	const char *extractor;  /* borrowed: table or set string */
	char kind[32];          /* the extractor's kind, else its outcome */
	bool finer_kind;        /* kind came from the extractor (asan, ...) */
	int tier, rank;         /* rank: user rules first, then table order */
	char *key;              /* owned, normalized */
	char *key_line;         /* owned, the line as printed (cleaned, capped) */
	struct strvec frames;   /* owned, normalized, innermost first */
	struct strvec tests;    /* owned test names (at most EXTRACTOR_MAX_TESTS) */
	char id[9];
	uint64_t count;         /* occurrences in this log */
	uint64_t seq;           /* order of the last occurrence */
};

struct extractor_set;

struct extractor_set *extractor_set_new(void);
/* A user rule, tried before every built-in. 0, or -EINVAL with err set. */
int extractor_set_add_rule(struct extractor_set *set, const char *name, const char *pattern,
			   char *err, size_t errlen);
/*
 * Rules from a file: one per line, NAME<TAB>PCRE2; blank lines and lines
 * starting with '#' are ignored. 0, or -errno / -EINVAL with err set
 * ("line 3: ...").
 */
int extractor_set_load_rules(struct extractor_set *set, const char *path, char *err, size_t errlen);
void extractor_set_free(struct extractor_set *set);

struct extractor_pending;
struct crash_report;

struct extractor_scan {
	const struct extractor_set *set;  /* borrowed */
	struct extractor_hit *hits;       /* owned */
	size_t nhits, alloc;
	uint64_t dropped;                 /* distinct hits past EXTRACTOR_MAX_HITS */
	uint64_t seq;
	int best_tier;                    /* lowest tier seen, 0 = none */
	struct extractor_pending *pend;   /* owned: a follow-up in progress */
	struct crash_report *crash;       /* owned, allocated on first use */
	void *md;                         /* owned pcre2 match data */
	struct dbuf line, key, tmp;       /* scratch */
};

void extractor_scan_init(struct extractor_scan *sc, const struct extractor_set *set);
/* Scan whole lines (the last one may lack its '\n'). */
void extractor_scan_block(struct extractor_scan *sc, const char *block, size_t len);
/* End of input: settle a follow-up in progress. */
void extractor_scan_end(struct extractor_scan *sc);
/* Whether a hit counts for its log (it is of the best tier). */
bool extractor_hit_counts(const struct extractor_scan *sc, const struct extractor_hit *h);
/* The primary hit, or NULL when nothing was found. */
const struct extractor_hit *extractor_scan_primary(const struct extractor_scan *sc);
void extractor_scan_reset(struct extractor_scan *sc);
void extractor_scan_release(struct extractor_scan *sc);

/* Copy LINE into out without CI timestamp prefix, "##[error]", ANSI escapes, CR and NULs. */
void extractor_clean_line(const char *line, size_t len, struct dbuf *out);

#endif
