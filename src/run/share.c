/* share.c: each run's share of the machine's time (share.h). */
#include "run/share.h"

static void advance(struct share_clock *c, int64_t now_ns)
{
	if (c->n > 0 && now_ns > c->at_ns)
		c->total_s += (double)(now_ns - c->at_ns) / 1e9 / (double)c->n;
	if (now_ns > c->at_ns)
		c->at_ns = now_ns;
}

double share_enter(struct share_clock *c, int64_t now_ns)
{
	advance(c, now_ns);
	c->n++;
	return c->total_s;
}

double share_leave(struct share_clock *c, int64_t now_ns, double mark)
{
	advance(c, now_ns);
	if (c->n > 0)
		c->n--;
	double s = c->total_s - mark;
	return s > 0 ? s : 0;
}
