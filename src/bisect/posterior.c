/*
 * posterior.c: the culprit's probability under the two-rate model (see
 * posterior.h).
 *
 * For a culprit k the data split in two: commits before k (counts Fb of
 * Nb) and from k on (Fa of Na). The likelihood integrated over the grid is
 *
 *   sum_i w_i b_i^Fb (1-b_i)^(Nb-Fb) * sum_{j: r_j > b_i} v_j r_j^Fa (1-r_j)^(Na-Fa)
 *
 * and the inner sum is a suffix sum over the ascending r grid, computed
 * once per k. Everything is in logs with the maxima taken out, so 10^6
 * runs do not underflow.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/posterior.h"
#include "util/rng.h"
#include "util/xalloc.h"
#include "util/banned.h"

enum { GB = 25, GR = 48 };

struct grid {
	double b[GB], lb[GB], l1b[GB], wb[GB];   /* value, log, log(1-b), log prior */
	double r[GR], lr[GR], l1r[GR], wr[GR];
	int first_r[GB];                          /* first j with r[j] > b[i] */
};

static const struct grid *grid_get(void)
{
	static struct grid g;
	static bool ready;

	if (ready)
		return &g;
	g.b[0] = 0;
	g.lb[0] = -INFINITY;
	g.l1b[0] = 0;
	g.wb[0] = log(0.5);
	for (int i = 1; i < GB; i++) {
		double lo = log(1e-4), hi = log(0.5);
		g.b[i] = exp(lo + (hi - lo) * (i - 1) / (GB - 2));
		g.lb[i] = log(g.b[i]);
		g.l1b[i] = log1p(-g.b[i]);
		g.wb[i] = log(0.5 / (GB - 1));
	}
	for (int j = 0; j < GR; j++) {
		double lo = log(1e-4), hi = log(0.999);
		g.r[j] = exp(lo + (hi - lo) * j / (GR - 1));
		g.lr[j] = log(g.r[j]);
		g.l1r[j] = log1p(-g.r[j]);
		g.wr[j] = log(1.0 / GR);
	}
	for (int i = 0; i < GB; i++) {
		int j = 0;
		while (j < GR && g.r[j] <= g.b[i])
			j++;
		g.first_r[i] = j;
	}
	ready = true;
	return &g;
}

void posterior_init(struct posterior *ps, size_t n)
{
	memset(ps, 0, sizeof(*ps));
	ps->n = n;
	ps->runs = xcalloc(n + 1, sizeof(*ps->runs));
	ps->fails = xcalloc(n + 1, sizeof(*ps->fails));
	ps->skip = xcalloc(n + 1, sizeof(*ps->skip));
	ps->p = xcalloc(n + 1, sizeof(*ps->p));
	ps->b_of = xcalloc(n + 1, sizeof(*ps->b_of));
	ps->r_of = xcalloc(n + 1, sizeof(*ps->r_of));
	posterior_update(ps);
}

void posterior_release(struct posterior *ps)
{
	free(ps->runs);
	free(ps->fails);
	free(ps->skip);
	free(ps->p);
	free(ps->b_of);
	free(ps->r_of);
	memset(ps, 0, sizeof(*ps));
}

void posterior_set(struct posterior *ps, size_t i, uint64_t runs, uint64_t fails)
{
	if (i > ps->n)
		return;
	ps->runs[i] = runs;
	ps->fails[i] = fails < runs ? fails : runs;
}

/* log of sum_i exp(a[i]) S(i) etc.: the likelihood of culprit k and the
 * unnormalized means of b and r under it. */
static double culprit_loglik(const struct grid *g, double fb, double nb, double fa, double na,
			     double *eb, double *er)
{
	double br[GR], s0[GR + 1], s1[GR + 1], ab[GB];
	double maxb = -INFINITY, maxa = -INFINITY;

	for (int j = 0; j < GR; j++) {
		br[j] = g->wr[j] + fa * g->lr[j] + (na - fa) * g->l1r[j];
		if (br[j] > maxb)
			maxb = br[j];
	}
	s0[GR] = s1[GR] = 0;
	for (int j = GR - 1; j >= 0; j--) {
		double e = exp(br[j] - maxb);
		s0[j] = s0[j + 1] + e;
		s1[j] = s1[j + 1] + e * g->r[j];
	}
	for (int i = 0; i < GB; i++) {
		if (i == 0)
			ab[i] = fb > 0 ? -INFINITY : g->wb[0] + (nb - fb) * g->l1b[0];
		else
			ab[i] = g->wb[i] + fb * g->lb[i] + (nb - fb) * g->l1b[i];
		if (s0[g->first_r[i]] <= 0)
			ab[i] = -INFINITY;
		if (ab[i] > maxa)
			maxa = ab[i];
	}
	double z = 0, zb = 0, zr = 0;
	for (int i = 0; i < GB; i++) {
		if (ab[i] == -INFINITY)
			continue;
		double e = exp(ab[i] - maxa);
		int j = g->first_r[i];
		z += e * s0[j];
		zb += e * g->b[i] * s0[j];
		zr += e * s1[j];
	}
	*eb = z > 0 ? zb / z : 0;
	*er = z > 0 ? zr / z : 0;
	return z > 0 ? maxa + maxb + log(z) : -INFINITY;
}

/*
 * The log marginal likelihood of every culprit into ll[0..n] (and the
 * rates' means under each into eb, er when not NULL), for the counts plus
 * m more runs with f failures at commit j (none when m == 0). Returns the
 * log of their sum.
 */
static double loglik_all(const struct posterior *ps, size_t j, double m, double f,
			 double *ll, double *eb, double *er)
{
	const struct grid *g = grid_get();
	size_t n = ps->n;
	double ftot = f, ntot = m, fb = 0, nb = 0, max = -INFINITY, b, r;

	for (size_t i = 0; i <= n; i++) {
		ftot += (double)ps->fails[i];
		ntot += (double)ps->runs[i];
	}
	for (size_t k = 0; k <= n; k++) {
		/* before k: commits 0..k-1 */
		ll[k] = culprit_loglik(g, fb, nb, ftot - fb, ntot - nb, eb ? &eb[k] : &b, er ? &er[k] : &r);
		if (ll[k] > max)
			max = ll[k];
		fb += (double)ps->fails[k] + (k == j ? f : 0);
		nb += (double)ps->runs[k] + (k == j ? m : 0);
	}
	double z = 0;
	for (size_t k = 0; k <= n; k++)
		z += ll[k] == -INFINITY ? 0 : exp(ll[k] - max);
	return max + log(z);
}

void posterior_update(struct posterior *ps)
{
	size_t n = ps->n;
	double *ll = xcalloc(n + 1, sizeof(*ll));
	double lz = loglik_all(ps, 0, 0, 0, ll, ps->b_of, ps->r_of);

	ps->b_mean = ps->r_mean = 0;
	for (size_t k = 0; k <= n; k++) {
		ps->p[k] = ll[k] == -INFINITY ? 0 : exp(ll[k] - lz);
		ps->b_mean += ps->p[k] * ps->b_of[k];
		ps->r_mean += ps->p[k] * ps->r_of[k];
	}
	free(ll);
}

size_t posterior_best(const struct posterior *ps, double *prob)
{
	size_t best = 0;
	for (size_t k = 1; k <= ps->n; k++)
		if (ps->p[k] > ps->p[best])
			best = k;
	if (prob)
		*prob = ps->p[best];
	return best;
}

double posterior_best_block(const struct posterior *ps, size_t *lo, size_t *hi)
{
	double best = -1, mass = 0;
	size_t start = 0;

	*lo = *hi = 0;
	for (size_t k = 0; k <= ps->n; k++) {
		mass += ps->p[k];
		if (ps->skip[k] && k < ps->n)
			continue;
		if (mass > best) {
			best = mass;
			*lo = start;
			*hi = k;
		}
		mass = 0;
		start = k + 1;
	}
	return best;
}

double posterior_cdf(const struct posterior *ps, size_t j)
{
	double c = 0;
	for (size_t k = 0; k <= j && k <= ps->n; k++)
		c += ps->p[k];
	return c > 1 ? 1 : c;
}

/* Binomial(m, q) probabilities into pmf[0..m]; returns their entropy in bits. */
static double binom(unsigned m, double q, double *pmf)
{
	double h = 0;

	if (q <= 0 || q >= 1) {
		for (unsigned f = 0; f <= m; f++)
			pmf[f] = 0;
		pmf[q <= 0 ? 0 : m] = 1;
		return 0;
	}
	double lq = log(q), l1q = log1p(-q), lm = lgamma(m + 1.0);
	for (unsigned f = 0; f <= m; f++) {
		pmf[f] = exp(lm - lgamma(f + 1.0) - lgamma(m - f + 1.0) + f * lq + (m - f) * l1q);
		if (pmf[f] > 0)
			h -= pmf[f] * log2(pmf[f]);
	}
	return h;
}

/*
 * For a test at j, culprits k <= j predict Binomial(m, r_of[k]) failures
 * and culprits k > j Binomial(m, b_of[k]). The gain is the entropy of the
 * mixture less the mean entropy of its parts. Walking j up moves one
 * culprit from the "after" side to the "before" side, so both mixtures
 * are running sums: one pass over j, O(m) per step.
 */
void posterior_gains(const struct posterior *ps, unsigned m, double *gain)
{
	size_t n = ps->n;
	double *pmf = xcalloc(m + 1, sizeof(*pmf));
	double *lo = xcalloc(m + 1, sizeof(*lo));   /* sum over k <= j of p(k) Bin(r_of[k]) */
	double *hi = xcalloc(m + 1, sizeof(*hi));   /* sum over k > j of p(k) Bin(b_of[k]) */
	double hlo = 0, hhi = 0;                     /* the same sums of p(k) H(...) */

	for (size_t k = 0; k <= n; k++) {
		if (ps->p[k] <= 0)
			continue;
		double h = binom(m, ps->b_of[k], pmf);
		for (unsigned f = 0; f <= m; f++)
			hi[f] += ps->p[k] * pmf[f];
		hhi += ps->p[k] * h;
	}
	for (size_t j = 0; j <= n; j++) {
		if (ps->p[j] > 0) {
			double h = binom(m, ps->b_of[j], pmf);
			for (unsigned f = 0; f <= m; f++)
				hi[f] -= ps->p[j] * pmf[f];
			hhi -= ps->p[j] * h;
			h = binom(m, ps->r_of[j], pmf);
			for (unsigned f = 0; f <= m; f++)
				lo[f] += ps->p[j] * pmf[f];
			hlo += ps->p[j] * h;
		}
		double hmix = 0;
		for (unsigned f = 0; f <= m; f++) {
			double q = lo[f] + (hi[f] > 0 ? hi[f] : 0);
			if (q > 0)
				hmix -= q * log2(q);
		}
		double g = hmix - hlo - (hhi > 0 ? hhi : 0);
		gain[j] = g > 0 ? g : 0;
	}
	free(pmf);
	free(lo);
	free(hi);
}

bool posterior_next(const struct posterior *ps, unsigned m, size_t *j)
{
	double *gain = xcalloc(ps->n + 1, sizeof(*gain)), best = 0;
	bool found = false;

	posterior_gains(ps, m, gain);
	for (size_t i = 0; i <= ps->n; i++) {
		if (ps->skip[i] || gain[i] <= 1e-9 || gain[i] < best)
			continue;
		best = gain[i];
		*j = i;
		found = true;
	}
	free(gain);
	return found;
}

size_t posterior_simulate(size_t n, size_t k, double b, double r, unsigned m, double conf,
			  uint64_t max_runs, uint64_t *rng, uint64_t *runs, double where[5])
{
	struct posterior ps;
	size_t best, j;
	double p;

	posterior_init(&ps, n);
	*runs = 0;
	for (;;) {
		posterior_update(&ps);
		best = posterior_best(&ps, &p);
		if (ps.fails[n] && p >= conf)
			break;
		if (!ps.fails[n])
			j = n;
		else if (!posterior_next(&ps, m, &j))
			break;
		unsigned f = 0;
		for (unsigned i = 0; i < m; i++)
			f += rng_unit(rng) < (j >= k ? r : b);
		posterior_set(&ps, j, ps.runs[j] + m, ps.fails[j] + f);
		*runs += m;
		if (where)
			where[j == n ? 0 : j + 1 == k ? 1 : j == k ? 2 : j < k ? 3 : 4] += m;
		if (*runs > max_runs)
			break;
	}
	posterior_release(&ps);
	return best;
}
