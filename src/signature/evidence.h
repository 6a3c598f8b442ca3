/*
 * evidence.h: what diagnosis (diagnose.c) and crash parsing (crash.c)
 * hand to signatures: a kind finer than the outcome ("deadlock",
 * "asan-heap-use-after-free"), the key line as the program printed it (the
 * signature module normalizes it), and the top program frames, already
 * normalized (frame.h: function names, no addresses, no paths), innermost
 * first. Fixed-size so it can live on the stack and in records.
 */
#ifndef JOSTLE_EVIDENCE_H
#define JOSTLE_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>

#define EVIDENCE_FRAMES 3

struct evidence {
	char kind[48];                      /* "" when nothing was found */
	char key_line[512];
	char frames[EVIDENCE_FRAMES][128];
	size_t nframes;
};

struct signature;

/*
 * Put ev into a signature (signature.h): its kind (when set), its frames,
 * and, when replace_key is true, its key line (normalized into the key),
 * then recompute the id. Crash evidence keeps the key line the signature
 * picked from the output (the same line in `jostle run` and `jostle
 * survey`); a hang's key ("hang: deadlock") replaces whatever the program
 * printed last, which varies from run to run.
 */
void evidence_apply(const struct evidence *ev, struct signature *sig, bool replace_key);

#endif
