/*
 * siteplan.c: a run's site mask and the library's environment (see
 * siteplan.h). The mask's generator is seeded from the run's seed mixed
 * with a constant of its own, so that it is independent of the library's
 * per-thread generators, which start from the same seed.
 */
#include <stdbool.h>

#include "pressure/siteplan.h"
#include "util/rng.h"
#include "util/banned.h"

void siteplan_mask(const struct siteplan *p, uint64_t seed, char *hex)
{
	bool bits[SITEMASK_MAX];
	uint64_t st = seed ^ 0x73697465706c616eULL;   /* "siteplan" */
	size_t n = p->n < SITEMASK_MAX ? p->n : SITEMASK_MAX;

	if (!p->incl) {
		hex[0] = '\0';
		return;
	}
	for (size_t i = 0; i < n; i++)
		bits[i] = rng_unit(&st) < p->incl[i];
	sitemask_format(bits, n, hex);
}

void siteplan_env(struct strvec *env, const char *path, const char *mask)
{
	strvec_setenv(env, "JOSTLE_CHAOS_SITES", path);
	if (mask)
		strvec_setenv(env, "JOSTLE_CHAOS_MASK", mask);
}
