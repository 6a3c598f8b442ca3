/*
 * recsample.c: crash records sampled once a crash repeats (see recsample.h).
 */
#include <stdlib.h>
#include <string.h>

#include "run/recsample.h"
#include "util/xalloc.h"
#include "util/banned.h"

static struct recsample_key *find(struct recsample *s, const char *bare)
{
	for (size_t i = 0; i < s->nr; i++)
		if (!strcmp(s->v[i].bare, bare))
			return &s->v[i];
	return NULL;
}

static struct recsample_key *add(struct recsample *s, const char *bare)
{
	ALLOC_GROW(s->v, s->nr + 1, s->alloc);
	struct recsample_key *k = &s->v[s->nr++];
	memset(k, 0, sizeof(*k));
	k->bare = xstrdup(bare);
	return k;
}

/* Every crash seen is known by RECSAMPLE_KEEP records as one signature. */
static bool all_known(const struct recsample *s)
{
	if (!s->nr)
		return false;
	for (size_t i = 0; i < s->nr; i++)
		if (s->v[i].ambiguous || s->v[i].records < RECSAMPLE_KEEP)
			return false;
	return true;
}

bool recsample_record(struct recsample *s)
{
	unsigned crashed = (unsigned)__builtin_popcount(s->recent);
	bool repeats = s->nrecent >= RECSAMPLE_WINDOW && crashed >= RECSAMPLE_CRASHED;
	if (s->off || !repeats || !all_known(s) || s->since + 1 >= RECSAMPLE_EVERY) {
		s->since = 0;
		return true;
	}
	s->since++;
	s->without++;
	return false;
}

void recsample_ended(struct recsample *s, bool crashed)
{
	s->recent = (s->recent << 1) | (crashed ? 1u : 0u);
	if (s->nrecent < RECSAMPLE_WINDOW)
		s->nrecent++;
}

void recsample_learn(struct recsample *s, const char *bare, const struct signature *sig, uint64_t run)
{
	struct recsample_key *k = find(s, bare);
	if (!k)
		k = add(s, bare);
	if (!k->records) {
		signature_release(&k->sig);
		signature_copy(&k->sig, sig);
		k->run = run;
	} else if (strcmp(k->sig.id, sig->id)) {
		k->ambiguous = true;
	}
	k->records++;
}

bool recsample_apply(struct recsample *s, const char *bare, struct signature *sig, uint64_t *run)
{
	struct recsample_key *k = find(s, bare);
	if (!k)
		k = add(s, bare);   /* known now, by no record: records on until it has some */
	if (k->ambiguous || k->records < RECSAMPLE_KEEP)
		return false;
	signature_release(sig);
	signature_copy(sig, &k->sig);
	*run = k->run;
	s->taken++;
	return true;
}

void recsample_release(struct recsample *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		free(s->v[i].bare);
		signature_release(&s->v[i].sig);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}
