/*
 * verdict.h: what a bisection found, for people: the table of the commits
 * tested (runs, failures, rate with its 95% Wilson interval, probability
 * of being the culprit), the verdict in one sentence, and `git show
 * --stat` of the culprit; as plain text for the terminal or as Markdown
 * for DIR/report.md (to paste into an issue).
 */
#ifndef JOSTLE_VERDICT_H
#define JOSTLE_VERDICT_H

#include <stdbool.h>

#include "bisect/state.h"
#include "util/dbuf.h"

/* Render into out; show is `git show --stat` of the culprit, or NULL. */
void verdict_render(const struct bstate *s, const char *show, bool markdown, struct dbuf *out);

#endif
