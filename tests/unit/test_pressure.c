/* pressure.c's table of runs: sized once by the engine's slots, never grown. */
#include <errno.h>
#include <stdlib.h>

#include "pressure/pressure.h"
#include "tap.h"

static char *const *prepare(struct pressure *p, uint64_t index, int *err)
{
	uint64_t seed = index;
	const cpu_set_t *affinity;
	int (*hook)(pid_t, void *);
	void *hook_arg;
	static char *env[] = { NULL };
	(void)pressure_may_launch(p, 0);   /* as the engine does: the arm chosen first */
	return pressure_prepare(p, index, &seed, env, &affinity, &hook, &hook_arg, err);
}

int main(void)
{
	struct pressure_opts po;
	struct pressure p;
	char why[512];
	int err;

	setenv("JOSTLE_CGROUP", "off", 1);
	pressure_opts_init(&po);
	po.any = true;   /* on, with no CPUs, noise or chaos to set up */
	CHECK(pressure_start(&p, &po, 1, 2, 42, why, sizeof(why)) == 0);
	CHECK(p.nruns == 2);
	CHECK(prepare(&p, 0, &err) != NULL);
	CHECK(prepare(&p, 1, &err) != NULL);
	struct pressure_run *table = p.runs;
	/* a third run alive beside two in two slots: refused, table unmoved */
	err = 0;
	CHECK(prepare(&p, 2, &err) == NULL);
	CHECK(err == -ENOSPC);
	CHECK(p.nruns == 2 && p.runs == table);
	/* a row freed is a row again */
	pressure_abandon(&p, 0);
	CHECK(prepare(&p, 3, &err) != NULL);
	CHECK(p.nruns == 2 && p.runs == table);
	pressure_stop(&p);
	return tap_done();
}
