/* Unit tests of the auto portfolio: arm set, seeded selection, adaptation. */
#include "pressure/portfolio.h"
#include "util/rng.h"
#include "tap.h"

static int find(const struct portfolio *p, const char *name)
{
	for (int a = 0; a < p->n; a++)
		if (!strcmp(p->arm[a].cfg.name, name))
			return a;
	return -1;
}

/* Simulate: arm `hot` fails with probability 0.5, the others never. */
static void simulate(struct portfolio *p, int hot, int stints, int *count)
{
	uint64_t world = 42;
	for (int s = 0; s < stints; s++) {
		int a = portfolio_pick(p);
		count[a]++;
		for (int r = 0; r < 4; r++)
			portfolio_feedback(p, a, a == hot && rng_unit(&world) < 0.5, 0.1);
	}
}

int main(void)
{
	struct portfolio p, q;
	struct portfolio_fixed none = { 0 };
	int seq1[40], seq2[40], count[PORTFOLIO_MAX] = { 0 };
	uint64_t rng = 7;
	double sum = 0;

	portfolio_init_auto(&p, 1, 2, 2, 2, 2, &none);
	CHECK(p.n == 11 && find(&p, "jitter") >= 0 && p.arm[find(&p, "jitter")].cfg.jitter);
	CHECK(find(&p, "plain") == 0);
	CHECK(find(&p, "oversub") >= 0 && p.arm[find(&p, "oversub")].cfg.ncpus == 1);
	CHECK(find(&p, "sync-hi") >= 0 && p.arm[find(&p, "sync-hi")].cfg.chaos == CHAOS_SYNC);

	CHECK(find(&p, "crowd") < 0);
	CHECK(p.arm[0].cfg.jobs == 2 && p.arm[find(&p, "serial")].cfg.jobs == 1);
	/* room for more runs at once: the crowd arm takes all of it */
	portfolio_init_auto(&q, 1, 2, 2, 8, 8, &none);
	CHECK(q.n == 16 && find(&q, "crowd-jitter") >= 0 && find(&q, "crowd") >= 0 && q.arm[find(&q, "crowd")].cfg.jobs == 8);
	CHECK(q.arm[0].cfg.jobs == 2 && portfolio_stint(&q, find(&q, "crowd"), 2) == 8);
	CHECK(q.arm[find(&q, "crowd-threads")].cfg.jobs == 8 &&
	      q.arm[find(&q, "crowd-threads")].cfg.chaos == CHAOS_THREADS);
	CHECK(q.arm[find(&q, "crowd-1cpu")].cfg.ncpus == 1);
	/* exploration: plain, then the arms the zoo favoured, then the others once each */
	CHECK(portfolio_pick(&q) == 0);
	CHECK(portfolio_pick(&q) == find(&q, "crowd"));
	CHECK(portfolio_pick(&q) == find(&q, "crowd-threads"));
	CHECK(portfolio_pick(&q) == find(&q, "crowd-sync"));
	CHECK(portfolio_pick(&q) == find(&q, "crowd-jitter"));
	CHECK(portfolio_pick(&q) == find(&q, "sync-1cpu"));
	CHECK(portfolio_pick(&q) == find(&q, "crowd-1cpu"));
	CHECK(portfolio_pick(&q) == find(&q, "all-1cpu"));
	{
		int seen[PORTFOLIO_MAX] = { 0 };
		for (int i = 8; i < q.n; i++)
			seen[portfolio_pick(&q)]++;
		bool once = true;
		for (int i = 8; i < q.n; i++)
			once &= seen[q.order[i]] == 1;
		CHECK(once);
	}

	/* a smaller CPU set runs in groups side by side, as many as the slots allow */
	portfolio_init_auto(&q, 1, 2, 2, 8, 8, &none);
	CHECK(q.arm[find(&q, "oversub")].cfg.groups == 2 && q.arm[find(&q, "oversub")].cfg.jobs == 4);
	CHECK(q.arm[find(&q, "sync-1cpu")].cfg.groups == 2 && q.arm[find(&q, "sync-1cpu")].cfg.jobs == 4);
	CHECK(q.arm[find(&q, "crowd-1cpu")].cfg.groups == 1 && q.arm[find(&q, "crowd-1cpu")].cfg.jobs == 8);
	/* with slots for two crowds, a one-CPU crowd runs on both CPUs */
	portfolio_init_auto(&q, 1, 2, 2, 8, 16, &none);
	CHECK(q.arm[find(&q, "crowd-1cpu")].cfg.groups == 2 && q.arm[find(&q, "crowd-1cpu")].cfg.jobs == 16);
	CHECK(q.arm[find(&q, "crowd")].cfg.groups == 1 && q.arm[find(&q, "crowd")].cfg.jobs == 8);
	CHECK(q.arm[find(&q, "oversub")].cfg.groups == 2 && q.arm[find(&q, "oversub")].cfg.jobs == 4);
	CHECK(q.arm[find(&q, "plain")].cfg.groups == 1 && q.arm[find(&q, "crowd")].cfg.groups == 1);
	CHECK(portfolio_stint(&q, find(&q, "oversub"), 2) == 4);
	portfolio_init_auto(&q, 1, 4, 4, 16, 16, &none);
	CHECK(q.arm[find(&q, "oversub")].cfg.groups == 4 && q.arm[find(&q, "oversub")].cfg.jobs == 16);
	portfolio_init_auto(&q, 1, 2, 2, 2, 2, &none);
	CHECK(q.arm[find(&q, "oversub")].cfg.groups == 1 && q.arm[find(&q, "oversub")].cfg.jobs == 2);

	/* one CPU, -j 1: no oversub or serial arm (they would equal plain) */
	portfolio_init_auto(&q, 1, 1, 1, 1, 1, &none);
	CHECK(find(&q, "oversub") < 0 && find(&q, "serial") < 0 && find(&q, "plain") == 0);

	/* fixed dimensions are not varied */
	{
		struct portfolio_fixed f = { .cpus = true, .noise = true };
		portfolio_init_auto(&q, 1, 2, 2, 2, 2, &f);
		CHECK(find(&q, "oversub") < 0 && find(&q, "noise") < 0 && find(&q, "jitter") < 0 && find(&q, "sync-1cpu") < 0);
		CHECK(find(&q, "plain") == 0 && find(&q, "sync-hi") >= 0);
		struct portfolio_fixed g = { .chaos = true, .mode = CHAOS_THREADS };
		portfolio_init_auto(&q, 1, 2, 2, 2, 2, &g);
		CHECK(find(&q, "sync-hi") < 0 && find(&q, "threads") >= 0 && find(&q, "plain") == 0);
	}

	/* exploration while nothing fails: every arm once, plain first */
	{
		int seen[PORTFOLIO_MAX] = { 0 }, all = 1;
		portfolio_init_auto(&p, 5, 2, 2, 2, 2, &none);
		CHECK(portfolio_pick(&p) == 0);
		seen[0] = 1;
		for (int i = 1; i < p.n; i++)
			seen[portfolio_pick(&p)]++;
		for (int i = 0; i < p.n; i++)
			all &= seen[i] == 1;
		CHECK(all);
	}
	/* a failure ends the exploration: the failing arm is used at once */
	{
		int a, hot, again = 0;
		portfolio_init_auto(&p, 5, 2, 2, 2, 2, &none);
		CHECK(portfolio_pick(&p) == 0);
		for (int i = 0; i < 4; i++)
			portfolio_feedback(&p, 0, false, 0.1);
		hot = find(&p, "sync-hi");
		portfolio_feedback(&p, hot, true, 0.1);
		portfolio_feedback(&p, hot, true, 0.1);
		for (int i = 0; i < 30; i++) {
			a = portfolio_pick(&p);
			again += a == hot;
			portfolio_feedback(&p, a, a == hot, 0.1);
		}
		CHECK(again >= 15);
	}

	/* deterministic: same seed and outcomes give the same picks */
	portfolio_init_auto(&p, 99, 2, 2, 2, 2, &none);
	portfolio_init_auto(&q, 99, 2, 2, 2, 2, &none);
	for (int i = 0; i < 40; i++) {
		seq1[i] = portfolio_pick(&p);
		portfolio_feedback(&p, seq1[i], seq1[i] == 3, 0.1);
		seq2[i] = portfolio_pick(&q);
		portfolio_feedback(&q, seq2[i], seq2[i] == 3, 0.1);
	}
	CHECK(!memcmp(seq1, seq2, sizeof(seq1)));
	/* a different seed explores in a different order */
	portfolio_init_auto(&q, 100, 2, 2, 2, 2, &none);
	{
		int differ = 0;
		portfolio_init_auto(&p, 99, 2, 2, 2, 2, &none);
		for (int i = 0; i < 10; i++)
			differ |= portfolio_pick(&p) != portfolio_pick(&q);
		CHECK(differ);
	}

	/* adaptation: the failing arm gets most stints, no arm starves */
	portfolio_init_auto(&p, 3, 2, 2, 2, 2, &none);
	{
		int hot = find(&p, "sync-hi"), starved = 0;
		simulate(&p, hot, 400, count);
		CHECK(count[hot] > 200);
		for (int a = 0; a < p.n; a++)
			starved |= count[a] < 3;
		CHECK(!starved);
		CHECK(p.arm[hot].fails > 0 && p.arm[0].fails == 0);
	}

	/* faster arms win at equal failure rates (failures per second) */
	{
		struct pconfig a = { .name = "a" };
		int picks_fast = 0;
		portfolio_init_auto(&p, 11, 2, 2, 2, 2, &none);
		(void)a;
		for (int s = 0; s < 300; s++) {
			int k = portfolio_pick(&p);
			if (k == 1)
				picks_fast++;
			portfolio_feedback(&p, k, (s % 5) == 0, k == 1 ? 0.01 : 1.0);
		}
		CHECK(picks_fast > 150);
	}

	/*
	 * The floor is counted in time: a fast arm that fails half its runs
	 * (10 ms each) against slow arms that never fail (1 s each): the slow
	 * ones together get about PORTFOLIO_FLOOR of the time, not half of it
	 * as a floor of 15% of stints gave, and none is starved.
	 */
	{
		uint64_t world = 3;
		portfolio_init_auto(&p, 21, 2, 2, 2, 2, &none);
		int fast = find(&p, "sync-hi");
		for (int s = 0; s < 3000; s++) {
			int k = portfolio_pick(&p);
			for (int r = 0; r < p.arm[k].cfg.jobs; r++) {
				portfolio_started(&p, k);
				portfolio_feedback(&p, k, k == fast && rng_unit(&world) < 0.5, k == fast ? 0.01 : 1.0);
			}
		}
		double tot = 0, slow = 0;
		bool all_ran = true;
		for (int a = 0; a < p.n; a++) {
			double occ = p.arm[a].wall_s / p.arm[a].cfg.jobs;
			tot += occ;
			slow += a == fast ? 0 : occ;
			all_ran &= p.arm[a].runs > 0;
		}
		CHECK(all_ran);
		CHECK(slow / tot < 2 * PORTFOLIO_FLOOR);
		CHECK(slow / tot > PORTFOLIO_FLOOR / 2);
	}
	/* an arm whose floor stint is still out is not given another */
	{
		portfolio_init_auto(&p, 4, 2, 2, 2, 2, &none);
		int slow = find(&p, "noise"), fast = find(&p, "sync-hi");
		/* every arm tried; "noise" the furthest below its share */
		for (int a = 0; a < p.n; a++)
			portfolio_feedback(&p, a, a == fast, a == fast ? 0.01 : a == slow ? 0.001 : 0.5);
		for (int i = 0; i < 5000; i++)
			portfolio_feedback(&p, fast, true, 0.01);
		portfolio_started(&p, slow);
		int again = 0;
		for (int i = 0; i < 50; i++) {
			int k = portfolio_pick(&p);
			again += k == slow;
			portfolio_started(&p, k);
			portfolio_feedback(&p, k, k == fast, 0.01);
		}
		CHECK(again == 0);
		portfolio_dropped(&p, slow);
		CHECK(p.arm[slow].pending == 0);
		CHECK(portfolio_pick(&p) == slow);
	}

	/* Beta(3, 7) has mean 0.3 */
	for (int i = 0; i < 20000; i++)
		sum += portfolio_beta(&rng, 3, 7);
	CHECK_NEAR(sum / 20000, 0.3, 0.01);

	/* one-arm portfolio always picks it; stints scale with jobs */
	{
		struct pconfig c = { .name = "replay", .chaos = CHAOS_SYNC };
		portfolio_init_one(&p, &c);
		CHECK(portfolio_pick(&p) == 0 && portfolio_pick(&p) == 0);
		CHECK(portfolio_stint(&p, 0, 4) == 4);
	}
	portfolio_feedback(&p, 0, true, 1);
	portfolio_feedback(&p, 0, false, 1);
	CHECK(p.arm[0].runs == 2 && p.arm[0].fails == 1 && p.arm[0].wall_s == 2.0);
	return tap_done();
}
