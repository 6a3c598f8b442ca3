/*
 * shards.c: the shards of one series read back (see shards.h).
 *
 * The check compares every sharded series with the first one; settings are
 * compared as cJSON re-serializes them without the members that may differ
 * per node, so the order of members (always the writer's) is kept and a
 * difference names its member.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "results/shards.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* settings that say how many runs a shard makes and how fast, not what a run is */
static const char *const per_node[] = { "runs", "time_s", "until", "jobs", "cpus_via", NULL };

static cJSON *settings_core(const char *json)
{
	cJSON *o = json ? cJSON_Parse(json) : NULL;
	for (int i = 0; o && per_node[i]; i++)
		cJSON_DeleteItemFromObjectCaseSensitive(o, per_node[i]);
	return o;
}

/* The first member of a's settings that b lacks or holds differently, or
 * the first member only b has; NULL when they are equal. */
static const char *settings_diff(const cJSON *a, const cJSON *b)
{
	const cJSON *x;
	cJSON_ArrayForEach(x, a) {
		const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);
		if (!y || !cJSON_Compare(x, y, true))
			return x->string;
	}
	cJSON_ArrayForEach(x, b)
		if (!cJSON_GetObjectItemCaseSensitive(a, x->string))
			return x->string;
	return NULL;
}

static const char *dir_of(const struct results *r, const struct results_series *s)
{
	return s->dir < r->dirs.nr ? r->dirs.v[s->dir] : "?";
}

static bool argv_equal(const struct strvec *a, const struct strvec *b)
{
	if (a->nr != b->nr)
		return false;
	for (size_t i = 0; i < a->nr; i++)
		if (strcmp(a->v[i], b->v[i]))
			return false;
	return true;
}

/* What makes series b another series than a, or NULL. */
static const char *differs(const struct results_series *a, const struct results_series *b,
			   const cJSON *sa, char *buf, size_t len)
{
	if (b->shard_count != a->shard_count) {
		snprintf(buf, len, "it is shard %" PRIu64 " of %" PRIu64 ", not of %" PRIu64,
			 b->shard_index, b->shard_count, a->shard_count);
		return buf;
	}
	if (!argv_equal(&a->argv, &b->argv))
		return "the command differs";
	if (!a->seed || !b->seed || strcmp(a->seed, b->seed)) {
		snprintf(buf, len, "the master seed differs (%s vs %s)", a->seed ? a->seed : "none",
			 b->seed ? b->seed : "none");
		return buf;
	}
	cJSON *sb = settings_core(b->settings);
	const char *what = settings_diff(sa, sb);
	if (what)
		snprintf(buf, len, "the setting '%s' differs", what);
	cJSON_Delete(sb);
	return what ? buf : NULL;
}

int shards_check(const struct results *r, char *why, size_t whylen)
{
	const struct results_series *first = NULL;
	for (size_t i = 0; i < r->series_nr && !first; i++)
		if (r->series[i].shard_count)
			first = &r->series[i];
	if (!first)
		return 0;
	cJSON *sa = settings_core(first->settings);
	uint64_t n = first->shard_count;
	size_t *owner = NULL;     /* shard index -> series index + 1 */
	int rc = 0;
	char buf[256];
	if (n <= r->series_nr * 64 + 1024)
		owner = xcalloc(n, sizeof(*owner));
	for (size_t i = 0; i < r->series_nr && !rc; i++) {
		const struct results_series *s = &r->series[i];
		const char *what;
		if (!s->shard_count) {
			snprintf(why, whylen, "'%s' holds a series that is not a shard (run without "
				 "--shard), '%s' one that is; merge the shards of one series, or "
				 "unsharded results", dir_of(r, s), dir_of(r, first));
			rc = -EINVAL;
		} else if ((what = differs(first, s, sa, buf, sizeof(buf)))) {
			snprintf(why, whylen, "'%s' is not a shard of the series in '%s': %s",
				 dir_of(r, s), dir_of(r, first), what);
			rc = -EINVAL;
		} else {
			size_t prev = 0;
			if (owner) {
				prev = owner[s->shard_index];
				owner[s->shard_index] = i + 1;
			} else {
				for (size_t j = 0; j < i && !prev; j++)
					if (r->series[j].shard_index == s->shard_index)
						prev = j + 1;
			}
			if (prev) {
				snprintf(why, whylen, "shard %" PRIu64 "/%" PRIu64 " is both in '%s' and "
					 "in '%s'; its runs would count twice: merge one of them",
					 s->shard_index, n, dir_of(r, &r->series[prev - 1]), dir_of(r, s));
				rc = -EINVAL;
			}
		}
	}
	free(owner);
	cJSON_Delete(sa);
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Sort and drop repeats; returns the new length. */
static size_t uniq(uint64_t *v, size_t n)
{
	if (n < 2)
		return n;
	qsort(v, n, sizeof(*v), cmp_u64);
	size_t k = 1;
	for (size_t i = 1; i < n; i++)
		if (v[i] != v[k - 1])
			v[k++] = v[i];
	return k;
}

void shards_status(const struct results *r, struct shards_status *st)
{
	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < r->series_nr && !st->count; i++)
		st->count = r->series[i].shard_count;
	if (!st->count)
		return;
	uint64_t *have = xcalloc(r->series_nr + 1, sizeof(*have));
	size_t nh = 0;
	st->partial = xcalloc(r->series_nr + 1, sizeof(*st->partial));
	for (size_t i = 0; i < r->series_nr; i++) {
		const struct results_series *s = &r->series[i];
		if (s->shard_count != st->count) {
			st->other_counts = true;
			continue;
		}
		have[nh++] = s->shard_index;
		if (!s->ended || s->interrupted)
			st->partial[st->partial_nr++] = s->shard_index;
	}
	nh = uniq(have, nh);
	st->partial_nr = uniq(st->partial, st->partial_nr);
	st->present = nh;
	st->missing_nr = (size_t)(st->count - nh);
	st->missing = xcalloc(st->missing_nr + 1, sizeof(*st->missing));
	size_t m = 0, j = 0;
	for (uint64_t k = 0; k < st->count && m < st->missing_nr; k++) {
		while (j < nh && have[j] < k)
			j++;
		if (j >= nh || have[j] != k)
			st->missing[m++] = k;
	}
	free(have);
}

void shards_status_release(struct shards_status *st)
{
	free(st->missing);
	free(st->partial);
	memset(st, 0, sizeof(*st));
}

void shards_ranges(struct dbuf *b, const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		dbuf_addf(b, "%s%" PRIu64, i ? ", " : "", v[i]);
		if (j > i)
			dbuf_addf(b, "-%" PRIu64, v[j]);
		i = j + 1;
	}
}

void shards_line(struct dbuf *b, const struct results *r)
{
	struct shards_status st;
	shards_status(r, &st);
	if (!st.count) {
		shards_status_release(&st);
		return;
	}
	if (st.present == 1 && st.count > 1) {
		uint64_t k = 0;
		for (size_t i = 0; i < r->series_nr; i++)
			if (r->series[i].shard_count == st.count)
				k = r->series[i].shard_index;
		dbuf_addf(b, "1 of %" PRIu64 " (shard %" PRIu64 "; jostle merge the %" PRIu64
			  " shards for the statistics of the whole series)", st.count, k, st.count);
	} else {
		dbuf_addf(b, "%zu of %" PRIu64, st.present, st.count);
		if (st.missing_nr || st.partial_nr) {
			dbuf_adds(b, " (");
			if (st.missing_nr) {
				dbuf_adds(b, "missing: ");
				shards_ranges(b, st.missing, st.missing_nr);
			}
			if (st.partial_nr) {
				dbuf_adds(b, st.missing_nr ? "; partial: " : "partial: ");
				shards_ranges(b, st.partial, st.partial_nr);
				dbuf_adds(b, ", killed or interrupted");
			}
			dbuf_addc(b, ')');
		}
	}
	if (st.other_counts)
		dbuf_adds(b, "; other series are shards of another count");
	shards_status_release(&st);
}
