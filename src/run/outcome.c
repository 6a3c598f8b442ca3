/*
 * outcome.c: the names of the outcomes and which of them are failures
 * (outcome.h); a table, so that a new outcome without a name is a gap the
 * compiler's designated initializers make plain.
 */
#include "run/outcome.h"
#include "util/banned.h"

static const char *const outcome_names[OUT__COUNT] = {
	[OUT_PASS] = "pass",
	[OUT_FAIL] = "fail",
	[OUT_CRASH] = "crash",
	[OUT_HANG] = "hang",
	[OUT_IGNORED] = "ignored",
	[OUT_CUT] = "cut",
	[OUT_SLOW] = "slow",
	[OUT_SKIP] = "skip",
};

const char *outcome_name(enum outcome o)
{
	return outcome_names[o];
}

bool outcome_is_failure(enum outcome o)
{
	return o == OUT_FAIL || o == OUT_CRASH || o == OUT_HANG;
}
