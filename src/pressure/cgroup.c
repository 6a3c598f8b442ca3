/*
 * cgroup.c: per-run cgroups (see cgroup.h).
 *
 * Hierarchies are found from /proc/self/mountinfo and jostle's own place in
 * them from /proc/self/cgroup, so it nests wherever it is started (a CI job
 * cgroup, a container). v2 is used when its cgroup.controllers offers what
 * is asked; a machine with the CPU controllers bound to v1 (as a hybrid
 * systemd layout does) gets v1 cpuset + cpu. Cleanup walks the directories
 * jostle made rather than a list kept in memory, so a run that created
 * nothing, or an interrupted series, is cleaned the same way.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pressure/cgroup.h"
#include "util/banned.h"

static int write_file(const char *dir, const char *file, const char *val)
{
	char path[PATH_MAX];
	int fd, rc = 0;
	size_t n = strlen(val);

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, n) != (ssize_t)n)
		rc = -errno;
	close(fd);
	return rc;
}

static int read_file(const char *dir, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

static bool has_word(const char *list, const char *word, const char *seps)
{
	char tmp[1024], *save = NULL;

	snprintf(tmp, sizeof(tmp), "%s", list);
	for (char *w = strtok_r(tmp, seps, &save); w; w = strtok_r(NULL, seps, &save))
		if (!strcmp(w, word))
			return true;
	return false;
}

/* Mount points: v2, v1 cpuset, v1 cpu (each "" if absent). */
static void find_mounts(char *v2, char *cs, char *cpu, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];

	v2[0] = cs[0] = cpu[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *mnt = NULL, *fields[16];
		int nf = 0;
		char *dash = strstr(line, " - ");
		char fstype[64], opts[1024];

		if (!dash)
			continue;
		if (sscanf(dash + 3, "%63s %*s %1023s", fstype, opts) != 2)
			continue;
		*dash = 0;
		for (char *w = strtok_r(line, " ", &save); w && nf < 16; w = strtok_r(NULL, " ", &save))
			fields[nf++] = w;
		if (nf < 5)
			continue;
		mnt = fields[4];
		if (!strcmp(fstype, "cgroup2") && !v2[0])
			snprintf(v2, len, "%s", mnt);
		else if (!strcmp(fstype, "cgroup")) {
			if (has_word(opts, "cpuset", ",") && !cs[0])
				snprintf(cs, len, "%s", mnt);
			if (has_word(opts, "cpu", ",") && !cpu[0])
				snprintf(cpu, len, "%s", mnt);
		}
	}
	fclose(f);
}

/* jostle's own cgroup path in the hierarchy with this controller ("" for v2). */
static void own_path(const char *controller, char *out, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096];

	snprintf(out, len, "/");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c2 = 0;
		line[strcspn(line, "\n")] = 0;
		c2[1 + strcspn(c2 + 1, "\n")] = 0;
		if ((!*controller && !c1[1] && !strcmp(line, "0")) ||
		    (*controller && has_word(c1 + 1, controller, ","))) {
			snprintf(out, len, "%s", c2 + 1);
			break;
		}
	}
	fclose(f);
}

static int make_dir(char *out, size_t len, const char *mnt, const char *own)
{
	if (snprintf(out, len, "%s%s/jostle-%d", mnt, strcmp(own, "/") ? own : "", (int)getpid()) >= (int)len)
		return -ENAMETOOLONG;
	if (mkdir(out, 0755) < 0 && errno != EEXIST) {
		int e = errno;
		out[0] = 0;
		return -e;
	}
	return 0;
}

static int open_v2(struct cgroup_root *r, const char *mnt, bool want_cpu, char *why, size_t whylen)
{
	char own[PATH_MAX], parent[PATH_MAX * 2], ctl[512];
	int rc;

	own_path("", own, sizeof(own));
	snprintf(parent, sizeof(parent), "%s%s", mnt, strcmp(own, "/") ? own : "");
	if (read_file(parent, "cgroup.controllers", ctl, sizeof(ctl)) < 0 ||
	    !has_word(ctl, "cpuset", " ") || (want_cpu && !has_word(ctl, "cpu", " "))) {
		snprintf(why, whylen, "cgroup v2 at %.200s does not offer the %.200s controller%.200s", parent,
			 want_cpu ? "cpuset and cpu" : "cpuset", want_cpu ? "s" : "");
		return -ENOTSUP;
	}
	/* Fails with EBUSY if jostle's cgroup holds processes (not the root):
	 * then v2 cannot be used from here. */
	rc = write_file(parent, "cgroup.subtree_control", want_cpu ? "+cpuset +cpu" : "+cpuset");
	if (rc < 0) {
		snprintf(why, whylen, "cannot enable controllers in %.200s: %.200s", parent, strerror(-rc));
		return rc;
	}
	rc = make_dir(r->v2, sizeof(r->v2), mnt, own);
	if (rc < 0) {
		snprintf(why, whylen, "cannot create a cgroup under %.200s: %.200s", parent, strerror(-rc));
		return rc;
	}
	rc = write_file(r->v2, "cgroup.subtree_control", want_cpu ? "+cpuset +cpu" : "+cpuset");
	if (rc < 0) {
		snprintf(why, whylen, "cannot enable controllers in %.200s: %.200s", r->v2, strerror(-rc));
		rmdir(r->v2);
		r->v2[0] = 0;
		return rc;
	}
	r->kind = CGROUP_V2;
	r->has_cpuset = true;
	r->has_cpu = want_cpu || has_word(ctl, "cpu", " ");
	return 0;
}

static int open_v1(struct cgroup_root *r, const char *cs, const char *cpu, bool want_cpu, char *why, size_t whylen)
{
	char own[PATH_MAX], parent[PATH_MAX * 2], cpus[256];
	int rc;

	if (!cs[0] || (want_cpu && !cpu[0])) {
		snprintf(why, whylen, "no cgroup v1 %.200s hierarchy is mounted", !cs[0] ? "cpuset" : "cpu");
		return -ENOTSUP;
	}
	own_path("cpuset", own, sizeof(own));
	snprintf(parent, sizeof(parent), "%s%s", cs, strcmp(own, "/") ? own : "");
	if (read_file(parent, "cpuset.mems", r->mems, sizeof(r->mems)) < 0 ||
	    read_file(parent, "cpuset.cpus", cpus, sizeof(cpus)) < 0) {
		snprintf(why, whylen, "cannot read the cpuset of %.200s", parent);
		return -EACCES;
	}
	rc = make_dir(r->v1_cpuset, sizeof(r->v1_cpuset), cs, own);
	if (rc < 0) {
		snprintf(why, whylen, "cannot create a cgroup under %.200s: %.200s", parent, strerror(-rc));
		return rc;
	}
	if ((rc = write_file(r->v1_cpuset, "cpuset.cpus", cpus)) < 0 ||
	    (rc = write_file(r->v1_cpuset, "cpuset.mems", r->mems)) < 0) {
		snprintf(why, whylen, "cannot configure %.200s: %.200s", r->v1_cpuset, strerror(-rc));
		rmdir(r->v1_cpuset);
		r->v1_cpuset[0] = 0;
		return rc;
	}
	r->kind = CGROUP_V1;
	r->has_cpuset = true;
	if (cpu[0]) {
		own_path("cpu", own, sizeof(own));
		rc = make_dir(r->v1_cpu, sizeof(r->v1_cpu), cpu, own);
		if (rc < 0 && want_cpu) {
			snprintf(why, whylen, "cannot create a cgroup under %.200s%.200s: %.200s", cpu, own, strerror(-rc));
			cgroup_close(r);
			return rc;
		}
		r->has_cpu = rc == 0;
	}
	return 0;
}

int cgroup_open(struct cgroup_root *r, bool want_cpu, char *why, size_t whylen)
{
	char v2[PATH_MAX], cs[PATH_MAX], cpu[PATH_MAX], why2[512] = "";
	int rc = -ENOTSUP;

	memset(r, 0, sizeof(*r));
	find_mounts(v2, cs, cpu, sizeof(v2));
	if (!v2[0] && !cs[0]) {
		snprintf(why, whylen, "no cgroup hierarchy is mounted");
		return -ENOTSUP;
	}
	if (v2[0]) {
		rc = open_v2(r, v2, want_cpu, why2, sizeof(why2));
		if (!rc)
			return 0;
	}
	if (cs[0]) {
		rc = open_v1(r, cs, cpu, want_cpu, why, whylen);
		if (!rc)
			return 0;
	} else {
		snprintf(why, whylen, "%.200s", why2);
	}
	memset(r, 0, sizeof(*r));
	return rc;
}

const char *cgroup_kind_name(enum cgroup_kind k)
{
	return k == CGROUP_V2 ? "cgroup-v2" : k == CGROUP_V1 ? "cgroup-v1" : "none";
}

static int child_path(char *out, size_t len, const char *root, const char *name)
{
	if (!root[0])
		return -ENOENT;
	if (snprintf(out, len, "%s/%s", root, name) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int cgroup_make(struct cgroup_root *r, const char *name, const struct cpuset *cpus, double quota)
{
	char dir[PATH_MAX], list[256] = "", val[64];
	int rc;

	if (r->kind == CGROUP_NONE)
		return -ENOTSUP;
	if (quota > 0 && !r->has_cpu)
		return -ENOTSUP;
	if (cpus && cpus->n)
		cpuset_format(cpus, list, sizeof(list));
	if (r->kind == CGROUP_V2) {
		if ((rc = child_path(dir, sizeof(dir), r->v2, name)) < 0)
			return rc;
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
		if (list[0] && (rc = write_file(dir, "cpuset.cpus", list)) < 0)
			goto fail;
		if (quota > 0) {
			long q = (long)(quota * 100000.0);
			snprintf(val, sizeof(val), "%ld 100000", q < 1000 ? 1000 : q);
			if ((rc = write_file(dir, "cpu.max", val)) < 0)
				goto fail;
		}
		return 0;
	}
	if ((rc = child_path(dir, sizeof(dir), r->v1_cpuset, name)) < 0)
		return rc;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	if (!list[0]) {
		if ((rc = read_file(r->v1_cpuset, "cpuset.cpus", list, sizeof(list))) < 0)
			goto fail;
	}
	if ((rc = write_file(dir, "cpuset.cpus", list)) < 0 || (rc = write_file(dir, "cpuset.mems", r->mems)) < 0)
		goto fail;
	if (r->v1_cpu[0]) {
		char cdir[PATH_MAX];
		if ((rc = child_path(cdir, sizeof(cdir), r->v1_cpu, name)) < 0)
			goto fail;
		if (mkdir(cdir, 0755) < 0 && errno != EEXIST) {
			rc = -errno;
			goto fail;
		}
		if (quota > 0) {
			long q = (long)(quota * 100000.0);
			snprintf(val, sizeof(val), "%ld", q < 1000 ? 1000 : q);
			if ((rc = write_file(cdir, "cpu.cfs_period_us", "100000")) < 0 ||
			    (rc = write_file(cdir, "cpu.cfs_quota_us", val)) < 0)
				goto fail;
		}
	}
	return 0;
fail:
	cgroup_remove(r, name);
	return rc;
}

int cgroup_attach(struct cgroup_root *r, const char *name, pid_t pid)
{
	const char *roots[3] = { r->v2, r->v1_cpuset, r->v1_cpu };
	char dir[PATH_MAX], val[32];
	int rc;

	if (r->kind == CGROUP_NONE)
		return -ENOTSUP;
	snprintf(val, sizeof(val), "%d", (int)pid);
	for (int i = 0; i < 3; i++) {
		if (!roots[i][0])
			continue;
		if ((rc = child_path(dir, sizeof(dir), roots[i], name)) < 0)
			return rc;
		if ((rc = write_file(dir, "cgroup.procs", val)) < 0)
			return rc;
	}
	return 0;
}

/* Kill what is left in DIR, then rmdir it, retrying briefly while the
 * killed processes exit (they are reaped by their parent, not by us). */
static int remove_dir(const char *dir)
{
	for (int attempt = 0; attempt < 200; attempt++) {
		char procs[4096];
		struct timespec ts = { 0, 5 * 1000 * 1000 };

		if (!rmdir(dir) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		if (read_file(dir, "cgroup.procs", procs, sizeof(procs)) == 0) {
			char *save = NULL;
			for (char *w = strtok_r(procs, "\n", &save); w; w = strtok_r(NULL, "\n", &save)) {
				long p = strtol(w, NULL, 10);
				if (p > 1 && p != getpid())
					kill((pid_t)p, SIGKILL);
			}
		}
		nanosleep(&ts, NULL);
	}
	return -EBUSY;
}

/* The number after "KEY " on a line of text, or -1. */
static double stat_value(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (!strncmp(line, key, kl) && line[kl] == ' ')
			return strtod(line + kl + 1, NULL);
	return -1;
}

int cgroup_cpu(struct cgroup_root *r, const char *name, double *user_s, double *sys_s)
{
	char dir[PATH_MAX], buf[1024];
	if (r->kind == CGROUP_V2 && child_path(dir, sizeof(dir), r->v2, name) == 0 &&
	    read_file(dir, "cpu.stat", buf, sizeof(buf)) == 0) {
		double u = stat_value(buf, "user_usec"), sy = stat_value(buf, "system_usec");
		if (u >= 0 && sy >= 0) {
			*user_s = u / 1e6;
			*sys_s = sy / 1e6;
			return 0;
		}
	}
	if (r->kind == CGROUP_V1 && child_path(dir, sizeof(dir), r->v1_cpu, name) == 0 &&
	    read_file(dir, "cpuacct.stat", buf, sizeof(buf)) == 0) {
		long tck = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
		double u = stat_value(buf, "user"), sy = stat_value(buf, "system");
		if (u >= 0 && sy >= 0) {
			*user_s = u / (double)tck;
			*sys_s = sy / (double)tck;
			return 0;
		}
	}
	return -ENOENT;
}

int cgroup_remove(struct cgroup_root *r, const char *name)
{
	const char *roots[3] = { r->v2, r->v1_cpuset, r->v1_cpu };
	char dir[PATH_MAX];
	int rc = 0, e;

	for (int i = 0; i < 3; i++) {
		if (!roots[i][0] || child_path(dir, sizeof(dir), roots[i], name) < 0)
			continue;
		if ((e = remove_dir(dir)) < 0)
			rc = e;
	}
	return rc;
}

static void remove_tree(char *root)
{
	DIR *d;
	struct dirent *de;

	if (!root[0])
		return;
	d = opendir(root);
	if (d) {
		while ((de = readdir(d))) {
			char dir[PATH_MAX * 2];
			if (de->d_type != DT_DIR || de->d_name[0] == '.')
				continue;
			snprintf(dir, sizeof(dir), "%s/%s", root, de->d_name);
			remove_dir(dir);
		}
		closedir(d);
	}
	remove_dir(root);
	root[0] = 0;
}

void cgroup_close(struct cgroup_root *r)
{
	remove_tree(r->v2);
	remove_tree(r->v1_cpuset);
	remove_tree(r->v1_cpu);
	r->kind = CGROUP_NONE;
}

bool cgroup_exists(const char *dir)
{
	struct stat st;

	return dir[0] && stat(dir, &st) == 0;
}
