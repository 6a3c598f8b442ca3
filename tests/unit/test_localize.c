/*
 * test_localize.c: the pure parts of `jostle localize`: the site mask
 * spelling (util/sitemask.h) and its seeded draw (pressure/siteplan.c),
 * the reader of the preload library's site tables (catalog.c), and the
 * effect estimates, elimination and pair interaction (effect.c) against
 * values worked out by hand.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "localize/catalog.h"
#include "localize/effect.h"
#include "pressure/siteplan.h"
#include "results/stats.h"
#include "util/sitemask.h"
#include "util/sitetable.h"
#include "tap.h"

static void test_mask(void)
{
	bool bits[9] = { true, false, false, false, false, false, false, true, true };
	char hex[SITEMASK_HEX];

	sitemask_format(bits, 9, hex);
	CHECK_STR(hex, "818");
	for (size_t i = 0; i < 9; i++)
		CHECK(sitemask_get(hex, i) == bits[i]);
	CHECK(!sitemask_get(hex, 12));     /* past the end: off */
	CHECK(!sitemask_get("", 0));
	CHECK(sitemask_get("1", 3));
	CHECK(sitemask_get("F", 0) && sitemask_get("F", 3));
	CHECK(!sitemask_get("x", 0));

	/* the draw: seeded, about the inclusion probability, extremes exact */
	double half[200], none[3] = { 0, 0, 0 }, all[3] = { 1, 1, 1 };
	for (int i = 0; i < 200; i++)
		half[i] = 0.5;
	struct siteplan p = { .path = "/x", .n = 200, .incl = half };
	char a[SITEMASK_HEX], b[SITEMASK_HEX], c[SITEMASK_HEX];
	siteplan_mask(&p, 42, a);
	siteplan_mask(&p, 42, b);
	siteplan_mask(&p, 43, c);
	CHECK_STR(a, b);
	CHECK(strcmp(a, c) != 0);
	CHECK(strlen(a) == 50);
	int on = 0;
	for (size_t i = 0; i < 200; i++)
		on += sitemask_get(a, i);
	CHECK(on > 70 && on < 130);
	p.n = 3;
	p.incl = none;
	siteplan_mask(&p, 1, a);
	CHECK_STR(a, "0");
	p.incl = all;
	siteplan_mask(&p, 1, a);
	CHECK_STR(a, "e");
	p.incl = NULL;
	siteplan_mask(&p, 1, a);
	CHECK_STR(a, "");
}

static void slot(struct sitetable *t, int k, uint64_t off, int mod, int call, uint64_t calls, uint64_t delays)
{
	t->slot[k].ra = 0x7f0000000000 + off;
	t->slot[k].off = off;
	t->slot[k].mod = mod;
	t->slot[k].start_mod = -1;
	t->slot[k].call = call;
	t->slot[k].bit = -1;
	t->slot[k].calls = calls;
	t->slot[k].delays = delays;
	t->slot[k].ready = 1;
}

static struct sitetable *table(void)
{
	struct sitetable *t = calloc(1, sizeof(*t));
	memcpy(t->magic, SITETABLE_MAGIC, sizeof(t->magic));
	t->version = SITETABLE_VERSION;
	t->slots = SITETABLE_SLOTS;
	t->mode = 1;
	t->nmods = 2;
	strcpy(t->mods[0], "/opt/app/bin/app");
	strcpy(t->mods[1], "/usr/lib/lib with space.so");
	return t;
}

static void test_catalog(void)
{
	struct catalog c = CATALOG_INIT;
	struct sitetable *t1 = table(), *t2 = table();
	char buf[256];

	slot(t1, 7, 0x1539, 0, CALL_MUTEX_LOCK, 2000, 111);
	slot(t1, 100, 0x11ef, 0, CALL_CREATE, 2, 0);
	t1->slot[100].start_mod = 0;
	t1->slot[100].start_off = 0x1500;
	slot(t1, 4095, 0x80, 1, CALL_SEM_WAIT, 20, 3);
	slot(t1, 9, 0x90, 5, CALL_SEM_WAIT, 1, 0);         /* a module not named: skipped */
	slot(t1, 10, 0x99, 0, CALL_SEM_WAIT, 1, 0);
	t1->slot[10].ready = 0;                             /* still being resolved: skipped */
	t1->overflow = 2;
	slot(t2, 3000, 0x1539, 0, CALL_MUTEX_LOCK, 1000, 9);
	CHECK(catalog_add_table(&c, t1, sizeof(*t1)) == 3);
	CHECK(catalog_add_table(&c, t2, sizeof(*t2)) == 1);
	CHECK(catalog_add_table(&c, t2, sizeof(*t2) - 1) < 0);
	t2->magic[0] = 'x';
	CHECK(catalog_add_table(&c, t2, sizeof(*t2)) < 0);
	CHECK(c.n == 3);
	CHECK(c.tables == 2);
	CHECK(c.overflow == 2);
	long i = catalog_find(&c, "/opt/app/bin/app", 0x1539);
	CHECK(i >= 0);
	if (i >= 0) {
		CHECK(c.v[i].calls == 3000);
		CHECK(c.v[i].delays == 120);
		CHECK(c.v[i].procs == 2);
		CHECK_STR(c.v[i].call, "pthread_mutex_lock");
		CHECK_STR(catalog_describe(&c.v[i], buf, sizeof(buf)), "pthread_mutex_lock at app+0x1539");
		c.v[i].fn = strdup("drain");
		c.v[i].src = strdup("/src/drain_uaf.c");
		c.v[i].line = 171;
		CHECK_STR(catalog_describe(&c.v[i], buf, sizeof(buf)), "pthread_mutex_lock in drain at drain_uaf.c:171");
		CHECK_STR(catalog_function(&c.v[i]), "drain");
	}
	long k = catalog_find(&c, "/opt/app/bin/app", 0x11ef);
	CHECK(k >= 0);
	if (k >= 0) {
		CHECK_STR(c.v[k].start_module, "/opt/app/bin/app");
		CHECK(c.v[k].start_off == 0x1500);
		c.v[k].fn = strdup("main");
		c.v[k].start_fn = strdup("worker");
		CHECK_STR(catalog_describe(&c.v[k], buf, sizeof(buf)),
			  "start of worker (pthread_create in main (app+0x11ef))");
		CHECK_STR(catalog_function(&c.v[k]), "worker");
	}
	CHECK(catalog_find(&c, "/usr/lib/lib with space.so", 0x80) >= 0);
	catalog_release(&c);
	free(t1);
	free(t2);
}

/* Runs of one round: site 0 makes every run with it on fail, site 1 does
 * nothing, sites 2 and 3 fail the run only together. */
static void fill(struct effect_round *r, int runs, unsigned seed)
{
	bool on[4];
	for (int j = 0; j < runs; j++) {
		seed = seed * 1103515245u + 12345u;
		for (int b = 0; b < 4; b++)
			on[b] = (seed >> (16 + b)) & 1;
		effect_round_add(r, on, on[0] || (on[2] && on[3]));
	}
}

static void test_effect(void)
{
	struct effect_data d = EFFECT_DATA_INIT;
	size_t sites[4] = { 10, 11, 12, 13 };
	struct effect e[14];

	fill(effect_round_new(&d, sites, 4), 200, 1);
	fill(effect_round_new(&d, sites, 4), 200, 2);
	for (size_t s = 0; s < 14; s++)
		effect_site(&d, s, STATS_Z95, &e[s]);
	CHECK(e[10].diff > 0.6 && e[10].lo > 0.5);
	CHECK(e[10].strata == 2);
	CHECK(e[10].n_on + e[10].n_off == 400);
	CHECK(e[11].lo < 0 && e[11].hi > 0);
	CHECK(e[12].diff > 0 && e[13].diff > 0);
	CHECK(e[10].diff > e[12].diff);
	/* a site no round randomized: no information */
	CHECK(e[0].lo == -1 && e[0].hi == 1 && e[0].strata == 0);
	CHECK(effect_cmp(&e[10], &e[11]) < 0);

	/* elimination keeps the leader, drops the clearly weaker */
	bool cand[14] = { false };
	for (int s = 10; s < 14; s++)
		cand[s] = true;
	size_t lead;
	CHECK(effect_prune(e, cand, 14) >= 1);
	CHECK(cand[10]);
	CHECK(!cand[11]);
	CHECK(effect_separated(e, cand, 14, &lead) && lead == 10);

	/* the pair 12 + 13: together, beyond each alone */
	struct effect_pair p;
	effect_pair(&d, 12, 13, STATS_Z95, &p);
	CHECK(p.strata == 2);
	CHECK(p.inter > 0.2 && p.lo > 0);
	CHECK(p.n[0] + p.n[1] + p.n[2] + p.n[3] == 400);
	effect_pair(&d, 10, 11, STATS_Z95, &p);
	CHECK(p.lo < 0 && p.hi > 0);

	/* a hand-worked single stratum: 10 of 10 on, 0 of 10 off */
	struct effect_data h = EFFECT_DATA_INIT;
	size_t one = 0;
	struct effect_round *r = effect_round_new(&h, &one, 1);
	bool t = true, f = false;
	for (int j = 0; j < 10; j++) {
		effect_round_add(r, &t, true);
		effect_round_add(r, &f, false);
	}
	struct effect x;
	effect_site(&h, 0, STATS_Z95, &x);
	/* Agresti-Caffo: 11/12 - 1/12, se = sqrt(2 * (11/12)(1/12)/12) */
	CHECK_NEAR(x.diff, 10.0 / 12.0, 1e-12);
	CHECK_NEAR(x.lo, 10.0 / 12.0 - STATS_Z95 * sqrt(2 * (11.0 / 12) * (1.0 / 12) / 12), 1e-12);
	CHECK(x.hi == 1);
	CHECK(x.absmin == x.lo);
	CHECK(effect_z_simultaneous(1, 0.95) > 1.959 && effect_z_simultaneous(1, 0.95) < 1.961);
	CHECK(effect_z_simultaneous(20, 0.95) > 3.0);
	effect_data_release(&h);
	effect_data_release(&d);
}

int main(void)
{
	test_mask();
	test_catalog();
	test_effect();
	return tap_done();
}
