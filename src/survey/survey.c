/*
 * survey.c: scanning a corpus of job logs and aggregating by signature (see
 * survey.h).
 *
 * The work per byte is the extractor scanner's; what is done here happens
 * once per log (time, groups, commit of its findings) and so costs nothing
 * measurable. A log's findings are committed only after it was read to the
 * end, so a corrupt gzip file leaves no trace but its error line.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "signature/extractor.h"
#include "signature/timestamp.h"
#include "survey/logscan.h"
#include "survey/survey.h"
#include "util/xalloc.h"
#include "util/banned.h"

static void counter_add_cap(struct survey_counter *c, const char *name, uint64_t n, size_t cap)
{
	for (size_t i = 0; i < c->nr; i++)
		if (!strcmp(c->v[i].name, name)) {
			c->v[i].n += n;
			return;
		}
	if (c->nr >= cap) {
		c->other += n;
		return;
	}
	ALLOC_GROW(c->v, c->nr + 1, c->alloc);
	c->v[c->nr].name = xstrdup(name);
	c->v[c->nr].n = n;
	c->nr++;
}

void survey_counter_add(struct survey_counter *c, const char *name, uint64_t n)
{
	counter_add_cap(c, name, n, SURVEY_MAX_VALUES);
}

static int cmp_count(const void *a, const void *b)
{
	const struct survey_count *x = *(struct survey_count *const *)a;
	const struct survey_count *y = *(struct survey_count *const *)b;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->name, y->name);
}

struct survey_count **survey_counter_sorted(const struct survey_counter *c, size_t *n)
{
	struct survey_count **v = xcalloc(c->nr + 1, sizeof(*v));
	for (size_t i = 0; i < c->nr; i++)
		v[i] = &c->v[i];
	qsort(v, c->nr, sizeof(*v), cmp_count);
	*n = c->nr;
	return v;
}

static void counter_release(struct survey_counter *c)
{
	for (size_t i = 0; i < c->nr; i++)
		free(c->v[i].name);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

struct survey *survey_new(const struct extractor_set *set)
{
	struct survey *sv = xcalloc(1, sizeof(*sv));
	sv->set = set;
	sv->scan = xcalloc(1, sizeof(struct extractor_scan));
	extractor_scan_init(sv->scan, set);
	sv->ls = xcalloc(1, sizeof(struct logscan));
	logscan_init(sv->ls);
	sv->md = pcre2_match_data_create(16, NULL);
	sv->index_size = 1024;
	sv->index = xcalloc(sv->index_size, sizeof(uint32_t));
	return sv;
}

int survey_add_group(struct survey *sv, const char *spec, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '=');
	if (!eq || eq == spec || !eq[1]) {
		snprintf(err, errlen, "expected KEY=REGEX");
		return -EINVAL;
	}
	if (sv->ngroups >= SURVEY_MAX_GROUPS) {
		snprintf(err, errlen, "at most %d grouping keys", SURVEY_MAX_GROUPS);
		return -EINVAL;
	}
	int ec;
	PCRE2_SIZE off;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)eq + 1, PCRE2_ZERO_TERMINATED, PCRE2_MULTILINE,
				      &ec, &off, NULL);
	if (!c) {
		PCRE2_UCHAR msg[120];
		pcre2_get_error_message(ec, msg, sizeof(msg));
		snprintf(err, errlen, "%s at offset %zu", (char *)msg, (size_t)off);
		return -EINVAL;
	}
	(void)pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);
	struct survey_group *g = &sv->groups[sv->ngroups++];
	g->name = xstrndup(spec, (size_t)(eq - spec));
	g->pattern = xstrdup(eq + 1);
	g->code = c;
	return 0;
}

void survey_set_since(struct survey *sv, int64_t t)
{
	sv->has_since = true;
	sv->since = t;
}

/* First capture (or the whole match) of group g in s, or NULL. */
static char *group_value(struct survey *sv, size_t g, const char *s, size_t n)
{
	if (pcre2_match(sv->groups[g].code, (PCRE2_SPTR)s, n, 0, 0, sv->md, NULL) < 0)
		return NULL;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(sv->md);
	uint32_t cnt = pcre2_get_ovector_count(sv->md);
	size_t a = ov[0], e = ov[1];
	for (uint32_t k = 1; k < cnt; k++)
		if (ov[2 * k] != PCRE2_UNSET) {
			a = ov[2 * k];
			e = ov[2 * k + 1];
			break;
		}
	if (e - a > 100)
		e = a + 100;
	char *v = xstrndup(s + a, e - a);
	for (char *p = v; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	return v;
}

static int on_block(void *ctx, const char *block, size_t len, bool first)
{
	struct survey *sv = ctx;
	if (first) {
		size_t h = len < SURVEY_HEADER_BYTES ? len : SURVEY_HEADER_BYTES;
		int64_t t;
		if (timestamp_find(block, h, &t)) {
			sv->cur_time = t;
			sv->cur_has_time = true;
		} else {
			sv->cur_time = sv->cur_mtime;
		}
		if (sv->has_since && sv->cur_time < sv->since) {
			sv->cur_skip = true;
			return 1;
		}
		for (size_t g = 0; g < sv->ngroups; g++)
			if (!sv->cur_groups[g])
				sv->cur_groups[g] = group_value(sv, g, block, h);
	}
	extractor_scan_block(sv->scan, block, len);
	return 0;
}

static void add_error(struct survey *sv, const char *path, const char *why,
		      void (*warn)(const char *line))
{
	char *line = xasprintf("%s: %s", path, why);
	sv->unreadable++;
	if (warn)
		warn(line);
	if (sv->errors.nr < 1000)
		strvec_push_nodup(&sv->errors, line);
	else
		free(line);
}

static uint32_t id_hash(const char *id)
{
	return (uint32_t)strtoul(id, NULL, 16);
}

static struct survey_sig *sig_find(struct survey *sv, const struct extractor_hit *h)
{
	size_t mask = sv->index_size - 1;
	for (size_t i = id_hash(h->id) & mask;; i = (i + 1) & mask) {
		uint32_t k = sv->index[i];
		if (!k)
			break;
		if (!memcmp(sv->sigs[k - 1].id, h->id, 9))
			return &sv->sigs[k - 1];
	}
	if (sv->nsigs >= SURVEY_MAX_SIGS)
		return NULL;
	if ((sv->nsigs + 1) * 2 > sv->index_size) {
		size_t size = sv->index_size * 2;
		uint32_t *ix = xcalloc(size, sizeof(uint32_t));
		for (size_t s = 0; s < sv->nsigs; s++)
			for (size_t i = id_hash(sv->sigs[s].id) & (size - 1);; i = (i + 1) & (size - 1))
				if (!ix[i]) {
					ix[i] = (uint32_t)s + 1;
					break;
				}
		free(sv->index);
		sv->index = ix;
		sv->index_size = size;
		mask = size - 1;
	}
	ALLOC_GROW(sv->sigs, sv->nsigs + 1, sv->sigs_alloc);
	struct survey_sig *s = &sv->sigs[sv->nsigs];
	memset(s, 0, sizeof(*s));
	memcpy(s->id, h->id, 9);
	snprintf(s->kind, sizeof(s->kind), "%s", h->kind);
	s->extractor = xstrdup(h->extractor);
	s->key = xstrdup(h->key);
	s->key_line = xstrdup(h->key_line ? h->key_line : "");
	for (size_t i = 0; i < h->frames.nr; i++)
		strvec_push(&s->frames, h->frames.v[i]);
	for (size_t i = id_hash(h->id) & mask;; i = (i + 1) & mask)
		if (!sv->index[i]) {
			sv->index[i] = (uint32_t)sv->nsigs + 1;
			break;
		}
	sv->nsigs++;
	return s;
}

static struct survey_day *day_get(struct survey *sv, int64_t day)
{
	for (size_t i = sv->ndays; i > 0; i--)
		if (sv->days[i - 1].day == day)
			return &sv->days[i - 1];
	ALLOC_GROW(sv->days, sv->ndays + 1, sv->days_alloc);
	struct survey_day *d = &sv->days[sv->ndays++];
	memset(d, 0, sizeof(*d));
	d->day = day;
	return d;
}

static void survey_file(struct survey *sv, const char *path, void (*warn)(const char *line))
{
	struct extractor_scan *sc = sv->scan;
	struct logscan *ls = sv->ls;
	struct logscan_info info;
	extractor_scan_reset(sc);
	sv->cur_path = path;
	sv->cur_has_time = false;
	sv->cur_skip = false;
	sv->cur_time = 0;
	for (size_t g = 0; g < sv->ngroups; g++)
		sv->cur_groups[g] = group_value(sv, g, path, strlen(path));
	/* The mtime is known before reading: --since may skip on it too. */
	struct stat st;
	sv->cur_mtime = stat(path, &st) == 0 ? (int64_t)st.st_mtim.tv_sec : 0;
	int rc = logscan_file(ls, path, on_block, sv, &info);
	if (rc == 0 && info.bytes == 0) {
		/* an empty log: no block was seen */
		sv->cur_time = info.mtime;
		if (sv->has_since && sv->cur_time < sv->since)
			sv->cur_skip = true;
	}
	if (rc < 0) {
		add_error(sv, path, ls->err[0] ? ls->err : rc == -EINVAL ? "not a regular file" : strerror(-rc), warn);
	} else if (sv->cur_skip) {
		sv->before_since++;
	} else {
		extractor_scan_end(sc);
		int64_t t = sv->cur_time;
		char day[16];
		timestamp_day_str(timestamp_day(t), day);
		sv->logs++;
		sv->bytes += info.bytes;
		if (sv->logs == 1 || t < sv->first)
			sv->first = t;
		if (sv->logs == 1 || t > sv->last)
			sv->last = t;
		struct survey_day *d = day_get(sv, timestamp_day(t));
		d->logs++;
		for (size_t g = 0; g < sv->ngroups; g++)
			survey_counter_add(&sv->all_groups[g], sv->cur_groups[g] ? sv->cur_groups[g] : "-", 1);
		const struct extractor_hit *primary = extractor_scan_primary(sc);
		if (!primary) {
			sv->none++;
			d->none++;
			for (size_t g = 0; g < sv->ngroups; g++)
				survey_counter_add(&sv->none_groups[g], sv->cur_groups[g] ? sv->cur_groups[g] : "-", 1);
			if (sv->none_examples.nr < SURVEY_EXAMPLES)
				strvec_push(&sv->none_examples, path);
		} else {
			sv->failed++;
			d->failed++;
		}
		for (size_t i = 0; i < sc->nhits; i++) {
			const struct extractor_hit *h = &sc->hits[i];
			if (!extractor_hit_counts(sc, h))
				continue;
			struct survey_sig *s = sig_find(sv, h);
			if (!s) {
				sv->dropped_sigs++;
				continue;
			}
			s->logs++;
			s->occurrences += h->count;
			if (h == primary)
				s->primary++;
			if (s->logs == 1 || t < s->first)
				s->first = t;
			if (s->logs == 1 || t > s->last)
				s->last = t;
			if (s->examples.nr < SURVEY_EXAMPLES)
				strvec_push(&s->examples, path);
			for (size_t k = 0; k < h->tests.nr; k++)
				survey_counter_add(&s->tests, h->tests.v[k], 1);
			counter_add_cap(&s->days, day, 1, SURVEY_MAX_DAYS);
			for (size_t g = 0; g < sv->ngroups; g++)
				survey_counter_add(&s->groups[g], sv->cur_groups[g] ? sv->cur_groups[g] : "-", 1);
		}
	}
	for (size_t g = 0; g < sv->ngroups; g++) {
		free(sv->cur_groups[g]);
		sv->cur_groups[g] = NULL;
	}
}

struct walk_ctx {
	struct survey *sv;
	void (*warn)(const char *line);
};

static void walk_file(void *ctx, const char *path)
{
	struct walk_ctx *w = ctx;
	survey_file(w->sv, path, w->warn);
}

static void walk_err(void *ctx, const char *path, int err)
{
	struct walk_ctx *w = ctx;
	const char *why = err == -EINVAL ? "not a regular file" : strerror(-err);
	add_error(w->sv, path, why, w->warn);
}

void survey_path(struct survey *sv, const char *path, void (*warn)(const char *line))
{
	struct walk_ctx w = { .sv = sv, .warn = warn };
	logscan_walk(path, walk_file, walk_err, &w);
}

static int cmp_sig(const void *a, const void *b)
{
	const struct survey_sig *x = *(struct survey_sig *const *)a;
	const struct survey_sig *y = *(struct survey_sig *const *)b;
	if (x->logs != y->logs)
		return x->logs > y->logs ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return strcmp(x->id, y->id);
}

struct survey_sig **survey_sorted(const struct survey *sv, size_t *n)
{
	struct survey_sig **v = xcalloc(sv->nsigs + 1, sizeof(*v));
	for (size_t i = 0; i < sv->nsigs; i++)
		v[i] = &sv->sigs[i];
	qsort(v, sv->nsigs, sizeof(*v), cmp_sig);
	*n = sv->nsigs;
	return v;
}

void survey_free(struct survey *sv)
{
	if (!sv)
		return;
	for (size_t i = 0; i < sv->nsigs; i++) {
		struct survey_sig *s = &sv->sigs[i];
		free(s->extractor);
		free(s->key);
		free(s->key_line);
		strvec_release(&s->frames);
		strvec_release(&s->examples);
		counter_release(&s->tests);
		counter_release(&s->days);
		for (size_t g = 0; g < SURVEY_MAX_GROUPS; g++)
			counter_release(&s->groups[g]);
	}
	free(sv->sigs);
	free(sv->index);
	free(sv->days);
	for (size_t g = 0; g < sv->ngroups; g++) {
		free(sv->groups[g].name);
		free(sv->groups[g].pattern);
		pcre2_code_free(sv->groups[g].code);
		counter_release(&sv->none_groups[g]);
		counter_release(&sv->all_groups[g]);
	}
	strvec_release(&sv->none_examples);
	strvec_release(&sv->errors);
	extractor_scan_release(sv->scan);
	free(sv->scan);
	logscan_release(sv->ls);
	free(sv->ls);
	pcre2_match_data_free(sv->md);
	free(sv);
}
