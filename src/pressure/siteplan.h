/*
 * siteplan.h: the call-site plan of a sync-chaos series run by `jostle
 * localize`: the plan file the preload library reads (JOSTLE_CHAOS_SITES,
 * format in preload/chaos.c and docs/FORMAT.md) and, per run, the mask of
 * the plan's sites it delays at (JOSTLE_CHAOS_MASK, util/sitemask.h).
 *
 * A run's mask is drawn from the run's seed alone: site i is on with
 * probability incl[i], so the same seed gives the same mask. pressure.c
 * draws it, puts it in the run's environment and records it in the run's
 * "config" (members "sites" and "site_mask"), which is what `--replay`
 * reads back.
 */
#ifndef JOSTLE_SITEPLAN_H
#define JOSTLE_SITEPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "util/sitemask.h"
#include "util/strvec.h"

struct siteplan {
	const char *path;      /* the plan file, absolute (borrowed) */
	size_t n;              /* sites in the plan: bits 0..n-1, n <= SITEMASK_MAX */
	const double *incl;    /* n inclusion probabilities (borrowed); NULL: the
				* plan only records sites (no mask) */
};

/* The mask of the run with seed SEED into hex (SITEMASK_HEX bytes); ""
 * when the plan has no inclusion probabilities. */
void siteplan_mask(const struct siteplan *p, uint64_t seed, char *hex);

/* The library's variables in a run's environment: JOSTLE_CHAOS_SITES=PATH
 * and, when mask is not NULL, JOSTLE_CHAOS_MASK=MASK. */
void siteplan_env(struct strvec *env, const char *path, const char *mask);

#endif
