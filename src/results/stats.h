/*
 * stats.h: the statistics behind every claim jostle prints about a failure
 * rate. Pure functions of counts, no I/O, no allocation.
 *
 * Conventions: k failures out of n runs; intervals are two-sided unless the
 * name says otherwise; z = 1.959963984540054 gives 95%. Degenerate inputs
 * (n == 0) give the uninformative answer ([0, 1], p = 1) rather than NaN.
 */
#ifndef JOSTLE_STATS_H
#define JOSTLE_STATS_H

#include <stdint.h>

#define STATS_Z95 1.959963984540054

/* Wilson score interval for k of n at normal quantile z (k <= n). */
void stats_wilson(uint64_t k, uint64_t n, double z, double *lo, double *hi);

/* One-sided exact (Clopper-Pearson) upper bound on the rate when 0 of n
 * failed: 1 - alpha^(1/n). n == 0 gives 1. */
double stats_cp_upper0(uint64_t n, double alpha);

/* Two-sided exact Clopper-Pearson interval at level 1 - alpha. */
void stats_clopper_pearson(uint64_t k, uint64_t n, double alpha, double *lo, double *hi);

/* One-sided exact upper bound at level 1 - alpha for k of n (k == 0 is
 * stats_cp_upper0). */
double stats_cp_upper(uint64_t k, uint64_t n, double alpha);

/* Regularized incomplete beta I_x(a, b), a, b > 0, 0 <= x <= 1. */
double stats_betainc(double a, double b, double x);

/* x such that I_x(a, b) = p (bisection on stats_betainc). */
double stats_betainc_inv(double a, double b, double p);

/* Two-sided Fisher exact test on the 2x2 table [[a, b], [c, d]]: the sum of
 * the probabilities of every table with the same margins that is as likely
 * as or less likely than the observed one (relative tolerance 1e-7, as R and
 * SciPy use). */
double stats_fisher2(uint64_t a, uint64_t b, uint64_t c, uint64_t d);

/* Standard normal CDF and its inverse (Acklam's rational approximation
 * refined by one Halley step; |error| < 1e-12). */
double stats_norm_cdf(double x);
double stats_norm_quantile(double p);

/* Power of the two-sided two-proportion z test (pooled variance) at level
 * alpha to tell rate p1 with n1 runs from p2 with n2 runs. */
double stats_power2(double p1, uint64_t n1, double p2, uint64_t n2, double alpha);

/* Smallest n2 such that stats_power2(p1, n1, p2, n2, alpha) >= power, or 0
 * when no n2 up to 10^9 reaches it (n1 itself is too small). */
uint64_t stats_n2_for_power(double p1, uint64_t n1, double p2, double alpha, double power);

/* Smallest n2 such that 0 failures in n2 runs after, against k1 of n1 before,
 * gives a Fisher p-value below alpha; 0 when none up to 10^9 does. */
uint64_t stats_n2_clean_for_fisher(uint64_t k1, uint64_t n1, double alpha);

/* Runs needed with no failure for the one-sided 1 - alpha upper bound to
 * fall below rate: the smallest n with 1 - alpha^(1/n) < rate. */
uint64_t stats_runs_for_confidence(double rate, double alpha);

#endif
