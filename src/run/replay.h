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

struct run_opts;
struct cJSON;

/* The settings of a run record's "config" object (docs/FORMAT.md), the
 * reader that --replay and reproducer.json's condition share. */
struct replay_config {
	char arm[32];             /* "" when not recorded */
	char cpus[256];           /* the run's own CPU set ("cpus_via" not "none"), "" all */
	char noise[128];          /* the noise spec, "" none */
	double quota;             /* cpu_quota */
	struct pconfig k;         /* chaos, intensity (1 when not recorded), sync_prob,
				   * sync_max_us, sync_budget_us, span_ms, steps; name NULL */
	double jobs;              /* 0 when not recorded */
};

/* Read cfg (a JSON object) into c. Returns 0, or -EINVAL with what was
 * wrong in why ("chaos mode 'x' is unknown"). */
int replay_config_read(const struct cJSON *cfg, struct replay_config *c, char *why, size_t whylen);

/*
 * Run o in this process as one batch of a larger search (bisect's batches,
 * reproduce's series, their settings set by the caller): the engine's
 * stderr (its summary, warnings) appended to LOG, so that the terminal
 * keeps the caller's own lines. When the series could not run (status 2
 * or 3), LOG's last line into last, else "". Returns the series' status.
 */
int replay_series(struct run_opts *o, const char *log, char *last, size_t lastlen);

#endif
