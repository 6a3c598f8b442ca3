/*
 * stats.c: intervals, exact tests and sample sizes for failure rates.
 *
 * Everything here is a few lines of well-known numerics, written out so
 * that jostle depends on nothing for them: the Wilson score interval; the
 * exact Clopper-Pearson interval through the regularized incomplete beta
 * function (the continued fraction of Numerical Recipes' betacf, evaluated
 * with the modified Lentz method); the two-sided Fisher exact test summing
 * hypergeometric probabilities computed from lgamma; and the normal
 * approximation behind "about N more runs would show the drop". The unit
 * test checks all of them against values computed independently (SciPy).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "results/stats.h"
#include "util/banned.h"

void stats_wilson(uint64_t k, uint64_t n, double z, double *lo, double *hi)
{
	if (n == 0 || k > n) {
		*lo = 0.0;
		*hi = 1.0;
		return;
	}
	double nn = (double)n, p = (double)k / nn, z2 = z * z;
	double denom = 1.0 + z2 / nn;
	double center = (p + z2 / (2.0 * nn)) / denom;
	double half = z / denom * sqrt(p * (1.0 - p) / nn + z2 / (4.0 * nn * nn));
	*lo = k == 0 ? 0.0 : fmax(0.0, center - half);
	*hi = k == n ? 1.0 : fmin(1.0, center + half);
}

double stats_cp_upper0(uint64_t n, double alpha)
{
	if (n == 0)
		return 1.0;
	/* 1 - alpha^(1/n), without cancellation for large n */
	return -expm1(log(alpha) / (double)n);
}

/* Continued fraction for I_x(a, b), valid and fast for x < (a+1)/(a+b+2). */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-16;
	double qab = a + b, qap = a + 1.0, qam = a - 1.0;
	double c = 1.0, d = 1.0 - qab * x / qap;
	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	double h = d;
	for (int m = 1; m <= 100000; m++) {
		double m2 = 2.0 * m;
		double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1.0 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1.0 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1.0 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1.0 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1.0) < eps)
			break;
	}
	return h;
}

double stats_betainc(double a, double b, double x)
{
	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1.0) / (a + b + 2.0))
		return exp(lbt) * betacf(a, b, x) / a;
	return 1.0 - exp(lbt) * betacf(b, a, 1.0 - x) / b;
}

double stats_betainc_inv(double a, double b, double p)
{
	if (p <= 0.0)
		return 0.0;
	if (p >= 1.0)
		return 1.0;
	double lo = 0.0, hi = 1.0;
	for (int i = 0; i < 400; i++) {
		double mid = 0.5 * (lo + hi);
		if (mid <= lo || mid >= hi)
			break;
		if (stats_betainc(a, b, mid) < p)
			lo = mid;
		else
			hi = mid;
		if (hi - lo <= 1e-15 * hi)
			break;
	}
	return 0.5 * (lo + hi);
}

void stats_clopper_pearson(uint64_t k, uint64_t n, double alpha, double *lo, double *hi)
{
	if (n == 0 || k > n) {
		*lo = 0.0;
		*hi = 1.0;
		return;
	}
	double kk = (double)k, nn = (double)n;
	*lo = k == 0 ? 0.0 : stats_betainc_inv(kk, nn - kk + 1.0, alpha / 2.0);
	*hi = k == n ? 1.0 : stats_betainc_inv(kk + 1.0, nn - kk, 1.0 - alpha / 2.0);
}

double stats_cp_upper(uint64_t k, uint64_t n, double alpha)
{
	if (n == 0 || k >= n)
		return 1.0;
	if (k == 0)
		return stats_cp_upper0(n, alpha);
	return stats_betainc_inv((double)k + 1.0, (double)(n - k), 1.0 - alpha);
}

static double lchoose(uint64_t n, uint64_t k)
{
	return lgamma((double)n + 1.0) - lgamma((double)k + 1.0) - lgamma((double)(n - k) + 1.0);
}

double stats_fisher2(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	uint64_t r1 = a + b, r2 = c + d, c1 = a + c, n = r1 + r2;
	if (n == 0 || r1 == 0 || r2 == 0 || c1 == 0 || c1 == n)
		return 1.0;
	double lden = lchoose(n, c1);
	uint64_t xlo = c1 > r2 ? c1 - r2 : 0, xhi = r1 < c1 ? r1 : c1;
	double lobs = lchoose(r1, a) + lchoose(r2, c1 - a) - lden;
	double limit = lobs + log1p(1e-7);
	double p = 0.0;
	for (uint64_t x = xlo; x <= xhi; x++) {
		double lp = lchoose(r1, x) + lchoose(r2, c1 - x) - lden;
		if (lp <= limit)
			p += exp(lp);
	}
	return p > 1.0 ? 1.0 : p;
}

double stats_norm_cdf(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

double stats_norm_quantile(double p)
{
	static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02,
		-2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01,
		2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02,
		-1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01,
		-2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00,
		2.938163982698783e+00 };
	static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01,
		2.445134137142996e+00, 3.754408661907416e+00 };
	const double plow = 0.02425;
	double x, q, r;
	if (p <= 0.0)
		return -HUGE_VAL;
	if (p >= 1.0)
		return HUGE_VAL;
	if (p < plow) {
		q = sqrt(-2.0 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
	} else if (p <= 1.0 - plow) {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
	} else {
		q = sqrt(-2.0 * log1p(-p));
		x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
	}
	/* one Halley step against the exact CDF */
	double e = stats_norm_cdf(x) - p;
	double u = e * sqrt(2.0 * M_PI) * exp(x * x / 2.0);
	return x - u / (1.0 + x * u / 2.0);
}

double stats_power2(double p1, uint64_t n1, double p2, uint64_t n2, double alpha)
{
	if (n1 == 0 || n2 == 0)
		return 0.0;
	double a = (double)n1, b = (double)n2;
	double pbar = (a * p1 + b * p2) / (a + b);
	double se0 = sqrt(pbar * (1.0 - pbar) * (1.0 / a + 1.0 / b));
	double se1 = sqrt(p1 * (1.0 - p1) / a + p2 * (1.0 - p2) / b);
	double diff = fabs(p1 - p2), z = stats_norm_quantile(1.0 - alpha / 2.0);
	if (se1 <= 0.0)
		return diff > z * se0 ? 1.0 : 0.0;
	return stats_norm_cdf((diff - z * se0) / se1) + stats_norm_cdf((-diff - z * se0) / se1);
}

/* Smallest n in [1, 1e9] with ok(n) true, for ok monotone in n; 0 if none. */
#define SEARCH_MAX 1000000000ULL
#define SMALLEST_N(OK) do { \
	uint64_t lo_ = 0, hi_ = 1; \
	while (!(OK(hi_))) { \
		if (hi_ >= SEARCH_MAX) \
			return 0; \
		lo_ = hi_; \
		hi_ = hi_ * 2 > SEARCH_MAX ? SEARCH_MAX : hi_ * 2; \
	} \
	while (hi_ - lo_ > 1) { \
		uint64_t mid_ = lo_ + (hi_ - lo_) / 2; \
		if (OK(mid_)) \
			hi_ = mid_; \
		else \
			lo_ = mid_; \
	} \
	return hi_; \
} while (0)

uint64_t stats_n2_for_power(double p1, uint64_t n1, double p2, double alpha, double power)
{
	if (n1 == 0 || p1 == p2)
		return 0;
#define POWER_OK(n) (stats_power2(p1, n1, p2, (n), alpha) >= power)
	SMALLEST_N(POWER_OK);
#undef POWER_OK
}

uint64_t stats_n2_clean_for_fisher(uint64_t k1, uint64_t n1, double alpha)
{
	if (k1 == 0 || k1 > n1)
		return 0;
#define FISHER_OK(n) (stats_fisher2(k1, n1 - k1, 0, (n)) < alpha)
	SMALLEST_N(FISHER_OK);
#undef FISHER_OK
}

uint64_t stats_runs_for_confidence(double rate, double alpha)
{
	if (!(rate > 0.0) || !(alpha > 0.0) || alpha >= 1.0)
		return 0;
	if (rate >= 1.0)
		return 1;
	double est = ceil(log(alpha) / log1p(-rate));
	if (!(est < 1e15))
		return 0;
	uint64_t n = est < 1.0 ? 1 : (uint64_t)est;
	while (stats_cp_upper0(n, alpha) >= rate)
		n++;
	while (n > 1 && stats_cp_upper0(n - 1, alpha) < rate)
		n--;
	return n;
}
