/*
 * pressure.h: everything `jostle run` does to a run's conditions, behind
 * one interface for the engine: CPU sets (cgroup cpuset or affinity), CPU
 * quota, background noise, thread chaos, the preload library, the `auto`
 * portfolio and replay of a recorded run.
 *
 * The engine's protocol (series.c), all from its one thread:
 *
 *   pressure_start()          once, before the first run (may fail: exit 2)
 *   loop:
 *     pressure_may_launch()   before each launch: false holds launches back
 *                             (a stint of another configuration is draining)
 *     pressure_prepare()      choose the run's configuration: fills the
 *                             spawn affinity, the before-exec hook (cgroup
 *                             attach) and returns the run's environment
 *     pressure_started()      the child exists (thread chaos starts)
 *     pressure_next_ns() / pressure_tick()   from the poll loop
 *     pressure_ended()        the run is classified (feedback to `auto`)
 *   pressure_stop()           on every exit path, before killing leftovers:
 *                             stops noise, removes every cgroup
 *
 * Without any pressure/chaos option every call is a cheap no-op, so the
 * engine calls them unconditionally.
 */
#ifndef JOSTLE_PRESSURE_H
#define JOSTLE_PRESSURE_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pressure/cgroup.h"
#include "pressure/chaos.h"
#include "pressure/cpuset.h"
#include "pressure/noise.h"
#include "pressure/portfolio.h"
#include "pressure/siteplan.h"
#include "util/dbuf.h"
#include "util/strvec.h"

/* What the options asked for (filled by the CLI through pressure_option). */
struct pressure_opts {
	bool any;                    /* any option of this module given */
	const char *cpus_arg;        /* --cpus (borrowed from argv), or NULL */
	double quota;                /* --cpu-quota in CPUs, 0: none */
	bool noise_set;
	struct noise_spec noise;     /* --noise */
	bool chaos_set;
	enum chaos_mode chaos;       /* --chaos */
	int intensity;               /* --chaos-level 0..2 (default 1) */
	bool level_set;              /* --chaos-level given */
	bool per_run;                /* auto scores its arms per run (portfolio_fixed) */
	unsigned base_jobs;          /* runs at a time outside the "crowd" arm (pressure_jobs) */
	unsigned crowd_jobs;         /* runs at a time of a crowd (pressure_jobs) */
	int64_t timeout_ns;          /* the per-run limit (--timeout), 0: none */
	/* --replay DIR:RUN, filled by replay_load() */
	bool replay;
	uint64_t replay_run, replay_seed;
	char replay_cpus[256];
	int replay_jobs;
	struct pconfig replay_cfg;
	char replay_arm[32];
	bool replay_config_only;     /* the recorded configuration, but every run keeps its
				      * own seed and JOSTLE_RUN (jostle bisect) */
	/* jostle localize (siteplan.h): the site plan of every sync run, or NULL;
	 * a replayed run's plan file and mask ("" when it had none) */
	const struct siteplan *sites;
	char replay_sites[1024];
	char replay_mask[SITEMASK_HEX];
};

void pressure_opts_init(struct pressure_opts *po);

/*
 * One option: name without dashes ("cpus", "cpu-quota", "noise", "chaos",
 * "chaos-level") and its value. Returns 0 or -EINVAL with the full message
 * (after "jostle: ") in why.
 */
int pressure_option(struct pressure_opts *po, const char *name, const char *val,
		    char *why, size_t whylen);

/*
 * The engine's number of run slots for these options: with `auto` and no
 * -j, 8x the default: the portfolio crowds the CPUs with 4x as golang-stress
 * -p 8 does on two CPUs, and a crowd on one CPU runs on every CPU side by
 * side (two on two CPUs); every other arm still runs `jobs` at a time (or
 * `jobs` per CPU group). Call once after the options are parsed.
 */
unsigned pressure_jobs(struct pressure_opts *po, unsigned jobs, bool jobs_set);

/* --chaos auto was asked for (it is never implied by --cpus, --noise, ...). */
bool pressure_is_auto(const struct pressure_opts *po);

struct pressure_run {
	bool used;
	uint64_t index;
	int arm;
	pid_t pid;
	struct cpuset cpus;          /* the run's set (n == 0: not restricted) */
	int group;                   /* which of the arm's CPU groups (portfolio.h) */
	cpu_set_t mask;
	bool cgroup;                 /* has its own cgroup */
	struct cgroup_root *cg;      /* borrowed: the series' root */
	char cg_name[32];
	bool threads;                /* thread chaos on */
	struct chaos_run chaos;
	int64_t span_ns;             /* thread chaos: the usual run length, 0: unknown */
	int64_t start_ns;            /* when it started (monotonic) */
	int64_t busy_at;             /* overdue and busy: when last looked, 0 never */
	uint64_t busy_ticks;         /* its CPU then (clock ticks) */
	bool busy;                   /* what that look found */
	double prob;                 /* preload settings, when sync */
	int max_us;
	const char *sites;           /* siteplan.h: the plan file (borrowed), or NULL */
	char site_mask[SITEMASK_HEX];
	int budget_us;
	int steps;                   /* --chaos step: instruction budget, else 0 */
	int step_threads;            /* --chaos step: the threads stepped (pconfig) */
	int step_who;                /* auto: its index (portfolio_step_who_draw), else -1 */
	int step_depth;              /* auto: its octave (portfolio_step_draw), else -1 */
	uint64_t ticket;             /* portfolio_started's */
	struct strvec env;           /* the run's own environment, when changed */
	char *config_json;           /* the record's "config" object */
};

struct pressure {
	struct pressure_opts *po;
	bool on;
	unsigned jobs;
	struct cpuset avail;         /* CPUs of the series (--cpus or all usable) */
	bool restricted;             /* --cpus given or replay */
	struct cgroup_root cg;
	const char *cpus_via;        /* "cgroup-v1", "cgroup-v2", "affinity" */
	struct portfolio pf;
	bool is_auto;
	int arm;                     /* arm of the current stint */
	int next_arm;                /* picked, waiting for a drain; or -1 */
	int stint_left;
	bool drain_wait;             /* a stint waits for the machine to drain */
	int64_t now_ns;              /* the engine's clock at the last tick/start */
	unsigned active;
	struct noise noise;
	struct noise_spec noise_spec;
	struct noise_spec jitter_spec;  /* of the jitter arms: one preempter per CPU */
	char *lib;                   /* libjostle-chaos.so, when a sync arm exists */
	struct pressure_run *runs;   /* nruns entries */
	unsigned nruns;              /* the engine's slots: runs alive at once */
	uint64_t stints;
};

/*
 * Set up for a series of runs run `jobs` at a time with master seed `seed`;
 * up to `slots` runs may be alive at once (hung runs being diagnosed no
 * longer hold one of the `jobs`): the table of runs has that many rows,
 * and pressure_prepare() of one more is refused (-ENOSPC).
 * Returns 0, or -errno with the message (after "jostle: ") in why: an
 * impossible --cpus, --cpu-quota without a writable cgroup, no preload
 * library for --chaos sync.
 */
int pressure_start(struct pressure *p, struct pressure_opts *po, unsigned jobs, unsigned slots,
		   uint64_t seed, char *why, size_t whylen);

/*
 * Whether pressure_start() would succeed with these options, without
 * keeping anything: the CLI asks before it creates the results directory,
 * so an impossible --cpus leaves nothing behind. 0 or -errno with why.
 */
int pressure_check(struct pressure_opts *po, unsigned jobs, uint64_t seed, char *why, size_t whylen);

bool pressure_may_launch(struct pressure *p, unsigned active);

/*
 * The run `index` is about to be spawned with environment envp (borrowed).
 * *seed may be replaced (replay). Sets *affinity (or NULL), *hook and
 * *hook_arg for spawn's before_exec, and returns the envp to use (envp
 * itself, or one owned by p until pressure_ended). NULL on error (-errno in
 * *err, e.g. a cgroup that could not be made).
 */
char *const *pressure_prepare(struct pressure *p, uint64_t index, uint64_t *seed, char *const *envp,
			      const cpu_set_t **affinity, int (**hook)(pid_t, void *),
			      void **hook_arg, int *err);

/* The spawn failed: forget the prepared run. */
void pressure_abandon(struct pressure *p, uint64_t index);

void pressure_started(struct pressure *p, uint64_t index, pid_t pid, int64_t now_ns);

/* The "config" object of a prepared run (borrowed), "{}" without pressure. */
const char *pressure_config_json(struct pressure *p, uint64_t index);

/* Earliest time a tick is wanted, INT64_MAX if none. */
int64_t pressure_next_ns(const struct pressure *p);
void pressure_tick(struct pressure *p, int64_t now_ns);

/* CPU seconds of everything run `index` started, from its own cgroup;
 * -ENOENT when it has none (or no account there). Before pressure_ended. */
int pressure_run_cpu(struct pressure *p, uint64_t index, double *user_s, double *sys_s);

/* The run `index` ended and nothing of it is alive, `how` (passed,
 * failed, slow, or cut: cancelled), after wall_s seconds, share_s of them
 * its share of the machine (run/share.h) and cpu_s of CPU; wall_s < 0:
 * no feedback to the portfolio. Removes its cgroup. */
void pressure_ended(struct pressure *p, uint64_t index, enum portfolio_outcome how, double wall_s, double share_s,
		    double cpu_s);
/*
 * The deadline of run `index`, as a multiple of --timeout, once it passed
 * the timeout without being stuck: 1 (no more time) unless --chaos auto put
 * it in an arm that slows runs down; then the arm's measured slowdown over
 * the unperturbed arm, with margin, between 2 and PORTFOLIO_SCALE_MAX; 1 when
 * the arm's correct runs end far inside the timeout (timeout_s seconds).
 */
double pressure_timeout_scale(struct pressure *p, uint64_t index, double timeout_s);

/*
 * Whether jostle put load on run `index` (late.h: load may explain a run
 * past its deadline): background noise or jitter, thread chaos, or under
 * auto a crowd (more runs at once than the series' own -j) or an arm of
 * fewer CPUs. *ncpus: the CPUs of its set. Before pressure_ended.
 */
bool pressure_run_loaded(struct pressure *p, uint64_t index, unsigned *ncpus);

/* Members for the series line's "settings" (",\"cpus\":..." form: each
 * member preceded by a comma); nothing without pressure. */
void pressure_settings_json(const struct pressure *p, struct dbuf *b);

/* Stop noise, remove cgroups, free the per-run state. Idempotent; the
 * summary functions still work afterwards. */
void pressure_stop(struct pressure *p);

#endif
