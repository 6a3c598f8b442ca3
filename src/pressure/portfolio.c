/*
 * portfolio.c: arm selection for `--chaos auto` (see portfolio.h).
 *
 * Beta draws are made of two Gamma draws, which use Marsaglia and Tsang's method on our seeded generator,
 * so a test can pin the whole selection sequence.
 */
#include <math.h>
#include <string.h>

#include "pressure/portfolio.h"
#include "util/rng.h"
#include "util/banned.h"

/* The loads and perturbations of auto (portfolio.h). */
struct load {
	const char *name;      /* prefix of the arm's name ("" for plain) */
	int jobs;              /* 0: the series' -j, -1: a crowd, else fixed */
	int ncpus;             /* 0: all CPUs, 1: one CPU per run */
};

struct perturb {
	const char *name;      /* suffix of the arm's name ("" for none) */
	struct pconfig cfg;    /* noise, jitter, chaos and its settings */
};

static const struct load loads[] = {
	{ "", 0, 0 },
	{ "serial", 1, 0 },
	{ "crowd", -1, 0 },
	{ "1cpu", 0, 1 },
	{ "crowd-1cpu", -1, 1 },
};

/*
 * "sync-hi": every other interposed call delayed by up to 2 ms, at most
 * 20 ms in all per process. Small programs make a few dozen calls, and
 * their races need a thread held up for long enough that another one is
 * scheduled and gets through its part (a light setting found 0-4 of the
 * corpus's never-failing programs in a first look, this one most of
 * them); the budget keeps a program that makes thousands of calls, or has
 * deadlines of its own, from being slowed by more than that.
 */
static const struct perturb perturbs[] = {
	{ "", { .chaos = CHAOS_NONE } },
	{ "threads", { .chaos = CHAOS_THREADS, .intensity = 1 } },
	{ "sync", { .chaos = CHAOS_SYNC, .intensity = 1 } },
	{ "sync-hi", { .chaos = CHAOS_SYNC, .intensity = 2, .sync_prob = 0.5, .sync_max_us = 2000,
		       .sync_budget_us = 20000 } },
	{ "jitter", { .jitter = true } },
	{ "noise", { .noise = true } },
	{ "step", { .chaos = CHAOS_STEP, .intensity = 2 } },
};

#define NLOADS (int)(sizeof(loads) / sizeof(loads[0]))
#define NPERTURBS (int)(sizeof(perturbs) / sizeof(perturbs[0]))

/*
 * The first round, before any failure: every load and every perturbation
 * within the first stints, the likeliest first: plain (a bug that fails
 * natively fails at once), heavy sync chaos and steps (what fails programs
 * that never fail natively: 15 of the 35 SCTBench programs), a crowd (what the
 * seeds' reports had in common), then the others. An arm missing from the
 * portfolio (no crowd at -j 1 ...) is skipped, and so is one tried already
 * (the plain crowd, which portfolio_pick gives its first second before the
 * round).
 */
static const char *const first_round[] = {
	"plain", "sync-hi", "step", "crowd", "crowd-sync", "1cpu-sync-hi", "crowd-threads", "serial",
	"crowd-1cpu", "jitter", "noise", "serial-sync-hi", "1cpu-threads", "crowd-sync-hi", "serial-step",
};

static double normal(uint64_t *rng)
{
	double u1 = rng_unit(rng), u2 = rng_unit(rng);

	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

double portfolio_gamma(uint64_t *rng, double shape)
{
	if (shape < 1) {
		/* Gamma(a) = Gamma(a + 1) * U^(1/a) */
		double u = rng_unit(rng);
		return portfolio_gamma(rng, shape + 1) * pow(u > 1e-300 ? u : 1e-300, 1.0 / shape);
	}
	double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);

	for (;;) {
		double x = normal(rng), v = 1.0 + c * x, u;

		if (v <= 0)
			continue;
		v = v * v * v;
		u = rng_unit(rng);
		if (u < 1.0 - 0.0331 * x * x * x * x || log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
			return d * v;
	}
}

static void add(struct portfolio *p, const struct pconfig *c, int load, int perturb)
{
	if (p->n < PORTFOLIO_MAX) {
		p->arm[p->n].cfg = *c;
		p->arm[p->n].load = load;
		p->arm[p->n].perturb = perturb;
		p->n++;
	}
}

void portfolio_init_one(struct portfolio *p, const struct pconfig *cfg)
{
	memset(p, 0, sizeof(*p));
	add(p, cfg, 0, 0);
	p->crowd = -1;
	p->end_s = -1;
	p->remeasure_arm = -1;
	p->nload = p->nperturb = 1;
	p->explored = p->nexplore = 1;
}

/* Give arm a a guard slot (portfolio.h), once. */
static void add_slot(struct portfolio *p, int a)
{
	if (a < 0 || p->nslot >= PORTFOLIO_SLOTS)
		return;
	for (int j = 0; j < p->nslot; j++)
		if (p->slot[j].base == a)
			return;
	p->slot[p->nslot++] = (struct pslot){ .base = a, .holder = a };
	p->arm[a].base = true;
}

/*
 * The baselines: a plain serial loop ("serial", or "plain" at -j 1: one
 * run at a time, nothing done to it), N copies at once ("plain": the
 * series' -j, the CPUs unless the user said otherwise, as golang-stress's
 * default -p) and a plain crowd ("crowd", or "plain" where there is no
 * room to crowd: as golang-stress -p 8 on two CPUs). Where the user fixed
 * a dimension they are the arms nearest to them in the portfolio; one arm
 * that is two of them has one slot.
 */
static void add_baselines(struct portfolio *p)
{
	int plain = -1, serial = -1, crowd = -1;

	for (int a = 0; a < p->n; a++) {
		const struct parm *r = &p->arm[a];
		if (r->perturb != 0 || r->cfg.ncpus)
			continue;
		if (r->load == 0)
			plain = a;
		else if (r->cfg.jobs == 1)
			serial = a;
		else if (r->load == p->crowd)
			crowd = a;
	}
	add_slot(p, serial >= 0 ? serial : plain);
	add_slot(p, plain);
	add_slot(p, crowd >= 0 ? crowd : plain);
}

/* Static storage for the joined names ("crowd-1cpu-sync-hi"). */
static char names[NLOADS][NPERTURBS][32];

static const char *arm_name(int l, int q)
{
	char *s = names[l][q];
	const char *a = loads[l].name, *b = perturbs[q].name;

	if (!*a && !*b)
		return "plain";
	if (!*a || !*b)
		return *a ? a : b;
	if (!*s) {
		size_t na = strlen(a), nb = strlen(b);
		memcpy(s, a, na);
		s[na] = '-';
		memcpy(s + na + 1, b, nb + 1);
	}
	return s;
}

static bool load_wanted(const struct load *l, int ncpus, int jobs, int max_jobs,
			const struct portfolio_fixed *fixed)
{
	if (l->ncpus && (fixed->cpus || ncpus <= 1))
		return false;  /* fixed CPUs; or "1cpu" would be "plain" */
	if (l->jobs == 1 && jobs <= 1)
		return false;  /* "serial" is "plain" at -j 1 */
	if (l->jobs < 0 && max_jobs <= jobs)
		return false;  /* no room to crowd */
	return true;
}

static bool perturb_wanted(const struct pconfig *c, const struct portfolio_fixed *fixed)
{
	if (fixed->noise && (c->noise || c->jitter))
		return false;
	if (fixed->chaos && c->chaos != fixed->mode && c->chaos != CHAOS_NONE)
		return false;
	return true;
}

void portfolio_init_auto(struct portfolio *p, uint64_t seed, int ncpus, int jobs, int max_jobs, int slots,
			 const struct portfolio_fixed *fixed)
{
	uint64_t s = seed ^ 0x706f7274666f6c69ULL;
	int lmap[NLOADS], qmap[NPERTURBS];

	memset(p, 0, sizeof(*p));
	p->rng = rng_splitmix64(&s);
	p->jobs = jobs;
	p->last = -1;
	p->crowd = -1;
	p->end_s = -1;
	p->remeasure_arm = -1;
	p->per_run = fixed->per_run;
	for (int l = 0; l < NLOADS; l++) {
		lmap[l] = load_wanted(&loads[l], ncpus, jobs, max_jobs, fixed) ? p->nload++ : -1;
		if (lmap[l] >= 0 && loads[l].jobs < 0 && !loads[l].ncpus)
			p->crowd = lmap[l];
	}
	for (int q = 0; q < NPERTURBS; q++)
		qmap[q] = perturb_wanted(&perturbs[q].cfg, fixed) ? p->nperturb++ : -1;
	for (int l = 0; l < NLOADS; l++) {
		for (int q = 0; q < NPERTURBS; q++) {
			struct pconfig c = perturbs[q].cfg;

			if (lmap[l] < 0 || qmap[q] < 0)
				continue;
			c.name = arm_name(l, q);
			c.ncpus = loads[l].ncpus > ncpus ? ncpus : loads[l].ncpus;
			c.jobs = loads[l].jobs < 0 ? max_jobs : loads[l].jobs ? loads[l].jobs : jobs;
			/* a one-CPU crowd is the crowd's depth per CPU on each
			 * of them, its runs pinned (8 on CPU 0 and 8 on CPU 1 beside
			 * a crowd of 16 on two CPUs) */
			if (loads[l].jobs < 0 && c.ncpus > 0 && c.ncpus < ncpus && max_jobs * c.ncpus / ncpus >= 1)
				c.jobs = max_jobs * c.ncpus / ncpus;
			/*
			 * A smaller CPU set is a condition of each run, not of
			 * the machine: as many groups of it as fit run side by
			 * side, each with the arm's concurrency (two runs on
			 * CPU 0 and two on CPU 1 are two copies of "two runs on
			 * one CPU"), so the other CPUs do not idle; as many as
			 * the run slots allow.
			 */
			c.groups = 1;
			if (c.ncpus > 0 && c.ncpus < ncpus)
				while (c.groups < ncpus / c.ncpus && c.jobs * (c.groups + 1) <= slots)
					c.groups++;
			c.jobs *= c.groups;
			add(p, &c, lmap[l], qmap[q]);
		}
	}
	/* the first round: its favourites, then the others in a seeded order */
	bool taken[PORTFOLIO_MAX] = { false };
	for (size_t f = 0; f < sizeof(first_round) / sizeof(first_round[0]); f++)
		for (int a = 0; a < p->n; a++)
			if (!strcmp(p->arm[a].cfg.name, first_round[f])) {
				p->order[p->nexplore++] = a;
				taken[a] = true;
			}
	int first = p->nexplore;
	for (int a = 0; a < p->n; a++)
		if (!taken[a])
			p->order[p->nexplore++] = a;
	for (int i = p->nexplore - 1; i > first; i--) {
		int j = first + (int)rng_below(&p->rng, (uint64_t)(i - first + 1));
		int t = p->order[i];
		p->order[i] = p->order[j];
		p->order[j] = t;
	}
	add_baselines(p);
}

/* A Beta(a, b) draw (a, b > 0). */
static double beta_draw(uint64_t *rng, double a, double b)
{
	double x = portfolio_gamma(rng, a), y = portfolio_gamma(rng, b);

	return x + y > 0 ? x / (x + y) : 0;
}

/*
 * The choice (portfolio.h). Each arm's failure probability per run has a
 * Beta prior of PRIOR_RUNS pseudo-runs centred on pi_a = pi_l * pi_q / pi,
 * pi the pooled failure probability of all runs (half a failure before the
 * first one), pi_l and pi_q those of the arm's two values, each shrunk
 * towards pi by PRIOR_RUNS pseudo-runs. An arm's score is a probability
 * times its runs per second of machine time (its concurrency over its mean
 * run time, with a quarter of a run as prior: a whole one let a slow arm's
 * runs drag a fast arm's estimate for too long; the prior's time is the
 * overall mean times how much each of the arm's two values lengthens runs,
 * so that an untried arm of a perturbation whose runs took seconds is not
 * believed fast).
 * Centred on the pooled rate, not on 1/4 as a Beta(1, 3) would be, an
 * untried crowd of sixteen is no more promising than an untried serial arm
 * per second of machine; and the prior weighs two runs, so an arm whose
 * first runs fail is believed at once.
 */
#define PRIOR_RUNS 2.0
#define PRIOR_MAX_RUNS 1000.0 /* the most runs an arm's prior weighs */
#define CROWD_SHARE 0.25
#define PLAIN_FIRST_S 1.0  /* the plain crowd's machine time before the first round */
#define UNTRIED_SHARE 0.1
#define LEAD_SHARE 0.05     /* UNTRIED_SHARE beside a shown leader (choose) */
#define ALWAYS_RUNS 20      /* runs before "nearly every run fails" is believed */
#define ALWAYS_SHARE 0.9
#define DRAIN_HORIZON_S 1.0 /* the machine time a drain's cost is spread over, at least */
#define GAP_MIN_RUNS 8      /* gaps before an arm's machine time per run is believed */
#define REMEASURE_STINTS 4  /* where every run fails, the plain crowd's stint at least
			     * this often (doubling) */
#define REMEASURE_ROUNDS 4  /* rounds of its concurrency in such a stint */

/*
 * Add x to a mean that forgets: each value weighs (1 - 1/PORTFOLIO_RECENT)
 * as much as the one after it, so the mean follows the machine's load
 * rather than the series' first second.
 */
static void recent_add(double *mean, double *w, double x)
{
	*w = *w * (1.0 - 1.0 / PORTFOLIO_RECENT) + 1.0;
	*mean += (x - *mean) / *w;
}

/* The runs arm r has in flight at once (its own -j, else one). */
static int arm_conc(const struct parm *r)
{
	return r->cfg.jobs > 0 ? r->cfg.jobs : 1;
}

/* Whether no run of arm r has started yet. */
static bool untried(const struct parm *r)
{
	return !r->runs && !r->pending;
}

/*
 * Whether every run so far of arm a's load, or of its perturbation, went
 * slow or was cut (two at least): an untried arm that shares it is not
 * worth a stint of its own in the tour, it would hold the machine as long
 * (the noise and jitter rounds of issue 43, every run slow).
 */
static bool all_slow(const struct portfolio *p, int a)
{
	uint64_t nl = 0, sl = 0, nq = 0, sq = 0;

	for (int b = 0; b < p->n; b++) {
		const struct parm *r = &p->arm[b];
		uint64_t n = r->runs + r->cuts, slow = r->slows + r->cuts;
		if (r->load == p->arm[a].load) {
			nl += n;
			sl += slow;
		}
		if (r->perturb == p->arm[a].perturb) {
			nq += n;
			sq += slow;
		}
	}
	return (nl >= 2 && sl == nl) || (nq >= 2 && sq == nq);
}

/*
 * Whether arm r is the plain crowd: no perturbation, every CPU, as deep as
 * the slots allow. That is what golang-stress -p N does, the peer that is
 * best on most of the corpus programs that fail natively.
 */
static bool plain_crowd(const struct portfolio *p, const struct parm *r)
{
	return r->load == p->crowd && r->perturb == 0;
}

/*
 * Whether arm r is judged on its own runs (portfolio_pick): the plain crowd,
 * and once the plain crowd or a jitter arm has failed (a bug that preemptions
 * decide) the crowd under jitter, short random preemptions at a few percent
 * of the CPUs, as golang-stress's own threads wake beside its runs. The
 * jitter crowd failed token_ring three times as often per run as the plain
 * one and as often as golang-stress -p 8 (1.4%, 0.5%, 1.1%), drain_election
 * a sixth more (58%, 49%, 55%). Not before: judged so where only other arms
 * fail, it is one more arm to write off slowly.
 */
static bool own_runs(const struct portfolio *p, const struct parm *r, bool preempt_failed)
{
	/* and every baseline (the plain crowd is one): a serial loop or N
	 * copies at once that fails a fifth of its runs went untried after its
	 * first run, written off through the clean runs of its two values
	 * elsewhere, while a jitter crowd failing 1.2% held the machine (a
	 * connection pool's checkout race: auto at 0.22x of golang-stress -p
	 * 2, whose strategy "plain" is) */
	if (r->base)
		return true;
	return preempt_failed && r->load == p->crowd && r->cfg.jitter && !r->cfg.chaos && !r->cfg.noise;
}

/* The rounds of arm r's concurrency that fill `secs` of its runs' mean
 * time, 1 to max (`unknown` while its runs took no time). */
static int rounds_filling(const struct parm *r, double secs, int max, int unknown)
{
	double mean = r->wall_s / (double)r->runs;
	if (!(mean > 0))
		return unknown;
	double rounds = ceil(secs / mean);
	return rounds < 1 ? 1 : rounds > max ? max : (int)rounds;
}

/* portfolio_stint, given how many runs have finished under the arm's
 * perturbation (pick has counted them already). */
static int stint_of(const struct portfolio *p, int a, int jobs, uint64_t qruns)
{
	const struct parm *r = &p->arm[a];
	int j = r->cfg.jobs ? r->cfg.jobs : jobs, rounds = 1;

	if (j < 1)
		j = 1;
	if (p->n > 1 && p->jobs > 0 && j > p->jobs && !r->cfg.noise && !r->cfg.jitter &&
	    !qruns)
		return p->jobs;
	/* from a whole round at least: the first runs to end are the short
	 * ones (crashes), and a stint sized on them held the machine for
	 * seconds */
	if ((r->cfg.noise || r->cfg.jitter) && p->n > 1 && r->runs >= (uint64_t)j) {
		rounds = rounds_filling(r, 1.0, 8, 8);
	}
	return j * rounds;
}

/*
 * Poisson bounds on a count of n events at z standard deviations
 * (Wilson and Hilferty's cube-root approximation, within a few percent of
 * the exact ones from n = 0 on): the upper bound of 0 events at z = 2 is
 * 3.8, the lower of 10 is 4.7.
 */
static double poisson_upper(double n, double z)
{
	double m = n + 1, c = 1.0 - 1.0 / (9.0 * m) + z / (3.0 * sqrt(m));

	return m * c * c * c;
}

static double poisson_lower(double n, double z)
{
	if (n <= 0)
		return 0;
	double c = 1.0 - 1.0 / (9.0 * n) - z / (3.0 * sqrt(n));
	return c > 0 ? n * c * c * c : 0;
}

void portfolio_rate(const struct portfolio *p, int a, double z, double *lo, double *mid, double *hi)
{
	const struct parm *r = &p->arm[a];
	double conc = arm_conc(r), done = (r->wall_s + r->cut_s) / conc, all = done + r->running_s / conc;
	double n = (double)r->fails;

	*mid = done > 0 ? n / done : 0;
	*lo = all > 0 ? poisson_lower(n, z) / all : 0;
	*hi = done > 0 ? poisson_upper(n, z) / done : INFINITY;
}

/*
 * The floor (portfolio.h): first the race, each slot handed to the arm
 * shown faster than its holder with the highest lower bound, if any;
 * then the slot furthest below its share of the machine's time (total_s,
 * runs in flight counted at their time so far) has the stint, its
 * holder's runs alone. -1: every slot has its share.
 */
static int guard_pick(struct portfolio *p, double total_s)
{
	double share = PORTFOLIO_SLOT_SHARE, most = 0;

	total_s -= PORTFOLIO_GUARD_AFTER_S;
	int pick = -1;

	for (int j = 0; j < p->nslot; j++) {
		struct pslot *g = &p->slot[j];
		double lo, mid, hi, best;
		int y = -1;
		portfolio_rate(p, g->holder, PORTFOLIO_GUARD_Z, &lo, &mid, &best);
		for (int a = 0; a < p->n; a++) {
			if (a == g->holder)
				continue;
			portfolio_rate(p, a, PORTFOLIO_GUARD_Z, &lo, &mid, &hi);
			if (lo > best) {
				best = lo;
				y = a;
			}
		}
		if (y >= 0) {
			g->holder = y;
			g->takeovers++;
		}
		/* nor while the failures counted already make the floor
		 * at the holder's upper bound: after a handful of failures
		 * of another arm, a slot whose baseline never failed needs
		 * a share of the machine that shrinks as they grow */
		portfolio_rate(p, g->holder, PORTFOLIO_GUARD_Z, &lo, &mid, &hi);
		if ((double)p->fails >= share * hi * total_s)
			continue;
		const struct parm *h = &p->arm[g->holder];
		double behind = share * total_s - (g->machine_s + h->running_s / arm_conc(h));
		if (behind > most) {
			most = behind;
			pick = j;
		}
	}
	return pick >= 0 ? p->slot[pick].holder : -1;
}

/*
 * Whether the race has a leader, shown (portfolio.h): the arm with the
 * highest lower bound has PORTFOLIO_LEAD_FAILS failures at least, and no
 * other arm that has had a probe's machine time (what brings a clean
 * arm's upper bound to PORTFOLIO_LEAD_K times that lower bound) has an
 * upper bound above PORTFOLIO_LEAD_K times it. Arms with less are left
 * out: one stint of a plain arm would keep it unshown for good.
 */
static bool lead_shown(const struct portfolio *p)
{
	double lo[PORTFOLIO_MAX], hi[PORTFOLIO_MAX], mid;
	int lead = -1;

	for (int a = 0; a < p->n; a++) {
		portfolio_rate(p, a, PORTFOLIO_GUARD_Z, &lo[a], &mid, &hi[a]);
		if (lo[a] > 0 && (lead < 0 || lo[a] > lo[lead]))
			lead = a;
	}
	if (lead < 0 || p->arm[lead].fails < PORTFOLIO_LEAD_FAILS)
		return false;
	double top = PORTFOLIO_LEAD_K * lo[lead], probe_s = poisson_upper(0, PORTFOLIO_GUARD_Z) / top;
	for (int a = 0; a < p->n; a++) {
		const struct parm *r = &p->arm[a];
		if (a != lead && (r->wall_s + r->cut_s) / arm_conc(r) >= probe_s && hi[a] > top)
			return false;
	}
	return true;
}

static int choose(struct portfolio *p)
{
	double fl[PORTFOLIO_MAX] = { 0 }, nl[PORTFOLIO_MAX] = { 0 };
	double fq[PORTFOLIO_MAX] = { 0 }, nq[PORTFOLIO_MAX] = { 0 };
	double wl[PORTFOLIO_MAX] = { 0 }, wq[PORTFOLIO_MAX] = { 0 };
	double total_n = 0, total_f = 0, total_wall = 0, pooled, best = -1;
	double running = 0, forced_running = 0, counted = 0, crowd_s = 0, plain_s = 0;
	int pick = 0, nuntried = 0, plain = -1;
	bool preempt_failed = false;

	p->stints++;
	p->remeasure_arm = -1;
	p->guard = false;
	if (p->n <= 1)
		return 0;
	for (int a = 0; a < p->n; a++) {
		const struct parm *r = &p->arm[a];
		total_n += (double)r->runs;
		total_f += (double)r->fails;
		total_wall += r->wall_s;
		fl[r->load] += (double)r->fails;
		nl[r->load] += (double)r->runs;
		fq[r->perturb] += (double)r->fails;
		nq[r->perturb] += (double)r->runs;
		wl[r->load] += r->wall_s;
		wq[r->perturb] += r->wall_s;
		nuntried += untried(r);
		/* the plain crowd failed at 0/273 runs where the jitter arm
		 * failed 46/4224 (token_ring): any of them says preemptions
		 * reach the bug */
		preempt_failed |= r->fails > 0 && (r->cfg.jitter || plain_crowd(p, r));
		/* runs in flight count at the time they have taken so far: a
		 * stint of slow runs (steps through a busy program) costs the
		 * machine long before its first run ends */
		double conc = arm_conc(r);
		running += r->running_s / conc;
		counted += r->wall_s / conc;
		if (r->forced)
			forced_running += r->running_s / conc;
		if (r->load == p->crowd)
			crowd_s += (r->wall_s + r->running_s) / conc;
		if (plain_crowd(p, r)) {
			plain = a;
			plain_s = (r->wall_s + r->running_s) / conc;
		}
	}
	/* the floor before anything else: the baselines' guard slots */
	int g = guard_pick(p, p->machine_s + running);
	if (g >= 0) {
		p->guard = true;
		p->guard_stints++;
		return p->last = g;
	}
	/*
	 * Before the first failure the crowd keeps CROWD_SHARE of the
	 * machine's time, its perturbations in turn: a crowd of runs on every
	 * CPU is what the seeds' reports had in common and what golang-stress
	 * -p 8 does, and a bug that fails natively only there (a busy-spin
	 * handshake that misses its deadline when the CPUs are oversubscribed)
	 * failed only after a tour of every arm, one-CPU crowds of slow runs
	 * taking half the machine (spin_handshake: first failure after 9 s,
	 * median of 8, against golang-stress's 4; 2.2 s with this). A quarter,
	 * not more: 40% slowed the tour to the step arms, which alone fail
	 * programs such as the corpus's reorder and work-stealing queues.
	 */
	bool crowd_turn = total_f == 0 && p->crowd >= 0 && crowd_s < CROWD_SHARE * (counted + running);
	/*
	 * Before anything else the plain crowd's first second of machine
	 * time, as golang-stress -p 8 starts: in the crowd's turns it had one
	 * of seven, so a bug that fails natively half a run in a hundred,
	 * under a crowd, failed first after 5 to 16 s where golang-stress
	 * took under one (token_ring, spin_handshake). Its stint's other runs
	 * still go to the crowd's untried perturbations (portfolio_member).
	 */
	if (total_f == 0 && plain >= 0 && plain_s < PLAIN_FIRST_S)
		return p->last = plain;
	/* the first round while nothing has failed; a failure ends it (the
	 * failing arm is then used at once) */
	while (!crowd_turn && p->explored < p->nexplore && total_f == 0) {
		int a = p->order[p->explored++];
		/* one that shared an earlier stint has been tried */
		if (untried(&p->arm[a]) && !all_slow(p, a))
			return p->last = a;
	}
	/* an arm never tried now and then: at most one stint each, and such
	 * stints take at most UNTRIED_SHARE of the machine's time; none once
	 * nearly every run fails (an untried arm cannot fail more, only run
	 * faster, and the untried ones are the perturbations that slow runs) */
	bool fails_always = total_n >= ALWAYS_RUNS && total_f >= ALWAYS_SHARE * total_n;
	/* except the plain crowd: nothing of ours slows it, so where every run
	 * fails it is the fastest arm; reached through the drain out of a
	 * jitter stint only on an estimate, it went untried while the jitter
	 * arm failed every run at two thirds of its rate (din_phil6: auto at
	 * 0.69x of golang-stress -p 8, whose strategy it is) */
	if (fails_always && !crowd_turn && plain >= 0 && untried(&p->arm[plain]))
		return p->last = plain;
	/*
	 * ... and timed again, at growing intervals (4, 8, 16 ... stints): its
	 * first runs are the series' slowest, every slot starting at once from
	 * cold caches (lazy01_bad: 49 ms a run, 10 ms later), so judged on
	 * them alone it never had the machine again, and pinned arms with
	 * thread or sync chaos held it at 0.57-0.80x of golang-stress -p 8
	 * where the plain crowd ran 0.80-1.05x (session 36, on tmpfs)
	 */
	if (fails_always && !crowd_turn && plain >= 0 && p->last != plain &&
	    p->stints - p->arm[plain].picked > ((uint64_t)REMEASURE_STINTS << (p->remeasured < 20 ? p->remeasured : 20))) {
		p->remeasured++;
		p->remeasure_arm = plain;
		return p->last = plain;
	}
	/*
	 * Once the race's leader is shown (portfolio.h), untried arms get
	 * LEAD_SHARE of the machine's time, not UNTRIED_SHARE: where N copies
	 * at once fail a quarter of their runs (conn_pool_checkout's world,
	 * test_portfolio), their stints had 0.063 of the machine at 60 s,
	 * 0.035 with this, one stint of a crowd of step runs taking 4 s
	 */
	bool shown = total_f > 0 && !fails_always && !crowd_turn && lead_shown(p);
	double room = (shown ? LEAD_SHARE : UNTRIED_SHARE) * (p->machine_s + running) - p->forced_s - forced_running;
	if (nuntried && !fails_always && !crowd_turn && room >= 0 && rng_unit(&p->rng) < UNTRIED_SHARE) {
		int k = (int)rng_below(&p->rng, (uint64_t)nuntried);
		for (int a = 0; a < p->n; a++)
			if (untried(&p->arm[a]) && k-- == 0) {
				p->arm[a].forced = true;
				p->arm[a].forced_until = p->arm[a].ended +
					(uint64_t)stint_of(p, a, p->jobs, (uint64_t)nq[p->arm[a].perturb]);
				return p->last = a;
			}
	}
	pooled = (total_f + 0.5) / (total_n + 1.0);
	/*
	 * Where every run fails the choice is runs per second, and the
	 * machine's time per run says it better than a run's own length: a
	 * pinned arm's runs are as long as the crowd's, but each makes and
	 * removes a cgroup in our loop, and slots stand empty between a run's
	 * end and the next one's start. Arms not yet timed so are scaled by
	 * the share the timed ones got of their runs' promise.
	 */
	double promise = 0, timed = 0;
	for (int a = 0; fails_always && a < p->n; a++) {
		const struct parm *r = &p->arm[a];
		if (r->gap_w >= GAP_MIN_RUNS && r->runs && r->wall_s > 0 && r->gap_s > 0) {
			promise += arm_conc(r) * (double)r->runs / r->wall_s;
			timed += 1.0 / r->gap_s;
		}
	}
	double occupancy = promise > 0 ? fmin(fmax(timed / promise, 0.05), 1.0) : 1.0;
	/* the arm of the stint now running: going from it to an arm with
	 * another background (or back) drains the machine */
	const struct parm *last = p->last >= 0 && p->last < p->n ? &p->arm[p->last] : NULL;
	double last_s = last && last->runs ? last->wall_s / (double)last->runs : 0;
	for (int a = 0; a < p->n; a++) {
		const struct parm *r = &p->arm[a];
		if (crowd_turn && r->load != p->crowd)
			continue;
		/* before the first failure the plain crowd's clean runs are
		 * left out of its two values' priors: its first second (above),
		 * counted as runs of "no perturbation", made plain and serial
		 * look explored; a simulated bug that fails only serially
		 * failed first after 48.8 s of machine time, 42.5 with them
		 * left out (test_portfolio; 79 when the plain crowd had half
		 * of the crowd's turns) */
		double xl = 0, xq = 0;
		if (total_f == 0 && plain >= 0) {
			xl = r->load == p->arm[plain].load ? (double)p->arm[plain].runs : 0;
			xq = r->perturb == p->arm[plain].perturb ? (double)p->arm[plain].runs : 0;
		}
		double pl = (fl[r->load] + PRIOR_RUNS * pooled) / (nl[r->load] - xl + PRIOR_RUNS);
		double pq = (fq[r->perturb] + PRIOR_RUNS * pooled) / (nq[r->perturb] - xq + PRIOR_RUNS);
		double prior = pl * pq / pooled;
		double mean_s = total_n && total_wall > 0 ? total_wall / total_n : 1.0;
		/* the run time prior from the arm's two values, as the failure
		 * prior: one slow step arm makes the other step arms slow too */
		double ml = nl[r->load] ? wl[r->load] / nl[r->load] : mean_s;
		double mq = nq[r->perturb] ? wq[r->perturb] / nq[r->perturb] : mean_s;
		double prior_s = ml * mq / mean_s;
		double run_s = (r->wall_s + r->cut_s + 0.25 * prior_s) / ((double)r->runs + 0.25);
		/* runs in flight past twice that cost the arm too: runs that
		 * all go slow, held to a scaled deadline, are charged before
		 * the first of them ends */
		double over = r->running_s - 2.0 * run_s * r->pending;
		if (over > 0)
			run_s += over / ((double)r->runs + 0.25);
		double alpha, beta, theta, score;

		prior = prior < 0.999 ? prior : 0.999;
		/* the plain crowd is judged on its own runs: its two values'
		 * clean runs elsewhere (the crowd under perturbations that
		 * hide the bug, no perturbation on fewer runs at once) say
		 * little about it, and written off through them it went
		 * untried while golang-stress -p 8 found two to three times
		 * auto's failures (spin_handshake: crowd 0/1 runs, crowd-jitter kept;
		 * in bench/portfolio_sim.c's world where the crowd alone
		 * fails 1%, 0.14 -> 0.32 failures per second at 2000 stints,
		 * at most 10% less in the others) */
		if (total_f > 0 && own_runs(p, r, preempt_failed))
			prior = fmax(prior, pooled);
		/* after the first failure the arm's prior weighs the runs that
		 * would show one failure at its rate: when every arm fails about
		 * one run in a hundred, two pseudo-runs wrote an arm off after a
		 * clean stint and the arm that failed first kept the machine.
		 * Not so for the two values' priors above: weighed that way
		 * they kept fast arms of values that never fail in the running
		 * for a thousand runs, and programs that fail under one step
		 * arm lost most of their failures (bench/portfolio_sim.c) */
		double w = total_f > 0 ? fmax(PRIOR_RUNS, fmin(1.0 / prior, PRIOR_MAX_RUNS)) : PRIOR_RUNS;
		alpha = w * prior + (double)r->fails;
		beta = w * (1 - prior) + (double)(r->runs - r->fails);
		/* before any failure the least explored arm (the highest
		 * expectation), after the first a draw (Thompson sampling) */
		theta = total_f == 0 ? alpha / (alpha + beta) * (1 + 1e-3 * rng_unit(&p->rng))
				     : beta_draw(&p->rng, alpha, beta);
		int conc = arm_conc(r);
		score = theta * conc / (run_s > 1e-3 ? run_s : 1e-3);
		if (fails_always)
			score = r->gap_w >= GAP_MIN_RUNS && r->gap_s > 0 ? theta / r->gap_s : score * occupancy;
		/* a drain idles about half the slots for a run's time, going in
		 * and coming out: with runs of a second, a one-round stint of
		 * noise is worth half a stint of an arm that needs none. Over a
		 * second at least: with runs of 10 ms that halving kept a noise
		 * crowd at half the plain crowd's runs per second for the last
		 * three seconds of twenty (lazy01_bad, session 36) */
		if (last && (last->cfg.noise != r->cfg.noise || last->cfg.jitter != r->cfg.jitter)) {
			double stint_s = (double)stint_of(p, a, conc, (uint64_t)nq[r->perturb]) / conc * run_s;
			stint_s = fmax(stint_s, DRAIN_HORIZON_S);
			score *= stint_s / (stint_s + 0.5 * (last_s + run_s));
		}
		/* a proof of a fix costs runs, not seconds: per run, the
		 * draw alone (solver_barrier_miscount under auto for 60 s:
		 * step 5 of 26 runs and serial-step 2 of 7, the crowd with
		 * preemptions 85 of 10,640, faster per second, the rest) */
		if (p->per_run)
			score = theta;
		if (score > best) {
			best = score;
			pick = a;
		}
	}
	return p->last = pick;
}

int portfolio_pick(struct portfolio *p)
{
	int a = choose(p);

	if (a >= 0 && a < p->n)
		p->arm[a].picked = p->stints;
	return a;
}

int portfolio_member(const struct portfolio *p, int a)
{
	if (p->n <= 1 || a < 0 || a >= p->n)
		return a;
	const struct parm *s = &p->arm[a];
	if (p->fails || untried(s) || p->guard)
		return a;
	for (int b = 0; b < p->n; b++) {
		const struct parm *r = &p->arm[b];
		if (r->load == s->load && r->cfg.noise == s->cfg.noise && r->cfg.jitter == s->cfg.jitter &&
		    untried(r))
			return b;
	}
	return a;
}

uint64_t portfolio_started(struct portfolio *p, int a)
{
	uint64_t t = ++p->tickets;

	if (a < 0 || a >= p->n)
		return t;
	p->arm[a].pending++;
	if (p->nlive < PORTFOLIO_LIVE)
		p->live[p->nlive++] = (struct pticket){ a, t };
	return t;
}

/* The run is no longer in flight. */
static void unlive(struct portfolio *p, uint64_t ticket)
{
	for (int i = 0; i < p->nlive; i++)
		if (p->live[i].ticket == ticket) {
			p->live[i] = p->live[--p->nlive];
			return;
		}
}

/* Count an outcome: the statistics the choice is made on. */
static void count(struct portfolio *p, const struct pheld *h)
{
	struct parm *r = &p->arm[h->arm];

	bool failed = h->how == PORTFOLIO_FAIL;

	if (r->pending)
		r->pending--;
	r->runs++;
	r->fails += failed;
	p->fails += failed;
	r->wall_s += h->cost_s;
	r->cpu_s += h->cpu_s;
	if (!failed) {
		r->passes++;
		r->pass_s += h->wall_s;
		r->max_pass_s = fmax(r->max_pass_s, h->wall_s);
	}
	if (h->how == PORTFOLIO_SLOW) {
		r->slows++;
		r->slow_s += h->wall_s;
	}
}

/* Whether a run of arm a that started before ticket t is in flight. */
static bool earlier_live(const struct portfolio *p, int a, uint64_t t)
{
	for (int i = 0; i < p->nlive; i++)
		if (p->live[i].arm == a && p->live[i].ticket < t)
			return true;
	return false;
}

void portfolio_settle(struct portfolio *p, double now_s)
{
	int k = 0;

	for (int i = 0; i < p->nheld; i++) {
		const struct pheld *h = &p->held[i];
		if (now_s - h->at_s >= PORTFOLIO_HOLD_S || !earlier_live(p, h->arm, h->ticket))
			count(p, h);
		else
			p->held[k++] = *h;
	}
	p->nheld = k;
}

void portfolio_dropped(struct portfolio *p, int a, uint64_t ticket, double now_s)
{
	unlive(p, ticket);
	p->end_s = now_s;   /* the time up to it went to no arm */
	if (a >= 0 && a < p->n && p->arm[a].pending)
		p->arm[a].pending--;
	portfolio_settle(p, now_s);
}

void portfolio_feedback_share(struct portfolio *p, int a, uint64_t ticket, enum portfolio_outcome how,
			      double wall_s, double share_s, double cpu_s, double now_s)
{
	struct parm *r;

	unlive(p, ticket);
	if (a < 0 || a >= p->n)
		return;
	r = &p->arm[a];
	wall_s = wall_s > 0 ? wall_s : 0;
	if (p->end_s >= 0 && now_s >= p->end_s && how != PORTFOLIO_CUT)
		recent_add(&r->gap_s, &r->gap_w, now_s - p->end_s);
	p->end_s = now_s;
	/* machine time: a run of a crowd of sixteen takes a sixteenth of it,
	 * and a plain run that overlapped that crowd's drain an eighteenth
	 * of the overlap, not half (run/share.h) */
	int conc = arm_conc(r);
	if (share_s < 0)
		share_s = wall_s / conc;
	double cost_s = share_s * conc;
	p->machine_s += share_s;
	for (int j = 0; j < p->nslot; j++)
		if (p->slot[j].holder == a)
			p->slot[j].machine_s += share_s;
	r->ended++;
	if (r->forced) {
		p->forced_s += share_s;
		r->forced = r->ended < r->forced_until;   /* its one stint */
	}
	if (how == PORTFOLIO_CUT) {
		/* no outcome to hold: its time is the arm's, not a run */
		r->cuts++;
		r->cut_s += cost_s;
		if (r->pending)
			r->pending--;
		portfolio_settle(p, now_s);
		return;
	}
	if (p->nheld == PORTFOLIO_LIVE) {
		count(p, &p->held[0]);
		memmove(p->held, p->held + 1, (size_t)(--p->nheld) * sizeof(p->held[0]));
	}
	p->held[p->nheld++] = (struct pheld){ a, ticket, how, cost_s, wall_s, cpu_s > 0 ? cpu_s : 0, now_s };
	portfolio_settle(p, now_s);
}

void portfolio_feedback(struct portfolio *p, int a, uint64_t ticket, enum portfolio_outcome how, double wall_s,
			double cpu_s, double now_s)
{
	portfolio_feedback_share(p, a, ticket, how, wall_s, -1, cpu_s, now_s);
}

/* Finished runs under perturbation value q, on any load. */
static uint64_t perturb_runs(const struct portfolio *p, int q)
{
	uint64_t n = 0;

	for (int i = 0; i < p->n; i++)
		if (p->arm[i].perturb == q)
			n += p->arm[i].runs;
	return n;
}

int portfolio_stint(const struct portfolio *p, int a, int jobs)
{
	int n = stint_of(p, a, jobs, perturb_runs(p, p->arm[a].perturb));

	/* timed again over rounds enough that most of its runs end among
	 * its own: the first round's end among the last stint's, at their
	 * mixed pace */
	return a == p->remeasure_arm ? n * REMEASURE_ROUNDS : n;
}

int portfolio_step_budget(const struct portfolio *p)
{
	double cpu = 0;
	uint64_t runs = 0;

	for (int i = 0; i < p->n; i++) {
		if (p->arm[i].cfg.chaos & CHAOS_STEP_BIT)
			continue;
		cpu += p->arm[i].cpu_s;
		runs += p->arm[i].runs;
	}
	if (!runs)
		return PORTFOLIO_STEP_MAX;
	double steps = PORTFOLIO_STEP_RATIO * (cpu / (double)runs) / PORTFOLIO_STEP_COST_S;
	return steps < PORTFOLIO_STEP_MIN ? PORTFOLIO_STEP_MIN : steps > PORTFOLIO_STEP_MAX ? PORTFOLIO_STEP_MAX : (int)lround(steps);
}

/*
 * One of n choices of the step runs (an octave, the threads stepped), from
 * their failures, runs and CPU: before any failure by `odds` (NULL:
 * uniform); after, as the arms (choose): a Beta prior of PRIOR_RUNS runs at
 * the step runs' pooled rate, the CPU of a run with a prior of one run of
 * a step run's mean CPU times scale(k) (NULL: 1), the best failures per
 * CPU second.
 */
static int step_pick(uint64_t *s, int n, const double *fails, const double *runs, const double *cpu,
		     const double *odds, const double *scale)
{
	double f_all = 0, n_all = 0, cpu_all = 0, best = -1;
	int k = 0;

	for (int d = 0; d < n; d++) {
		f_all += fails[d];
		n_all += runs[d];
		cpu_all += cpu[d];
	}
	if (f_all == 0)
		return odds ? rng_pick(s, odds, n) : (int)rng_below(s, (uint64_t)n);
	double pooled = f_all / n_all, mean_cpu = n_all > 0 && cpu_all > 0 ? cpu_all / n_all : 1.0;
	for (int d = 0; d < n; d++) {
		double theta = beta_draw(s, PRIOR_RUNS * pooled + fails[d], PRIOR_RUNS * (1 - pooled) + runs[d] - fails[d]);
		double run_cpu = (cpu[d] + mean_cpu * (scale ? scale[d] : 1)) / (runs[d] + 1);
		double score = theta / (run_cpu > 1e-6 ? run_cpu : 1e-6);
		if (score > best) {
			best = score;
			k = d;
		}
	}
	return k;
}

int portfolio_step_draw(const struct portfolio *p, uint64_t seed, int *depth)
{
	uint64_t s = seed ^ 0x7374657073ULL;   /* "steps": apart from the run's other draws */
	double scale[PORTFOLIO_STEP_DEPTHS];

	for (int d = 0; d < PORTFOLIO_STEP_DEPTHS; d++)
		scale[d] = exp2(-d);   /* an octave's prior CPU: its share of the budget */
	int k = step_pick(&s, PORTFOLIO_STEP_DEPTHS, p->step_fails, p->step_runs, p->step_cpu, NULL, scale);
	*depth = k;
	/* log-uniform within the octave: [budget / 2^(k+1), budget / 2^k] */
	long n = lround((double)portfolio_step_budget(p) * exp2(-(double)k - rng_unit(&s)));
	return n > 1 ? (int)n : 1;
}

int portfolio_step_who_draw(const struct portfolio *p, uint64_t seed, int *who)
{
	uint64_t s = seed ^ 0x7374657077686fULL;   /* "stepwho", as chaos_step_threads_draw */

	*who = step_pick(&s, CHAOS_STEP_WHOS, p->who_fails, p->who_runs, p->who_cpu, chaos_step_who_odds, NULL);
	return chaos_step_whos[*who];
}

void portfolio_step_feedback(struct portfolio *p, int depth, int who, bool failed, double cpu_s)
{
	if (depth >= 0 && depth < PORTFOLIO_STEP_DEPTHS) {
		p->step_runs[depth]++;
		p->step_fails[depth] += failed;
		p->step_cpu[depth] += cpu_s > 0 ? cpu_s : 0;
	}
	if (who >= 0 && who < CHAOS_STEP_WHOS) {
		p->who_runs[who]++;
		p->who_fails[who] += failed;
		p->who_cpu[who] += cpu_s > 0 ? cpu_s : 0;
	}
}

double portfolio_run_time(const struct portfolio *p, int a)
{
	const struct parm *r = &p->arm[a];

	return r->passes ? r->pass_s / (double)r->passes : 0;
}

double portfolio_slowdown(const struct portfolio *p, int a)
{
	int base = -1;

	for (int i = 0; i < p->n && base < 0; i++)
		if (!strcmp(p->arm[i].cfg.name, "plain"))
			base = i;
	if (base < 0 || a < 0 || a >= p->n || p->arm[a].passes < 3 || p->arm[base].passes < 3)
		return 1;
	double s = portfolio_run_time(p, a) / portfolio_run_time(p, base);
	return s > 1 ? s : 1;
}

double portfolio_timeout_scale(const struct portfolio *p, int a, double timeout_s)
{
	if (a < 0 || a >= p->n || p->n <= 1)
		return 1.0;
	/* the plain arm and the serial one: nothing of ours slows them */
	if (!strcmp(p->arm[a].cfg.name, "plain") || !strcmp(p->arm[a].cfg.name, "serial"))
		return 1.0;
	/*
	 * Nor an arm whose correct runs all end far inside the timeout: a run
	 * past it is not one of them slowed. Given four timeouts anyway, a
	 * crowd's livelocks and lost wakeups each held a slot that long and
	 * were counted only then, golang-stress -p 8 finding two to three
	 * times as many (spin_handshake: passes of 0.5-1.2 s, 4 s timeout).
	 * Slow runs count as passes here, with their time: an arm that has
	 * had one keeps its second deadline.
	 */
	if (timeout_s > 0 && p->arm[a].passes >= 3 && p->arm[a].max_pass_s * PORTFOLIO_PASS_MARGIN < timeout_s)
		return 1.0;
	if (p->arm[a].passes < 3)
		return PORTFOLIO_SCALE_MAX;
	double slow = portfolio_slowdown(p, a);
	bool timed = slow > 1;
	for (int i = 0; i < p->n && !timed; i++)
		timed = !strcmp(p->arm[i].cfg.name, "plain") && p->arm[i].passes >= 3;
	if (!timed)
		return PORTFOLIO_SCALE_MAX;
	slow *= 1.5;
	return slow < 2.0 ? 2.0 : slow > PORTFOLIO_SCALE_MAX ? PORTFOLIO_SCALE_MAX : slow;
}
