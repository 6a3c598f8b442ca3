/*
 * signature.h: what makes two failures "the same failure".
 *
 * A signature is a kind (the outcome, or a finer kind from diagnosis), the
 * normalized key line (the most telling line of the output with addresses,
 * numbers, UUIDs, paths and timestamps stripped), and optionally the top
 * frames of the program. Its id is the first 8 hex digits of FNV-1a 64 over
 * kind "\n" key "\n" frames joined by "\n" (docs/FORMAT.md), so `jostle run`
 * and `jostle survey` give the same id to the same failure.
 */
#ifndef JOSTLE_SIGNATURE_H
#define JOSTLE_SIGNATURE_H

#include <stdbool.h>
#include <stddef.h>

#include "signature/key.h"
#include "util/dbuf.h"

struct regex;

struct signature {
	char kind[32];
	char *key_line;   /* owned: the line as printed (trimmed), or NULL */
	char *key;        /* owned: normalized key line, or NULL */
	char **frames;    /* owned: normalized frame names (may be NULL) */
	size_t nframes;
	char id[9];       /* 8 hex digits + NUL */
	bool weak_key;    /* the key is a guess: a run-only last resort (any error
	                     line) or the last line, not a recognized report */
	bool from_report; /* kind, key and frames from a report the extractors
	                     recognized in the output (what `jostle survey`
	                     reads too), or from the user's --signature pattern */
	bool stack_frames;  /* the frames are from stacks (evidence.h), not the output */
	char scope[64];   /* "" or the program it is scoped to (signature_scope) */
};



/*
 * The fallback of signature_from_output when no extractor of the shared
 * table (extractor.h) matched: pick the most telling line of OUTPUT (len bytes; may contain NULs and
 * invalid UTF-8). user may be NULL; when it matches, its first capture group
 * (or whole match) is the key line. Returns the line bounds in *start and *end, and
 * the name of the extractor that chose it (static string), or NULL when the
 * output has no non-blank line.
 */
const char *signature_pick_line(const char *output, size_t len, struct regex *user,
				size_t *start, size_t *end);

/* Fill sig from a failure of KIND with OUTPUT; frames may be set later. */
void signature_from_output(struct signature *sig, const char *kind,
			   const char *output, size_t len, struct regex *user);

/* Take ownership of frames (array and strings) and recompute the id. */
void signature_set_frames(struct signature *sig, char **frames, size_t nframes);
void signature_set_kind(struct signature *sig, const char *kind);

/* Recompute sig->id from kind, key, frames and scope. */
void signature_update_id(struct signature *sig);

/*
 * Scope sig to PROGRAM (a basename: the command jostle ran) when the
 * output's own report does not make it alone: a key jostle wrote ("killed
 * by SEGV", "hang: deadlock", "exit status 1"), a guessed line, or frames
 * taken from stacks. Such a signature names nothing that tells two
 * programs apart (no frames, or function names every small program has:
 * main, thread1, worker), so the program's name joins its id and two
 * programs never share it. A recognized report's signature is left
 * unscoped: the same in every program and in `jostle survey`. Returns
 * true when sig was scoped (the id recomputed).
 */
bool signature_scope(struct signature *sig, const char *program);

/* A deep copy of SRC into DST (whatever DST held is not freed). */
void signature_copy(struct signature *dst, const struct signature *src);

void signature_release(struct signature *sig);

#endif
