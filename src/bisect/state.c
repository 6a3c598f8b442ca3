/*
 * state.c: bisect.json written and read (see state.h). Written with
 * jsonw (the project's writer), read with cJSON; unknown members are
 * ignored, so later versions may add to it.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect/state.h"
#include "util/dbuf.h"
#include "util/fileio.h"
#include "util/jsonr.h"
#include "util/jsonw.h"
#include "util/parse.h"
#include "util/path.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *const end_names[] = {
	[BE_RUNNING] = "running",
	[BE_FOUND] = "found",
	[BE_GOOD_FAILS] = "good fails too",
	[BE_SKIPPED] = "among skipped commits",
	[BE_BUDGET] = "not decisive",
	[BE_NEVER_FAILED] = "bad never failed",
	[BE_STUCK] = "not decisive",
	[BE_INTERRUPTED] = "interrupted",
	[BE_ERROR] = "error",
};

const char *bstate_end_name(enum bisect_end e)
{
	return end_names[e];
}

static void commit_json(struct dbuf *b, const struct bstate *s, size_t i)
{
	const struct bstate_commit *c = &s->c[i];
	dbuf_addc(b, '{');
	jsonw_kuint(b, "i", i);
	jsonw_kstr(b, "hash", s->repo->hash.v[i]);
	jsonw_kstr(b, "subject", s->repo->subject.v[i]);
	jsonw_kstr(b, "role", i == 0 ? "good" : i == s->repo->n ? "bad" : NULL);
	jsonw_kbool(b, "tested", c->tested);
	jsonw_kbool(b, "skipped", c->skipped);
	if (c->tested) {
		jsonw_kstr(b, "dir", c->dir);
		jsonw_kuint(b, "runs", c->runs);
		jsonw_kuint(b, "fails", c->fails);
		jsonw_kuint(b, "recorded_runs", c->all_runs);
		jsonw_kuint(b, "recorded_fails", c->all_fails);
	}
	jsonw_kdbl(b, "p", s->post.p[i]);
	dbuf_addc(b, '}');
}

int bstate_write(const struct bstate *s, const char *dir)
{
	struct dbuf b;
	char seed[24];
	const struct repo *r = s->repo;
	int rc;

	dbuf_init(&b, 1u << 30);
	snprintf(seed, sizeof(seed), "0x%016" PRIx64, s->seed);
	dbuf_addc(&b, '{');
	jsonw_kint(&b, "v", 1);
	jsonw_kstr(&b, "jostle", JOSTLE_VERSION);
	jsonw_kstrs(&b, "args", s->args, s->nargs);
	jsonw_kstr(&b, "repo", r->top);
	jsonw_kstr(&b, "good", r->hash.v[0]);
	jsonw_kstr(&b, "bad", r->hash.v[r->n]);
	jsonw_kstr(&b, "seed", seed);
	jsonw_kdbl(&b, "confidence", s->confidence);
	jsonw_kbool(&b, "any_failure", s->any_failure);
	jsonw_key(&b, "signature");
	if (s->sig_id) {
		dbuf_addc(&b, '{');
		jsonw_kstr(&b, "id", s->sig_id);
		jsonw_kstr(&b, "key_line", s->sig_key);
		dbuf_addc(&b, '}');
	} else {
		dbuf_adds(&b, "null");
	}
	jsonw_key(&b, "config");
	if (s->config_run >= 0) {
		dbuf_addc(&b, '{');
		jsonw_kstr(&b, "from", "learn");
		jsonw_kint(&b, "run", s->config_run);
		jsonw_kstr(&b, "arm", s->config_arm);
		dbuf_addc(&b, '}');
	} else {
		dbuf_adds(&b, "null");
	}
	jsonw_kstr(&b, "state", bstate_end_name(s->end));
	if (s->error)
		jsonw_kstr(&b, "error", s->error);
	jsonw_kuint(&b, "runs", s->runs_total);
	jsonw_kuint(&b, "learn_runs", s->learn_runs);
	jsonw_kdbl(&b, "elapsed_s", s->elapsed_s);
	jsonw_key(&b, "rates");
	dbuf_addc(&b, '{');
	jsonw_kdbl(&b, "before", s->post.b_mean);
	jsonw_kdbl(&b, "from_culprit", s->post.r_mean);
	dbuf_addc(&b, '}');
	jsonw_key(&b, "best");
	dbuf_addc(&b, '{');
	jsonw_kstr(&b, "first", r->hash.v[s->lo]);
	jsonw_kstr(&b, "last", r->hash.v[s->hi]);
	jsonw_kdbl(&b, "p", s->block_p);
	dbuf_addc(&b, '}');
	jsonw_key(&b, "culprit");
	if (s->end == BE_FOUND) {
		dbuf_addc(&b, '{');
		jsonw_kstr(&b, "hash", r->hash.v[s->hi]);
		jsonw_kstr(&b, "subject", r->subject.v[s->hi]);
		jsonw_kdbl(&b, "p", s->block_p);
		dbuf_addc(&b, '}');
	} else {
		dbuf_adds(&b, "null");
	}
	jsonw_key(&b, "commits");
	dbuf_addc(&b, '[');
	for (size_t i = 0; i <= r->n; i++) {
		if (i)
			dbuf_addc(&b, ',');
		commit_json(&b, s, i);
	}
	dbuf_adds(&b, "]}\n");

	char *tmp = path_join(dir, ".bisect.json.tmp"), *final = path_join(dir, "bisect.json");
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
	} else {
		rc = fileio_write_all(fd, b.buf, b.len);
		if (rc == 0 && fsync(fd) < 0)
			rc = -errno;
		if (close(fd) < 0 && rc == 0)
			rc = -errno;
		if (rc == 0 && rename(tmp, final) < 0)
			rc = -errno;
		if (rc < 0)
			unlink(tmp);
	}
	free(tmp);
	free(final);
	dbuf_release(&b);
	return rc;
}

int bstate_read(struct bstate_saved *sv, const char *dir, char *why, size_t whylen)
{
	char *path = path_join(dir, "bisect.json");
	FILE *f = fopen(path, "re");
	struct dbuf b;
	int rc = 0;

	memset(sv, 0, sizeof(*sv));
	sv->config_run = -1;
	if (!f) {
		rc = -errno;
		snprintf(why, whylen, "--resume '%.200s': cannot read '%.200s': %s", dir, path, strerror(-rc));
		free(path);
		return rc;
	}
	dbuf_init(&b, 1u << 30);
	char buf[65536];
	size_t got;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		(void)dbuf_add(&b, buf, got);
	fclose(f);
	cJSON *o = cJSON_Parse(dbuf_str(&b));
	dbuf_release(&b);
	const cJSON *args = o ? cJSON_GetObjectItemCaseSensitive(o, "args") : NULL;
	const char *seed = o ? jsonr_str(o, "seed") : NULL, *good = o ? jsonr_str(o, "good") : NULL,
		   *bad = o ? jsonr_str(o, "bad") : NULL;
	if (!o || !cJSON_IsArray(args) || !seed || !good || !bad || parse_seed(seed, &sv->seed) < 0) {
		snprintf(why, whylen, "--resume '%.200s': '%.200s' is not a bisection's state "
			 "(written by jostle bisect)", dir, path);
		cJSON_Delete(o);
		free(path);
		return -EINVAL;
	}
	free(path);
	const cJSON *a;
	cJSON_ArrayForEach(a, args)
		if (cJSON_IsString(a))
			strvec_push(&sv->args, a->valuestring);
	sv->good = xstrdup(good);
	sv->repo = jsonr_str(o, "repo") ? xstrdup(jsonr_str(o, "repo")) : NULL;
	sv->bad = xstrdup(bad);
	const cJSON *commits = cJSON_GetObjectItemCaseSensitive(o, "commits"), *c;
	cJSON_ArrayForEach(c, commits) {
		const char *h = jsonr_str(c, "hash");
		if (h && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "skipped")))
			strvec_push(&sv->skipped, h);
	}
	const cJSON *el = cJSON_GetObjectItemCaseSensitive(o, "elapsed_s");
	if (cJSON_IsNumber(el) && el->valuedouble > 0)
		sv->elapsed_s = el->valuedouble;
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(o, "config");
	const cJSON *run = cJSON_IsObject(cfg) ? cJSON_GetObjectItemCaseSensitive(cfg, "run") : NULL;
	if (cJSON_IsNumber(run) && run->valuedouble >= 0)
		sv->config_run = (int64_t)run->valuedouble;
	cJSON_Delete(o);
	return 0;
}

void bstate_saved_release(struct bstate_saved *sv)
{
	strvec_release(&sv->args);
	strvec_release(&sv->skipped);
	free(sv->good);
	free(sv->bad);
	free(sv->repo);
	memset(sv, 0, sizeof(*sv));
}
