/*
 * test_stats.c: stats.c against reference values computed independently
 * with SciPy 1.10 (scipy.stats.binomtest(...).proportion_ci, beta.ppf,
 * scipy.special.betainc, fisher_exact, norm.ppf) and hard-coded here, so the
 * test needs nothing at run time.
 */
#include <stdint.h>

#include "results/stats.h"
#include "tap.h"

#define REL(a, b, r) CHECK_NEAR((a), (b), (r) * fabs(b) + 1e-300)

struct binref { uint64_t k, n; double cp_lo, cp_hi, w_lo, w_hi; };

static const struct binref bins[] = {
	{ 0, 1, 0, 0.975, 0, 0.793450685622763 },
	{ 1, 1, 0.025, 1, 0.206549314377237, 1 },
	{ 0, 10, 0, 0.308497107818763, 0, 0.277532799862889 },
	{ 10, 10, 0.691502892181237, 1, 0.722467200137111, 1 },
	{ 1, 10, 0.00252857854446257, 0.445016117028195, 0.0178762130950729, 0.404150026795238 },
	{ 37, 600, 0.0437869966595164, 0.0840006125955406, 0.0450673617721167, 0.0838430627832276 },
	{ 0, 600, 0, 0.00612927133067019, 0, 0.00636170101370071 },
	{ 3, 88, 0.00708630833762399, 0.0964095625920016, 0.0116609971995855, 0.0954960421927005 },
	{ 16, 77, 0.123690825426686, 0.31539182310488, 0.132150777942367, 0.31120414592399 },
	{ 1, 1000000, 2.53178076637942e-08 /* exact: 1 - 0.975^(1e-6); SciPy 2.53178051e-08 */, 5.5716306555123e-06, 1.76524576745371e-07, 5.66491180431144e-06 },
	{ 500, 1000, 0.468549172971792, 0.531450827028208, 0.469069600368104, 0.530930399631896 },
};

struct fisherref { uint64_t a, b, c, d; double p; };

static const struct fisherref fishers[] = {
	{ 0, 600, 37, 563, 8.20889222974448e-12 },
	{ 37, 563, 0, 600, 8.20889222974448e-12 },
	{ 3, 7, 9, 1, 0.0197666110978804 },
	{ 1, 9, 11, 3, 0.00275945618522008 },
	{ 0, 10, 0, 10, 1 },
	{ 10, 0, 0, 10, 1.0825088224469e-05 },
	{ 5, 5, 5, 5, 1 },
	{ 1, 0, 0, 1, 1 },
	{ 0, 1, 0, 0, 1 },
	{ 12, 588, 9, 591, 0.66078633963927 },
	{ 2, 98, 0, 100, 0.49748743718593 },
	{ 100, 99900, 150, 99850, 0.00187101097889907 },
	{ 0, 88, 5, 20, 0.000378514424142418 },
};

int main(void)
{
	double lo, hi;
	for (size_t i = 0; i < sizeof(bins) / sizeof(bins[0]); i++) {
		const struct binref *r = &bins[i];
		printf("# k=%llu n=%llu\n", (unsigned long long)r->k, (unsigned long long)r->n);
		stats_clopper_pearson(r->k, r->n, 0.05, &lo, &hi);
		REL(lo, r->cp_lo, 1e-9);
		REL(hi, r->cp_hi, 1e-9);
		stats_wilson(r->k, r->n, STATS_Z95, &lo, &hi);
		REL(lo, r->w_lo, 1e-9);
		REL(hi, r->w_hi, 1e-9);
	}
	/* degenerate inputs give the uninformative interval */
	stats_wilson(0, 0, STATS_Z95, &lo, &hi);
	CHECK(lo == 0.0 && hi == 1.0);
	stats_clopper_pearson(0, 0, 0.05, &lo, &hi);
	CHECK(lo == 0.0 && hi == 1.0);

	/* regularized incomplete beta (scipy.special.betainc) */
	REL(stats_betainc(0.5, 0.5, 0.3), 0.36901011956554541, 1e-12);
	REL(stats_betainc(2, 3, 0.4), 0.52479999999999993, 1e-12);
	REL(stats_betainc(10, 20, 0.9), 0.99999999999995925, 1e-12);
	REL(stats_betainc(1, 1, 0.5), 0.5, 1e-12);
	REL(stats_betainc(100, 1000, 0.08), 0.10056879996386042, 1e-10);
	REL(stats_betainc(1e4, 2e4, 0.34), 0.99271374800963308, 1e-10);
	REL(stats_betainc(0.1, 5, 0.001), 0.61289835937499415, 1e-12);
	CHECK(stats_betainc(2, 3, 0) == 0.0 && stats_betainc(2, 3, 1) == 1.0);
	REL(stats_betainc(3, 4, stats_betainc_inv(3, 4, 0.3)), 0.3, 1e-12);

	/* one-sided upper bound with no failure: 1 - 0.05^(1/n) */
	REL(stats_cp_upper0(1, 0.05), 0.95, 1e-12);
	REL(stats_cp_upper0(88, 0.05), 0.0334694889166375, 1e-9);
	REL(stats_cp_upper0(600, 0.05), 0.00498044338, 1e-8);
	CHECK(stats_cp_upper0(0, 0.05) == 1.0);
	CHECK_NEAR(stats_cp_upper0(300, 0.05), 0.009936, 1e-5);
	REL(stats_cp_upper(0, 600, 0.05), stats_cp_upper0(600, 0.05), 1e-12);
	/* one-sided 95% with k > 0 is the two-sided 90% upper end */
	stats_clopper_pearson(3, 88, 0.10, &lo, &hi);
	REL(stats_cp_upper(3, 88, 0.05), hi, 1e-12);
	CHECK(stats_cp_upper(5, 5, 0.05) == 1.0);

	for (size_t i = 0; i < sizeof(fishers) / sizeof(fishers[0]); i++) {
		const struct fisherref *f = &fishers[i];
		REL(stats_fisher2(f->a, f->b, f->c, f->d), f->p, 1e-8);
	}

	/* normal quantile (scipy.stats.norm.ppf) */
	REL(stats_norm_quantile(0.001), -3.09023230616781, 1e-12);
	REL(stats_norm_quantile(0.975), 1.95996398454005, 1e-12);
	REL(stats_norm_quantile(0.8), 0.841621233572914, 1e-12);
	REL(stats_norm_quantile(1e-10), -6.36134090240406, 1e-12);
	CHECK_NEAR(stats_norm_quantile(0.5), 0.0, 1e-15);

	/* power of the pooled two-proportion z test (formula evaluated in SciPy) */
	REL(stats_power2(0.06, 600, 0.01, 600, 0.05), 0.997266623405, 1e-9);
	REL(stats_power2(0.06, 211, 0.01, 211, 0.05), 0.80019922747, 1e-9);
	REL(stats_power2(0.06, 100, 0.01, 50, 0.05), 0.244280892771, 1e-9);
	/* 6% -> 1% with equal groups needs 211 each (Fleiss, no correction) */
	CHECK(stats_n2_for_power(0.06, 211, 0.01, 0.05, 0.8) == 211);
	CHECK(stats_n2_for_power(0.06, 600, 0.01, 0.05, 0.8) == 148);
	CHECK(stats_n2_for_power(0.06, 100, 0.01, 0.05, 0.8) == 450);
	CHECK(stats_n2_for_power(0.06, 20, 0.01, 0.05, 0.8) == 0);
	CHECK(stats_n2_for_power(0.06, 100, 0.06, 0.05, 0.8) == 0);

	/* clean runs after that make Fisher's p < 0.05 (searched in SciPy) */
	CHECK(stats_n2_clean_for_fisher(37, 600, 0.05) == 60);
	CHECK(stats_n2_clean_for_fisher(5, 88, 0.05) == 89);
	CHECK(stats_n2_clean_for_fisher(2, 100, 0.05) == 346);
	CHECK(stats_n2_clean_for_fisher(3, 50, 0.05) == 84);
	CHECK(stats_n2_clean_for_fisher(0, 50, 0.05) == 0);

	/* runs with no failure to bound the rate below RATE */
	CHECK(stats_runs_for_confidence(0.01, 0.05) == 299);
	CHECK(stats_runs_for_confidence(0.05, 0.05) == 59);
	CHECK(stats_runs_for_confidence(0.001, 0.05) == 2995);
	CHECK(stats_runs_for_confidence(0.5, 0.05) == 5);
	CHECK(stats_runs_for_confidence(0.0, 0.05) == 0);
	CHECK(stats_cp_upper0(299, 0.05) < 0.01 && stats_cp_upper0(298, 0.05) >= 0.01);
	return tap_done();
}
