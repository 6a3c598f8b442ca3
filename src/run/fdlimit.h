/*
 * fdlimit.h: the file descriptors a series needs against RLIMIT_NOFILE.
 *
 * Each running run holds one descriptor (its output pipe) and starting one
 * briefly takes another; the engine itself, logs being written, diagnosis
 * (/proc, stacks) and symbolization (the ELF files of a crash) need a
 * margin on top. At -j 64 under the usual soft limit of 1024 this is
 * nothing, but a CI job with `ulimit -n 64` would fail its starts with
 * EMFILE. So, before a series:
 *
 *   struct fdlimit fl;
 *   if (fdlimit_fit(&fl, &jobs, why, sizeof why) > 0) print why (jobs lowered)
 *   ... spawn_req.nofile = fdlimit_child(&fl);   children get the limit we had
 *
 * The soft limit is raised towards the hard one as far as the series
 * needs; only when the hard limit itself is too low is -j lowered (never
 * below 1), with a one-line reason. Children always start with the limit
 * jostle was given: a raised limit would change how the program behaves
 * (select(), loops closing every descriptor up to the limit).
 */
#ifndef JOSTLE_FDLIMIT_H
#define JOSTLE_FDLIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>

#define FDLIMIT_MARGIN 48   /* descriptors kept for everything but the runs' pipes */

struct fdlimit {
	struct rlimit orig;   /* as jostle was started */
	bool raised;          /* the soft limit was raised (children get orig) */
};

/* Descriptors a series of JOBS concurrent runs needs (pure), besides those
 * open when it starts (fdlimit_fit counts them). */
unsigned long fdlimit_need(unsigned jobs);

/*
 * The jobs that fit under a hard limit of HARD descriptors, at most JOBS
 * (pure; at least 1).
 */
unsigned fdlimit_jobs_within(unsigned jobs, unsigned long hard);

/*
 * Make room for *jobs concurrent runs (see above). Returns 0, 1 when *jobs
 * was lowered (why: "-j 64 needs 112 file descriptors ..."), or -errno when
 * the limit cannot be read.
 */
int fdlimit_fit(struct fdlimit *fl, unsigned *jobs, char *why, size_t whylen);

/* The limit children start with: NULL (inherit) unless fdlimit_fit raised it. */
const struct rlimit *fdlimit_child(const struct fdlimit *fl);

#endif
