/*
 * fdlimit.c: room for a series' file descriptors (see fdlimit.h).
 *
 * Counted, not probed: the engine's own descriptors are few and fixed, a
 * run holds one pipe end, and the margin covers what comes and goes (a log
 * being written, a worker reading /proc, the ELF files a crash's frames are
 * named from), plus whatever is open when the series starts. The engine
 * still treats EMFILE at a start as back-pressure (series.c), for
 * descriptors this count does not know about.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>

#include "run/fdlimit.h"
#include "util/banned.h"

unsigned long fdlimit_need(unsigned jobs)
{
	return (unsigned long)jobs + FDLIMIT_MARGIN;
}

unsigned fdlimit_jobs_within(unsigned jobs, unsigned long hard)
{
	unsigned long fit = hard > FDLIMIT_MARGIN + 1 ? hard - FDLIMIT_MARGIN : 1;
	return fit < jobs ? (unsigned)fit : jobs;
}

/* Descriptors open now (inherited ones included: CI runners leak some). */
static unsigned long open_now(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return 0;
	unsigned long n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n ? n - 1 : 0;   /* less the one reading the folder */
}

int fdlimit_fit(struct fdlimit *fl, unsigned *jobs, char *why, size_t whylen)
{
	fl->raised = false;
	if (getrlimit(RLIMIT_NOFILE, &fl->orig) < 0)
		return -errno;
	unsigned long open = open_now();
	unsigned long need = fdlimit_need(*jobs) + open;
	if (fl->orig.rlim_cur == RLIM_INFINITY || fl->orig.rlim_cur >= need)
		return 0;
	struct rlimit rl = fl->orig;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
	if (rl.rlim_cur > fl->orig.rlim_cur && setrlimit(RLIMIT_NOFILE, &rl) == 0)
		fl->raised = true;
	else
		rl.rlim_cur = fl->orig.rlim_cur;
	if (rl.rlim_cur >= need)
		return 0;
	unsigned fit = fdlimit_jobs_within(*jobs, rl.rlim_cur > open ? rl.rlim_cur - open : 0);
	snprintf(why, whylen, "-j %u needs about %lu file descriptors and the limit is %lu "
		 "(ulimit -n): running %u at a time", *jobs, need, (unsigned long)rl.rlim_cur, fit);
	*jobs = fit;
	return 1;
}

const struct rlimit *fdlimit_child(const struct fdlimit *fl)
{
	return fl->raised ? &fl->orig : NULL;
}
