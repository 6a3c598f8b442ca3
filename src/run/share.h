/*
 * share.h: each run's share of the machine's time.
 *
 * The machine's time is split evenly among the runs in flight: over an
 * interval with n runs in flight, each is charged 1/n of it. A run's
 * share is the integral of dt / n(t) from its start to its end, and the
 * shares of all runs sum to the time anything ran. Why not wall time over
 * the arm's concurrency: a plain run that starts while a crowd of sixteen
 * drains takes ten times its own time in wall time, and auto, charging it
 * that, wrote the plain loop off on a program it fails fastest
 * (wsdeque_take_steal: plain runs of 4 ms measured at 27 ms).
 */
#ifndef JOSTLE_SHARE_H
#define JOSTLE_SHARE_H

#include <stdint.h>

struct share_clock {
	double total_s;   /* the integral of dt / n(t) so far */
	int64_t at_ns;    /* when total_s was last brought up to date */
	unsigned n;       /* runs in flight */
};

/* A run starts at now_ns: returns its mark for share_leave(). */
double share_enter(struct share_clock *c, int64_t now_ns);

/* A run that started with `mark` ends at now_ns: returns its share (s). */
double share_leave(struct share_clock *c, int64_t now_ns, double mark);

#endif
