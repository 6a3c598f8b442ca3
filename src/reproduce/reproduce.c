/*
 * reproduce.c: the search of `jostle reproduce` (see reproduce.h for the
 * steps and the rule that keeps a candidate).
 *
 * The budget (-n runs, --time, default 2 minutes) is shared out by phase:
 * natural 10%, auto 20%, its arms' race 10%, localize 18%, the sites'
 * race 12%, one thread stepped alone 8%, tune 30%, the confirmation what
 * is left (15% kept for it). A
 * phase that has nothing to do (no dynamic binary to localize, nothing to
 * race) leaves its share to the ones after it; runs in flight at a
 * series' end have OVERRUN_NS more to end. Every series has its own master
 * seed, derived from the search's and its number, so every run of the
 * search has a fresh seed.
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
#include "util/jsonr.h"
#include "util/jsonw.h"
#include "util/rng.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MAX_CANDS 80
#define LADDER_CLIMBS 4        /* tune races, at most, while each moves the leader */
#define AUTO_ARMS 3             /* auto's arms raced */
#define CONFIRM_SHARE 0.15      /* of the budget, kept for the confirmation */
#define CONFIRM_MIN_RUNS 20
#define CONFIRM_BATCH 40
#define CONFIRM_WIDTH 0.2       /* the 95% interval this wide or narrower: stated */
#define SITE_DELAYS_LOW 8.0     /* delays per site and run (localize's default) */
#define SITE_DELAYS_HIGH 32.0
#define SITE_MAX_US_HIGH 5000
#define SITE_MAX_US_TOP 20000   /* the longest delay escalation goes to */
#define SITE_LONE_MAX 24        /* sites tried alone with long delays */
#define SITE_DELAYS_LONE 2.0    /* long delays per run at a site alone */
#define SITE_LONE_BELOW 0.5     /* ... tried while the leader fails fewer runs */
#define OVERRUN_NS (5 * NS_PER_S)  /* runs in flight at a batch's end: their time to end */
#define ALONE_THREADS 4         /* step: each of the first threads stepped alone */
#define ALONE_BELOW 0.5         /* ... tried while the leader fails fewer runs */

struct cand {
	char name[64];
	struct reproducer cond;
	struct slice s;
	bool measured, kept;
	bool natural;               /* the plain loop: measured once, never raced */
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

/* The options of a phase's series into DIR: the search's own, quiet, no
 * report, no stop rule, a fresh seed. */
static struct run_opts phase_opts(struct rep *R, char *dir, uint64_t runs, int64_t time_ns)
{
	struct run_opts o = *R->o;
	o.out_dir = dir;
	o.first_index = 0;
	o.runs = runs;
	o.time_ns = time_ns;
	o.seed = series_seed(R);
	o.quiet = true;
	o.no_report = true;
	o.until = UNTIL_NONE;
	/* a hang counts once the stall check or the timeout has seen it: runs
	 * in flight at the end of a short batch may go on for OVERRUN_NS (cut
	 * at once, reload_sighup_pause's hangs, found still after 2.5 s, were
	 * cut runs, and delays before its pause() failed 0 of 17) */
	o.overrun_ns = OVERRUN_NS;
	return o;
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

/* The rate a race ranks by: one pseudo-failure and one pseudo-pass, so
 * that 1 of 2 does not outrank 30 of 70. */
static double smoothed(const struct slice *s)
{
	return ((double)s->fails + 1) / ((double)s->runs + 2);
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
	struct run_opts o = phase_opts(R, (char *)dir, runs ? first + runs : 0, time_ns);
	char why[512];
	unsigned jobs = R->ro->base_jobs;

	o.first_index = first;
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

	if (dir && budget(R, 0.10, 8, &runs, &t)) {
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

/* The arm of arms[0..n) that fails most often per run, not one of
 * taken[0..ntaken), its rate smoothed by two pseudo-runs at the pooled
 * rate (bisect's learn_pick): a lucky first failure does not win. Per
 * run, not per machine second: a proof needs the fewer runs the higher
 * the rate, and auto's bandit gives its favourite most of the runs, so
 * that the others' few runs are raced before one is chosen. */
static const struct slice_arm *best_arm(const struct slice_arm *arms, size_t n, const struct slice *all,
					const struct slice_arm *const *taken, size_t ntaken)
{
	double pooled = all->runs ? (double)all->fails / (double)all->runs : 0, best = -1;
	const struct slice_arm *pick = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct slice_arm *a = &arms[i];
		bool done = false;
		for (size_t k = 0; k < ntaken; k++)
			done |= taken[k] == a;
		if (done || !a->has_fail || !a->config || !a->runs)
			continue;
		double p = ((double)a->fails + 2 * pooled) / ((double)a->runs + 2);
		if (p > best) {
			best = p;
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
	struct run_opts o = phase_opts(R, dir, runs, t);
	if (pressure_option(&o.pressure, "chaos", "auto", why, sizeof(why)) < 0) {
		fprintf(stderr, "jostle: reproduce: %s\n", why);
		R->status = 3;
		free(dir);
		return;
	}
	/* -j is where the search starts, not a bound (tune doubles and
	 * halves it): auto gets its crowd whether -j was given or not (a
	 * busy-spin handshake failed under no arm of `reproduce -j 2` in
	 * 2 minutes, the crowd being the condition it needs) */
	o.jobs = pressure_jobs(&o.pressure, R->ro->base_jobs, false);
	/* auto's own objective is failures per second; a proof costs runs */
	o.pressure.per_run = true;
	int st = slice_run(&o, &s);
	struct slice_arm *arms = NULL;
	size_t narms = 0;
	if (status_ok(R, st) && slice_read(dir, 0, &s, &arms, &narms) == 0) {
		R->runs_used += s.runs;
		rate_text(&s, text, sizeof(text));
		say(R, "%s (%zu arms): %s", name, narms, text);
		step_json(R, name, NULL, &s, false);
		const struct slice_arm *taken[AUTO_ARMS];
		size_t nt = 0;
		for (const struct slice_arm *a; nt < AUTO_ARMS && (a = best_arm(arms, narms, &s, taken, nt));) {
			taken[nt++] = a;
			char cname[64];
			snprintf(cname, sizeof(cname), "auto's arm %s", a->name);
			struct cand *c = cand_new(R, cname);
			if (!c)
				break;
			if (reproducer_from_config(&c->cond, a->config, why, sizeof(why)) < 0) {
				fprintf(stderr, "jostle: reproduce: the arm '%s': %s\n", a->name, why);
				reproducer_release(&c->cond);
				R->nc--;
				continue;
			}
			say(R, "auto's arm %s: %" PRIu64 " of %" PRIu64 " runs failed", a->name, a->fails, a->runs);
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
		snprintf(d->call, sizeof(d->call), "%s", jsonr_str(s, "call") ? jsonr_str(s, "call") : "?");
		d->fn = jsonr_str(s, "function") ? xstrdup(jsonr_str(s, "function")) : NULL;
		d->file = jsonr_str(s, "file") ? xstrdup(jsonr_str(s, "file")) : NULL;
		d->line = (int)jsonr_num(s, "line", 0);
		d->module = xstrdup(jsonr_str(s, "module"));
		d->off = strtoull(jsonr_str(s, "offset"), NULL, 16);
		double procs = jsonr_num(s, "procs", 1), calls = jsonr_num(s, "calls", 1);
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

	if (localize_check_dynamic(R->o->path) != 0 || !budget(R, 0.18, 60, &runs, &t))
		return;
	char *dir = subdir(R, "localize");
	if (!dir)
		return;
	struct run_opts o = phase_opts(R, dir, runs, t);
	char why[256];
	struct localize_opts lo = LOCALIZE_OPTS_INIT;
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
	uint64_t lruns = (uint64_t)jsonr_num(disc, "runs", 0), lfails = (uint64_t)jsonr_num(disc, "fails", 0);
	cJSON_ArrayForEach(x, rounds) {
		lruns += (uint64_t)jsonr_num(x, "runs", 0);
		lfails += (uint64_t)jsonr_num(x, "fails", 0);
	}
	R->runs_used += lruns;
	struct slice ls = { .runs = lruns, .fails = lfails, .secs = (double)(clock_mono_ns() - t0) / 1e9 };
	step_json(R, "localize", NULL, &ls, false);
	struct lsite_pick p = { .n = 0 };
	const cJSON *s;
	/* the sites whose effect is clear of 0; else the leader, if it helps */
	cJSON_ArrayForEach(s, sites) {
		if (p.n < 4 && jsonr_num(s, "lo", 0) > 0)
			pick_add(&p, s);
	}
	if (!p.n && cJSON_GetArraySize(sites) > 0 && jsonr_num(cJSON_GetArrayItem(sites, 0), "effect", 0) > 0 &&
	    jsonr_num(cJSON_GetArrayItem(sites, 0), "fails_on", 0) > 0)
		pick_add(&p, cJSON_GetArrayItem(sites, 0));
	const cJSON *pair = j ? cJSON_GetObjectItemCaseSensitive(j, "pair") : NULL;
	if (pair && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pair, "matters"))) {
		pick_add(&p, cJSON_GetObjectItemCaseSensitive(pair, "a"));
		pick_add(&p, cJSON_GetObjectItemCaseSensitive(pair, "b"));
	}
	if (p.n) {
		const cJSON *top = p.v[0];
		say(R, "localize: %" PRIu64 " runs, %" PRIu64 " failed; %zu leading site%s, first %s in %s at %s:%d",
		    lruns, lfails, p.n, p.n == 1 ? "" : "s", jsonr_str(top, "call") ? jsonr_str(top, "call") : "?",
		    jsonr_str(top, "function") ? jsonr_str(top, "function") : "?",
		    jsonr_str(top, "file") ? strrchr(jsonr_str(top, "file"), '/') ? strrchr(jsonr_str(top, "file"), '/') + 1 :
		    jsonr_str(top, "file") : "?", (int)jsonr_num(top, "line", 0));
		sites_cand(R, &p, "delays at the leading sites", SITE_DELAYS_LOW, 1000);
		sites_cand(R, &p, "stronger delays at the leading sites", SITE_DELAYS_HIGH, SITE_MAX_US_HIGH);
	}
	/* localize's own condition, delays at every site it found: where
	 * the bug needs delays at several sites at once, or at any of them,
	 * no one site's effect is clear of 0 and the leading sites alone do
	 * little (rwcache_upgrade: 4 of 22 at the leading site, 53 of 80 in
	 * localize's rounds, half the sites delayed in each run) */
	struct lsite_pick all = { .n = 0 };
	cJSON_ArrayForEach(s, sites)
		pick_add(&all, s);
	if (all.n > p.n && lfails)
		sites_cand(R, &all, "delays at every site found", SITE_DELAYS_LOW, 1000);
	/* each site alone, a couple of long delays a run: a window that a
	 * sleep of milliseconds guards opens only to a delay of that order at
	 * one place, and localize's short delays at half the sites leave it
	 * shut (worker_cancel_lock: 2 of 100 runs with localize's condition,
	 * 63 of 100 with up to 20 ms once a run at the unlock before the
	 * cancel, 6 of 100 with that delay spread over all 14 sites). A broad
	 * sweep, so only while nothing found so far fails most runs. */
	bool weak = R->lead < 0 || smoothed(&R->c[R->lead].s) < SITE_LONE_BELOW;
	size_t k = 0;
	for (s = weak && sites ? sites->child : NULL; s && k < SITE_LONE_MAX; s = s->next) {
		struct lsite_pick one = { .n = 0 };
		char name[64];
		pick_add(&one, s);
		if (!one.n)
			continue;
		snprintf(name, sizeof(name), "long delays at site %zu alone", ++k);
		sites_cand(R, &one, name, SITE_DELAYS_LONE, SITE_MAX_US_TOP);
	}
	if (!p.n) {
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

/*
 * Candidates race side by side (successive halving): every one still in
 * gets a batch of fresh runs; then those whose rate's 95% interval lies
 * wholly below the best one's are dropped, and from the second round on
 * the worse half, the batch doubling each round. Side by side, because
 * the machine's load moves: a candidate measured a minute after another
 * met another machine. The leader races too, its counts growing.
 */
#define RACE_BATCH 10
#define RACE_BATCH_MAX 80

static double wilson_lo(const struct slice *s)
{
	double lo, hi;
	stats_wilson(s->fails, s->runs, STATS_Z95, &lo, &hi);
	return lo;
}

static double wilson_hi(const struct slice *s)
{
	double lo, hi;
	stats_wilson(s->fails, s->runs, STATS_Z95, &lo, &hi);
	return hi;
}

/* One more batch of candidate i (runs, or 0: until time_ns) in its own
 * folder, its counts added. False when the search must stop. */
static bool more(struct rep *R, size_t i, uint64_t runs, int64_t time_ns)
{
	struct cand *c = &R->c[i];
	char name[32];

	snprintf(name, sizeof(name), "try-%zu", i + 1);
	char *dir = subdir(R, name);
	if (!dir) {
		R->status = 3;
		return false;
	}
	int st = run_under(R, &c->cond, dir, c->s.next_index, runs, time_ns, &c->s);
	free(dir);
	c->measured = true;
	return status_ok(R, st);
}

/* Whether a race's winner w should be taken over a sites candidate s:
 * delays at the decisive sites alone also say where the bug is and
 * survive a rebuild, so they are kept at a rate not clearly worse and at
 * least 0.8 of the winner's. */
static bool sites_instead(const struct cand *s, const struct cand *w)
{
	return s->cond.nsites && !w->cond.nsites && s->s.fails && wilson_hi(&s->s) >= smoothed(&w->s) &&
	       smoothed(&s->s) >= 0.8 * smoothed(&w->s);
}

/* Race the candidates idx[0..n) (the leader among them, unless it is the
 * plain loop) with `share` of the budget; the winner leads. */
static void race(struct rep *R, const size_t *cands, size_t n, double share, const char *what)
{
	size_t idx[MAX_CANDS + 1], alive = 0;
	bool in[MAX_CANDS + 1];
	uint64_t runs, batch = RACE_BATCH;
	int64_t t;
	char text[160], desc[512];

	if (!n)
		return;
	/* the leader first: a tie keeps it */
	if (R->lead >= 0 && !R->c[R->lead].natural)
		idx[alive++] = (size_t)R->lead;
	for (size_t k = 0; k < n; k++)
		idx[alive++] = cands[k];
	n = alive;
	if (!n || !budget(R, share, RACE_BATCH * n, &runs, &t))
		return;
	say(R, "%s: %zu candidate%s side by side", what, n, n == 1 ? "" : "s");
	int64_t end = t ? clock_mono_ns() + t : 0;
	uint64_t runs_end = runs ? R->runs_used + runs : 0;
	for (size_t k = 0; k < n; k++)
		in[k] = true;
	for (int round = 0; alive > 1 || round == 0; round++) {
		size_t todo = alive;
		for (size_t k = 0; k < n; k++) {
			uint64_t b = batch;
			int64_t tb = 0;
			if (!in[k])
				continue;
			if (runs_end) {
				if (R->runs_used >= runs_end)
					goto done;
				b = runs_end - R->runs_used < batch ? runs_end - R->runs_used : batch;
			}
			if (end) {
				int64_t left = end - clock_mono_ns();
				if (left < NS_PER_S / 2)
					goto done;
				tb = left / (int64_t)todo > NS_PER_S / 2 ? left / (int64_t)todo : NS_PER_S / 2;
			}
			if (!more(R, idx[k], b, tb))
				goto done;
			todo--;
		}
		/* out: clearly below the best; then the worse half */
		size_t best = n;
		for (size_t k = 0; k < n; k++)
			if (in[k] && (best == n || smoothed(&R->c[idx[k]].s) > smoothed(&R->c[idx[best]].s)))
				best = k;
		for (size_t k = 0; k < n; k++)
			if (in[k] && k != best && wilson_hi(&R->c[idx[k]].s) < wilson_lo(&R->c[idx[best]].s)) {
				in[k] = false;
				alive--;
			}
		for (size_t drop = round >= 1 && alive > 2 ? alive / 2 : 0; drop; drop--) {
			size_t worst = n;
			for (size_t k = 0; k < n; k++)
				if (in[k] && (worst == n || smoothed(&R->c[idx[k]].s) < smoothed(&R->c[idx[worst]].s)))
					worst = k;
			in[worst] = false;
			alive--;
		}
		batch = 2 * batch < RACE_BATCH_MAX ? 2 * batch : RACE_BATCH_MAX;
	}
done:;
	/* the winner: the best lower bound still in, with a failure (a
	 * candidate slowed to a few runs by the time cap does not win on
	 * 2 of 17); against the plain loop, which did not race, the best that
	 * beats it clearly (spsc_ring_publish: the noise arm at 2 of 17 won
	 * and lost to the plain loop, and the jitter arm at 8 of 108 was never
	 * asked) */
	bool natural = R->lead >= 0 && R->c[R->lead].natural;
	bool tried[MAX_CANDS + 1] = { false };
	int w = -1;
	for (;;) {
		size_t pick = n;
		for (size_t k = 0; k < n; k++) {
			const struct cand *c = &R->c[idx[k]];
			if (in[k] && !tried[k] && c->s.fails &&
			    (pick == n || wilson_lo(&c->s) > wilson_lo(&R->c[idx[pick]].s)))
				pick = k;
		}
		if (pick == n)
			break;
		tried[pick] = true;
		if (!natural || better(&R->c[idx[pick]].s, &R->c[R->lead].s, false)) {
			w = (int)idx[pick];
			break;
		}
	}
	for (size_t k = 0; w >= 0 && k < n; k++)
		if (in[k] && sites_instead(&R->c[idx[k]], &R->c[w]) &&
		    (!natural || better(&R->c[idx[k]].s, &R->c[R->lead].s, false)))
			w = (int)idx[k];
	if (w >= 0 && w != R->lead) {
		if (R->lead >= 0)
			R->c[R->lead].kept = false;
		R->lead = w;
		R->c[w].kept = true;
	}
	for (size_t k = 0; k < n; k++) {
		struct cand *c = &R->c[idx[k]];
		if (!c->measured)
			continue;
		rate_text(&c->s, text, sizeof(text));
		say(R, "try %zu, %s: %s: %s: %s", idx[k] + 1, c->name, reproducer_describe(&c->cond, desc, sizeof(desc)),
		    text, (int)idx[k] == R->lead ? "leads" : in[k] ? "not better" : "dropped");
		step_json(R, c->name, &c->cond, &c->s, (int)idx[k] == R->lead);
	}
}

/* The leader's condition pushed one way: how hard, how crowded, how deep
 * is measured, not guessed (report_join_missing: 4 of 65 runs at 8
 * delays of 1 ms per site, 18 of 62 at 32 of 5 ms). */
enum vary { V_JOBS_UP, V_JOBS_DOWN, V_STEPS_UP, V_STEPS_DOWN, V_HARDER, V_ONE_CPU, V_PREEMPT, NVARY };

static const char *const vary_name[NVARY] = {
	"twice the runs at a time", "half the runs at a time", "twice the step depth", "half the step depth",
	"stronger delays", "all runs on one CPU", "more preemptions",
};

#define VARY_JOBS_MAX 32
#define VARY_STEPS_MAX (1 << 20)
#define VARY_BUDGET_MAX 200000  /* us of sync delays per process */
#define VARY_STEP_BUDGET_MAX (16 * CHAOS_STEP_BUDGET_US)  /* us of step holds per thread */
#define VARY_JITTER_MAX 16      /* jitter processes (noise.c: each preempts for 5-20 us every 20-500 us) */

static int min_i(int a, int b)
{
	return a < b ? a : b;
}

/* r changed one way (false: that way does not apply, or r is at its end). */
static bool vary(struct reproducer *r, enum vary v, unsigned base_jobs)
{
	unsigned j = r->jobs ? r->jobs : base_jobs;
	bool step = (r->chaos & CHAOS_STEP_BIT) != 0;

	switch (v) {
	case V_JOBS_UP:
		if (2 * j > VARY_JOBS_MAX)
			return false;
		r->jobs = 2 * j;
		return true;
	case V_JOBS_DOWN:
		if (j < 2)
			return false;
		r->jobs = j / 2;
		return true;
	case V_STEPS_UP:
		if (!step || r->steps <= 0 || r->steps > VARY_STEPS_MAX)
			return false;
		r->steps *= 2;
		return true;
	case V_STEPS_DOWN:
		if (!step || r->steps < 16)
			return false;
		r->steps /= 2;
		return true;
	case V_HARDER:
		if (!(r->chaos & CHAOS_SYNC))
			return false;
		if (step) {
			/* a step run's holds last until its threads' delay budget is
			 * spent: four times the budget, twice (to 320 ms a thread) */
			int b = r->sync_budget_us > 0 ? r->sync_budget_us : CHAOS_STEP_BUDGET_US;
			if (b >= VARY_STEP_BUDGET_MAX)
				return false;
			r->sync_budget_us = min_i(4 * b, VARY_STEP_BUDGET_MAX);
			return true;
		}
		if (r->nsites) {
			/* four times as many delays at the sites, up to four times as long */
			bool more_delays = false;
			for (size_t i = 0; i < r->nsites; i++) {
				more_delays |= r->sites[i].prob < 1;
				r->sites[i].prob = 4 * r->sites[i].prob < 1 ? 4 * r->sites[i].prob : 1;
			}
			if (!more_delays && r->sync_max_us >= SITE_MAX_US_TOP)
				return false;
			r->sync_max_us = min_i(4 * (r->sync_max_us > 0 ? r->sync_max_us : 1000), SITE_MAX_US_TOP);
			return true;
		}
		/* everywhere: sync-hi's settings, then twice them */
		if (r->sync_prob >= 1 && r->sync_max_us >= SITE_MAX_US_TOP && r->sync_budget_us >= VARY_BUDGET_MAX)
			return false;
		r->level = 2;
		r->sync_prob = r->sync_prob > 0 ? (2 * r->sync_prob < 1 ? 2 * r->sync_prob : 1) : 0.5;
		r->sync_max_us = r->sync_max_us > 0 ? min_i(2 * r->sync_max_us, SITE_MAX_US_TOP) : 2000;
		r->sync_budget_us = r->sync_budget_us > 0 ? min_i(2 * r->sync_budget_us, VARY_BUDGET_MAX) : 20000;
		return true;
	case V_ONE_CPU:
		/* already on one CPU: a list without ',' or '-' */
		if (j < 2 || (r->cpus[0] && !strpbrk(r->cpus, ",-")))
			return false;
		snprintf(r->cpus, sizeof(r->cpus), "0");
		return true;
	case V_PREEMPT: {
		/* short preemptions at random points: twice the jitter processes, or two */
		char *at = strstr(r->noise, "jitter:");
		if (!at) {
			size_t used = strlen(r->noise);
			snprintf(r->noise + used, sizeof(r->noise) - used, "%sjitter:2", used ? "," : "");
			return strlen(r->noise) > used;
		}
		long n = strtol(at + 7, NULL, 10);
		if (n < 1 || 2 * n > VARY_JITTER_MAX)
			return false;
		char rest[sizeof(r->noise)];
		snprintf(rest, sizeof(rest), "%s", at + 7 + strspn(at + 7, "0123456789"));
		snprintf(at, sizeof(r->noise) - (size_t)(at - r->noise), "jitter:%ld%s", 2 * n, rest);
		return true;
	}
	case NVARY:
		break;
	}
	return false;
}

/* A new candidate: the leader changed one way; -1 when that does not apply. */
static int variant(struct rep *R, enum vary v)
{
	struct reproducer r;
	reproducer_init(&r);
	reproducer_copy(&r, &R->c[R->lead].cond);
	struct cand *c = vary(&r, v, R->ro->base_jobs) ? cand_new(R, vary_name[v]) : NULL;
	if (!c) {
		reproducer_release(&r);
		return -1;
	}
	reproducer_release(&c->cond);
	c->cond = r;   /* owned by the candidate now */
	return (int)(c - R->c);
}

/* The leader pushed every way that applies, raced against itself; while
 * a way wins, pushed that way again (the budget goes to what raises the
 * rate). */
static void ladder(struct rep *R, double share)
{
	size_t idx[NVARY];
	enum vary way[NVARY];
	size_t n = 0;

	/* the plain loop too: more runs at a time, one CPU or preemptions
	 * are what make a spin handshake or a busy barrier miss its
	 * deadline (spin_handshake: the plain loop led at 2 of 95, nothing
	 * was tried beside it, and its confirmation failed 0 of 40) */
	if (R->lead < 0)
		return;
	for (int v = 0; v < NVARY; v++) {
		int i = variant(R, (enum vary)v);
		if (i >= 0) {
			way[n] = (enum vary)v;
			idx[n++] = (size_t)i;
		}
	}
	int before = R->lead;
	race(R, idx, n, share * 0.6, "tune");
	for (int k = 0; k < 2 && R->lead != before; k++) {
		enum vary v = NVARY;
		for (size_t m = 0; m < n; m++)
			if ((int)idx[m] == R->lead)
				v = way[m];
		if (v == NVARY)
			return;
		int i = variant(R, v);
		if (i < 0)
			return;
		idx[0] = (size_t)i;
		way[0] = v;
		n = 1;
		before = R->lead;
		race(R, idx, n, share * 0.2, "tune further");
	}
}

/*
 * One thread stepped alone (--chaos step, config.step_threads): each of
 * the first ALONE_THREADS threads, while the leader fails under half its
 * runs. A thread held up at its shared accesses while the others run free
 * opens a window that stepping every thread keeps shut (a producer held
 * between publishing its head and writing the slot: its consumer, stepped
 * too, falls behind and never reads the slot early: spsc_ring_publish
 * failed 0 of 25 runs so and 3 of 4 with the producer alone). From the
 * leader's load when it is a step condition, else the series' -j. Needs
 * the chaos library, so a dynamically linked program; x86-64.
 */
static void alone_phase(struct rep *R)
{
#if defined(__x86_64__)
	if (localize_check_dynamic(R->o->path) != 0 ||
	    (R->lead >= 0 && smoothed(&R->c[R->lead].s) >= ALONE_BELOW))
		return;
	const struct reproducer *lead = R->lead >= 0 ? &R->c[R->lead].cond : NULL;
	bool from_lead = lead && (lead->chaos & CHAOS_STEP_BIT) && !lead->nsites;
	for (int k = 0; k < ALONE_THREADS; k++) {
		char name[48];
		snprintf(name, sizeof(name), "thread %d stepped alone", k);
		struct cand *c = cand_new(R, name);
		if (!c)
			return;
		struct reproducer *r = &c->cond;
		if (from_lead) {
			reproducer_copy(r, lead);
		} else {
			snprintf(r->arm, sizeof(r->arm), "step");
			r->chaos = CHAOS_STEP;
			r->level = 1;
		}
		r->step_threads = 1 << k;
	}
#else
	(void)R;
#endif
}

/* Race the candidates made since `first` (and the leader). */
static void race_from(struct rep *R, size_t first, double share, const char *what)
{
	size_t idx[MAX_CANDS];
	size_t n = 0;

	for (size_t i = first; i < R->nc; i++)
		idx[n++] = i;
	race(R, idx, n, share, what);
}

/* ---- 5. confirm ----------------------------------------------------------- */

static void confirm(struct rep *R, struct slice *s)
{
	char *dir = subdir(R, "confirm"), text[160];
	const struct reproducer *cond = &R->c[R->lead].cond;
	unsigned j = cond->jobs ? cond->jobs : R->ro->base_jobs;
	/* batches of 40 at least: a noise arm's preempters start with each
	 * series, and series of 10 runs of 10 ms each ran mostly before they
	 * did (wsdeque_take_steal: serial-jitter 117 of 300 in the race, 2 of
	 * 30 in batches of 10) */
	uint64_t batch = 2 * j > CONFIRM_BATCH ? 2 * j : CONFIRM_BATCH;

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
	if (s->runs)
		say(R, "confirm (fresh runs): %s", text);
	else
		say(R, "confirm: the budget left no time for fresh runs; the reproducer states the search's counts");
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
	if (!conf->runs) {
		/* the search overran what the confirmation was kept (hangs
		 * whose batches ran on into its share): the leader's own
		 * counts, labelled, rather than "0 of 0" */
		conf = &R->c[R->lead].s;
		r.from_search = true;
	}
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
		fprintf(stderr, "jostle: fails %.0f%% of runs [%.0f%%, %.0f%%]%s, %.1f failures/min; natural rate %s; "
			"found in %.0f s\n", r.runs ? 100.0 * (double)r.fails / (double)r.runs : 0, 100 * lo, 100 * hi,
			r.from_search ? " in the search (not confirmed: a search's best flatters itself)" : "",
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
		c->measured = c->kept = c->natural = true;
		R.lead = 0;
	}
	size_t first = R.nc;
	auto_phase(&R, "auto", 0.20);
	/* auto's arms raced afresh: auto's own counts mix its stints */
	race_from(&R, first, 0.10, "auto's arms");
	first = R.nc;
	sites_phase(&R);
	race_from(&R, first, 0.12, "sites");
	first = R.nc;
	alone_phase(&R);
	race_from(&R, first, 0.08, "threads stepped alone");
	/* nothing failed yet: the rest of the budget to more of auto */
	for (int k = 2; R.lead < 0 && !R.interrupted && !R.status; k++) {
		char name[32];
		uint64_t runs;
		int64_t t;
		if (!budget(&R, 0.20, 16, &runs, &t))
			break;
		snprintf(name, sizeof(name), "auto-%d", k);
		first = R.nc;
		uint64_t used = R.runs_used;
		auto_phase(&R, name, 0.20);
		race_from(&R, first, 0.08, "auto's arms");
		if (R.runs_used == used)
			break;   /* nothing ran: no progress to wait for */
	}
	/* climb while a tune race moves the leader and the budget lasts:
	 * each climb starts from the new leader, every way again (session
	 * after session the first climb left a third of the budget unspent
	 * at rates of 20-30%) */
	for (int k = 0; k < LADDER_CLIMBS && !R.interrupted && !R.status; k++) {
		int before = R.lead;
		ladder(&R, 0.30);
		if (R.lead == before)
			break;
	}
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
