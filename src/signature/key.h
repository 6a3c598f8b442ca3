/*
 * key.h: the leaves every signature is built from, shared by `jostle run`
 * (signature.h), `jostle survey` and `jostle explain` (extractor.h).
 */
#ifndef JOSTLE_KEY_H
#define JOSTLE_KEY_H

#include <stddef.h>

#include "util/dbuf.h"

#define KEY_MAX 240   /* longest normalized key kept */

/* Normalize one line (len bytes, no newline needed) into out (appended). */
void key_normalize(const char *line, size_t len, struct dbuf *out);

/* The id function on its own, into out (9 bytes). */
void key_id(const char *kind, const char *key, char *const *frames, size_t nframes,
	    char out[9]);
/* The same with a scope (signature_scope): "" or NULL is key_id's id; else
 * "\n@" and the scope are hashed after the frames. */
void key_id_scoped(const char *kind, const char *key, char *const *frames, size_t nframes,
		   const char *scope, char out[9]);

#endif
