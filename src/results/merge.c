/*
 * merge.c: concatenate results directories (see merge.h).
 *
 * Lines are copied byte for byte unless a file path in them must change;
 * then the object is re-serialized by cJSON. A path from a record is only
 * followed when it stays inside its directory (no "..", not absolute, no
 * symbolic link at the end).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>

#include "results/merge.h"
#include "results/results.h"
#include "results/shards.h"
#include "util/parse.h"
#include "util/path.h"
#include "util/rng.h"
#include "util/strvec.h"
#include "util/xalloc.h"
#include "util/banned.h"

static int copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (in < 0)
		return -errno;
	int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0) {
		int e = -errno;
		close(in);
		return e;
	}
	char buf[65536];
	int err = 0;
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				err = -errno;
			break;
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				err = -errno;
				break;
			}
			off += w;
		}
		if (err)
			break;
	}
	close(in);
	if (close(out) < 0 && !err)
		err = -errno;
	return err;
}

/* Copy DIR/REL to OUT/SUB/D-BASENAME; the new relative path, or NULL. */
static char *copy_ref(const char *dir, const char *rel, const char *out, const char *sub,
		      size_t d, struct merge_stats *st)
{
	char *from = path_join_inside(dir, rel);
	if (!from) {
		st->missing_files++;
		return NULL;
	}
	const char *base = strrchr(rel, '/');
	base = base ? base + 1 : rel;
	char *nrel = xasprintf("%s/%zu-%s", sub, d, base);
	char *to = path_join(out, nrel);
	int err = copy_file(from, to);
	if (err == -EEXIST)
		err = 0;   /* the same file referenced twice */
	else if (!err)
		st->files++;
	free(from);
	free(to);
	if (err) {
		st->missing_files++;
		free(nrel);
		return NULL;
	}
	return nrel;
}

static bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return false;
	struct dirent *e;
	bool empty = true;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The runs with a DIR/stacks/RUN.txt, sorted: one readdir instead of an
 * access() per run (a tenth of a merge's time on 100,000 runs). */
static uint64_t *stack_files(const char *dir, size_t *n)
{
	char *path = path_join(dir, "stacks");
	DIR *d = opendir(path);
	free(path);
	uint64_t *v = NULL;
	size_t alloc = 0;
	*n = 0;
	if (!d)
		return NULL;
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *dot = strrchr(e->d_name, '.');
		char num[32];
		uint64_t run;
		if (!dot || strcmp(dot, ".txt") || dot == e->d_name ||
		    (size_t)(dot - e->d_name) >= sizeof(num))
			continue;
		memcpy(num, e->d_name, (size_t)(dot - e->d_name));
		num[dot - e->d_name] = '\0';
		if (parse_u64(num, 0, INT64_MAX, &run) < 0)
			continue;
		ALLOC_GROW(v, *n + 1, alloc);
		v[(*n)++] = run;
	}
	closedir(d);
	if (*n > 1)
		qsort(v, *n, sizeof(*v), cmp_u64);
	return v;
}

/* DIR/runs.jsonl opened for reading, or NULL with -errno in *rc and the
 * path in err. */
static FILE *open_runs(const char *dir, int *rc, char *err, size_t errlen)
{
	char *path = path_join(dir, "runs.jsonl");
	FILE *f = fopen(path, "re");
	*rc = f ? 0 : -errno;
	if (!f)
		snprintf(err, errlen, "%s", path);
	free(path);
	return f;
}

static void set_str(cJSON *o, const char *key, const char *val)
{
	cJSON_DeleteItemFromObjectCaseSensitive(o, key);
	cJSON_AddStringToObject(o, key, val);
}

/* ---- pass 1: the series lines of every input (issue 17) ----------- */

/* What pass 2 checks on each run of a shard: i mod N == K and its seed. */
struct shard_ref {
	char id[40];
	uint64_t index, count, master;
};

struct plan_check {
	struct results series;      /* the series lines only, for shards_check() */
	struct shard_ref *refs;
	size_t refs_nr, refs_alloc;
	const struct shard_ref *last;
	uint64_t *dir_series;       /* per input: its number of series lines */
	bool *skip;                 /* per input: it has no runs.jsonl */
};

static void plan_release(struct plan_check *p)
{
	results_release(&p->series);
	free(p->refs);
	free(p->dir_series);
	free(p->skip);
}

/* A run of a shard must be one of its indices, with the seed of the
 * master seed: false (and the reason) when it is not. */
static bool plan_run_ok(struct plan_check *p, const cJSON *o, const char *dir,
			char *why, size_t whylen)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "series");
	if (!p->refs_nr || !cJSON_IsString(id))
		return true;
	if (!p->last || strcmp(p->last->id, id->valuestring)) {
		p->last = NULL;
		for (size_t i = 0; i < p->refs_nr && !p->last; i++)
			if (!strcmp(p->refs[i].id, id->valuestring))
				p->last = &p->refs[i];
		if (!p->last)
			return true;
	}
	const struct shard_ref *ref = p->last;
	const cJSON *run = cJSON_GetObjectItemCaseSensitive(o, "run");
	const cJSON *seed = cJSON_GetObjectItemCaseSensitive(o, "seed");
	uint64_t s;
	if (!cJSON_IsNumber(run) || run->valuedouble < 0 || !cJSON_IsString(seed) ||
	    parse_seed(seed->valuestring, &s) < 0)
		return true;   /* not a run this check can place; reports skip it too */
	uint64_t i = (uint64_t)run->valuedouble;
	if (i % ref->count != ref->index) {
		snprintf(why, whylen, "'%s': run %" PRIu64 " is not in shard %" PRIu64 "/%" PRIu64
			 " (%" PRIu64 " mod %" PRIu64 " = %" PRIu64 ")", dir, i, ref->index, ref->count,
			 i, ref->count, i % ref->count);
		return false;
	}
	if (s != rng_run_seed(ref->master, i)) {
		snprintf(why, whylen, "'%s': run %" PRIu64 " has seed 0x%016" PRIx64 ", not the seed "
			 "the master seed 0x%016" PRIx64 " gives it", dir, i, s, ref->master);
		return false;
	}
	return true;
}

/* Read the series lines of every input; 0, or -errno / -EINVAL with the
 * reason in err (a path, or the sentence of shards_check). */
static int plan_read(struct plan_check *p, const char *const *dirs, size_t n,
		     struct merge_stats *st, char *err, size_t errlen)
{
	results_init(&p->series);
	p->dir_series = xcalloc(n + 1, sizeof(*p->dir_series));
	p->skip = xcalloc(n + 1, sizeof(*p->skip));
	struct strvec seen = STRVEC_INIT;
	struct strvec seen_dir = STRVEC_INIT;
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	for (size_t d = 0; d < n && !rc; d++) {
		strvec_push(&p->series.dirs, dirs[d]);
		struct stat sb;
		if (stat(dirs[d], &sb) < 0 || !S_ISDIR(sb.st_mode)) {
			rc = stat(dirs[d], &sb) < 0 ? -errno : -ENOTDIR;
			snprintf(err, errlen, "%s", dirs[d]);
			break;
		}
		FILE *f = open_runs(dirs[d], &rc, err, errlen);
		if (!f && rc == -ENOENT) {
			/* a shard that never started: tolerated, reported */
			p->skip[d] = true;
			st->skipped++;
			rc = 0;
			continue;
		}
		if (!f)
			break;
		ssize_t len;
		bool cut;
		uint64_t lines = 0, records = 0;
		while (!rc && (len = results_next_line(f, &line, &cap, &cut)) >= 0) {
			if (cut)
				continue;   /* never a run nor a series (results_next_line); what
					     * a killed writer leaves is no reason to refuse */
			lines++;
			/* cheap: pass 2 parses every line; this only tells a runs.jsonl
			 * from a file of something else */
			records += strstr(line, "\"type\":\"run\"") || strstr(line, "\"type\":\"end\"") ||
				   strstr(line, "\"type\":\"series\"");
			if (!strstr(line, "\"type\":\"series\"")) {
				if (p->refs_nr && strstr(line, "\"type\":\"run\"")) {
					cJSON *o = results_parse_line(line, (size_t)len);
					if (o && !plan_run_ok(p, o, dirs[d], err, errlen))
						rc = -EINVAL;
					cJSON_Delete(o);
				}
				continue;
			}
			cJSON *o = results_parse_line(line, (size_t)len);
			const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "series");
			const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");
			if (!cJSON_IsString(type) || strcmp(type->valuestring, "series")) {
				cJSON_Delete(o);
				continue;
			}
			p->dir_series[d]++;
			const cJSON *shard = cJSON_GetObjectItemCaseSensitive(o, "shard");
			if (cJSON_IsString(id)) {
				size_t i;
				for (i = 0; i < seen.nr && strcmp(seen.v[i], id->valuestring); i++)
					;
				if (i < seen.nr && shard) {
					snprintf(err, errlen, "the same shard (series %.40s) is both in '%s' "
						 "and in '%s'; its runs would count twice: merge one of them",
						 id->valuestring, seen_dir.v[i], dirs[d]);
					rc = -EINVAL;
				} else if (i == seen.nr) {
					strvec_push(&seen, id->valuestring);
					strvec_push(&seen_dir, dirs[d]);
				}
			}
			const cJSON *seed = cJSON_GetObjectItemCaseSensitive(o, "seed");
			double k = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(shard, "index"));
			double c = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(shard, "count"));
			uint64_t master;
			if (!rc && cJSON_IsString(id) && cJSON_IsString(seed) && c >= 1 && k >= 0 &&
			    k < c && parse_seed(seed->valuestring, &master) == 0) {
				ALLOC_GROW(p->refs, p->refs_nr + 1, p->refs_alloc);
				struct shard_ref *ref = &p->refs[p->refs_nr++];
				snprintf(ref->id, sizeof(ref->id), "%s", id->valuestring);
				ref->index = (uint64_t)k;
				ref->count = (uint64_t)c;
				ref->master = master;
			}
			results_add_json(&p->series, o, d);
			cJSON_Delete(o);
		}
		fclose(f);
		if (!rc && lines && !records) {
			snprintf(err, errlen, "'%s/runs.jsonl' holds no jostle records (%" PRIu64
				 " line%s, none a series or run); is '%s' a directory written by "
				 "jostle run?", dirs[d], lines, lines == 1 ? "" : "s", dirs[d]);
			rc = -EINVAL;
		}
	}
	if (!rc && n && st->skipped == n) {
		if (n == 1)
			snprintf(err, errlen, "'%s' holds no runs.jsonl; give directories written "
				 "by jostle run", dirs[0]);
		else
			snprintf(err, errlen, "none of the %zu directories holds runs.jsonl; give "
				 "directories written by jostle run", n);
		rc = -EINVAL;
	}
	free(line);
	strvec_release(&seen);
	strvec_release(&seen_dir);
	if (!rc && shards_check(&p->series, err, errlen) < 0)
		rc = -EINVAL;
	return rc;
}

int merge_dirs(const char *const *dirs, size_t n, const char *out, struct merge_stats *st,
	       char *err, size_t errlen)
{
	memset(st, 0, sizeof(*st));
	struct plan_check plan;
	memset(&plan, 0, sizeof(plan));
	int rc = plan_read(&plan, dirs, n, st, err, errlen);
	if (rc < 0) {
		plan_release(&plan);
		return rc;
	}
	if (mkdir(out, 0755) < 0 && !(errno == EEXIST && dir_empty(out))) {
		int e = errno == EEXIST ? -ENOTEMPTY : -errno;
		snprintf(err, errlen, "%s", out);
		plan_release(&plan);
		return e;
	}
	char *logs = path_join(out, "logs"), *stacks = path_join(out, "stacks");
	char *runs = path_join(out, "runs.jsonl");
	FILE *w = NULL;
	if ((mkdir(logs, 0755) < 0 && errno != EEXIST) || (mkdir(stacks, 0755) < 0 && errno != EEXIST) ||
	    !(w = fopen(runs, "we"))) {
		rc = -errno;
		snprintf(err, errlen, "%s", runs);
		goto done;
	}
	struct strvec seen = STRVEC_INIT;
	for (size_t d = 0; d < n && !rc; d++) {
		if (plan.skip[d])
			continue;
		FILE *f = open_runs(dirs[d], &rc, err, errlen);
		if (!f)
			break;
		/* series of this input alone: a run's stacks default to stacks/RUN.txt
		 * only where the run index names one run */
		char *line = NULL;
		size_t cap = 0;
		ssize_t len;
		uint64_t dir_series = plan.dir_series[d];
		size_t nstk = 0;
		uint64_t *stk_runs = dir_series <= 1 ? stack_files(dirs[d], &nstk) : NULL;
		bool cut;
		while (!rc && (len = results_next_line(f, &line, &cap, &cut)) >= 0) {
			cJSON *o = cut ? NULL : results_parse_line(line, (size_t)len);
			const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");
			if (!o || !cJSON_IsString(type)) {
				st->bad_lines++;
				st->cut_lines += cut;
				cJSON_Delete(o);
				continue;
			}
			bool changed = false;
			if (!strcmp(type->valuestring, "series")) {
				st->series++;
				const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "series");
				if (cJSON_IsString(id)) {
					size_t i;
					for (i = 0; i < seen.nr && strcmp(seen.v[i], id->valuestring); i++)
						;
					if (i < seen.nr)
						st->dup_series++;
					else
						strvec_push(&seen, id->valuestring);
				}
			} else if (!strcmp(type->valuestring, "run")) {
				st->runs++;
				const cJSON *log = cJSON_GetObjectItemCaseSensitive(o, "log");
				const cJSON *stk = cJSON_GetObjectItemCaseSensitive(o, "stacks");
				const cJSON *run = cJSON_GetObjectItemCaseSensitive(o, "run");
				if (cJSON_IsString(log)) {
					char *nrel = copy_ref(dirs[d], log->valuestring, out, "logs", d, st);
					if (nrel)
						set_str(o, "log", nrel);
					else
						cJSON_ReplaceItemInObjectCaseSensitive(o, "log", cJSON_CreateNull());
					free(nrel);
					changed = true;
				}
				char guess[64];
				const char *srel = cJSON_IsString(stk) ? stk->valuestring : NULL;
				uint64_t ri = cJSON_IsNumber(run) && run->valuedouble >= 0 ?
					      (uint64_t)run->valuedouble : UINT64_MAX;
				if (!srel && stk_runs && ri != UINT64_MAX &&
				    bsearch(&ri, stk_runs, nstk, sizeof(*stk_runs), cmp_u64)) {
					snprintf(guess, sizeof(guess), "stacks/%" PRIu64 ".txt", ri);
					srel = guess;
				}
				if (srel) {
					char *nrel = copy_ref(dirs[d], srel, out, "stacks", d, st);
					if (nrel)
						set_str(o, "stacks", nrel);
					else
						cJSON_DeleteItemFromObjectCaseSensitive(o, "stacks");
					free(nrel);
					changed = true;
				}
			}
			if (changed) {
				char *text = cJSON_PrintUnformatted(o);
				fprintf(w, "%s\n", text ? text : line);
				free(text);
			} else {
				fwrite(line, 1, (size_t)len, w);
				fputc('\n', w);
			}
			cJSON_Delete(o);
		}
		free(line);
		free(stk_runs);
		fclose(f);
	}
	strvec_release(&seen);
	if (fflush(w) != 0 && !rc) {
		rc = -errno;
		snprintf(err, errlen, "%s", runs);
	}
	if (fclose(w) != 0 && !rc) {
		rc = -errno;
		snprintf(err, errlen, "%s", runs);
	}
done:
	plan_release(&plan);
	free(logs);
	free(stacks);
	free(runs);
	return rc;
}
