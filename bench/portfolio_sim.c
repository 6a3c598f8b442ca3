/*
 * portfolio_sim.c: --chaos auto's arm choice (src/pressure/portfolio.c) on
 * simulated programs, without runs: each arm of the auto portfolio fails a
 * run with a fixed probability and its runs take a fixed time; the sim asks
 * the portfolio for stints, feeds back outcomes and prints failures per
 * second of machine time against two references (every stint on the best
 * arm; stints spread evenly). Seconds, where the corpus bench takes an hour;
 * what it cannot say is how real programs' rates look, so a change that
 * wins here still goes through bench/corpus.sh.
 *
 *   cc -O2 -D_GNU_SOURCE -iquote src -o /tmp/portfolio_sim \
 *      bench/portfolio_sim.c src/pressure/portfolio.c -lm
 *   /tmp/portfolio_sim [SEEDS [SECONDS...]]       (default: 20 20 60 600)
 *
 * To weigh a change, build it twice (the other portfolio.c from a git
 * worktree) and run both: the worlds and seeds are the same.
 *
 * The machine: 2 CPUs, room for 16 runs at once (a crowd of 16, one-CPU
 * crowds of 8 on each CPU), as auto without -j on the bench machine. A run
 * lasts 50 ms on its own; runs deeper than the CPUs take proportionally
 * longer, and step runs (one instruction budget at a time) ten times as
 * long. A world's rates do not depend on the depth.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pressure/portfolio.h"
#include "util/rng.h"

/* A world: arms named `hot` (see matches()) fail with probability
 * hot_rate, the others named `warm` with warm_rate, then those named `cool`
 * with cool_rate, the rest with base_rate. The runs of arms named `slow`
 * never fail: each outlasts its deadline (PORTFOLIO_SLOW), SLOW_FACTOR
 * times as long as a run. */
struct world {
	const char *what;
	const char *hot;
	double hot_rate, base_rate;
	const char *warm;
	double warm_rate;
	const char *cool;
	double cool_rate;
	const char *slow;
};
#define SLOW_FACTOR 20

static const struct world worlds[] = {
	{ "one step arm, 5%", "=step", 0.05, 0, NULL, 0, NULL, 0, NULL },
	{ "crowd step, 2%", "=crowd-step", 0.02, 0, NULL, 0, NULL, 0, NULL },
	{ "every step arm, 3%", "*step", 0.03, 0, NULL, 0, NULL, 0, NULL },
	{ "serial only, 4%", "=serial", 0.04, 0, NULL, 0, NULL, 0, NULL },
	{ "heavy sync only, 1%", "=sync-hi", 0.01, 0, NULL, 0, NULL, 0, NULL },
	{ "every arm 1%, one crowd arm 3%", "=crowd-threads", 0.03, 0.01, NULL, 0, NULL, 0, NULL },
	{ "every arm 1%, one crowd arm 10%", "=crowd-threads", 0.10, 0.01, NULL, 0, NULL, 0, NULL },
	{ "every arm 0.5%, serial jitter 2.6%", "=serial-jitter", 0.026, 0.005, NULL, 0, NULL, 0, NULL },
	{ "every arm 0.2%, one-CPU crowd sync 2%", "=crowd-1cpu-sync", 0.02, 0.002, NULL, 0, NULL, 0, NULL },
	{ "every arm 0.3%, the crowd 1%", "=crowd", 0.01, 0.003, NULL, 0, NULL, 0, NULL },
	{ "every arm 0.4%, the jitter crowd 1.4%", "=crowd-jitter", 0.014, 0.004, NULL, 0, NULL, 0, NULL },
	{ "every arm 40%, the crowd 55%", "=crowd", 0.55, 0.40, NULL, 0, NULL, 0, NULL },
	{ "every arm 40%, crowd heavy sync 55%", "=crowd-sync-hi", 0.55, 0.40, NULL, 0, NULL, 0, NULL },
	{ "every run fails", "*", 1.0, 1.0, NULL, 0, NULL, 0, NULL },
	{ "the crowd 4%, one crowd arm 12%", "=crowd-threads", 0.12, 0, "~crowd", 0.04, NULL, 0, NULL },
	{ "the crowd 1%, one crowd arm 3%", "=crowd-threads", 0.03, 0, "~crowd", 0.01, NULL, 0, NULL },
	/* the work-stealing queues: a run alone fails, a crowd's runs rarely
	 * (StateWorkStealQueue: plain loop 0.1-0.7%, auto's crowd 0 of 940-1,500
	 * runs a series), steps now and then */
	{ "serial 0.4%, the crowd 0.03%, step arms 1%", "=serial", 0.004, 0, "*step", 0.01, "=crowd", 0.0003, NULL },
	{ "serial 0.4%, the others 0.03%", "=serial", 0.004, 0.0003, NULL, 0, NULL, 0, NULL },
	/* issue 43's held-out program: a lock created twice by racing
	 * threads; the plain loop failed 5% of its runs, auto put 4,582 of
	 * 5,458 runs into crowd-jitter at 0.66% */
	{ "held-out: serial 5%, the others 0.66%", "=serial", 0.05, 0.0066, NULL, 0, NULL, 0, NULL },
	{ "plain crowd 2%, serial 1%, the others 0.2%", "=crowd", 0.02, 0.002, "=serial", 0.01, NULL, 0, NULL },
	/* programs where N copies at once (golang-stress's default -p, the
	 * CPUs) fail most: the plain arm; a crowd's jitter fails a little */
	{ "plain 20%, the jitter crowd 1.2%", "=plain", 0.20, 0.001, "=crowd-jitter", 0.012, NULL, 0, NULL },
	{ "plain 3%, serial 1.7%, the jitter crowd 1.1%", "=plain", 0.03, 0, "=serial", 0.017, "=crowd-jitter", 0.011, NULL },
	/* conn_pool_checkout by its README's rate (bench/RESULTS.md,
	 * 2026-12-05): golang-stress -p 2 found 783 failures a minute, the
	 * serial loop 45, auto 96 with its machine in crowd arms */
	{ "plain 25%, serial 5%, the jitter crowd 0.7%", "=plain", 0.25, 0.001, "=serial", 0.05, "=crowd-jitter", 0.007, NULL },
	/* conn_pool_checkout as the runs saw it (2026-12-06, 20 s, load 18):
	 * golang-stress -p 2 163 of 3,297 runs; under auto N copies at once
	 * 4/163 runs, the one-CPU step arm 19/76 of runs twenty times as
	 * long, which held 0.65 of the machine */
	{ "plain 5%, step arms 25%", "=plain", 0.05, 0.001, "*step", 0.25, NULL, 0, NULL },
	/* logger_start: every arm fails often, the plain crowd most
	 * (golang-stress -p 8 11,790 a minute, -p 2 7,992, the serial loop
	 * 432 at load 76; auto 2,640) */
	{ "the crowd 50%, crowd arms 40%, plain 30%, the others 15%", "=crowd", 0.50, 0.15, "~crowd", 0.40, "=plain", 0.30, NULL },
	/* issue 43's jitter and noise rounds whose every run was slow */
	{ "one step arm 5%, noise runs all slow", "=step", 0.05, 0, NULL, 0, NULL, 0, "*noise" },
	{ "one step arm 5%, jitter runs all slow", "=step", 0.05, 0, NULL, 0, NULL, 0, "*jitter" },
};

#define NCPU 2
#define SLOTS 16

/* "=name" is that arm; "*sfx" every arm whose name ends in sfx ("*" all);
 * "~load" every arm of that load ("crowd", "crowd-threads", not "crowd-1cpu"). */
static bool matches(const char *pat, const char *name)
{
	if (!pat)
		return false;
	if (pat[0] == '~') {
		size_t k = strlen(pat + 1);
		return !strncmp(name, pat + 1, k) && (!name[k] || (name[k] == '-' && strncmp(name + k + 1, "1cpu", 4)));
	}
	if (pat[0] == '=')
		return !strcmp(pat + 1, name);
	size_t n = strlen(name), k = strlen(pat + 1);
	return n >= k && !strcmp(name + n - k, pat + 1);
}

/* The failure probability of a run of the arm named `name` in world w. */
static double world_rate(const struct world *w, const char *name)
{
	return matches(w->slow, name)	? 0
	       : matches(w->hot, name)	? w->hot_rate
	       : matches(w->warm, name) ? w->warm_rate
	       : matches(w->cool, name) ? w->cool_rate
					: w->base_rate;
}

static double run_secs(const struct parm *r)
{
	int jobs = r->cfg.jobs > 0 ? r->cfg.jobs : 1;
	double s = 0.05 * (jobs > NCPU ? (double)jobs / NCPU : 1.0);
	return r->cfg.chaos == CHAOS_STEP ? 10 * s : s;
}

/* Machine time of arm a: its runs' time over its concurrency. */
static double machine(const struct parm *r)
{
	return r->wall_s / (r->cfg.jobs > 0 ? r->cfg.jobs : 1);
}

struct result {
	double fails_per_s, hot_share, slow_share;
};

static int simulate(const struct world *w, uint64_t seed, double horizon_s, struct result *out)
{
	struct portfolio p;
	struct portfolio_fixed none = { 0 };
	double rate[PORTFOLIO_MAX], secs[PORTFOLIO_MAX];
	bool hot_arm[PORTFOLIO_MAX], slow_arm[PORTFOLIO_MAX];
	uint64_t world = seed * 7919 + 1;

	portfolio_init_auto(&p, seed, NCPU, NCPU, SLOTS, SLOTS, &none);
	for (int a = 0; a < p.n; a++) {
		hot_arm[a] = matches(w->hot, p.arm[a].cfg.name);
		slow_arm[a] = matches(w->slow, p.arm[a].cfg.name);
		rate[a] = world_rate(w, p.arm[a].cfg.name);
		secs[a] = run_secs(&p.arm[a]) * (slow_arm[a] ? SLOW_FACTOR : 1);
	}
	for (double used = 0; used < horizon_s;) {
		int k = portfolio_pick(&p);
		if (k < 0 || k >= p.n)
			return -1;
		/* sized once, and each run's arm its member, as the runner
		 * does (pressure.c) */
		int n = portfolio_stint(&p, k, NCPU);
		for (int r = 0; r < n; r++) {
			int m = portfolio_member(&p, k);
			uint64_t t = portfolio_started(&p, m);
			enum portfolio_outcome how = slow_arm[m] ? PORTFOLIO_SLOW :
						     rng_unit(&world) < rate[m] ? PORTFOLIO_FAIL : PORTFOLIO_PASS;
			portfolio_feedback(&p, m, t, how, secs[m], 0, 0);
			used += secs[m] / (p.arm[m].cfg.jobs > 0 ? p.arm[m].cfg.jobs : 1);
		}
	}
	double total = 0, hot = 0, slow = 0, fails = 0;
	for (int a = 0; a < p.n; a++) {
		total += machine(&p.arm[a]);
		fails += (double)p.arm[a].fails;
		if (hot_arm[a])
			hot += machine(&p.arm[a]);
		if (slow_arm[a])
			slow += machine(&p.arm[a]);
	}
	out->fails_per_s = total > 0 ? fails / total : 0;
	out->hot_share = total > 0 ? hot / total : 0;
	out->slow_share = total > 0 ? slow / total : 0;
	return 0;
}

/* The references: failures per machine second of the best arm alone, of
 * the best baseline alone (a plain serial loop, N copies, a plain crowd: what users
 * run today, portfolio.h's guard slots), and of every arm in equal
 * machine time. */
static void references(const struct world *w, double *best, double *base, double *even)
{
	struct portfolio p;
	struct portfolio_fixed none = { 0 };
	double sum = 0;

	portfolio_init_auto(&p, 1, NCPU, NCPU, SLOTS, SLOTS, &none);
	*best = *base = 0;
	for (int a = 0; a < p.n; a++) {
		const struct parm *r = &p.arm[a];
		double per_s = world_rate(w, r->cfg.name) *
			       (r->cfg.jobs > 0 ? r->cfg.jobs : 1) / run_secs(r);
		*best = per_s > *best ? per_s : *best;
		for (int j = 0; j < p.nslot; j++)
			if (p.slot[j].base == a && per_s > *base)
				*base = per_s;
		sum += per_s;
	}
	*even = sum / p.n;
}

int main(int argc, char **argv)
{
	int seeds = argc > 1 ? atoi(argv[1]) : 20;
	int horizons[8] = { 20, 60, 600 }, nh = 3;

	if (seeds < 1 || seeds > 10000) {
		fprintf(stderr, "portfolio_sim: SEEDS must be 1..10000, got '%s'\n", argv[1]);
		return 2;
	}
	if (argc > 2) {
		nh = 0;
		for (int i = 2; i < argc && nh < 8; i++) {
			horizons[nh] = atoi(argv[i]);
			if (horizons[nh] < 1) {
				fprintf(stderr, "portfolio_sim: SECONDS must be a positive number, got '%s'\n", argv[i]);
				return 2;
			}
			nh++;
		}
	}
	printf("Failures per second of machine time (mean of %d seeds) after N seconds of it;\n", seeds);
	printf("in brackets the hot arms' share of the machine. best: the best arm alone; base: the best\n");
	printf("baseline alone (serial loop, N copies, plain crowd); even: every arm alike. Last row: the lowest\n");
	printf("auto / base over the worlds, the floor's ratio (at least %.2f, docs/auto.md).\n\n",
	       (double)PORTFOLIO_SLOT_SHARE);
	printf("| world | best | base | even |");
	for (int h = 0; h < nh; h++)
		printf(" %d s |", horizons[h]);
	printf("\n| --- | ---: | ---: | ---: |");
	for (int h = 0; h < nh; h++)
		printf(" ---: |");
	printf("\n");
	double floor_ratio[8], slow_share[8] = { 0 };
	for (int h = 0; h < nh; h++)
		floor_ratio[h] = INFINITY;
	for (size_t i = 0; i < sizeof worlds / sizeof worlds[0]; i++) {
		const struct world *w = &worlds[i];
		double best, base, even;
		references(w, &best, &base, &even);
		printf("| %s | %.2f | %.2f | %.2f |", w->what, best, base, even);
		for (int h = 0; h < nh; h++) {
			double f = 0, share = 0, slow = 0;
			for (int s = 1; s <= seeds; s++) {
				struct result r;
				if (simulate(w, (uint64_t)s, horizons[h], &r)) {
					fprintf(stderr, "portfolio_sim: the portfolio picked no arm\n");
					return 1;
				}
				f += r.fails_per_s;
				share += r.hot_share;
				slow += r.slow_share;
			}
			printf(" %.2f (%.2f) |", f / seeds, share / seeds);
			if (base > 0 && f / seeds / base < floor_ratio[h])
				floor_ratio[h] = f / seeds / base;
			if (w->slow && slow / seeds > slow_share[h])
				slow_share[h] = slow / seeds;
		}
		printf("\n");
	}
	printf("| auto / base, the lowest | | | |");
	for (int h = 0; h < nh; h++)
		printf(" %.2f |", floor_ratio[h]);
	printf("\n| slow arms' share, the most | | | |");
	for (int h = 0; h < nh; h++)
		printf(" %.2f |", slow_share[h]);
	printf("\n");
	return 0;
}
