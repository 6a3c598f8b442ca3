/*
 * reproducer.c: reproducer.json read, written and applied to the pressure
 * options (see reproducer.h). Applying mirrors run/replay.c's reading of a
 * recorded "config", with replay_config_only: the condition, never the
 * seed.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reproduce/reproducer.h"
#include "run/replay.h"
#include "util/dbuf.h"
#include "util/fileio.h"
#include "util/jsonr.h"
#include "util/jsonw.h"
#include "util/xalloc.h"
#include "util/banned.h"

void reproducer_init(struct reproducer *r)
{
	memset(r, 0, sizeof(*r));
	r->version = REPRODUCER_VERSION;
	r->level = 1;
	snprintf(r->arm, sizeof(r->arm), "plain");
}

static void sites_release(struct reproducer *r)
{
	for (size_t i = 0; i < r->nsites; i++) {
		free(r->sites[i].fn);
		free(r->sites[i].file);
		free(r->sites[i].module);
		free(r->sites[i].new_module);
	}
	free(r->sites);
	r->sites = NULL;
	r->nsites = 0;
}

void reproducer_release(struct reproducer *r)
{
	sites_release(r);
	free(r->command);
	memset(r, 0, sizeof(*r));
}

/* The chaos settings of a condition: its member, the engine's (struct
 * pconfig) - one list for reading a condition and applying it. */
#define SETTINGS(X) X(chaos, chaos) X(level, intensity) X(sync_prob, sync_prob) X(sync_max_us, sync_max_us) \
	X(sync_budget_us, sync_budget_us) X(steps, steps) X(step_threads, step_threads) X(span_ms, span_ms)

/* The condition members of a config object (a run record's, or the
 * "condition" of reproducer.json). */
static int condition_from(struct reproducer *r, const cJSON *cfg, char *why, size_t whylen)
{
	if (!cJSON_IsObject(cfg)) {
		snprintf(why, whylen, "the condition is not a JSON object");
		return -EINVAL;
	}
	struct replay_config c;
	char reason[128];
	if (replay_config_read(cfg, &c, reason, sizeof(reason)) < 0) {
		snprintf(why, whylen, "the %s", reason);
		return -EINVAL;
	}
	snprintf(r->arm, sizeof(r->arm), "%s", c.arm[0] ? c.arm : "plain");
	if (c.k.chaos == CHAOS_AUTO) {
		snprintf(why, whylen, "the chaos mode 'auto' is no condition (a condition is one arm)");
		return -EINVAL;
	}
	const struct pconfig *k = &c.k;
	if (k->intensity < 0 || k->intensity > 2 || !(k->sync_prob >= 0 && k->sync_prob <= 1) || k->sync_max_us < 0 ||
	    k->steps < 0 || k->step_threads < 0 || k->step_threads > 255 || !(c.jobs >= 0 && c.jobs <= 4096)) {
		snprintf(why, whylen, "a value of the condition is out of range (level 0..2, sync_prob 0..1, "
			 "step_threads 0..255, jobs 0..4096)");
		return -EINVAL;
	}
#define FROM_K(rf, kf) r->rf = k->kf;
	SETTINGS(FROM_K)
#undef FROM_K
	r->jobs = (unsigned)c.jobs;
	snprintf(r->cpus, sizeof(r->cpus), "%s", c.cpus);
	snprintf(r->noise, sizeof(r->noise), "%s", c.noise);
	return 0;
}

int reproducer_from_config(struct reproducer *r, const char *config_json, char *why, size_t whylen)
{
	cJSON *cfg = cJSON_Parse(config_json);
	sites_release(r);
	int rc = condition_from(r, cfg, why, whylen);
	cJSON_Delete(cfg);
	return rc;
}

void reproducer_copy(struct reproducer *dst, const struct reproducer *src)
{
	reproducer_release(dst);
	*dst = *src;
	dst->command = src->command ? xstrdup(src->command) : NULL;
	dst->sites = src->nsites ? xcalloc(src->nsites, sizeof(*dst->sites)) : NULL;
	for (size_t i = 0; i < src->nsites; i++) {
		struct rsite *d = &dst->sites[i];
		*d = src->sites[i];
		d->fn = d->fn ? xstrdup(d->fn) : NULL;
		d->file = d->file ? xstrdup(d->file) : NULL;
		d->module = xstrdup(d->module);
		d->new_module = NULL;
		d->how = NULL;
	}
}

static int sites_from(struct reproducer *r, const cJSON *arr, char *why, size_t whylen)
{
	const cJSON *s;
	size_t n = (size_t)cJSON_GetArraySize(arr);

	if (!cJSON_IsArray(arr)) {
		snprintf(why, whylen, "\"sites\" is not an array");
		return -EINVAL;
	}
	if (n > REPRODUCER_MAX_SITES) {
		snprintf(why, whylen, "%zu sites: at most %d", n, REPRODUCER_MAX_SITES);
		return -EINVAL;
	}
	r->sites = n ? xcalloc(n, sizeof(*r->sites)) : NULL;
	cJSON_ArrayForEach(s, arr) {
		struct rsite *d = &r->sites[r->nsites];
		const char *module = jsonr_str(s, "module"), *off = jsonr_str(s, "offset"), *call = jsonr_str(s, "call");
		char *end = NULL;
		if (off)
			d->off = strtoull(off, &end, 16);
		d->prob = jsonr_num(s, "prob", -1);
		if (!module || module[0] != '/' || !off || !end || *end || !call || !(d->prob >= 0 && d->prob <= 1)) {
			snprintf(why, whylen, "site %zu needs \"call\", \"module\" (an absolute path), \"offset\" "
				 "(hex) and \"prob\" (0..1)", r->nsites + 1);
			return -EINVAL;
		}
		snprintf(d->call, sizeof(d->call), "%s", call);
		d->module = xstrdup(module);
		d->fn = jsonr_str(s, "function") ? xstrdup(jsonr_str(s, "function")) : NULL;
		d->file = jsonr_str(s, "file") ? xstrdup(jsonr_str(s, "file")) : NULL;
		d->line = (int)jsonr_num(s, "line", 0);
		r->nsites++;
	}
	return 0;
}

int reproducer_read(struct reproducer *r, const char *path, char *why, size_t whylen)
{
	struct dbuf b;
	char inner[400];
	int rc;

	reproducer_init(r);
	dbuf_init(&b, 16u << 20);
	rc = fileio_read_file(path, &b);
	if (rc < 0) {
		snprintf(why, whylen, "--reproducer: cannot read '%.300s': %s", path, strerror(-rc));
		dbuf_release(&b);
		return rc;
	}
	cJSON *o = cJSON_Parse(dbuf_str(&b));
	dbuf_release(&b);
	const cJSON *cond = o ? cJSON_GetObjectItemCaseSensitive(o, "condition") : NULL;
	const cJSON *m = o ? cJSON_GetObjectItemCaseSensitive(o, "measured") : NULL;
	const cJSON *nat = o ? cJSON_GetObjectItemCaseSensitive(o, "natural") : NULL;
	double v = o ? jsonr_num(o, "version", 0) : 0;
	if (!o || !cJSON_IsObject(o)) {
		snprintf(why, whylen, "--reproducer '%.300s' is not JSON; expected the reproducer.json "
			 "that jostle reproduce wrote", path);
		rc = -EINVAL;
	} else if (v != REPRODUCER_VERSION) {
		snprintf(why, whylen, "--reproducer '%.300s': version %g is not one this jostle reads "
			 "(expected %d)", path, v, REPRODUCER_VERSION);
		rc = -EINVAL;
	} else if (!cond) {
		snprintf(why, whylen, "--reproducer '%.300s' has no \"condition\"; expected the "
			 "reproducer.json that jostle reproduce wrote", path);
		rc = -EINVAL;
	} else if ((rc = condition_from(r, cond, inner, sizeof(inner))) < 0 ||
		   (cJSON_GetObjectItemCaseSensitive(cond, "sites") &&
		    (rc = sites_from(r, cJSON_GetObjectItemCaseSensitive(cond, "sites"), inner, sizeof(inner))) < 0)) {
		snprintf(why, whylen, "--reproducer '%.300s': %s", path, inner);
	} else if (r->nsites && !(r->chaos & CHAOS_SYNC)) {
		snprintf(why, whylen, "--reproducer '%.300s': sites need a sync chaos mode (sync, all or "
			 "step), not '%s'", path, chaos_mode_name(r->chaos));
		rc = -EINVAL;
	}
	if (rc == 0) {
		const char *c = jsonr_str(o, "command");
		r->command = c ? xstrdup(c) : NULL;
		r->runs = (uint64_t)jsonr_num(m, "runs", 0);
		r->fails = (uint64_t)jsonr_num(m, "fails", 0);
		r->lo = jsonr_num(m, "lo", 0);
		r->hi = jsonr_num(m, "hi", 0);
		r->fails_per_min = jsonr_num(m, "fails_per_min", 0);
		const char *from = jsonr_str(m, "from");
		r->from_search = from && strcmp(from, "search") == 0;
		r->natural_runs = (uint64_t)jsonr_num(nat, "runs", 0);
		r->natural_fails = (uint64_t)jsonr_num(nat, "fails", 0);
		r->build_s = jsonr_num(o, "build_s", 0);
		if (r->fails > r->runs || !(r->lo >= 0 && r->lo <= 1)) {
			snprintf(why, whylen, "--reproducer '%.300s': the measured rate is inconsistent", path);
			rc = -EINVAL;
		}
	}
	cJSON_Delete(o);
	return rc;
}

static void site_json(struct dbuf *b, const struct rsite *s, bool applied)
{
	char off[32];

	snprintf(off, sizeof(off), "0x%" PRIx64, s->off);
	dbuf_addc(b, '{');
	jsonw_kstr(b, "call", s->call);
	jsonw_kstr(b, "function", s->fn);
	jsonw_kstr(b, "file", s->file);
	jsonw_kint(b, "line", s->line);
	jsonw_kstr(b, "module", s->module);
	jsonw_kstr(b, "offset", off);
	jsonw_kdbl(b, "prob", s->prob);
	if (applied) {
		jsonw_kstr(b, "matched", s->how);
		if (s->how) {
			snprintf(off, sizeof(off), "0x%" PRIx64, s->new_off);
			jsonw_kstr(b, "matched_module", s->new_module ? s->new_module : s->module);
			jsonw_kstr(b, "matched_offset", off);
			jsonw_kint(b, "matched_line", s->new_line);
		}
	}
	dbuf_addc(b, '}');
}

int reproducer_write(const struct reproducer *r, const char *path, char *const *argv, const char *extra)
{
	struct dbuf b;
	bool applied = false;

	for (size_t i = 0; i < r->nsites; i++)
		applied |= r->sites[i].how != NULL;
	dbuf_init(&b, 16u << 20);
	dbuf_addc(&b, '{');
	jsonw_kint(&b, "version", REPRODUCER_VERSION);
	if (argv) {
		size_t argc = 0;
		while (argv[argc])
			argc++;
		jsonw_kstrs(&b, "argv", argv, argc);
	}
	jsonw_kstr(&b, "command", r->command);
	jsonw_key(&b, "condition");
	dbuf_addc(&b, '{');
	jsonw_kstr(&b, "arm", r->arm);
	jsonw_kstr(&b, "chaos", chaos_mode_name(r->chaos));
	jsonw_kint(&b, "level", r->level);
	jsonw_kdbl(&b, "sync_prob", r->sync_prob);
	jsonw_kint(&b, "sync_max_us", r->sync_max_us);
	jsonw_kint(&b, "sync_budget_us", r->sync_budget_us);
	jsonw_kint(&b, "steps", r->steps);
	jsonw_kint(&b, "step_threads", r->step_threads);
	jsonw_kint(&b, "span_ms", r->span_ms);
	jsonw_kuint(&b, "jobs", r->jobs);
	jsonw_kstr(&b, "cpus", r->cpus);
	jsonw_kstr(&b, "cpus_via", r->cpus[0] ? "any" : "none");
	jsonw_kstr(&b, "noise", r->noise);
	jsonw_key(&b, "sites");
	dbuf_addc(&b, '[');
	for (size_t i = 0; i < r->nsites; i++) {
		if (i)
			dbuf_addc(&b, ',');
		site_json(&b, &r->sites[i], applied);
	}
	dbuf_adds(&b, "]}");
	jsonw_key(&b, "measured");
	dbuf_addc(&b, '{');
	jsonw_kuint(&b, "runs", r->runs);
	jsonw_kuint(&b, "fails", r->fails);
	jsonw_kdbl(&b, "rate", r->runs ? (double)r->fails / (double)r->runs : 0);
	jsonw_kdbl(&b, "lo", r->lo);
	jsonw_kdbl(&b, "hi", r->hi);
	jsonw_kdbl(&b, "fails_per_min", r->fails_per_min);
	jsonw_kstr(&b, "from", r->from_search ? "search" : "confirmation");
	dbuf_addc(&b, '}');
	jsonw_key(&b, "natural");
	dbuf_addc(&b, '{');
	jsonw_kuint(&b, "runs", r->natural_runs);
	jsonw_kuint(&b, "fails", r->natural_fails);
	jsonw_kdbl(&b, "rate", r->natural_runs ? (double)r->natural_fails / (double)r->natural_runs : 0);
	dbuf_addc(&b, '}');
	jsonw_kdbl(&b, "build_s", r->build_s);
	if (extra)
		dbuf_adds(&b, extra);
	dbuf_adds(&b, "}\n");
	int rc = fileio_write_file(path, b.buf, b.len);
	dbuf_release(&b);
	return rc;
}

const char *reproducer_describe(const struct reproducer *r, char *buf, size_t len)
{
	char jobs[32] = "", cpus[300] = "", sites[96] = "", steps[120] = "";

	if (r->jobs)
		snprintf(jobs, sizeof(jobs), ", -j %u", r->jobs);
	if (r->cpus[0])
		snprintf(cpus, sizeof(cpus), " on CPUs %s", r->cpus);
	if (r->nsites) {
		double prob = 0;
		for (size_t i = 0; i < r->nsites; i++)
			prob += r->sites[i].prob / (double)r->nsites;
		snprintf(sites, sizeof(sites), ", delays at %zu site%s (%.0f%% of calls", r->nsites,
			 r->nsites == 1 ? "" : "s", 100 * prob);
		if (r->sync_max_us)
			snprintf(sites + strlen(sites), sizeof(sites) - strlen(sites), ", up to %d us", r->sync_max_us);
		snprintf(sites + strlen(sites), sizeof(sites) - strlen(sites), ")");
	} else if ((r->chaos & CHAOS_SYNC) && !(r->chaos & CHAOS_STEP_BIT) && r->sync_prob > 0) {
		snprintf(sites, sizeof(sites), ", delays at %.0f%% of calls up to %d us", 100 * r->sync_prob,
			 r->sync_max_us);
	}
	if (r->chaos & CHAOS_STEP_BIT) {
		int who = r->step_threads & 0xff;
		if (r->steps)
			snprintf(steps, sizeof(steps), ", %d steps", r->steps);
		if (who == 0xfe)
			snprintf(steps + strlen(steps), sizeof(steps) - strlen(steps), ", every thread but the first");
		else if (who && !(who & (who - 1)))
			snprintf(steps + strlen(steps), sizeof(steps) - strlen(steps), ", thread %d%s alone",
				 __builtin_ctz((unsigned)who), who == 0x80 ? " and later" : "");
		else if (who && who != 0xff)
			snprintf(steps + strlen(steps), sizeof(steps) - strlen(steps), ", threads 0x%02x", who);
		if (r->sync_budget_us > 0)
			snprintf(steps + strlen(steps), sizeof(steps) - strlen(steps), ", holds to %d ms a thread",
				 r->sync_budget_us / 1000);
	}
	snprintf(buf, len, "%s (chaos %s%s%s%s%s%s%s)", r->arm, chaos_mode_name(r->chaos), jobs, cpus, steps,
		 r->noise[0] ? ", noise " : "", r->noise, sites);
	return buf;
}

int reproducer_apply(const struct reproducer *r, struct pressure_opts *po, unsigned *jobs, bool jobs_set,
		     char *why, size_t whylen)
{
	struct pconfig *c = &po->replay_cfg;
	char reason[256];

	memset(c, 0, sizeof(*c));
	snprintf(po->replay_arm, sizeof(po->replay_arm), "%s", r->arm);
	c->name = po->replay_arm;
	snprintf(po->replay_cpus, sizeof(po->replay_cpus), "%s", r->cpus);
	if (r->noise[0]) {
		if (noise_parse(r->noise, &po->noise, reason, sizeof(reason)) < 0) {
			snprintf(why, whylen, "--reproducer: the noise '%s': %s", r->noise, reason);
			return -EINVAL;
		}
		po->noise_set = true;
		c->noise = true;
	}
#define TO_C(rf, kf) c->kf = r->rf;
	SETTINGS(TO_C)
#undef TO_C
	po->intensity = r->level;
	po->replay_run = 0;
	po->replay_sites[0] = '\0';
	po->replay_mask[0] = '\0';
	po->replay = true;
	po->replay_config_only = true;
	po->any = true;
	if (!jobs_set && r->jobs)
		*jobs = r->jobs;
	return 0;
}

void reproducer_mask_all(size_t n, char *hex)
{
	bool on[SITEMASK_MAX];

	if (n > SITEMASK_MAX)
		n = SITEMASK_MAX;
	for (size_t i = 0; i < n; i++)
		on[i] = true;
	sitemask_format(on, n, hex);
}

int reproducer_write_plan(const struct reproducer *r, const char *path, bool applied)
{
	struct dbuf b;
	const char *mods[REPRODUCER_MAX_SITES];
	size_t nmods = 0, bit = 0;

	dbuf_init(&b, 1u << 20);
	dbuf_adds(&b, "jostle-sites 1\nmode mask\n");
	for (size_t i = 0; i < r->nsites; i++) {
		const struct rsite *s = &r->sites[i];
		if (applied && !s->how)
			continue;
		const char *m = applied && s->new_module ? s->new_module : s->module;
		size_t k;
		for (k = 0; k < nmods && strcmp(mods[k], m); k++)
			;
		if (k == nmods) {
			mods[nmods++] = m;
			dbuf_addf(&b, "module %zu %s\n", k, m);
		}
		dbuf_addf(&b, "site %zu %zu %" PRIx64 " %.9g\n", bit++, k, applied ? s->new_off : s->off, s->prob);
	}
	int rc = fileio_write_file(path, b.buf, b.len);
	dbuf_release(&b);
	return rc;
}
