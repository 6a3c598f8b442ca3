/*
 * outcome.h: how a run ended, as the engine classifies it (series.c), the
 * record writes it (record.c) and the per-test results name a suite that
 * died (runtests.c). Below all three, so that none of them reaches into
 * another for the names.
 */
#ifndef JOSTLE_OUTCOME_H
#define JOSTLE_OUTCOME_H

#include <stdbool.h>

enum outcome {
	OUT_PASS,
	OUT_FAIL,
	OUT_CRASH,
	OUT_HANG,
	OUT_IGNORED,
	OUT_CUT,        /* still going when the series ended (--time, a stop rule, Ctrl-C): neither pass nor fail */
	OUT_SLOW,       /* past its timeout, but not stuck: progressing, or it ended on its own */
	OUT_SKIP,       /* exit status 77, automake's and ctest's "skipped": neither pass nor fail */
	OUT__COUNT
};

/* "pass", "fail", ...: the record's "outcome" (docs/FORMAT.md) */
const char *outcome_name(enum outcome o);
/* fail, crash or hang: what failure rates count (not pass, ignored, slow, skip) */
bool outcome_is_failure(enum outcome o);

#endif
