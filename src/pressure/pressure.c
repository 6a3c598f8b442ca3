/*
 * pressure.c: the engine's one interface to pressure and chaos (see
 * pressure.h). The mechanisms live in their own files (cpuset, cgroup,
 * noise, chaos, portfolio); this file decides, per run, which of them
 * apply, and keeps the per-run state the engine must not know about.
 *
 * Runs are launched in stints of one configuration (portfolio.h says why);
 * a new stint starts only when the previous one has drained, and that is
 * also when noise is switched on or off, so every run of a stint sees the
 * same background.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pressure/pressure.h"
#include "util/jsonw.h"
#include "util/rng.h"
#include "util/xalloc.h"
#include "util/banned.h"

void pressure_opts_init(struct pressure_opts *po)
{
	memset(po, 0, sizeof(*po));
	po->intensity = 1;
}

int pressure_option(struct pressure_opts *po, const char *name, const char *val,
		    char *why, size_t whylen)
{
	char reason[256];

	po->any = true;
	if (!strcmp(name, "cpus")) {
		struct cpuset tmp;
		if (!*val || (strpbrk(val, ",-") && cpuset_parse_list(val, &tmp) < 0)) {
			snprintf(why, whylen, "--cpus '%.100s' is not a CPU count or list; expected e.g. 2, 0, 0-1, 0,2-3", val);
			return -EINVAL;
		}
		po->cpus_arg = val;
		return 0;
	}
	if (!strcmp(name, "cpu-quota")) {
		char *end;
		double q = strtod(val, &end);
		if (end == val || *end || !(q > 0) || q > 4096) {
			snprintf(why, whylen, "--cpu-quota '%.100s' is not a CPU fraction; expected e.g. 0.5 (of one CPU) or 1.5", val);
			return -EINVAL;
		}
		po->quota = q;
		return 0;
	}
	if (!strcmp(name, "noise")) {
		if (noise_parse(val, &po->noise, reason, sizeof(reason)) < 0) {
			snprintf(why, whylen, "--noise '%.100s': %s", val, reason);
			return -EINVAL;
		}
		po->noise_set = !noise_empty(&po->noise);
		return 0;
	}
	if (!strcmp(name, "chaos")) {
		if (chaos_mode_parse(val, &po->chaos) < 0) {
			snprintf(why, whylen, "--chaos '%.100s' is not a chaos mode; expected none, threads, sync, step, all or auto", val);
			return -EINVAL;
		}
		po->chaos_set = true;
		return 0;
	}
	if (!strcmp(name, "chaos-level")) {
		if (strlen(val) != 1 || val[0] < '0' || val[0] > '2') {
			snprintf(why, whylen, "--chaos-level '%.100s' is not a level; expected 0, 1 or 2", val);
			return -EINVAL;
		}
		po->intensity = val[0] - '0';
		po->level_set = true;
		return 0;
	}
	snprintf(why, whylen, "internal error: unknown pressure option '%.40s'", name);
	return -EINVAL;
}

bool pressure_is_auto(const struct pressure_opts *po)
{
	/* only when asked: --cpus 2 alone is what `docker --cpus=2` is, not
	 * a portfolio of conditions the user did not choose (issue 19) */
	return !po->replay && po->chaos_set && po->chaos == CHAOS_AUTO;
}

unsigned pressure_jobs(struct pressure_opts *po, unsigned jobs, bool jobs_set)
{
	bool is_auto = pressure_is_auto(po);

	po->base_jobs = jobs;
	po->crowd_jobs = jobs;
	if (is_auto && !jobs_set && jobs <= 1024) {
		/* a crowd of 8 per CPU, all the slots (a one-CPU crowd is
		 * that depth on each CPU, portfolio.h). Twice what
		 * golang-stress -p 8 runs on two CPUs: a busy-spin handshake
		 * that misses its deadline when the CPUs are oversubscribed
		 * (zoo spin_handshake) failed 3-5% of 8 runs at once, 20-30% of
		 * 16 and of 32, at the same runs per second (bench/RESULTS.md,
		 * session 35); a token ring failed alike at 8, 16 and 32 */
		po->crowd_jobs = 8 * jobs;
		return 8 * jobs;
	}
	return jobs;
}

static const struct pconfig *arm_cfg(const struct pressure *p, int a)
{
	return &p->pf.arm[a].cfg;
}

static unsigned arm_jobs(const struct pressure *p, int a)
{
	unsigned j = (unsigned)arm_cfg(p, a)->jobs;
	unsigned base = p->po->base_jobs && p->po->base_jobs < p->jobs ? p->po->base_jobs : p->jobs;

	if (!j)
		return base;
	return j < p->jobs ? j : p->jobs;
}

int pressure_start(struct pressure *p, struct pressure_opts *po, unsigned jobs, unsigned slots,
		   uint64_t seed, char *why, size_t whylen)
{
	struct cpuset all;
	char reason[512];
	bool need_cg = false, need_lib = false;
	int rc;

	memset(p, 0, sizeof(*p));
	p->po = po;
	p->jobs = jobs;
	p->on = po->any || po->replay;
	if (!p->on)
		return 0;
	rc = cpuset_available(&all);
	if (rc < 0) {
		snprintf(why, whylen, "cannot read the CPUs available: %s", strerror(-rc));
		return rc;
	}
	p->avail = all;
	if (po->replay && po->replay_cpus[0]) {
		/* a recorded set is always a list ("1" is CPU 1, not a count) */
		bool ok = cpuset_parse_list(po->replay_cpus, &p->avail) == 0 && p->avail.n;
		for (int i = 0; ok && i < p->avail.n; i++)
			ok = cpuset_has(&all, p->avail.cpu[i]);
		if (!ok) {
			snprintf(why, whylen, "--replay: the recorded CPUs '%s' are not available here", po->replay_cpus);
			return -EINVAL;
		}
		p->restricted = true;
	} else if (po->cpus_arg) {
		if (cpuset_resolve(po->cpus_arg, &all, &p->avail, reason, sizeof(reason)) < 0) {
			snprintf(why, whylen, "--cpus '%.100s' %s", po->cpus_arg, reason);
			return -EINVAL;
		}
		p->restricted = true;
	}
	p->noise_spec = po->noise;
	if (!po->noise_set)
		p->noise_spec.cpu = p->avail.n; /* the default noise: one spinner per CPU */
	p->jitter_spec.jitter = p->avail.n;
	if (po->replay) {
		portfolio_init_one(&p->pf, &po->replay_cfg);
	} else if (!pressure_is_auto(po)) {
		enum chaos_mode mode = po->chaos_set ? po->chaos : CHAOS_NONE;
		struct pconfig c = { .name = chaos_mode_name(mode), .noise = po->noise_set,
				     .chaos = mode, .intensity = po->intensity };
		portfolio_init_one(&p->pf, &c);
	} else {
		struct portfolio_fixed fixed = { .cpus = p->restricted, .noise = po->noise_set, .per_run = po->per_run };
		unsigned base = po->base_jobs && po->base_jobs < jobs ? po->base_jobs : jobs;
		unsigned crowd = po->crowd_jobs && po->crowd_jobs < jobs ? po->crowd_jobs : jobs;
		portfolio_init_auto(&p->pf, seed, p->avail.n, (int)base, (int)crowd, (int)jobs, &fixed);
		p->is_auto = true;
		if (po->noise_set)
			for (int a = 0; a < p->pf.n; a++)
				p->pf.arm[a].cfg.noise = true;
	}
	for (int a = 0; a < p->pf.n; a++) {
		const struct pconfig *c = arm_cfg(p, a);
		if (c->ncpus > 0)
			need_cg = true;
		if (c->chaos & CHAOS_SYNC)
			need_lib = true;
	}
	if (p->restricted || po->quota > 0)
		need_cg = true;
	p->cpus_via = "affinity";
	if (need_cg) {
		/* JOSTLE_CGROUP=off: never use cgroups (tests of the affinity
		 * path; machines where jostle must not touch the hierarchy) */
		const char *env = getenv("JOSTLE_CGROUP");
		if (env && !strcmp(env, "off")) {
			rc = -EPERM;
			snprintf(reason, sizeof(reason), "cgroups are turned off (JOSTLE_CGROUP=off)");
		} else {
			rc = cgroup_open(&p->cg, po->quota > 0, reason, sizeof(reason));
		}
		if (rc < 0 && po->quota > 0) {
			snprintf(why, whylen, "--cpu-quota needs a writable cgroup with the cpu controller: %s "
				 "(run as root, or drop --cpu-quota and use --cpus)", reason);
			return rc;
		}
		if (rc == 0)
			p->cpus_via = cgroup_kind_name(p->cg.kind);
	}
	if (need_lib) {
		p->lib = chaos_find_lib();
		if (!p->lib) {
			snprintf(why, whylen, "--chaos sync needs libjostle-chaos.so next to the jostle binary "
				 "or in $JOSTLE_CHAOS_LIB; it was not found");
			cgroup_close(&p->cg);
			return -ENOENT;
		}
	}
	p->nruns = slots > jobs ? slots : jobs;
	p->runs = xcalloc(p->nruns, sizeof(*p->runs));
	p->arm = -1;
	p->next_arm = -1;
	return 0;
}

int pressure_check(struct pressure_opts *po, unsigned jobs, uint64_t seed, char *why, size_t whylen)
{
	struct pressure p;
	if (po->level_set && !po->chaos_set && !po->replay) {
		snprintf(why, whylen, "--chaos-level needs a chaos mode: add --chaos threads, sync, all or auto");
		return -EINVAL;
	}
	int rc = pressure_start(&p, po, jobs, jobs, seed, why, whylen);

	if (rc == 0)
		pressure_stop(&p);
	return rc;
}

static int arm_groups(const struct pressure *p, int a)
{
	int g = arm_cfg(p, a)->groups;

	return g > 1 ? g : 1;
}

/*
 * Whether an arm's CPU sets move stint by stint: a smaller set whose groups
 * leave CPUs out rotates over them, so no CPU is always spared.
 */
static bool rotates(const struct pressure *p, int a)
{
	const struct pconfig *c = arm_cfg(p, a);

	return c->ncpus > 0 && c->ncpus * arm_groups(p, a) < p->avail.n;
}

/* The CPUs of group g of the current stint's arm. */
static void group_cpus(const struct pressure *p, int g, struct cpuset *out)
{
	const struct pconfig *c = arm_cfg(p, p->arm);

	if (c->ncpus > 0 && c->ncpus < p->avail.n) {
		int off = rotates(p, p->arm) ? (int)(p->stints % (uint64_t)p->avail.n) : 0;
		out->n = 0;
		for (int i = 0; i < c->ncpus; i++)
			out->cpu[out->n++] = p->avail.cpu[(off + g * c->ncpus + i) % p->avail.n];
		/* keep it sorted for printing */
		for (int i = 1; i < out->n; i++)
			for (int j = i; j > 0 && out->cpu[j - 1] > out->cpu[j]; j--) {
				unsigned short t = out->cpu[j];
				out->cpu[j] = out->cpu[j - 1];
				out->cpu[j - 1] = t;
			}
	} else {
		*out = p->avail;
	}
}

/* The group with the fewest runs in flight (runs of the stint's arm fill
 * the groups evenly; runs of an earlier arm of the same layout count, not
 * those of another: the last runs of a crowd on every CPU are "group 0"
 * and sent a one-CPU stint's runs all to the second CPU). */
static int emptiest_group(const struct pressure *p)
{
	int groups = arm_groups(p, p->arm), best = 0;
	unsigned best_n = UINT_MAX;
	const struct pconfig *c = arm_cfg(p, p->arm);

	for (int g = 0; g < groups; g++) {
		unsigned n = 0;
		for (unsigned i = 0; i < p->nruns; i++) {
			const struct pressure_run *r = &p->runs[i];
			if (!r->used || r->group != g || r->arm < 0 || r->arm >= p->pf.n)
				continue;
			const struct pconfig *o = arm_cfg(p, r->arm);
			n += o->ncpus == c->ncpus && arm_groups(p, r->arm) == groups;
		}
		if (n < best_n) {
			best_n = n;
			best = g;
		}
	}
	return best;
}

/* The background an arm runs with: the noise hogs, the jitter preempters, or none. */
static const struct noise_spec *arm_noise(const struct pressure *p, int a)
{
	const struct pconfig *c = arm_cfg(p, a);

	return c->noise ? &p->noise_spec : c->jitter ? &p->jitter_spec : NULL;
}

static void new_stint(struct pressure *p, int arm)
{
	const struct noise_spec *had = p->arm >= 0 ? arm_noise(p, p->arm) : NULL;
	struct cpuset cpus;

	p->arm = arm;
	p->next_arm = -1;
	p->stint_left = p->is_auto ? portfolio_stint(&p->pf, p->arm, (int)arm_jobs(p, p->arm)) : INT_MAX;
	p->stints++;
	group_cpus(p, 0, &cpus);
	const struct noise_spec *want = arm_noise(p, p->arm);
	if (had && (p->is_auto || want != had))
		noise_stop(&p->noise);
	if (want && p->noise.pgid == 0) {
		/* A hog that cannot start is not worth failing the series for:
		 * the record says what ran ("noise" is "" then). */
		if (noise_start(&p->noise, want, &cpus) < 0)
			memset(&p->noise, 0, sizeof(p->noise));
	}
}

/*
 * Whether runs of arm b may start while runs of arm a still run: only when
 * b changes nothing the runs share. The background (noise, jitter) is the
 * machine every run of the stint sees; concurrency, CPU sets, thread chaos
 * and the preload library are each run's own, so switching between those
 * needs no drain (a drain idles the slots until the slowest run of the
 * stint ends). Runs of a one-CPU arm next to runs of an all-CPU arm for a
 * moment are a busier machine for both, as a crowd's last runs are for
 * the plain runs after them.
 */
static bool shares_machine(const struct pressure *p, int a, int b)
{
	const struct pconfig *x = arm_cfg(p, a), *y = arm_cfg(p, b);

	return x->noise == y->noise && x->jitter == y->jitter;
}

/*
 * When a run of auto is overdue: once it has run for four times as long
 * as a passing run of the series takes on average (a quarter of the run
 * timeout before any run has passed), and at least a second. This only
 * decides scheduling, not the run's outcome (that is judged at its
 * deadline): an overdue run is most likely hung, and waits for its
 * deadline either way. So it no longer holds up a drain (waiting for it
 * idled every other slot for up to the whole timeout), nor, once it no
 * longer works (overdue_busy), counts against the concurrency of the
 * stint (a program that hangs in every run would otherwise keep auto at
 * the concurrency of its first stint until the first timeouts); the
 * engine's -j still bounds the runs at once. Its record keeps the
 * configuration it started with.
 */
static int64_t overdue_at(const struct pressure *p, const struct pressure_run *r)
{
	uint64_t passes = 0;
	double pass_s = 0;
	int64_t after;

	for (int a = 0; a < p->pf.n; a++) {
		passes += p->pf.arm[a].passes;
		pass_s += p->pf.arm[a].pass_s;
	}
	if (passes)
		after = (int64_t)(4 * pass_s / (double)passes * 1e9);
	else
		after = p->po->timeout_ns > 0 ? p->po->timeout_ns / 4 : INT64_MAX / 2;
	return r->start_ns + (after > 1000000000LL ? after : 1000000000LL);
}

/* The CPU of process pid and of its reaped children in clock ticks (the
 * 14th to 17th fields of /proc/PID/stat, after the command's ')'), or -1. */
static int64_t proc_ticks(pid_t pid)
{
	char path[32], buf[1024];
	ssize_t n = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *s = strrchr(buf, ')');
	if (!s)
		return -1;
	/* after ')': state (field 3) ... utime is field 14 */
	for (int field = 2; field < 13 && s; field++)
		s = strchr(s + 1, ' ');
	unsigned long long t[4];
	if (!s || sscanf(s, " %llu %llu %llu %llu", &t[0], &t[1], &t[2], &t[3]) != 4)
		return -1;
	return (int64_t)(t[0] + t[1] + t[2] + t[3]);
}

/*
 * Whether an overdue run still uses the CPU (its reaped children's
 * included): 5% of one CPU or more since the last look (over its life at
 * the first), looked at every half second. Such a run is slow, not hung
 * (a busy-spin handshake crawling on a crowded machine): starting another
 * run in its place would crowd the machine past the arm's load, slow
 * every run further, and turn a crowd of sixteen into thirty. A hung run
 * that sleeps still makes way.
 */
static bool overdue_busy(struct pressure *p, struct pressure_run *r)
{
	enum { LOOK_NS = 500000000 };

	if (r->busy_at && p->now_ns - r->busy_at < LOOK_NS)
		return r->busy;
	int64_t got = proc_ticks(r->pid);
	if (got < 0)
		return r->busy = false;
	long tck = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
	uint64_t ticks = (uint64_t)got;
	int64_t since = r->busy_at ? r->busy_at : r->start_ns;
	double cpu_s = (double)(ticks - (r->busy_at ? r->busy_ticks : 0)) / (double)tck;
	double wall_s = (double)(p->now_ns - since) / 1e9;
	r->busy = wall_s > 0 && cpu_s >= 0.05 * wall_s;
	r->busy_at = p->now_ns;
	r->busy_ticks = ticks;
	return r->busy;
}

/* Runs in flight that a drain waits for: those not overdue; with busy,
 * those that count against a stint's concurrency: overdue ones still busy
 * too. */
static unsigned in_flight(struct pressure *p, bool busy)
{
	unsigned n = 0;

	for (unsigned i = 0; i < p->nruns; i++) {
		struct pressure_run *r = &p->runs[i];
		n += r->used && (r->pid <= 0 || p->now_ns < overdue_at(p, r) || (busy && overdue_busy(p, r)));
	}
	return n;
}

/* Each arm's runs in flight: how long they have run (portfolio_pick). */
static void running_times(struct pressure *p)
{
	for (int a = 0; a < p->pf.n; a++)
		p->pf.arm[a].running_s = 0;
	for (unsigned i = 0; i < p->nruns; i++) {
		const struct pressure_run *r = &p->runs[i];
		if (r->used && r->pid > 0 && r->arm >= 0 && r->arm < p->pf.n && p->now_ns > r->start_ns)
			p->pf.arm[r->arm].running_s += (double)(p->now_ns - r->start_ns) / 1e9;
	}
}

bool pressure_may_launch(struct pressure *p, unsigned active)
{
	if (!p->on)
		return true;
	p->drain_wait = false;
	if (p->stint_left <= 0 || p->arm < 0) {
		if (p->next_arm < 0) {
			running_times(p);
			portfolio_settle(&p->pf, (double)p->now_ns / 1e9);
			p->next_arm = portfolio_pick(&p->pf);
		}
		if (active > 0 && p->arm >= 0 && !shares_machine(p, p->arm, p->next_arm) && in_flight(p, false) > 0) {
			p->drain_wait = true;
			return false;
		}
		new_stint(p, p->next_arm);
	}
	return (p->is_auto ? in_flight(p, true) : active) < arm_jobs(p, p->arm);
}

static struct pressure_run *find_run(struct pressure *p, uint64_t index)
{
	for (unsigned i = 0; i < p->nruns; i++)
		if (p->runs[i].used && p->runs[i].index == index)
			return &p->runs[i];
	return NULL;
}

/*
 * Thread chaos spreads its change points over the usual length of a run:
 * the mean of this configuration's finished runs once there are 3, else of
 * all finished runs (another configuration's runs are a fair first guess;
 * 0 before any, which keeps the growing gaps), or the recorded span on
 * replay.
 */
static int64_t span_of(const struct pressure *p, const struct pconfig *c, int arm)
{
	const struct parm *a = &p->pf.arm[arm];
	uint64_t runs = 0;
	double wall = 0;

	if (p->po->replay)
		return (int64_t)c->span_ms * 1000000;
	if (a->runs >= 3)
		return (int64_t)(a->wall_s / (double)a->runs * 1e9);
	for (int i = 0; i < p->pf.n; i++) {
		runs += p->pf.arm[i].runs;
		wall += p->pf.arm[i].wall_s;
	}
	return runs >= 3 ? (int64_t)(wall / (double)runs * 1e9) : 0;
}

/* spawn's before_exec: the child exists and has not exec'd yet. */
static int cgroup_hook(pid_t pid, void *arg)
{
	struct pressure_run *r = arg;

	return cgroup_attach(r->cg, r->cg_name, pid);
}

static void config_json(struct pressure *p, struct pressure_run *r, const struct pconfig *c)
{
	struct dbuf b;
	char list[256], nz[128] = "";

	dbuf_init(&b, 4096);
	cpuset_format(r->cpus.n ? &r->cpus : &p->avail, list, sizeof(list));
	const struct noise_spec *bg = arm_noise(p, r->arm);
	if (bg && p->noise.pgid)
		noise_format(bg, nz, sizeof(nz));
	dbuf_addc(&b, '{');
	jsonw_kstr(&b, "arm", c->name);
	dbuf_addc(&b, ',');
	jsonw_kstr(&b, "cpus", list);
	dbuf_addc(&b, ',');
	jsonw_kstr(&b, "cpus_via", r->cpus.n ? (r->cgroup ? p->cpus_via : "affinity") : "none");
	dbuf_addc(&b, ',');
	jsonw_kdbl(&b, "cpu_quota", p->po->quota);
	dbuf_addc(&b, ',');
	/* the runs that shared this run's CPUs (one group's): what a replay starts */
	jsonw_kint(&b, "jobs", (int64_t)(arm_jobs(p, r->arm) / (unsigned)arm_groups(p, r->arm)));
	dbuf_addc(&b, ',');
	jsonw_kstr(&b, "noise", nz);
	dbuf_addc(&b, ',');
	jsonw_kstr(&b, "chaos", chaos_mode_name(c->chaos));
	dbuf_addc(&b, ',');
	jsonw_kint(&b, "level", c->intensity);
	if (c->chaos & CHAOS_THREADS) {
		dbuf_addc(&b, ',');
		jsonw_kint(&b, "span_ms", r->span_ns / 1000000);
	}
	if (c->chaos & CHAOS_SYNC) {
		dbuf_addc(&b, ',');
		jsonw_kdbl(&b, "sync_prob", r->prob);
		dbuf_addc(&b, ',');
		jsonw_kint(&b, "sync_max_us", r->max_us);
		if (r->budget_us > 0) {
			dbuf_addc(&b, ',');
			jsonw_kint(&b, "sync_budget_us", r->budget_us);
		}
		if (r->steps > 0) {
			dbuf_addc(&b, ',');
			jsonw_kint(&b, "steps", r->steps);
			dbuf_addc(&b, ',');
			jsonw_kint(&b, "step_threads", r->step_threads);
		}
	}
	if (r->sites) {
		dbuf_addc(&b, ',');
		jsonw_kstr(&b, "sites", r->sites);
		dbuf_addc(&b, ',');
		jsonw_kstr(&b, "site_mask", r->site_mask);
	}
	if (p->po->replay) {
		dbuf_addc(&b, ',');
		jsonw_kuint(&b, "replay_of", p->po->replay_run);
	}
	dbuf_addc(&b, '}');
	r->config_json = dbuf_detach(&b, NULL);
}

static void run_release(struct pressure_run *r)
{
	strvec_release(&r->env);
	free(r->config_json);
	memset(r, 0, sizeof(*r));
}

/* jostle localize (siteplan.h): the plan file and this run's mask, from
 * the plan and the seed, or as a replayed run had them. */
static void run_sites(const struct pressure *p, struct pressure_run *r, uint64_t seed)
{
	const struct pressure_opts *po = p->po;

	if (po->replay && po->replay_sites[0]) {
		r->sites = po->replay_sites;
		snprintf(r->site_mask, sizeof(r->site_mask), "%s", po->replay_mask);
	} else if (po->sites) {
		r->sites = po->sites->path;
		siteplan_mask(po->sites, seed, r->site_mask);
	} else {
		return;
	}
	siteplan_env(&r->env, r->sites, r->site_mask[0] ? r->site_mask : NULL);
}

char *const *pressure_prepare(struct pressure *p, uint64_t index, uint64_t *seed, char *const *envp,
			      const cpu_set_t **affinity, int (**hook)(pid_t, void *),
			      void **hook_arg, int *err)
{
	struct pressure_run *r = NULL;
	const struct pconfig *c;
	struct cpuset cpus;

	*affinity = NULL;
	*hook = NULL;
	*hook_arg = NULL;
	*err = 0;
	if (!p->on || !p->runs)
		return envp;
	for (unsigned i = 0; i < p->nruns && !r; i++)
		if (!p->runs[i].used)
			r = &p->runs[i];
	if (!r) {
		/* sized once, never grown: a row per engine slot (pressure_start's
		 * slots: -j plus the runs being diagnosed), held from here to
		 * pressure_ended() or pressure_abandon() while the run holds its
		 * slot; a run with no row is refused, not given a moved table */
		*err = -ENOSPC;
		return NULL;
	}
	memset(r, 0, sizeof(*r));
	r->used = true;
	r->index = index;
	r->step_depth = -1;
	r->step_who = -1;
	r->arm = p->is_auto ? portfolio_member(&p->pf, p->arm) : p->arm;
	c = arm_cfg(p, r->arm);
	if (p->po->replay && !p->po->replay_config_only)
		*seed = p->po->replay_seed;
	r->group = -1;   /* not counted in its own choice */
	r->group = emptiest_group(p);
	group_cpus(p, r->group, &cpus);
	if (p->restricted || c->ncpus > 0)
		r->cpus = cpus;
	if ((r->cpus.n || p->po->quota > 0) && p->cg.kind != CGROUP_NONE) {
		int rc;
		snprintf(r->cg_name, sizeof(r->cg_name), "run-%" PRIu64, index);
		rc = cgroup_make(&p->cg, r->cg_name, r->cpus.n ? &r->cpus : NULL, p->po->quota);
		if (rc < 0) {
			*err = rc;
			run_release(r);
			return NULL;
		}
		r->cgroup = true;
		r->cg = &p->cg;
		*hook = cgroup_hook;
		*hook_arg = r;
	}
	if (r->cpus.n) {
		cpuset_to_mask(&r->cpus, &r->mask);
		*affinity = &r->mask;
	}
	r->threads = (c->chaos & CHAOS_THREADS) != 0;
	if (r->threads)
		r->span_ns = span_of(p, c, r->arm);
	/* the chaos generator of this run follows from its seed */
	r->chaos.rng = *seed;
	bool same_run = p->po->replay && !p->po->replay_config_only;
	if ((c->chaos & CHAOS_SYNC) || same_run) {
		for (char *const *e = envp; *e; e++)
			strvec_push(&r->env, *e);
		if (c->chaos & CHAOS_SYNC) {
			bool step = (c->chaos & CHAOS_STEP_BIT) != 0;
			chaos_sync_level(c->intensity, &r->prob, &r->max_us);
			if (step) {
				r->prob = 0;
				r->max_us = CHAOS_STEP_MAX_US;
				r->budget_us = CHAOS_STEP_BUDGET_US;
			}
			if (c->sync_prob > 0)
				r->prob = c->sync_prob;
			if (c->sync_max_us > 0)
				r->max_us = c->sync_max_us;
			if (c->sync_budget_us > 0 || !step)
				r->budget_us = c->sync_budget_us;
			/* auto steps a busy program less: a trap costs more than
			 * most instructions (portfolio.h) */
			if (step) {
				r->steps = c->steps > 0 ? c->steps :
					   p->is_auto ? portfolio_step_draw(&p->pf, *seed, &r->step_depth) :
					   PORTFOLIO_STEP_MAX;
				r->step_threads = c->step_threads > 0 ? c->step_threads :
						  p->is_auto ? portfolio_step_who_draw(&p->pf, *seed, &r->step_who) :
						  chaos_step_threads_draw(*seed);
			}
			chaos_sync_env(&r->env, p->lib, r->prob, r->max_us, r->budget_us, r->steps, r->step_threads);
			run_sites(p, r, *seed);
		}
		if (same_run) {
			char v[32];
			snprintf(v, sizeof(v), "%" PRIu64, p->po->replay_run);
			strvec_setenv(&r->env, "JOSTLE_RUN", v);
			snprintf(v, sizeof(v), "%" PRIu64, *seed);
			strvec_setenv(&r->env, "JOSTLE_SEED", v);
			snprintf(v, sizeof(v), "%" PRIu32, rng_seed32(*seed));
			strvec_setenv(&r->env, "JOSTLE_SEED32", v);
		}
	}
	config_json(p, r, c);
	r->ticket = portfolio_started(&p->pf, r->arm);
	p->stint_left--;
	p->active++;
	return r->env.v ? r->env.v : envp;
}

int pressure_run_cpu(struct pressure *p, uint64_t index, double *user_s, double *sys_s)
{
	struct pressure_run *r;

	if (!p->on || !p->runs || !(r = find_run(p, index)) || !r->cgroup)
		return -ENOENT;
	return cgroup_cpu(&p->cg, r->cg_name, user_s, sys_s);
}

void pressure_abandon(struct pressure *p, uint64_t index)
{
	struct pressure_run *r;

	if (!p->on || !p->runs || !(r = find_run(p, index)))
		return;
	if (r->cgroup)
		cgroup_remove(&p->cg, r->cg_name);
	portfolio_dropped(&p->pf, r->arm, r->ticket, (double)p->now_ns / 1e9);
	run_release(r);
	p->stint_left++;
	p->active--;
}

void pressure_started(struct pressure *p, uint64_t index, pid_t pid, int64_t now_ns)
{
	struct pressure_run *r;

	if (!p->on || !p->runs || !(r = find_run(p, index)))
		return;
	r->pid = pid;
	r->start_ns = now_ns;
	p->now_ns = now_ns;
	if (r->threads) {
		const struct pconfig *c = arm_cfg(p, r->arm);
		uint64_t seed = r->chaos.rng;
		chaos_start(&r->chaos, pid, seed, r->cpus.n ? &r->cpus : &p->avail, c->intensity,
			    r->span_ns, now_ns);
	}
}

const char *pressure_config_json(struct pressure *p, uint64_t index)
{
	struct pressure_run *r;

	if (!p->on || !p->runs || !(r = find_run(p, index)) || !r->config_json)
		return "{}";
	return r->config_json;
}

int64_t pressure_next_ns(const struct pressure *p)
{
	int64_t t = INT64_MAX;

	if (!p->on || !p->runs)
		return t;
	for (unsigned i = 0; i < p->nruns; i++) {
		const struct pressure_run *r = &p->runs[i];
		if (r->used && r->threads && r->pid > 0) {
			int64_t n = chaos_next_ns(&r->chaos);
			if (n < t)
				t = n;
		}
		/* a drain waits for this run: wake when it stops holding it up */
		if (p->drain_wait && r->used && r->pid > 0 && overdue_at(p, r) < t)
			t = overdue_at(p, r);
	}
	return t;
}

void pressure_tick(struct pressure *p, int64_t now_ns)
{
	if (!p->on || !p->runs)
		return;
	p->now_ns = now_ns;
	for (unsigned i = 0; i < p->nruns; i++) {
		struct pressure_run *r = &p->runs[i];
		if (r->used && r->threads && r->pid > 0 && now_ns >= chaos_next_ns(&r->chaos))
			chaos_tick(&r->chaos, now_ns);
	}
}

void pressure_ended(struct pressure *p, uint64_t index, enum portfolio_outcome how, double wall_s, double share_s,
		    double cpu_s)
{
	struct pressure_run *r;

	if (!p->on || !p->runs || !(r = find_run(p, index)))
		return;
	if (wall_s >= 0) {
		portfolio_feedback_share(&p->pf, r->arm, r->ticket, how, wall_s, share_s, cpu_s,
					 (double)p->now_ns / 1e9);
		if (how != PORTFOLIO_CUT)
			portfolio_step_feedback(&p->pf, r->step_depth, r->step_who, how == PORTFOLIO_FAIL, cpu_s);
	} else {
		portfolio_dropped(&p->pf, r->arm, r->ticket, (double)p->now_ns / 1e9);
	}
	if (r->cgroup)
		cgroup_remove(&p->cg, r->cg_name);
	run_release(r);
	p->active--;
}

double pressure_timeout_scale(struct pressure *p, uint64_t index, double timeout_s)
{
	struct pressure_run *r;

	if (!p->on || !p->is_auto || !p->runs || !(r = find_run(p, index)))
		return 1.0;
	return portfolio_timeout_scale(&p->pf, r->arm, timeout_s);
}

bool pressure_run_loaded(struct pressure *p, uint64_t index, unsigned *ncpus)
{
	struct pressure_run *r;

	*ncpus = (unsigned)p->avail.n;
	if (!p->on || !p->runs || !(r = find_run(p, index)))
		return false;
	if (r->cpus.n)
		*ncpus = (unsigned)r->cpus.n;
	const struct pconfig *c = arm_cfg(p, r->arm);
	if (c->noise || c->jitter || (c->chaos & CHAOS_THREADS))
		return true;
	/* auto's crowds and one-CPU arms: more runs at once, or fewer CPUs,
	 * than the user's -j on the series' CPUs */
	unsigned base = p->po->base_jobs ? p->po->base_jobs : p->jobs;
	return p->is_auto && (c->ncpus > 0 || arm_jobs(p, r->arm) > base);
}

void pressure_settings_json(const struct pressure *p, struct dbuf *b)
{
	char list[256], nz[128] = "";

	if (!p->on)
		return;
	cpuset_format(&p->avail, list, sizeof(list));
	dbuf_addc(b, ',');
	jsonw_kstr(b, "cpus", p->restricted ? list : NULL);
	dbuf_addc(b, ',');
	jsonw_kstr(b, "cpus_via", p->cpus_via);
	dbuf_addc(b, ',');
	jsonw_kdbl(b, "cpu_quota", p->po->quota);
	if (p->po->noise_set)
		noise_format(&p->po->noise, nz, sizeof(nz));
	dbuf_addc(b, ',');
	jsonw_kstr(b, "noise", nz);
	dbuf_addc(b, ',');
	jsonw_kstr(b, "chaos", p->is_auto ? "auto" : chaos_mode_name(arm_cfg(p, 0)->chaos));
	dbuf_addc(b, ',');
	jsonw_kint(b, "chaos_level", p->po->intensity);
	if (p->po->replay) {
		dbuf_addc(b, ',');
		jsonw_kuint(b, "replay_of", p->po->replay_run);
	}
}

void pressure_stop(struct pressure *p)
{
	if (!p->on || !p->runs)
		return;
	noise_stop(&p->noise);
	if (p->runs) {
		for (unsigned i = 0; i < p->nruns; i++)
			if (p->runs[i].used)
				run_release(&p->runs[i]);
	}
	cgroup_close(&p->cg);
	free(p->runs);
	p->runs = NULL;
	free(p->lib);
	p->lib = NULL;
	/* p->on stays: the summary functions still read the portfolio */
}
