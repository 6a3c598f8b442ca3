/*
 * replay.c: load a recorded run's configuration (see replay.h). runs.jsonl
 * is read with cJSON; the last record of the run index wins (a resumed or
 * merged file may hold several series, and the newest is what the user
 * just looked at). Unknown members are ignored, as docs/FORMAT.md promises.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/replay.h"
#include "run/series.h"
#include "util/jsonr.h"
#include "util/parse.h"
#include "util/xalloc.h"
#include "util/banned.h"

int replay_config_read(const cJSON *cfg, struct replay_config *c, char *why, size_t whylen)
{
	const char *s;

	memset(c, 0, sizeof(*c));
	snprintf(c->arm, sizeof(c->arm), "%s", (s = jsonr_str(cfg, "arm")) ? s : "");
	if ((s = jsonr_str(cfg, "chaos")) && chaos_mode_parse(s, &c->k.chaos) < 0) {
		snprintf(why, whylen, "chaos mode '%.40s' is unknown", s);
		return -EINVAL;
	}
	/* a run's own set only when it had one (cpus_via none: all CPUs) */
	s = jsonr_str(cfg, "cpus_via");
	if ((!s || strcmp(s, "none")) && jsonr_str(cfg, "cpus"))
		snprintf(c->cpus, sizeof(c->cpus), "%s", jsonr_str(cfg, "cpus"));
	snprintf(c->noise, sizeof(c->noise), "%s", (s = jsonr_str(cfg, "noise")) ? s : "");
	c->quota = jsonr_num(cfg, "cpu_quota", 0);
	c->k.intensity = (int)jsonr_num(cfg, "level", 1);
	c->k.sync_prob = jsonr_num(cfg, "sync_prob", 0);
	c->k.sync_max_us = (int)jsonr_num(cfg, "sync_max_us", 0);
	c->k.sync_budget_us = (int)jsonr_num(cfg, "sync_budget_us", 0);
	c->k.steps = (int)jsonr_num(cfg, "steps", 0);
	c->k.step_threads = (int)jsonr_num(cfg, "step_threads", 0);
	c->k.span_ms = (int)jsonr_num(cfg, "span_ms", 0);
	c->jobs = jsonr_num(cfg, "jobs", 0);
	return 0;
}

static int apply(struct pressure_opts *po, const cJSON *run, unsigned *jobs, char *why, size_t whylen)
{
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(run, "config");
	const char *seed = jsonr_str(run, "seed"), *s;
	struct pconfig *c = &po->replay_cfg;
	char reason[256];

	if (!seed || parse_seed(seed, &po->replay_seed) < 0) {
		snprintf(why, whylen, "--replay: the record of run %" PRIu64 " has no valid seed", po->replay_run);
		return -EINVAL;
	}
	memset(c, 0, sizeof(*c));
	snprintf(po->replay_arm, sizeof(po->replay_arm), "replay");
	c->name = po->replay_arm;
	*jobs = 0;
	if (!cJSON_IsObject(cfg) || !cfg->child)
		return 0; /* recorded without pressure: replay the seed alone */
	struct replay_config rc;
	if (replay_config_read(cfg, &rc, reason, sizeof(reason)) < 0) {
		snprintf(why, whylen, "--replay: the recorded %s", reason);
		return -EINVAL;
	}
	*c = rc.k;
	c->name = po->replay_arm;
	if (rc.arm[0])
		snprintf(po->replay_arm, sizeof(po->replay_arm), "%s", rc.arm);
	if (rc.cpus[0])
		snprintf(po->replay_cpus, sizeof(po->replay_cpus), "%s", rc.cpus);
	po->quota = rc.quota;
	if (rc.noise[0]) {
		if (noise_parse(rc.noise, &po->noise, reason, sizeof(reason)) < 0) {
			snprintf(why, whylen, "--replay: the recorded noise '%s': %s", rc.noise, reason);
			return -EINVAL;
		}
		po->noise_set = true;
		c->noise = true;
	}
	po->intensity = c->intensity;
	*jobs = (unsigned)rc.jobs;
	/* a run of jostle localize: its plan file and site mask */
	if ((s = jsonr_str(cfg, "sites"))) {
		const char *mask = jsonr_str(cfg, "site_mask");
		if (strlen(s) >= sizeof(po->replay_sites) || (mask && strlen(mask) >= sizeof(po->replay_mask))) {
			snprintf(why, whylen, "--replay: the recorded site plan of run %" PRIu64 " is too long", po->replay_run);
			return -EINVAL;
		}
		if (access(s, R_OK) < 0) {
			snprintf(why, whylen, "--replay: run %" PRIu64 " delayed at the sites of '%.300s', "
				 "which cannot be read: %s", po->replay_run, s, strerror(errno));
			return -ENOENT;
		}
		snprintf(po->replay_sites, sizeof(po->replay_sites), "%s", s);
		snprintf(po->replay_mask, sizeof(po->replay_mask), "%s", mask ? mask : "");
	}
	return 0;
}

int replay_load(struct pressure_opts *po, const char *spec, unsigned *jobs,
		char *why, size_t whylen)
{
	const char *colon = strrchr(spec, ':');
	char *dir, *path, *line = NULL;
	size_t cap = 0;
	cJSON *found = NULL;
	FILE *f;
	int rc;

	if (!colon || colon == spec || parse_u64(colon + 1, 0, UINT64_MAX, &po->replay_run) < 0) {
		snprintf(why, whylen, "--replay '%.200s' is not DIR:RUN; expected e.g. jostle-out/x:17", spec);
		return -EINVAL;
	}
	dir = xstrndup(spec, (size_t)(colon - spec));
	path = xasprintf("%s/runs.jsonl", dir);
	f = fopen(path, "re");
	if (!f) {
		snprintf(why, whylen, "--replay: cannot read '%.200s': %s", path, strerror(errno));
		free(dir);
		free(path);
		return -ENOENT;
	}
	while (getline(&line, &cap, f) > 0) {
		cJSON *o = cJSON_Parse(line);
		const cJSON *run = o ? cJSON_GetObjectItemCaseSensitive(o, "run") : NULL;
		const char *type = o ? jsonr_str(o, "type") : NULL;

		if (type && !strcmp(type, "run") && cJSON_IsNumber(run) &&
		    (uint64_t)run->valuedouble == po->replay_run) {
			cJSON_Delete(found);
			found = o;
			continue;
		}
		cJSON_Delete(o);
	}
	free(line);
	fclose(f);
	if (!found) {
		snprintf(why, whylen, "--replay: '%.200s' has no run %" PRIu64, path, po->replay_run);
		rc = -ENOENT;
	} else {
		rc = apply(po, found, jobs, why, whylen);
	}
	cJSON_Delete(found);
	free(dir);
	free(path);
	if (rc == 0) {
		po->replay = true;
		po->any = true;
	}
	return rc;
}

/* The last non-empty line of a file (the engine's last word), into buf. */
static void last_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;

	buf[0] = '\0';
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0)
		if (line[0] != '\n')
			snprintf(buf, len, "%.*s", (int)strcspn(line, "\n"), line);
	free(line);
	fclose(f);
}

int replay_series(struct run_opts *o, const char *log, char *last, size_t lastlen)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	int saved = dup(2);

	fflush(stderr);
	if (fd >= 0 && saved >= 0)
		dup2(fd, 2);
	int status = series_run(o);
	fflush(stderr);
	if (fd >= 0 && saved >= 0)
		dup2(saved, 2);
	if (saved >= 0)
		close(saved);
	if (fd >= 0)
		close(fd);
	if (lastlen)
		last[0] = '\0';
	if ((status == 2 || status == 3) && lastlen)
		last_line(log, last, lastlen);
	return status;
}
