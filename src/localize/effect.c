/*
 * effect.c: site effects and pair interactions from randomized rounds (see
 * effect.h). Every estimate is recomputed from the runs kept per round:
 * a localize series has thousands of runs at most, and a recount is
 * cheaper to trust than an incremental one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "localize/effect.h"
#include "results/stats.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct effect_round *effect_round_new(struct effect_data *d, const size_t *sites, size_t nbits)
{
	ALLOC_GROW(d->rounds, d->nrounds + 1, d->alloc);
	struct effect_round *r = &d->rounds[d->nrounds++];
	memset(r, 0, sizeof(*r));
	r->nbits = nbits;
	r->site = xcalloc(nbits ? nbits : 1, sizeof(*r->site));
	if (nbits)
		memcpy(r->site, sites, nbits * sizeof(*sites));
	return r;
}

void effect_round_add(struct effect_round *r, const bool *on, bool failed)
{
	if (r->nruns + 1 > r->alloc) {
		size_t na = r->alloc < 16 ? 16 : r->alloc * 2;
		r->on = xrealloc(r->on, na * (r->nbits ? r->nbits : 1) * sizeof(*r->on));
		r->fail = xrealloc(r->fail, na * sizeof(*r->fail));
		r->alloc = na;
	}
	if (r->nbits)
		memcpy(r->on + r->nruns * r->nbits, on, r->nbits * sizeof(*on));
	r->fail[r->nruns++] = failed;
}

void effect_data_release(struct effect_data *d)
{
	for (size_t i = 0; i < d->nrounds; i++) {
		free(d->rounds[i].site);
		free(d->rounds[i].on);
		free(d->rounds[i].fail);
	}
	free(d->rounds);
	memset(d, 0, sizeof(*d));
}

/* The bit of site s in round r, or -1. */
static long bit_of(const struct effect_round *r, size_t s)
{
	for (size_t b = 0; b < r->nbits; b++)
		if (r->site[b] == s)
			return (long)b;
	return -1;
}

/* Agresti-Caffo: the adjusted rate and its variance. */
static double ac_rate(uint64_t k, uint64_t n)
{
	return ((double)k + 1) / ((double)n + 2);
}

static double ac_var(uint64_t k, uint64_t n)
{
	double p = ac_rate(k, n);
	return p * (1 - p) / ((double)n + 2);
}

static double clamp1(double x)
{
	return x < -1 ? -1 : x > 1 ? 1 : x;
}

static void set_abs(struct effect *e)
{
	e->absmin = e->lo > 0 ? e->lo : e->hi < 0 ? -e->hi : 0;
	e->absmax = fabs(e->lo) > fabs(e->hi) ? fabs(e->lo) : fabs(e->hi);
}

void effect_site(const struct effect_data *d, size_t s, double z, struct effect *e)
{
	double sw = 0, swd = 0, sw2v = 0;

	memset(e, 0, sizeof(*e));
	for (size_t i = 0; i < d->nrounds; i++) {
		const struct effect_round *r = &d->rounds[i];
		long b = bit_of(r, s);
		uint64_t n1 = 0, k1 = 0, n0 = 0, k0 = 0;
		if (b < 0)
			continue;
		for (size_t j = 0; j < r->nruns; j++) {
			if (r->on[j * r->nbits + (size_t)b]) {
				n1++;
				k1 += r->fail[j];
			} else {
				n0++;
				k0 += r->fail[j];
			}
		}
		e->n_on += n1;
		e->k_on += k1;
		e->n_off += n0;
		e->k_off += k0;
		if (!n1 || !n0)
			continue;
		double w = (double)n1 * (double)n0 / (double)(n1 + n0);
		sw += w;
		swd += w * (ac_rate(k1, n1) - ac_rate(k0, n0));
		sw2v += w * w * (ac_var(k1, n1) + ac_var(k0, n0));
		e->strata++;
	}
	if (sw <= 0) {
		e->lo = -1;
		e->hi = 1;
		set_abs(e);
		return;
	}
	e->diff = swd / sw;
	double se = sqrt(sw2v) / sw;
	e->lo = clamp1(e->diff - z * se);
	e->hi = clamp1(e->diff + z * se);
	set_abs(e);
}

int effect_cmp(const struct effect *a, const struct effect *b)
{
	if (a->absmin != b->absmin)
		return a->absmin > b->absmin ? -1 : 1;
	if (fabs(a->diff) != fabs(b->diff))
		return fabs(a->diff) > fabs(b->diff) ? -1 : 1;
	return 0;
}

/* Inverse-variance accumulation of one contrast over strata. */
struct ivw {
	double sw, swx;
};

static void ivw_add(struct ivw *a, double x, double v)
{
	a->sw += 1 / v;
	a->swx += x / v;
}

static void ivw_interval(const struct ivw *a, double z, double *est, double *lo, double *hi)
{
	if (a->sw <= 0) {
		*est = 0;
		*lo = -1;
		*hi = 1;
		return;
	}
	double m = a->swx / a->sw, se = sqrt(1 / a->sw);
	*est = m;
	*lo = clamp1(m - z * se);
	*hi = clamp1(m + z * se);
}

void effect_pair(const struct effect_data *d, size_t a, size_t b, double z, struct effect_pair *p)
{
	struct ivw inter = { 0, 0 }, alone_a = { 0, 0 }, alone_b = { 0, 0 };
	double unused;

	memset(p, 0, sizeof(*p));
	p->a = a;
	p->b = b;
	for (size_t i = 0; i < d->nrounds; i++) {
		const struct effect_round *r = &d->rounds[i];
		long ba = bit_of(r, a), bb = bit_of(r, b);
		uint64_t n[4] = { 0 }, k[4] = { 0 };
		if (ba < 0 || bb < 0)
			continue;
		for (size_t j = 0; j < r->nruns; j++) {
			bool oa = r->on[j * r->nbits + (size_t)ba], ob = r->on[j * r->nbits + (size_t)bb];
			int cell = oa ? (ob ? 0 : 1) : (ob ? 2 : 3);
			n[cell]++;
			k[cell] += r->fail[j];
		}
		for (int c = 0; c < 4; c++) {
			p->n[c] += n[c];
			p->k[c] += k[c];
		}
		if (!n[0] || !n[1] || !n[2] || !n[3])
			continue;
		double q[4], v[4];
		for (int c = 0; c < 4; c++) {
			q[c] = ac_rate(k[c], n[c]);
			v[c] = ac_var(k[c], n[c]);
		}
		ivw_add(&inter, q[0] - q[1] - q[2] + q[3], v[0] + v[1] + v[2] + v[3]);
		ivw_add(&alone_a, q[1] - q[3], v[1] + v[3]);
		ivw_add(&alone_b, q[2] - q[3], v[2] + v[3]);
		p->strata++;
	}
	ivw_interval(&inter, z, &p->inter, &p->lo, &p->hi);
	ivw_interval(&alone_a, z, &unused, &p->a_lo, &p->a_hi);
	ivw_interval(&alone_b, z, &unused, &p->b_lo, &p->b_hi);
}

double effect_z_simultaneous(size_t m, double level)
{
	if (m < 1)
		m = 1;
	return stats_norm_quantile(1 - (1 - level) / (2 * (double)m));
}

size_t effect_prune(const struct effect *e, bool *cand, size_t n)
{
	double best = 0;
	size_t left = 0;

	for (size_t i = 0; i < n; i++)
		if (cand[i] && e[i].absmin > best)
			best = e[i].absmin;
	for (size_t i = 0; i < n; i++) {
		if (cand[i] && best > 0 && e[i].absmax < best)
			cand[i] = false;
		left += cand[i];
	}
	return left;
}

bool effect_separated(const struct effect *e, const bool *cand, size_t n, size_t *lead)
{
	size_t top = n;

	for (size_t i = 0; i < n; i++)
		if (cand[i] && (top == n || effect_cmp(&e[i], &e[top]) < 0))
			top = i;
	*lead = top;
	if (top == n || e[top].absmin <= 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (i != top && cand[i] && e[i].absmax >= e[top].absmin)
			return false;
	return true;
}
