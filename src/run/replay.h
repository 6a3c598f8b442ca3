/*
 * replay.h: `jostle run --replay DIR:RUN`: read one recorded run from
 * DIR/runs.jsonl and set the options up so that the new runs repeat its
 * configuration (CPU set, quota, noise, chaos mode and settings, jobs) and
 * its seed and JOSTLE_RUN exactly.
 */
#ifndef JOSTLE_REPLAY_H
#define JOSTLE_REPLAY_H

#include <stddef.h>

#include "pressure/pressure.h"

/*
 * Load DIR:RUN into po (po->replay set). *jobs receives the recorded
 * concurrency (0 if not recorded). Returns 0, or -errno with the message
 * (after "jostle: ") in why.
 */
int replay_load(struct pressure_opts *po, const char *spec, unsigned *jobs,
		char *why, size_t whylen);

#endif
