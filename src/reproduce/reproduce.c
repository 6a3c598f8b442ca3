/*
 * reproduce.c: the search of `jostle reproduce` (see reproduce.h for the
 * steps and the rule that keeps a candidate).
 *
 * The budget (-n runs, --time, default 2 minutes) is shared out by phase:
 * natural 12%, auto 25%, localize 25%, the candidates 23% between them,
 * the confirmation what is left. A phase that has nothing to do (no
 * dynamic binary to localize, no step arm to tune) leaves its share to the
 * ones after it. Every series has its own master seed, derived from the
 * search's and its number, so every run of the search has a fresh seed.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "localize/localize.h"
#include "reproduce/reproduce.h"
#include "reproduce/reproducer.h"
#include "reproduce/slice.h"
#include "results/stats.h"
#include "run/series.h"
#include "util/clock.h"
#include "util/dbuf.h"
#include "util/escape.h"
#include "util/fileio.h"
#include "util/jsonw.h"
#include "util/rng.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MAX_CANDS 12
#define CONFIRM_SHARE 0.15      /* of the budget, kept for the confirmation */
#define CONFIRM_MIN_RUNS 20
#define CONFIRM_WIDTH 0.2       /* the 95% interval this wide or narrower: stated */
#define SITE_DELAYS_LOW 8.0     /* delays per site and run (localize's default) */
#define SITE_DELAYS_HIGH 32.0
#define SITE_MAX_US_HIGH 5000
#define SITE_MAX_US_TOP 20000   /* the longest delay escalation goes to */

struct cand {
	char name[64];
	struct reproducer cond;
	struct slice s;
	bool measured, kept;
};

struct rep {
	const struct reproduce_opts *ro;
	struct run_opts *o;
	int64_t start, deadline;   /* monotonic; deadline 0: runs only */
	int64_t total_ns;
	uint64_t total_runs, runs_used;
	uint64_t series;           /* series run so far (their seeds) */
	struct slice natural;
	struct cand c[MAX_CANDS];
	size_t nc;
	int lead;                  /* index into c, -1 */
	struct dbuf steps;         /* the search's steps, JSON array members */
	bool interrupted;
	int status;                /* 2 or 3 once a series could not run */
};

static void say(const struct rep *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct rep *R, const char *fmt, ...)
{
	va_list ap;

	if (R->o->quiet)
		return;
	va_start(ap, fmt);
	fputs("jostle: reproduce: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static char *subdir(const struct rep *R, const char *name)
{
	char *d = xasprintf("%s/%s", R->o->out_dir, name);
	if (mkdir(d, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "jostle: cannot create '%s': %s\n", d, strerror(errno));
		free(d);
		return NULL;
	}
	return d;
}

static uint64_t series_seed(struct rep *R)
{
	uint64_t s = R->o->seed ^ (++R->series * 0x9e3779b97f4a7c15ULL) ^ 0x726570726f647563ULL;
	return rng_splitmix64(&s);
}

/* The runs and time of a phase with `share` of the whole budget, the
 * confirmation's share kept back unless it is the confirmation (`last`);
 * false when nothing is left. */
static bool budget_of(struct rep *R, double share, uint64_t min_runs, bool last, uint64_t *runs, int64_t *time_ns)
{
	if (R->interrupted || R->status)
		return false;
	*runs = 0;
	*time_ns = 0;
	if (R->total_runs) {
		uint64_t keep = last ? 0 : (uint64_t)(CONFIRM_SHARE * (double)R->total_runs);
		uint64_t used = R->runs_used + keep;
		uint64_t left = R->total_runs > used ? R->total_runs - used : 0;
		uint64_t want = (uint64_t)(share * (double)R->total_runs);
		if (want < min_runs)
			want = min_runs;
		*runs = want < left ? want : left;
		if (!*runs)
			return false;
	}
	if (R->deadline) {
		int64_t keep = last ? 0 : (int64_t)(CONFIRM_SHARE * (double)R->total_ns);
		int64_t left = R->deadline - keep - clock_mono_ns();
		int64_t want = (int64_t)(share * (double)R->total_ns);
		if (left < NS_PER_S / 2)
			return false;
		*time_ns = want < left ? want : left;
		if (*time_ns < NS_PER_S / 2)
			*time_ns = NS_PER_S / 2;
	}
	return true;
}

static bool budget(struct rep *R, double share, uint64_t min_runs, uint64_t *runs, int64_t *time_ns)
{
	return budget_of(R, share, min_runs, false, runs, time_ns);
}

static double fpm(const struct slice *s)
{
	return s->secs > 0 ? (double)s->fails / s->secs * 60.0 : 0;
}

static void rate_text(const struct slice *s, char *buf, size_t len)
{
	double lo, hi;
	stats_wilson(s->fails, s->runs, STATS_Z95, &lo, &hi);
	snprintf(buf, len, "%" PRIu64 " of %" PRIu64 " runs failed (%.0f%% [%.0f%%, %.0f%%]), %.1f failures/min",
		 s->fails, s->runs, s->runs ? 100.0 * (double)s->fails / (double)s->runs : 0, 100 * lo, 100 * hi, fpm(s));
}

/* Take a series' status: false when the search must stop. */
static bool status_ok(struct rep *R, int st)
{
	if (st == 130) {
		R->interrupted = true;
		return false;
	}
	if (st == 2 || st == 3 || st < 0) {
		R->status = st == 3 ? 3 : 2;
		return false;
	}
	return true;
}

/* One series under cond (NULL: the plain loop) into DIR, numbered from
 * first; its counts from `first` on into *s (time added). */
static int run_under(struct rep *R, const struct reproducer *cond, const char *dir, uint64_t first,
		     uint64_t runs, int64_t time_ns, struct slice *s)
{
	struct run_opts o = *R->o;
	char why[512];
	unsigned jobs = R->ro->base_jobs;

	o.out_dir = (char *)dir;
	o.first_index = first;
	o.runs = runs ? first + runs : 0;
	o.time_ns = time_ns;
	o.seed = series_seed(R);
	o.quiet = true;
	o.no_report = true;
	o.until = UNTIL_NONE;
	o.settings_extra = NULL;
	if (cond) {
		if (reproducer_apply(cond, &o.pressure, &jobs, false, why, sizeof(why)) < 0) {
			fprintf(stderr, "jostle: reproduce: %s\n", why);
			return 3;
		}
		if (cond->nsites) {
			char *plan = xasprintf("%s/plan.txt", dir);
			int rc = strlen(plan) < sizeof(o.pressure.replay_sites) ? reproducer_write_plan(cond, plan, false)
										  : -ENAMETOOLONG;
			if (rc == 0)
				memcpy(o.pressure.replay_sites, plan, strlen(plan) + 1);
			reproducer_mask_all(cond->nsites, o.pressure.replay_mask);
			free(plan);
			if (rc < 0) {
				fprintf(stderr, "jostle: reproduce: cannot write a plan in '%s': %s\n", dir, strerror(-rc));
				return 3;
			}
		}
	}
	o.jobs = pressure_jobs(&o.pressure, jobs, true);
	int st = slice_run(&o, s);
	struct slice got = *s;
	if (slice_read(dir, first, &got, NULL, NULL) == 0) {
		s->runs += got.runs;
		s->fails += got.fails;
		s->next_index = got.next_index;
	}
	R->runs_used += got.runs;
	return st;
}

static void step_json(struct rep *R, const char *name, const struct reproducer *cond, const struct slice *s,
		      bool kept)
{
	char desc[512];
	double lo, hi;

	stats_wilson(s->fails, s->runs, STATS_Z95, &lo, &hi);
	if (R->steps.len)
		dbuf_addc(&R->steps, ',');
	dbuf_addc(&R->steps, '{');
	jsonw_kstr(&R->steps, "step", name);
	if (cond)
		jsonw_kstr(&R->steps, "condition", reproducer_describe(cond, desc, sizeof(desc)));
	jsonw_kuint(&R->steps, "runs", s->runs);
	jsonw_kuint(&R->steps, "fails", s->fails);
	jsonw_kdbl(&R->steps, "lo", lo);
	jsonw_kdbl(&R->steps, "hi", hi);
	jsonw_kdbl(&R->steps, "seconds", s->secs);
	jsonw_kdbl(&R->steps, "fails_per_min", fpm(s));
	jsonw_kbool(&R->steps, "kept", kept);
	dbuf_addc(&R->steps, '}');
}

/* ---- 1. natural ------------------------------------------------------- */

static void natural(struct rep *R)
{
	uint64_t runs;
	int64_t t;
	char *dir = subdir(R, "natural"), text[160];

	if (dir && budget(R, 0.12, 8, &runs, &t)) {
		int st = run_under(R, NULL, dir, 0, runs, t, &R->natural);
		if (status_ok(R, st)) {
			rate_text(&R->natural, text, sizeof(text));
			say(R, "natural (a plain loop): %s", text);
			step_json(R, "natural", NULL, &R->natural, false);
		}
	}
	free(dir);
}

/* ---- 2. auto ---------------------------------------------------------- */

static struct cand *cand_new(struct rep *R, const char *name)
{
	if (R->nc == MAX_CANDS)
		return NULL;
	struct cand *c = &R->c[R->nc++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	reproducer_init(&c->cond);
	return c;
}

/* The arm that fails most often per machine second, its rate smoothed by
 * two pseudo-runs at the pooled rate (bisect's learn_pick): a lucky first
 * failure does not win. */
static const struct slice_arm *best_arm(const struct slice_arm *arms, size_t n, const struct slice *all)
{
	double pooled = all->runs ? (double)all->fails / (double)all->runs : 0, best = -1;
	const struct slice_arm *pick = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct slice_arm *a = &arms[i];
		if (!a->has_fail || !a->config || !a->runs)
			continue;
		double p = ((double)a->fails + 2 * pooled) / ((double)a->runs + 2);
		double per_run_s = a->wall_s / (double)a->runs;
		double score = p * (a->jobs ? a->jobs : 1) / (per_run_s > 1e-3 ? per_run_s : 1e-3);
		if (score > best) {
			best = score;
			pick = a;
		}
	}
	return pick;
}

/* The auto portfolio in DIR/NAME with `share` of the budget; its best arm
 * a new candidate. */
static void auto_phase(struct rep *R, const char *name, double share)
{
	uint64_t runs;
	int64_t t;
	char *dir = subdir(R, name), why[512], text[160];
	struct slice s = { 0 };

	if (!dir || !budget(R, share, 16, &runs, &t)) {
		free(dir);
		return;
	}
	struct run_opts o = *R->o;
	o.out_dir = dir;
	o.first_index = 0;
	o.runs = runs;
	o.time_ns = t;
	o.seed = series_seed(R);
	o.quiet = true;
	o.no_report = true;
	o.until = UNTIL_NONE;
	if (pressure_option(&o.pressure, "chaos", "auto", why, sizeof(why)) < 0) {
		fprintf(stderr, "jostle: reproduce: %s\n", why);
		R->status = 3;
		free(dir);
		return;
	}
	o.jobs = pressure_jobs(&o.pressure, R->ro->base_jobs, R->ro->jobs_set);
	int st = slice_run(&o, &s);
	struct slice_arm *arms = NULL;
	size_t narms = 0;
	if (status_ok(R, st) && slice_read(dir, 0, &s, &arms, &narms) == 0) {
		R->runs_used += s.runs;
		rate_text(&s, text, sizeof(text));
		say(R, "%s (%zu arms): %s", name, narms, text);
		step_json(R, name, NULL, &s, false);
		const struct slice_arm *a = best_arm(arms, narms, &s);
		struct cand *c = a ? cand_new(R, "auto's best arm") : NULL;
		if (c && reproducer_from_config(&c->cond, a->config, why, sizeof(why)) < 0) {
			fprintf(stderr, "jostle: reproduce: the arm '%s': %s\n", a->name, why);
			R->nc--;
		} else if (c) {
			say(R, "auto's best arm: %s, %" PRIu64 " of %" PRIu64 " runs failed", a->name, a->fails, a->runs);
		}
	} else if (!R->interrupted && !R->status) {
		R->runs_used += s.runs;
	}
	slice_arms_free(arms, narms);
	free(dir);
}

/* ---- 3. sites ----------------------------------------------------------- */

struct lsite_pick {
	const cJSON *v[REPRODUCER_MAX_SITES];
	size_t n;
};

static void pick_add(struct lsite_pick *p, const cJSON *s)
{
	const cJSON *off = cJSON_GetObjectItemCaseSensitive(s, "offset");
	const cJSON *mod = cJSON_GetObjectItemCaseSensitive(s, "module");
	if (!cJSON_IsString(off) || !cJSON_IsString(mod) || p->n == REPRODUCER_MAX_SITES)
		return;
	for (size_t i = 0; i < p->n; i++) {
		const cJSON *o2 = cJSON_GetObjectItemCaseSensitive(p->v[i], "offset");
		const cJSON *m2 = cJSON_GetObjectItemCaseSensitive(p->v[i], "module");
		if (!strcmp(o2->valuestring, off->valuestring) && !strcmp(m2->valuestring, mod->valuestring))
			return;
	}
	p->v[p->n++] = s;
}

static double jnum(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A candidate delaying only at the picked sites, about `delays` delays per
 * site and run of at most max_us each, on the load of the leader (or the
 * series' own). */
static void sites_cand(struct rep *R, const struct lsite_pick *p, const char *name, double delays, int max_us)
{
	struct cand *c = cand_new(R, name);
	if (!c)
		return;
	if (R->lead >= 0) {
		reproducer_copy(&c->cond, &R->c[R->lead].cond);
		while (c->cond.nsites) {
			/* the leader's load and background; delays of its own */
			struct rsite *s = &c->cond.sites[--c->cond.nsites];
			free(s->fn);
			free(s->file);
			free(s->module);
		}
	}
	struct reproducer *r = &c->cond;
	r->chaos = (r->chaos & CHAOS_THREADS) ? CHAOS_ALL : CHAOS_SYNC;
	r->steps = 0;
	r->level = 2;
	r->sync_prob = 0;
	r->sync_max_us = max_us;
	r->sync_budget_us = 0;
	snprintf(r->arm, sizeof(r->arm), "sites");
	r->sites = xrealloc(r->sites, p->n * sizeof(*r->sites));
	for (size_t i = 0; i < p->n; i++) {
		const cJSON *s = p->v[i];
		struct rsite *d = &r->sites[i];
		memset(d, 0, sizeof(*d));
		snprintf(d->call, sizeof(d->call), "%s", jstr(s, "call") ? jstr(s, "call") : "?");
		d->fn = jstr(s, "function") ? xstrdup(jstr(s, "function")) : NULL;
		d->file = jstr(s, "file") ? xstrdup(jstr(s, "file")) : NULL;
		d->line = (int)jnum(s, "line", 0);
		d->module = xstrdup(jstr(s, "module"));
		d->off = strtoull(jstr(s, "offset"), NULL, 16);
		double procs = jnum(s, "procs", 1), calls = jnum(s, "calls", 1);
		double mean = procs > 0 ? calls / procs : 1;
		d->prob = mean > 0 ? delays / mean : 1;
		if (d->prob > 1)
			d->prob = 1;
	}
	r->nsites = p->n;
}

static void sites_phase(struct rep *R)
{
	uint64_t runs;
	int64_t t;

	if (localize_check_dynamic(R->o->path) != 0 || !budget(R, 0.25, 60, &runs, &t))
		return;
	char *dir = subdir(R, "localize");
	if (!dir)
		return;
	struct run_opts o = *R->o;
	char why[256];
	struct localize_opts lo = LOCALIZE_OPTS_INIT;
	o.out_dir = dir;
	o.runs = runs;
	o.time_ns = t;
	o.seed = series_seed(R);
	o.quiet = true;
	o.no_report = true;
	o.until = UNTIL_NONE;
	o.jobs = R->ro->base_jobs;
	if (pressure_option(&o.pressure, "chaos", "sync", why, sizeof(why)) < 0) {
		free(dir);
		return;
	}
	lo.run = &o;
	lo.timeout_set = R->o->timeout_ns != 600 * NS_PER_S;
	/* a short budget: fewer discovery runs and shorter rounds */
	if (runs && runs < 300) {
		lo.discover = runs / 6 > 8 ? runs / 6 : 8;
		lo.round_runs = runs / 5 > 16 ? runs / 5 : 16;
	}
	say(R, "localize: which call sites decide (%s)", dir);
	int64_t t0 = clock_mono_ns();
	int st = localize_run(&lo);
	if (st == 130) {
		R->interrupted = true;
		free(dir);
		return;
	}
	char *path = xasprintf("%s/localize.json", dir);
	struct dbuf b;
	dbuf_init(&b, 64u << 20);
	cJSON *j = fileio_read_file(path, &b) == 0 ? cJSON_Parse(dbuf_str(&b)) : NULL;
	dbuf_release(&b);
	free(path);
	const cJSON *sites = j ? cJSON_GetObjectItemCaseSensitive(j, "sites") : NULL;
	const cJSON *disc = j ? cJSON_GetObjectItemCaseSensitive(j, "discover") : NULL;
	const cJSON *rounds = j ? cJSON_GetObjectItemCaseSensitive(j, "rounds") : NULL, *x;
	uint64_t lruns = (uint64_t)jnum(disc, "runs", 0), lfails = (uint64_t)jnum(disc, "fails", 0);
	cJSON_ArrayForEach(x, rounds) {
		lruns += (uint64_t)jnum(x, "runs", 0);
		lfails += (uint64_t)jnum(x, "fails", 0);
	}
	R->runs_used += lruns;
	struct slice ls = { .runs = lruns, .fails = lfails, .secs = (double)(clock_mono_ns() - t0) / 1e9 };
	step_json(R, "localize", NULL, &ls, false);
	struct lsite_pick p = { .n = 0 };
	const cJSON *s;
	/* the sites whose effect is clear of 0; else the leader, if it helps */
	cJSON_ArrayForEach(s, sites) {
		if (p.n < 4 && jnum(s, "lo", 0) > 0)
			pick_add(&p, s);
	}
	if (!p.n && cJSON_GetArraySize(sites) > 0 && jnum(cJSON_GetArrayItem(sites, 0), "effect", 0) > 0 &&
	    jnum(cJSON_GetArrayItem(sites, 0), "fails_on", 0) > 0)
		pick_add(&p, cJSON_GetArrayItem(sites, 0));
	const cJSON *pair = j ? cJSON_GetObjectItemCaseSensitive(j, "pair") : NULL;
	if (pair && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pair, "matters"))) {
		pick_add(&p, cJSON_GetObjectItemCaseSensitive(pair, "a"));
		pick_add(&p, cJSON_GetObjectItemCaseSensitive(pair, "b"));
	}
	if (p.n) {
		const cJSON *top = p.v[0];
		say(R, "localize: %" PRIu64 " runs, %" PRIu64 " failed; %zu leading site%s, first %s in %s at %s:%d",
		    lruns, lfails, p.n, p.n == 1 ? "" : "s", jstr(top, "call") ? jstr(top, "call") : "?",
		    jstr(top, "function") ? jstr(top, "function") : "?",
		    jstr(top, "file") ? strrchr(jstr(top, "file"), '/') ? strrchr(jstr(top, "file"), '/') + 1 :
		    jstr(top, "file") : "?", (int)jnum(top, "line", 0));
		sites_cand(R, &p, "delays at the leading sites", SITE_DELAYS_LOW, 1000);
		sites_cand(R, &p, "stronger delays at the leading sites", SITE_DELAYS_HIGH, SITE_MAX_US_HIGH);
	} else {
		say(R, "localize: %" PRIu64 " runs, %" PRIu64 " failed; no site whose delays raise the failure rate",
		    lruns, lfails);
	}
	cJSON_Delete(j);
	free(dir);
}

/* ---- 4. candidates ------------------------------------------------------ */

/* Whether c should replace the leader l (reproduce.h says why). `narrower`:
 * c delays at call sites where l delays everywhere: it is kept at no
 * clearly worse rate per run and at least half l's failures per minute (a
 * factor a loaded machine's timing alone can make), since delays at the
 * decisive sites alone also say where the bug is and survive a rebuild. */
static bool better(const struct slice *c, const struct slice *l, bool narrower)
{
	double clo, chi, llo, lhi;
	double lr = l->runs ? (double)l->fails / (double)l->runs : 0;

	if (!c->fails)
		return false;
	if (!l->fails)
		return true;
	stats_wilson(c->fails, c->runs, STATS_Z95, &clo, &chi);
	stats_wilson(l->fails, l->runs, STATS_Z95, &llo, &lhi);
	if (fpm(c) > fpm(l) && chi >= lr)
		return true;
	if (narrower && chi >= lr && fpm(c) >= 0.5 * fpm(l))
		return true;
	return clo > lhi && fpm(c) >= 0.5 * fpm(l);
}

static void measure(struct rep *R, size_t i, double share)
{
	struct cand *c = &R->c[i];
	uint64_t runs;
	int64_t t;
	char name[32], text[160], desc[512];

	if (c->measured || !budget(R, share, 10, &runs, &t))
		return;
	snprintf(name, sizeof(name), "try-%zu", i + 1);
	char *dir = subdir(R, name);
	if (!dir)
		return;
	int st = run_under(R, &c->cond, dir, 0, runs, t, &c->s);
	free(dir);
	if (!status_ok(R, st))
		return;
	c->measured = true;
	bool keep = R->lead < 0 ||
		    better(&c->s, &R->c[R->lead].s, c->cond.nsites && !R->c[R->lead].cond.nsites);
	if (keep && c->s.fails) {
		if (R->lead >= 0)
			R->c[R->lead].kept = false;
		R->lead = (int)i;
		c->kept = true;
	}
	rate_text(&c->s, text, sizeof(text));
	say(R, "try %zu, %s: %s: %s: %s", i + 1, c->name, reproducer_describe(&c->cond, desc, sizeof(desc)), text,
	    c->kept ? "kept" : "dropped");
	step_json(R, c->name, &c->cond, &c->s, c->kept);
}

/* While the stronger delays at the sites lead, four times as many, up to
 * four times as long (twice at most): how hard to push the sites is
 * measured, not guessed (report_join_missing: 4 of 65 runs at 8 delays of
 * 1 ms, 18 of 62 at 32 of 5 ms). */
static void escalate(struct rep *R, double share)
{
	for (int k = 0; k < 2 && R->lead >= 0; k++) {
		const struct reproducer *l = &R->c[R->lead].cond;
		if (!l->nsites || l->sync_max_us < SITE_MAX_US_HIGH || l->sync_max_us >= SITE_MAX_US_TOP)
			return;
		struct cand *c = cand_new(R, "still stronger delays at the sites");
		if (!c)
			return;
		reproducer_copy(&c->cond, &R->c[R->lead].cond);
		c->cond.sync_max_us = 4 * l->sync_max_us < SITE_MAX_US_TOP ? 4 * l->sync_max_us : SITE_MAX_US_TOP;
		for (size_t i = 0; i < c->cond.nsites; i++)
			c->cond.sites[i].prob = 4 * c->cond.sites[i].prob < 1 ? 4 * c->cond.sites[i].prob : 1;
		int before = R->lead;
		measure(R, R->nc - 1, share / 2);
		if (R->lead == before)
			return;
	}
}

static void tune(struct rep *R, double share)
{
	if (R->lead < 0)
		return;
	struct reproducer base;
	reproducer_init(&base);
	reproducer_copy(&base, &R->c[R->lead].cond);
	unsigned j = base.jobs ? base.jobs : R->ro->base_jobs;
	size_t first = R->nc;
	struct cand *c;
	if (j * 2 <= 256 && (c = cand_new(R, "twice the runs at a time"))) {
		reproducer_copy(&c->cond, &base);
		c->cond.jobs = j * 2;
	}
	if (j >= 2 && (c = cand_new(R, "half the runs at a time"))) {
		reproducer_copy(&c->cond, &base);
		c->cond.jobs = j / 2;
	}
	if ((base.chaos & CHAOS_STEP_BIT) && base.steps > 0) {
		if ((c = cand_new(R, "twice the step depth"))) {
			reproducer_copy(&c->cond, &base);
			c->cond.steps = base.steps * 2;
		}
		if ((c = cand_new(R, "half the step depth"))) {
			reproducer_copy(&c->cond, &base);
			c->cond.steps = base.steps / 2;
		}
	}
	for (size_t i = first; i < R->nc; i++)
		measure(R, i, share / (double)(R->nc - first));
	reproducer_release(&base);
}

/* ---- 5. confirm ----------------------------------------------------------- */

static void confirm(struct rep *R, struct slice *s)
{
	char *dir = subdir(R, "confirm"), text[160];
	const struct reproducer *cond = &R->c[R->lead].cond;
	unsigned j = cond->jobs ? cond->jobs : R->ro->base_jobs;
	uint64_t batch = 2 * j > 10 ? 2 * j : 10;

	if (!dir)
		return;
	memset(s, 0, sizeof(*s));
	for (;;) {
		uint64_t runs;
		int64_t t;
		double lo, hi;
		stats_wilson(s->fails, s->runs, STATS_Z95, &lo, &hi);
		if (s->runs >= CONFIRM_MIN_RUNS && hi - lo <= CONFIRM_WIDTH)
			break;
		if (!budget_of(R, 1.0, batch, true, &runs, &t))
			break;
		if (!runs || runs > batch)
			runs = batch;
		struct slice got = *s;
		got.runs = got.fails = 0;
		int st = run_under(R, cond, dir, s->next_index, runs, t, &got);
		s->runs += got.runs;
		s->fails += got.fails;
		s->secs = got.secs;
		s->next_index = got.next_index;
		if (!status_ok(R, st) || !got.runs)
			break;
	}
	rate_text(s, text, sizeof(text));
	say(R, "confirm (fresh runs): %s", text);
	step_json(R, "confirm", cond, s, true);
	free(dir);
}

/* ---- the output ------------------------------------------------------------ */

static int write_out(struct rep *R, const struct slice *conf)
{
	struct reproducer r;
	double lo, hi;

	reproducer_init(&r);
	reproducer_copy(&r, &R->c[R->lead].cond);
	r.command = xstrdup(R->o->path);
	r.runs = conf->runs;
	r.fails = conf->fails;
	stats_wilson(conf->fails, conf->runs, STATS_Z95, &lo, &hi);
	r.lo = lo;
	r.hi = hi;
	r.fails_per_min = fpm(conf);
	r.natural_runs = R->natural.runs;
	r.natural_fails = R->natural.fails;
	r.build_s = (double)(clock_mono_ns() - R->start) / 1e9;
	struct dbuf extra;
	dbuf_init(&extra, 1u << 20);
	dbuf_adds(&extra, ",\"search\":[");
	dbuf_add(&extra, R->steps.buf ? R->steps.buf : "", R->steps.len);
	dbuf_addc(&extra, ']');
	char *path = xasprintf("%s/reproducer.json", R->o->out_dir);
	int rc = reproducer_write(&r, path, R->o->argv, dbuf_str(&extra));
	dbuf_release(&extra);
	if (rc < 0) {
		fprintf(stderr, "jostle: cannot write '%s': %s\n", path, strerror(-rc));
		free(path);
		reproducer_release(&r);
		return 3;
	}
	double nlo, nhi;
	stats_wilson(r.natural_fails, r.natural_runs, STATS_Z95, &nlo, &nhi);
	char nat[96];
	if (r.natural_fails)
		snprintf(nat, sizeof(nat), "%.1f%%", 100.0 * (double)r.natural_fails / (double)r.natural_runs);
	else
		snprintf(nat, sizeof(nat), "0 of %" PRIu64 " runs (below %.1f%%)", r.natural_runs, 100 * nhi);
	char desc[512];
	if (!R->o->quiet)
		fprintf(stderr, "jostle: reproducer: %s\n", reproducer_describe(&r, desc, sizeof(desc)));
	for (size_t i = 0; i < r.nsites && !R->o->quiet; i++)
		fprintf(stderr, "jostle:   site %zu: %s in %s at %s:%d (%s+0x%" PRIx64 "), delayed at %.0f%% of its calls\n",
			i + 1, r.sites[i].call, r.sites[i].fn ? r.sites[i].fn : "?",
			r.sites[i].file ? (strrchr(r.sites[i].file, '/') ? strrchr(r.sites[i].file, '/') + 1 : r.sites[i].file) : "?",
			r.sites[i].line, strrchr(r.sites[i].module, '/') ? strrchr(r.sites[i].module, '/') + 1 : r.sites[i].module,
			r.sites[i].off, 100 * r.sites[i].prob);
	if (!R->o->quiet)
		fprintf(stderr, "jostle: fails %.0f%% of runs [%.0f%%, %.0f%%], %.1f failures/min; natural rate %s; "
			"found in %.0f s\n", r.runs ? 100.0 * (double)r.fails / (double)r.runs : 0, 100 * lo, 100 * hi,
			r.fails_per_min, nat, r.build_s);
	struct dbuf cmd;
	dbuf_init(&cmd, 1u << 20);
	dbuf_adds(&cmd, "jostle run --reproducer ");
	escape_shell(&cmd, path);
	dbuf_adds(&cmd, " --");
	for (char **a = R->o->argv; *a; a++) {
		dbuf_addc(&cmd, ' ');
		escape_shell(&cmd, *a);
	}
	printf("%s\n", dbuf_str(&cmd));
	fflush(stdout);
	dbuf_release(&cmd);
	free(path);
	reproducer_release(&r);
	return 0;
}

int reproduce_run(const struct reproduce_opts *ro)
{
	struct rep R;
	struct slice conf = { 0 };
	int status = 0;

	memset(&R, 0, sizeof(R));
	R.ro = ro;
	R.o = ro->run;
	R.lead = -1;
	R.start = clock_mono_ns();
	R.total_runs = R.o->runs;
	R.total_ns = R.o->time_ns ? R.o->time_ns : R.o->runs ? 0 : REPRODUCE_DEFAULT_TIME_NS;
	R.deadline = R.total_ns ? R.start + R.total_ns : 0;
	dbuf_init(&R.steps, 16u << 20);

	natural(&R);
	if (R.natural.fails) {
		/* the plain loop is a condition too: the others must beat it */
		struct cand *c = cand_new(&R, "the plain loop");
		c->s = R.natural;
		c->measured = c->kept = true;
		R.lead = 0;
	}
	size_t first = R.nc;
	auto_phase(&R, "auto", 0.25);
	/* the best arm, measured afresh: auto's own counts mix its stints */
	if (R.nc > first)
		measure(&R, first, 0.08);
	first = R.nc;
	sites_phase(&R);
	for (size_t i = first; i < R.nc; i++)
		measure(&R, i, R.nc > first ? 0.08 / (double)(R.nc - first) : 0.08);
	/* nothing failed yet: the rest of the budget to more of auto */
	for (int k = 2; R.lead < 0 && !R.interrupted && !R.status; k++) {
		char name[32];
		uint64_t runs;
		int64_t t;
		if (!budget(&R, 0.25, 16, &runs, &t))
			break;
		snprintf(name, sizeof(name), "auto-%d", k);
		first = R.nc;
		uint64_t used = R.runs_used;
		auto_phase(&R, name, 0.25);
		if (R.nc > first)
			measure(&R, first, 0.08);
		if (R.runs_used == used)
			break;   /* nothing ran: no progress to wait for */
	}
	escalate(&R, 0.06);
	tune(&R, 0.12);
	if (R.interrupted) {
		status = 130;
	} else if (R.status) {
		status = R.status;
	} else if (R.lead < 0) {
		say(&R, "no condition made '%s' fail within the budget (%" PRIu64 " runs, %.0f s); "
		    "try a longer --time", R.o->argv[0], R.runs_used, (double)(clock_mono_ns() - R.start) / 1e9);
		status = 0;
	} else {
		confirm(&R, &conf);
		if (R.interrupted)
			status = 130;
		else if (R.status)
			status = R.status;
		else
			status = write_out(&R, &conf) ? 3 : 1;
	}
	for (size_t i = 0; i < R.nc; i++)
		reproducer_release(&R.c[i].cond);
	dbuf_release(&R.steps);
	return status;
}
