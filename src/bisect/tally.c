/*
 * tally.c: runs.jsonl counted for a bisection (see tally.h). The numbers
 * are small (a handful of signatures and arms), so lists are searched
 * linearly.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/tally.h"
#include "util/jsonr.h"
#include "util/path.h"
#include "util/xalloc.h"
#include "util/banned.h"

static void sig_add(struct tally_sig **sigs, size_t *n, size_t *alloc, const char *id,
		    const char *key, int64_t run)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*sigs)[i].id, id)) {
			(*sigs)[i].count++;
			if (run > (*sigs)[i].last_run)
				(*sigs)[i].last_run = run;
			return;
		}
	ALLOC_GROW(*sigs, *n + 1, *alloc);
	struct tally_sig *s = &(*sigs)[(*n)++];
	s->id = xstrdup(id);
	s->key = key ? xstrdup(key) : NULL;
	s->count = 1;
	s->last_run = run;
}

static struct tally_arm *arm_get(struct tally *t, const char *name)
{
	for (size_t i = 0; i < t->narms; i++)
		if (!strcmp(t->arms[i].name, name))
			return &t->arms[i];
	ALLOC_GROW(t->arms, t->narms + 1, t->arms_alloc);
	struct tally_arm *a = &t->arms[t->narms++];
	memset(a, 0, sizeof(*a));
	a->name = xstrdup(name);
	a->last_run = -1;
	return a;
}

static void add_run(struct tally *t, const cJSON *o)
{
	const char *type = jsonr_str(o, "type"), *outcome = jsonr_str(o, "outcome");
	const cJSON *run = cJSON_GetObjectItemCaseSensitive(o, "run");
	if (!type || strcmp(type, "run") != 0 || !outcome || !cJSON_IsNumber(run) || run->valuedouble < 0)
		return;
	int64_t idx = (int64_t)run->valuedouble;
	if ((uint64_t)idx + 1 > t->next_index)
		t->next_index = (uint64_t)idx + 1;
	bool failed = !strcmp(outcome, "fail") || !strcmp(outcome, "crash") || !strcmp(outcome, "hang");
	if (!failed && strcmp(outcome, "pass") != 0)
		return;
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(o, "config");
	const char *armname = cJSON_IsObject(cfg) ? jsonr_str(cfg, "arm") : NULL;
	struct tally_arm *a = arm_get(t, armname ? armname : "");
	t->runs++;
	a->runs++;
	if (idx > a->last_run)
		a->last_run = idx;
	if (!failed)
		return;
	t->fails++;
	const char *id = jsonr_str(o, "sig_id");
	char other[32];
	if (!id) {
		snprintf(other, sizeof(other), "-%s", outcome);
		id = other;
	}
	const char *key = jsonr_str(o, "key_line");
	sig_add(&t->sigs, &t->nsigs, &t->alloc, id, key, idx);
	sig_add(&a->sigs, &a->nsigs, &a->alloc, id, key, idx);
}

int tally_load(struct tally *t, const char *dir)
{
	memset(t, 0, sizeof(*t));
	char *path = path_join(dir, "runs.jsonl");
	FILE *f = fopen(path, "re");
	free(path);
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		cJSON *o = cJSON_Parse(line);
		if (o)
			add_run(t, o);
		cJSON_Delete(o);
	}
	free(line);
	fclose(f);
	return 0;
}

static void sigs_free(struct tally_sig *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(s[i].id);
		free(s[i].key);
	}
	free(s);
}

void tally_release(struct tally *t)
{
	sigs_free(t->sigs, t->nsigs);
	for (size_t i = 0; i < t->narms; i++) {
		free(t->arms[i].name);
		sigs_free(t->arms[i].sigs, t->arms[i].nsigs);
	}
	free(t->arms);
	memset(t, 0, sizeof(*t));
}

uint64_t tally_sig_count(const struct tally_sig *sigs, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(sigs[i].id, id))
			return sigs[i].count;
	return 0;
}

uint64_t tally_fails(const struct tally *t, const char *id)
{
	return id ? tally_sig_count(t->sigs, t->nsigs, id) : t->fails;
}

const struct tally_sig *tally_top(const struct tally *t)
{
	const struct tally_sig *best = NULL;
	for (size_t i = 0; i < t->nsigs; i++)
		if (!best || t->sigs[i].count > best->count)
			best = &t->sigs[i];
	return best;
}
