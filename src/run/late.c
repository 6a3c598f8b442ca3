/*
 * late.c: the verdict on a run past its deadline (see late.h).
 *
 * The order of the rules is the point:
 *   1. an interpreter's exit cleanup is slow (its work is done);
 *   2. CPU per unit of work: a busy tree that burned LATE_SPIN_FACTOR times
 *      the CPU of a typical passing run is spinning, whatever arm it ran
 *      under (jostle's load slows work down; it does not multiply it);
 *   3. a definite hang (deadlock, blocked I/O, stopped) is a hang;
 *   4. the delay jostle's chaos library injected explains the rest when it
 *      covers at least half of the time the run took beyond a typical one
 *      (summed over threads, so generous where threads are held up side by
 *      side; rule 2 has already caught a spinner);
 *   5. a livelock (busy threads in place) is a hang: load slows a thread
 *      down, it does not make it spin in place;
 *   6. the load of its arm explains a run that got its CPU more slowly than
 *      a passing run that no load slowed (less than 2/3 of its CPU per
 *      second; a passing run of the same loaded arm is no yardstick: the
 *      crowd slows it alike), or, before such a run passed, less than
 *      half of the CPUs of its set;
 *   7. what is left is the user's timeout: a hang ("timeout" when it was
 *      moving, the diagnosis's kind when it saw nothing definite).
 *
 * Without a passing run the CPU cannot say "several times the work": a
 * correct CPU-bound program and a spinner both use all the CPU they get.
 * The diagnosis decides then (rule 5 still counts a spin in place), and
 * the CPU rate only says whether load starved the run (rule 6).
 */
#include <stdlib.h>
#include <string.h>

#include "run/late.h"
#include "util/banned.h"

void late_ref_add(struct late_ref *ref, double cpu_s, double wall_s)
{
	ref->cpu_s[ref->next] = cpu_s > 0 ? cpu_s : 0;
	ref->wall_s[ref->next] = wall_s > 0 ? wall_s : 0;
	ref->next = (ref->next + 1) % LATE_REF_RUNS;
	if (ref->n < LATE_REF_RUNS)
		ref->n++;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(const double *v, unsigned n)
{
	double s[LATE_REF_RUNS];
	if (!n)
		return 0;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_dbl);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double late_ref_cpu(const struct late_ref *ref)
{
	return median(ref->cpu_s, ref->n);
}

double late_ref_wall(const struct late_ref *ref)
{
	return median(ref->wall_s, ref->n);
}

static void set(struct late_out *out, enum late_verdict v, const char *late, const char *why)
{
	out->verdict = v;
	out->late = late;
	out->slow_why = why;
}

/* Got its CPU more slowly than a passing run does: load held it back. */
static bool starved(const struct late_in *in)
{
	if (in->wall_s <= 0)
		return false;
	double rate = in->cpu_s / in->wall_s;
	if (in->ref_rate > 0)
		return rate < 2.0 / 3.0 * in->ref_rate;
	return in->cpus <= 0 || rate < 0.5 * in->cpus;
}

void late_judge(const struct late_in *in, struct late_out *out)
{
	memset(out, 0, sizeof(*out));
	enum late_seen seen = in->seen;
	/* it finished on its own with status 0: whatever a look saw, it moved */
	if (in->ended_ok)
		seen = LATE_SEEN_PROGRESSING;
	if (in->ref_cpu_s > 0) {
		double ref = in->ref_cpu_s > LATE_REF_FLOOR_S ? in->ref_cpu_s : LATE_REF_FLOOR_S;
		out->cpu_factor = in->cpu_s / ref;
	}
	if (in->exit_cleanup) {
		set(out, LATE_SLOW, "progressing", "exit cleanup");
		return;
	}
	if (seen != LATE_SEEN_STUCK && out->cpu_factor >= LATE_SPIN_FACTOR) {
		set(out, LATE_SPINNING, "spinning", NULL);
		return;
	}
	if (seen == LATE_SEEN_STUCK) {
		set(out, LATE_STUCK, "stuck", NULL);
		return;
	}
	double beyond = in->wall_s - in->ref_wall_s;
	if (in->delay_s > 0 && in->delay_s >= 0.5 * beyond) {
		set(out, LATE_SLOW, "progressing", "chaos delay");
		return;
	}
	if (seen == LATE_SEEN_LIVELOCK) {
		set(out, LATE_STUCK, "stuck", NULL);
		return;
	}
	if (in->loaded && seen != LATE_SEEN_NONE && starved(in)) {
		set(out, LATE_SLOW, "progressing", "load");
		return;
	}
	if (seen == LATE_SEEN_PROGRESSING)
		set(out, LATE_TIMEOUT, "progressing", NULL);
	else
		set(out, LATE_STUCK, "stuck", NULL);
}
