/*
 * churn.c: processes that came and went (see churn.h).
 *
 * A process's CPU is the larger of its stat times (every thread, in clock
 * ticks: 10 ms steps) and its main thread's schedstat (nanoseconds): a
 * short-lived single-threaded process (a `sleep`, a compiler) is measured
 * to the nanosecond, a many-threaded one to the tick.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diagnose/churn.h"
#include "diagnose/procfs.h"
#include "util/xalloc.h"
#include "util/clock.h"
#include "util/banned.h"

/* The stat and CPU of PID; false when it is gone. */
static bool read_proc(pid_t pid, struct procfs_stat *st, int64_t *cpu_ns)
{
	int fd = procfs_open(pid);
	if (fd < 0)
		return false;
	char buf[1024];
	bool ok = procfs_read(fd, "stat", buf, sizeof(buf)) > 0 && !procfs_parse_stat(buf, st);
	if (ok) {
		long tck = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
		int64_t ns = (int64_t)((st->utime + st->stime) * (uint64_t)(NS_PER_S / tck));
		uint64_t sched;
		if (procfs_read(fd, "schedstat", buf, sizeof(buf)) > 0 && !procfs_parse_schedstat(buf, &sched))
			ns = (int64_t)sched > ns ? (int64_t)sched : ns;
		*cpu_ns = ns;
	}
	close(fd);
	return ok;
}

static struct churn_proc *find(struct churn *c, pid_t pid, uint64_t starttime)
{
	for (size_t i = 0; i < c->nr; i++)
		if (c->v[i].pid == pid && c->v[i].starttime == starttime)
			return &c->v[i];
	return NULL;
}

int churn_look(struct churn *c, pid_t root, proctree_adopt_fn *adopt, void *ctx)
{
	struct proctree now = PROCTREE_INIT;
	int rc = proctree_collect(&now, root, adopt, ctx);
	if (rc < 0 && rc != -ESRCH) {
		proctree_release(&now);
		return rc;
	}
	bool first = c->looks++ == 0;
	bool *present = xcalloc(c->nr + now.nr + 1, sizeof(*present));
	int alive = 0;
	for (size_t i = 0; i < now.nr; i++) {
		struct procfs_stat st;
		int64_t cpu;
		if (!read_proc(now.v[i].pid, &st, &cpu))
			continue;
		uint64_t start = st.starttime;
		bool zombie = st.state == 'Z' || st.state == 'X';
		struct churn_proc *p = find(c, now.v[i].pid, start);
		if (!p) {
			ALLOC_GROW(c->v, c->nr + 1, c->alloc);
			p = &c->v[c->nr++];
			*p = (struct churn_proc){ .pid = now.v[i].pid, .starttime = start, .cpu0_ns = first ? cpu : 0,
						  .initial = first };
		}
		p->cpu_ns = cpu;
		p->look = c->looks;
		p->st = st;
		if (zombie) {
			p->gone = true;
			continue;
		}
		present[p - c->v] = true;
		alive++;
	}
	for (size_t i = 0; i < c->nr; i++)
		if (!present[i])
			c->v[i].gone = true;
	free(present);
	proctree_release(&now);
	return alive;
}

const struct procfs_stat *churn_sample(const struct churn *c, pid_t pid, uint64_t starttime)
{
	for (size_t i = 0; i < c->nr; i++)
		if (c->v[i].pid == pid && c->v[i].starttime == starttime && c->v[i].look == c->looks)
			return &c->v[i].st;
	return NULL;
}

unsigned churn_born(const struct churn *c)
{
	unsigned n = 0;
	for (size_t i = 0; i < c->nr; i++)
		n += !c->v[i].initial;
	return n;
}

unsigned churn_ended(const struct churn *c)
{
	unsigned n = 0;
	for (size_t i = 0; i < c->nr; i++)
		n += c->v[i].gone;
	return n;
}

int64_t churn_work_ns(const struct churn *c, int64_t min_ns)
{
	int64_t ns = 0;
	for (size_t i = 0; i < c->nr; i++)
		if ((!c->v[i].initial || c->v[i].gone) && c->v[i].cpu_ns >= min_ns)
			ns += c->v[i].cpu_ns;
	return ns;
}

int64_t churn_cpu_ns(const struct churn *c)
{
	int64_t ns = 0;
	for (size_t i = 0; i < c->nr; i++)
		ns += c->v[i].cpu_ns > c->v[i].cpu0_ns ? c->v[i].cpu_ns - c->v[i].cpu0_ns : 0;
	return ns;
}

void churn_release(struct churn *c)
{
	free(c->v);
	*c = (struct churn)CHURN_INIT;
}
