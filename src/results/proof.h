/*
 * proof.h: the proof of a fix under a reproducer (issue 44). When both
 * results directories ran under `jostle run --reproducer`, each holds the
 * reproducer as applied (DIR/reproducer.json, with how each of its call
 * sites was matched in that build); `jostle compare` then adds one line:
 * "fixed under the reproducer: 0/12 after vs 43/50 before (p = ...)",
 * and says when a site of the reproducer no longer exists in the AFTER
 * build: its delay was not applied, so the runs after ran under less of
 * the condition than the runs before, and the proof is weaker for it.
 */
#ifndef JOSTLE_PROOF_H
#define JOSTLE_PROOF_H

#include "results/compare.h"
#include "results/results.h"
#include "util/dbuf.h"

/*
 * Append the reproducer's lines for BEFORE_DIR and AFTER_DIR (their loaded
 * results before and after) to out; nothing when neither ran under a
 * reproducer. *v, compare's verdict on the totals, becomes
 * COMPARE_NOT_ENOUGH when the two ran under different reproducers, or
 * when no site of the reproducer exists after: no proof under it.
 */
void proof_reproducer(const char *before_dir, const char *after_dir, const struct results *before,
		      const struct results *after, struct dbuf *out, enum compare_verdict *v);

#endif
