/*
 * slice.c: a series in this process and its runs read back (see slice.h).
 * The engine's terminal output (its summary, warnings) goes to the
 * series' engine.log so that the terminal keeps reproduce's own lines.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reproduce/slice.h"
#include "run/replay.h"
#include "run/series.h"
#include "util/clock.h"
#include "util/jsonr.h"
#include "util/xalloc.h"
#include "util/banned.h"

int slice_run(struct run_opts *o, struct slice *s)
{
	char *log = xasprintf("%s/engine.log", o->out_dir), line[512];
	int64_t t0 = clock_mono_ns();

	int status = replay_series(o, log, line, sizeof(line));
	s->secs += (double)(clock_mono_ns() - t0) / 1e9;
	if (status == 2 || status == 3)
		fprintf(stderr, "jostle: reproduce: a series could not run: %s (see %s)\n",
			line[0] ? line : "no message", log);
	free(log);
	return status;
}

static struct slice_arm *arm_of(struct slice_arm **arms, size_t *n, size_t *alloc, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*arms)[i].name, name))
			return &(*arms)[i];
	ALLOC_GROW(*arms, *n + 1, *alloc);
	struct slice_arm *a = &(*arms)[(*n)++];
	memset(a, 0, sizeof(*a));
	snprintf(a->name, sizeof(a->name), "%s", name);
	return a;
}

int slice_read(const char *dir, uint64_t from, struct slice *s, struct slice_arm **arms, size_t *narms)
{
	char *path = xasprintf("%s/runs.jsonl", dir);
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0, alloc = 0;

	free(path);
	s->runs = s->fails = 0;
	if (arms) {
		*arms = NULL;
		*narms = 0;
	}
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		cJSON *o = cJSON_Parse(line);
		const char *type = o ? jsonr_str(o, "type") : NULL, *out = o ? jsonr_str(o, "outcome") : NULL;
		const cJSON *run = o ? cJSON_GetObjectItemCaseSensitive(o, "run") : NULL;
		if (!type || strcmp(type, "run") || !out || !cJSON_IsNumber(run)) {
			cJSON_Delete(o);
			continue;
		}
		uint64_t idx = (uint64_t)run->valuedouble;
		if (idx + 1 > s->next_index)
			s->next_index = idx + 1;
		/* what a rate counts: not ignored, cut or slow runs */
		bool failed = !strcmp(out, "fail") || !strcmp(out, "crash") || !strcmp(out, "hang");
		if (idx < from || (!failed && strcmp(out, "pass"))) {
			cJSON_Delete(o);
			continue;
		}
		s->runs++;
		s->fails += failed;
		const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(o, "config");
		if (arms && cJSON_IsObject(cfg)) {
			const char *name = jsonr_str(cfg, "arm");
			struct slice_arm *a = arm_of(arms, narms, &alloc, name ? name : "");
			a->runs++;
			a->fails += failed;
			a->wall_s += jsonr_num(o, "wall_s", 0);
			if (jsonr_num(cfg, "jobs", 0) > 0)
				a->jobs = (unsigned)jsonr_num(cfg, "jobs", 0);
			if (failed || !a->has_fail) {
				free(a->config);
				a->config = cJSON_PrintUnformatted(cfg);
				a->has_fail |= failed;
			}
		}
		cJSON_Delete(o);
	}
	free(line);
	fclose(f);
	return 0;
}

void slice_arms_free(struct slice_arm *arms, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(arms[i].config);
	free(arms);
}
