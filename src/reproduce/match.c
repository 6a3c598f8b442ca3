/*
 * match.c: a reproducer's sites on the build of the program at hand
 * (reproducer_attach, see reproducer.h).
 *
 * Why symbolize first: an offset is only the same site in the same build.
 * A site whose recorded offset still names the recorded function and line
 * is taken as it is, with no run spent. A rebuild (a fix) moves offsets:
 * then a few runs record the sites the program reaches (the sync chaos
 * library's record mode, as localize's discovery) and each moved site is
 * found again by call, function and line, or by call and function when
 * the line moved too (the fix was above it). Where neither is found the
 * site is reported as unmatched: its delay is not applied, and a proof
 * under the reproducer is weaker for it (compare says so).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "localize/catalog.h"
#include "localize/round.h"
#include "reproduce/reproducer.h"
#include "run/series.h"
#include "signature/frame.h"
#include "util/clock.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MATCH_RUNS 6
#define MATCH_TIMEOUT_NS (60 * NS_PER_S)

static bool same_str(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static bool same_file(const char *a, const char *b)
{
	return a && b && !strcmp(frame_basename(a), frame_basename(b));
}

/* The module the site is looked for in: the command's own file when the
 * site was in the command's file as recorded (a rebuilt program may be
 * somewhere else). */
static const char *module_of(const struct reproducer *r, const struct rsite *s, const char *path)
{
	if (r->command && path && !strcmp(s->module, r->command))
		return path;
	return s->module;
}

/* Sites whose recorded offset names the same function and line here. */
static size_t match_same(struct reproducer *r, const char *path)
{
	struct catalog c = CATALOG_INIT;
	size_t n = 0;

	c.v = xcalloc(r->nsites ? r->nsites : 1, sizeof(*c.v));
	for (size_t i = 0; i < r->nsites; i++) {
		struct lsite *l = &c.v[c.n++];
		l->module = xstrdup(module_of(r, &r->sites[i], path));
		l->off = r->sites[i].off;
		snprintf(l->call, sizeof(l->call), "%s", r->sites[i].call);
	}
	c.alloc = c.n;
	catalog_symbolize(&c);
	for (size_t i = 0; i < r->nsites; i++) {
		struct rsite *s = &r->sites[i];
		const struct lsite *l = &c.v[i];
		if (access(l->module, R_OK) < 0 || !s->fn || !same_str(l->fn, s->fn) || (s->line && l->line != s->line))
			continue;
		s->how = "same build";
		s->new_off = s->off;
		s->new_line = l->line;
		if (strcmp(l->module, s->module))
			s->new_module = xstrdup(l->module);
		n++;
	}
	catalog_release(&c);
	return n;
}

/* A few runs that record the sites (DIR/reproducer-match/); the catalog
 * symbolized into *c. 0 or -errno with why. */
static int discover(struct run_opts *o, struct catalog *c, char *why, size_t whylen)
{
	char *dir = xasprintf("%s/reproducer-match", o->out_dir);
	char *plan = xasprintf("%s/plan.txt", dir);
	char *log = xasprintf("%s/jostle.log", dir);
	struct catalog none = CATALOG_INIT;
	int rc = 0;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		rc = -errno;
	if (rc == 0)
		rc = catalog_write_plan(&none, plan, NULL, NULL, 0);
	if (rc == 0 && strlen(plan) >= sizeof(o->pressure.replay_sites))
		rc = -ENAMETOOLONG;
	if (rc == 0) {
		struct run_opts ro = *o;
		ro.out_dir = dir;
		ro.runs = MATCH_RUNS;
		ro.first_index = 0;
		ro.time_ns = 0;
		ro.until = UNTIL_NONE;
		ro.quiet = true;
		ro.no_report = true;
		ro.matrix = NULL;
		ro.shard.count = 0;
		ro.diag.core = false;
		if (ro.timeout_ns > MATCH_TIMEOUT_NS)
			ro.timeout_ns = MATCH_TIMEOUT_NS;
		snprintf(ro.pressure.replay_sites, sizeof(ro.pressure.replay_sites), "%s", plan);
		ro.pressure.replay_mask[0] = '\0';
		int st = round_series(&ro, log);
		if (st < 0 || st == 2 || st == 3)
			rc = st < 0 ? st : -EIO;
		else if (catalog_read_dir(c, dir) <= 0)
			rc = -ENOENT;
		else
			catalog_symbolize(c);
	}
	if (rc < 0)
		snprintf(why, whylen, "--reproducer: the runs that find the sites in this build (%s) did "
			 "not record any: %s", dir, rc == -ENOENT ? "no table written" : strerror(-rc));
	free(dir);
	free(plan);
	free(log);
	return rc;
}

/* The best catalog site for s: the same call and function, the same file
 * and line first; the most called among equals. -1 when none. */
static long find_moved(const struct catalog *c, const struct rsite *s, bool *by_line)
{
	long best = -1;
	bool best_line = false;

	for (size_t i = 0; i < c->n; i++) {
		const struct lsite *l = &c->v[i];
		if (strcmp(l->call, s->call) || !same_str(l->fn, s->fn))
			continue;
		bool line = s->line && l->line == s->line && (!s->file || same_file(l->src, s->file));
		if (best < 0 || (line && !best_line) || (line == best_line && l->calls > c->v[best].calls)) {
			best = (long)i;
			best_line = line;
		}
	}
	*by_line = best_line;
	return best;
}

static void write_applied(const struct reproducer *r, const struct run_opts *o)
{
	char *path = xasprintf("%s/reproducer.json", o->out_dir);
	if (reproducer_write(r, path, o->argv, NULL) < 0)
		fprintf(stderr, "jostle: warning: cannot write '%s'\n", path);
	free(path);
}

long reproducer_attach(struct reproducer *r, struct run_opts *o, char *why, size_t whylen)
{
	size_t matched = 0, unmatched = 0;

	if (r->nsites) {
		matched = match_same(r, o->path);
		if (matched < r->nsites) {
			struct catalog c = CATALOG_INIT;
			if (!o->quiet)
				fprintf(stderr, "jostle: reproducer: %zu of %zu sites moved (a new build?); "
					"finding them by function and line in %d runs\n",
					r->nsites - matched, r->nsites, MATCH_RUNS);
			int rc = discover(o, &c, why, whylen);
			if (rc < 0) {
				catalog_release(&c);
				return rc;
			}
			for (size_t i = 0; i < r->nsites; i++) {
				struct rsite *s = &r->sites[i];
				bool by_line;
				long k = s->how ? -1 : find_moved(&c, s, &by_line);
				if (k < 0)
					continue;
				s->how = by_line ? "by function and line" : "by function";
				s->new_off = c.v[k].off;
				s->new_line = c.v[k].line;
				free(s->new_module);
				s->new_module = xstrdup(c.v[k].module);
				matched++;
			}
			catalog_release(&c);
		}
		char *plan = xasprintf("%s/reproducer-plan.txt", o->out_dir);
		int rc = strlen(plan) < sizeof(o->pressure.replay_sites) ? reproducer_write_plan(r, plan, true) :
			 -ENAMETOOLONG;
		if (rc < 0) {
			snprintf(why, whylen, "--reproducer: cannot write '%.300s': %s", plan, strerror(-rc));
			free(plan);
			return rc;
		}
		snprintf(o->pressure.replay_sites, sizeof(o->pressure.replay_sites), "%s", plan);
		reproducer_mask_all(matched, o->pressure.replay_mask);
		free(plan);
		for (size_t i = 0; i < r->nsites; i++) {
			const struct rsite *s = &r->sites[i];
			if (s->how && !strcmp(s->how, "same build"))
				continue;
			if (!s->how)
				unmatched++;
			if (o->quiet && s->how)
				continue;
			char now[32] = "";
			if (s->how && s->new_line && s->new_line != s->line)
				snprintf(now, sizeof(now), " (now line %d)", s->new_line);
			fprintf(stderr, "jostle: %sreproducer site %s in %s at %s:%d %s%s%s\n", s->how ? "" : "warning: ",
				s->call, s->fn ? s->fn : "?", s->file ? frame_basename(s->file) : "?", s->line,
				s->how ? "matched " : "not found in this build: its delay is not applied",
				s->how ? s->how : "", now);
		}
	}
	write_applied(r, o);
	return (long)unmatched;
}
