/*
 * proctree.c: a run's process tree from one scan of /proc (see proctree.h).
 *
 * One scan of every /proc/PID/stat, not the task/TID/children files: the
 * scan works on kernels built without CONFIG_PROC_CHILDREN, costs a few
 * milliseconds, and gives every parent link at the same moment.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diagnose/procfs.h"
#include "diagnose/proctree.h"
#include "util/xalloc.h"
#include "util/banned.h"

static bool in_tree(const struct proctree *t, pid_t pid)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->v[i].pid == pid)
			return true;
	return false;
}

/* self: jostle's own pid, left out with its subtree when it is a
 * descendant (`jostle stacks $$` from a shell: jostle is the shell's child,
 * and its sampling is not the tree's livelock) */
static void add_subtree(struct proctree *t, const struct proctree_proc *all, size_t nr,
			size_t idx, int depth, bool adopted, pid_t self)
{
	if (in_tree(t, all[idx].pid) || depth > 64 || (depth > 0 && self && all[idx].pid == self))
		return;
	ALLOC_GROW(t->v, t->nr + 1, t->alloc);
	struct proctree_proc *p = &t->v[t->nr++];
	*p = all[idx];
	p->depth = depth;
	p->adopted = adopted;
	for (size_t i = 0; i < nr; i++)
		if (all[i].ppid == all[idx].pid && all[i].pid != all[idx].pid)
			add_subtree(t, all, nr, i, depth + 1, adopted, self);
}

void proctree_build(struct proctree *t, const struct proctree_proc *all, size_t nr,
		    pid_t root, pid_t adopter, proctree_adopt_fn *adopt, void *ctx)
{
	for (size_t i = 0; i < nr; i++)
		if (all[i].pid == root)
			add_subtree(t, all, nr, i, 0, false, adopter);
	if (!adopter || !adopt)
		return;
	for (size_t i = 0; i < nr; i++)
		if (all[i].ppid == adopter && all[i].pid != root && !in_tree(t, all[i].pid) &&
		    adopt(all[i].pid, ctx))
			add_subtree(t, all, nr, i, 0, true, adopter);
}

int proctree_collect(struct proctree *t, pid_t root, proctree_adopt_fn *adopt, void *ctx)
{
	pid_t *pids;
	int n = procfs_all_pids(&pids);
	if (n < 0)
		return n;
	struct proctree_proc *all = xcalloc((size_t)n + 1, sizeof(*all));
	size_t nr = 0;
	char buf[1024];
	for (int i = 0; i < n; i++) {
		int fd = procfs_open(pids[i]);
		if (fd < 0)
			continue;
		struct procfs_stat st;
		if (procfs_read(fd, "stat", buf, sizeof(buf)) > 0 && !procfs_parse_stat(buf, &st)) {
			all[nr].pid = st.pid;
			all[nr].ppid = st.ppid;
			memcpy(all[nr].comm, st.comm, sizeof(all[nr].comm));
			nr++;
		}
		close(fd);
	}
	free(pids);
	size_t before = t->nr;
	proctree_build(t, all, nr, root, getpid(), adopt, ctx);
	free(all);
	return t->nr > before ? 0 : -ESRCH;
}

void proctree_cpu(const struct proctree *t, pid_t skip, double *user_s, double *sys_s)
{
	long tck = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
	uint64_t u = 0, s = 0;
	char buf[1024];
	for (size_t i = 0; i < t->nr; i++) {
		if (t->v[i].pid == skip)
			continue;
		int fd = procfs_open(t->v[i].pid);
		if (fd < 0)
			continue;
		struct procfs_stat st;
		if (procfs_read(fd, "stat", buf, sizeof(buf)) > 0 && !procfs_parse_stat(buf, &st)) {
			u += st.utime + st.cutime;
			s += st.stime + st.cstime;
		}
		close(fd);
	}
	*user_s = (double)u / (double)tck;
	*sys_s = (double)s / (double)tck;
}

bool proctree_env_match(pid_t pid, void *ctx)
{
	const char *want = ctx;
	const char *eq = strchr(want, '=');
	if (!eq)
		return false;
	int fd = procfs_open(pid);
	if (fd < 0)
		return false;
	size_t cap = 1 << 17;
	char *buf = xmalloc(cap);
	long len = procfs_read(fd, "environ", buf, cap);
	close(fd);
	bool match = false;
	if (len > 0) {
		char name[128];
		size_t nl = (size_t)(eq - want);
		if (nl < sizeof(name)) {
			memcpy(name, want, nl);
			name[nl] = '\0';
			size_t vl;
			const char *v = procfs_environ_get(buf, (size_t)len, name, &vl);
			match = v && vl == strlen(eq + 1) && !memcmp(v, eq + 1, vl);
		}
	}
	free(buf);
	return match;
}

void proctree_release(struct proctree *t)
{
	free(t->v);
	t->v = NULL;
	t->nr = t->alloc = 0;
}
