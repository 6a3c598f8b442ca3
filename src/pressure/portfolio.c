/*
 * portfolio.c: arm selection for `--chaos auto` (see portfolio.h).
 *
 * Beta draws use Marsaglia and Tsang's gamma method (shape >= 1 only, which
 * is all a Beta(1 + k, 1 + n - k) posterior needs) on our seeded generator,
 * so a test can pin the whole selection sequence.
 */
#include <math.h>
#include <string.h>

#include "pressure/portfolio.h"
#include "util/rng.h"
#include "util/banned.h"

static double normal(uint64_t *rng)
{
	double u1 = rng_unit(rng), u2 = rng_unit(rng);

	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static double gamma_draw(uint64_t *rng, double shape)
{
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

double portfolio_beta(uint64_t *rng, double a, double b)
{
	double x = gamma_draw(rng, a), y = gamma_draw(rng, b);

	return x / (x + y);
}

static void add(struct portfolio *p, const struct pconfig *c)
{
	if (p->n < PORTFOLIO_MAX)
		p->arm[p->n++].cfg = *c;
}

void portfolio_init_one(struct portfolio *p, const struct pconfig *cfg)
{
	memset(p, 0, sizeof(*p));
	add(p, cfg);
	p->explored = 1;
}

void portfolio_init_auto(struct portfolio *p, uint64_t seed, int ncpus, int jobs, int max_jobs, int slots,
			 const struct portfolio_fixed *fixed)
{
	static const struct pconfig table[] = {
		{ .name = "plain" },
		{ .name = "serial", .jobs = 1 },
		{ .name = "crowd", .jobs = -1 },          /* max_jobs at once */
		{ .name = "crowd-1cpu", .jobs = -1, .ncpus = 1 },
		{ .name = "crowd-threads", .jobs = -1, .chaos = CHAOS_THREADS, .intensity = 1 },
		{ .name = "crowd-sync", .jobs = -1, .chaos = CHAOS_SYNC, .intensity = 0 },
		{ .name = "crowd-jitter", .jobs = -1, .jitter = true },
		{ .name = "jitter", .jitter = true },
		{ .name = "oversub", .ncpus = 1 },
		{ .name = "noise", .noise = true },
		{ .name = "threads", .chaos = CHAOS_THREADS, .intensity = 1 },
		{ .name = "threads-1cpu", .ncpus = 1, .chaos = CHAOS_THREADS, .intensity = 2 },
		{ .name = "sync-lo", .chaos = CHAOS_SYNC, .intensity = 0 },
		{ .name = "sync-hi", .chaos = CHAOS_SYNC, .intensity = 2 },
		{ .name = "sync-1cpu", .ncpus = 1, .chaos = CHAOS_SYNC, .intensity = 1 },
		{ .name = "all-1cpu", .ncpus = 1, .chaos = CHAOS_ALL, .intensity = 1 },
	};
	uint64_t s = seed ^ 0x706f7274666f6c69ULL;

	memset(p, 0, sizeof(*p));
	p->rng = rng_splitmix64(&s);
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		struct pconfig c = table[i];

		/* dimensions the user fixed are not varied */
		if (fixed->cpus && c.ncpus)
			continue;
		if (ncpus <= 1 && c.ncpus == 1 && c.chaos == CHAOS_NONE)
			continue;      /* "oversub" is "plain" on one CPU */
		if (jobs <= 1 && c.jobs == 1)
			continue;      /* "serial" is "plain" at -j 1 */
		if (c.jobs < 0 && max_jobs <= jobs)
			continue;      /* no room to crowd */
		c.jobs = c.jobs < 0 ? max_jobs : c.jobs ? c.jobs : jobs;
		if (fixed->noise && (c.noise || c.jitter))
			continue;
		if (fixed->chaos && c.chaos != fixed->mode && c.chaos != CHAOS_NONE)
			continue;
		if (c.ncpus > ncpus)
			c.ncpus = ncpus;
		/*
		 * A smaller CPU set is a condition of each run, not of the
		 * machine: as many groups of it as fit run side by side, each
		 * with the arm's concurrency (two runs on CPU 0 and two on
		 * CPU 1 are two copies of "two runs on one CPU"), so the other
		 * CPUs do not idle; as many as the run slots allow.
		 */
		c.groups = 1;
		if (c.ncpus > 0 && c.ncpus < ncpus)
			while (c.groups < ncpus / c.ncpus && c.jobs * (c.groups + 1) <= slots)
				c.groups++;
		c.jobs *= c.groups;
		add(p, &c);
	}
	/*
	 * "plain" first so it is always measured, then the arms that were the
	 * best on some program of the zoo (bench/RESULTS.md: crowding, what
	 * every report in shared/seeds/ had in common, alone and with chaos,
	 * and sync chaos on one CPU), in that order; the order of the others
	 * is seeded. Until the first failure every arm gets a stint in this
	 * order, so a good first guess is a failure seconds earlier.
	 */
	static const char *const favoured[] = {
		"crowd", "crowd-threads", "crowd-sync", "crowd-jitter", "sync-1cpu", "crowd-1cpu", "all-1cpu",
	};
	int first = 1;
	for (int i = 0; i < p->n; i++)
		p->order[i] = i;
	for (size_t f = 0; f < sizeof(favoured) / sizeof(favoured[0]); f++)
		for (int i = first; i < p->n; i++)
			if (!strcmp(p->arm[p->order[i]].cfg.name, favoured[f])) {
				int t = p->order[i];
				p->order[i] = p->order[first];
				p->order[first++] = t;
				break;
			}
	for (int i = p->n - 1; i > first; i--) {
		int j = first + (int)rng_below(&p->rng, (uint64_t)(i - first + 1));
		int t = p->order[i];
		p->order[i] = p->order[j];
		p->order[j] = t;
	}
}

/* The machine time an arm has had: its runs' time over its concurrency. */
static double occupied(const struct parm *a)
{
	return a->wall_s / (double)(a->cfg.jobs > 0 ? a->cfg.jobs : 1);
}

/*
 * The floor (portfolio.h): the tried arm furthest below its share of
 * PORTFOLIO_FLOOR / n of the time so far, else with probability
 * PORTFOLIO_FLOOR an untried arm, else -1.
 */
static int floor_pick(struct portfolio *p)
{
	double total = 0, worst = 1;
	int pick = -1, untried = 0;

	for (int a = 0; a < p->n; a++) {
		total += occupied(&p->arm[a]);
		untried += p->arm[a].runs == 0 && !p->arm[a].pending;
	}
	for (int a = 0; a < p->n && total > 0; a++) {
		double share = occupied(&p->arm[a]) / total;
		/* an arm whose runs are still out has had its floor stint */
		if (p->arm[a].runs > 0 && !p->arm[a].pending && share < PORTFOLIO_FLOOR / p->n &&
		    share < worst) {
			worst = share;
			pick = a;
		}
	}
	if (pick >= 0 || !untried || rng_unit(&p->rng) >= PORTFOLIO_FLOOR)
		return pick;
	int k = (int)rng_below(&p->rng, (uint64_t)untried);
	for (int a = 0; a < p->n; a++)
		if (p->arm[a].runs == 0 && !p->arm[a].pending && k-- == 0)
			return a;
	return -1;
}

int portfolio_pick(struct portfolio *p)
{
	double best = -1, total_wall = 0, pooled, a0, b0;
	uint64_t total_runs = 0, total_fails = 0;
	int pick = 0;

	p->stints++;
	if (p->n <= 1)
		return 0;
	for (int a = 0; a < p->n; a++)
		total_runs += p->arm[a].fails;
	/* one round over every arm while nothing has failed; from the first
	 * failure on, the posteriors decide (a failing arm is used at once) */
	if (p->explored < p->n && !total_runs)
		return p->order[p->explored++];
	total_runs = 0;
	pick = floor_pick(p);
	if (pick >= 0)
		return pick;
	pick = 0;
	for (int a = 0; a < p->n; a++) {
		total_wall += p->arm[a].wall_s;
		total_runs += p->arm[a].runs;
		total_fails += p->arm[a].fails;
	}
	/* Prior of every arm: centred near the pooled failure rate (two
	 * pseudo-runs), so an untried arm is as promising as an average one,
	 * not as a coin flip: against ten Beta(1, 1) priors a measured
	 * failing arm would lose to the sheer number of untried ones. */
	pooled = total_runs ? (double)total_fails / (double)total_runs : 0.5;
	a0 = 1.0 + 2.0 * pooled;
	b0 = 1.0 + 2.0 * (1.0 - pooled);
	for (int a = 0; a < p->n; a++) {
		const struct parm *r = &p->arm[a];
		/* mean run time with a quarter of a pseudo-run at the overall
		 * mean as prior: a whole one let a slow arm's runs (a crowd of
		 * eight, each slowed by the others) drag a fast arm's estimate
		 * for long enough that the fast arm was never tried again */
		double prior = total_runs ? total_wall / (double)total_runs : 1.0;
		double mean = (r->wall_s + 0.25 * prior) / ((double)r->runs + 0.25);
		double theta = portfolio_beta(&p->rng, a0 + (double)r->fails,
					      b0 + (double)(r->runs - r->fails));
		double conc = r->cfg.jobs > 0 ? r->cfg.jobs : 1;
		double score = theta * conc / (mean > 1e-3 ? mean : 1e-3);

		if (score > best) {
			best = score;
			pick = a;
		}
	}
	return pick;
}

void portfolio_started(struct portfolio *p, int a)
{
	if (a >= 0 && a < p->n)
		p->arm[a].pending++;
}

void portfolio_dropped(struct portfolio *p, int a)
{
	if (a >= 0 && a < p->n && p->arm[a].pending)
		p->arm[a].pending--;
}

void portfolio_feedback(struct portfolio *p, int a, bool failed, double wall_s)
{
	if (a < 0 || a >= p->n)
		return;
	portfolio_dropped(p, a);
	p->arm[a].runs++;
	p->arm[a].fails += failed;
	p->arm[a].wall_s += wall_s > 0 ? wall_s : 0;
}

/* The unperturbed arm: nothing about it changes how runs are scheduled. */
static bool unperturbed(const struct pconfig *c)
{
	return !c->ncpus && !c->noise && !c->jitter && c->chaos == CHAOS_NONE && c->groups <= 1;
}

double portfolio_timeout_scale(const struct portfolio *p, int a)
{
	if (a < 0 || a >= p->n)
		return 1.0;
	const struct parm *arm = &p->arm[a], *base = NULL;
	/* the plain arm, and the serial one, are not slowed by anything of ours */
	if (unperturbed(&arm->cfg) && (!arm->cfg.jobs || arm->cfg.jobs == 1))
		return 1.0;
	for (int i = 0; i < p->n && !base; i++)
		if (unperturbed(&p->arm[i].cfg) && !p->arm[i].cfg.jobs)
			base = &p->arm[i];
	if (!base || base->runs < 3 || arm->runs < 3 || base->wall_s <= 0)
		return PORTFOLIO_SCALE_MAX;
	double slow = 1.5 * (arm->wall_s / (double)arm->runs) / (base->wall_s / (double)base->runs);
	return slow < 2.0 ? 2.0 : slow > PORTFOLIO_SCALE_MAX ? PORTFOLIO_SCALE_MAX : slow;
}

int portfolio_stint(const struct portfolio *p, int a, int jobs)
{
	int j = p->arm[a].cfg.jobs ? p->arm[a].cfg.jobs : jobs;

	return j > 0 ? j : 1;
}
