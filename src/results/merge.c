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
#include "util/path.h"
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

static void set_str(cJSON *o, const char *key, const char *val)
{
	cJSON_DeleteItemFromObjectCaseSensitive(o, key);
	cJSON_AddStringToObject(o, key, val);
}

int merge_dirs(const char *const *dirs, size_t n, const char *out, struct merge_stats *st,
	       char *err, size_t errlen)
{
	memset(st, 0, sizeof(*st));
	if (mkdir(out, 0755) < 0 && !(errno == EEXIST && dir_empty(out))) {
		int e = errno == EEXIST ? -ENOTEMPTY : -errno;
		snprintf(err, errlen, "%s", out);
		return e;
	}
	char *logs = path_join(out, "logs"), *stacks = path_join(out, "stacks");
	char *runs = path_join(out, "runs.jsonl");
	int rc = 0;
	FILE *w = NULL;
	if ((mkdir(logs, 0755) < 0 && errno != EEXIST) || (mkdir(stacks, 0755) < 0 && errno != EEXIST) ||
	    !(w = fopen(runs, "we"))) {
		rc = -errno;
		snprintf(err, errlen, "%s", runs);
		goto done;
	}
	struct strvec seen = STRVEC_INIT;
	for (size_t d = 0; d < n && !rc; d++) {
		char *path = path_join(dirs[d], "runs.jsonl");
		FILE *f = fopen(path, "re");
		if (!f) {
			rc = -errno;
			snprintf(err, errlen, "%s", path);
			free(path);
			break;
		}
		free(path);
		/* series of this input alone: a run's stacks default to stacks/RUN.txt
		 * only where the run index names one run */
		char *line = NULL;
		size_t cap = 0;
		ssize_t len;
		uint64_t dir_series = 0;
		long start = ftell(f);
		while ((len = getline(&line, &cap, f)) >= 0)
			if (strstr(line, "\"series\"") && strstr(line, "\"type\":\"series\""))
				dir_series++;
		fseek(f, start, SEEK_SET);
		while ((len = getline(&line, &cap, f)) >= 0) {
			while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
				line[--len] = '\0';
			if (!len)
				continue;
			cJSON *o = cJSON_ParseWithLength(line, (size_t)len);
			const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");
			if (!cJSON_IsObject(o) || !cJSON_IsString(type)) {
				st->bad_lines++;
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
				if (!srel && dir_series <= 1 && cJSON_IsNumber(run)) {
					snprintf(guess, sizeof(guess), "stacks/%" PRId64 ".txt",
						 (int64_t)run->valuedouble);
					char *p = path_join(dirs[d], guess);
					if (access(p, R_OK) == 0)
						srel = guess;
					free(p);
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
				fprintf(w, "%s\n", line);
			}
			cJSON_Delete(o);
		}
		free(line);
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
	free(logs);
	free(stacks);
	free(runs);
	return rc;
}
