/*
 * evidence.c: handing diagnosis and crash evidence to a signature (see
 * evidence.h). Kept apart from crash.c and diagnose.c so that both stay
 * free of the signature module and `jostle survey` can use it alone.
 */
#include <stdlib.h>
#include <string.h>

#include "signature/evidence.h"
#include "signature/key.h"
#include "signature/signature.h"
#include "util/dbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

void evidence_apply(const struct evidence *ev, struct signature *sig, bool replace_key)
{
	if (ev->kind[0]) {
		size_t n = strlen(ev->kind);
		if (n >= sizeof(sig->kind))
			n = sizeof(sig->kind) - 1;
		memcpy(sig->kind, ev->kind, n);
		sig->kind[n] = '\0';
	}
	if (replace_key && ev->key_line[0]) {
		free(sig->key_line);
		free(sig->key);
		sig->key_line = xstrdup(ev->key_line);
		struct dbuf d;
		dbuf_init(&d, KEY_MAX + 16);
		key_normalize(ev->key_line, strlen(ev->key_line), &d);
		sig->key = dbuf_detach(&d, NULL);
		sig->from_report = false;   /* jostle's words: "hang: deadlock" */
		sig->weak_key = false;      /* no guess any more: no '*' in the tables */
	}
	if (ev->nframes) {
		sig->stack_frames = true;
		char **frames = xcalloc(ev->nframes, sizeof(*frames));
		for (size_t i = 0; i < ev->nframes; i++)
			frames[i] = xstrdup(ev->frames[i]);
		signature_set_frames(sig, frames, ev->nframes);  /* updates the id */
	} else {
		signature_update_id(sig);
	}
}
