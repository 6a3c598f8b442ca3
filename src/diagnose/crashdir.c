/*
 * crashdir.c: the crash records of one folder, found by run (crashdir.h).
 *
 * The index holds names only; whether a record is still there, and how
 * old it is, is asked of the folder (fstatat) for the few a find returns.
 * A record is linked in whole (O_TMPFILE, then linkat), or created under
 * its name where that is missing: IN_CREATE sees both, IN_MOVED_TO a
 * record moved in by hand.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diagnose/crashdir.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define NAME_LEN 48              /* "RUN.PID.txt": 20 + 1 + 10 + 4 digits and dots */
#define HEADS 4096               /* a power of two */
#define NONE UINT32_MAX

struct entry {
	uint64_t run;
	uint32_t next;               /* the next entry of the same head, NONE */
	char name[NAME_LEN];
};

struct crashdir {
	char *dir;                   /* owned (no fd of it is held: the watch sees it go) */
	int fd;                      /* inotify, -1: list the folder at every find */
	bool stale;                  /* events were lost: list the folder again */
	struct entry *e;             /* owned */
	uint32_t n, alloc;
	uint32_t head[HEADS];
};

/* The run of a record's name RUN.PID.txt; false for any other name. */
static bool record_name(const char *name, uint64_t *run, long *pid)
{
	char *end;
	if (name[0] < '0' || name[0] > '9' || strlen(name) >= NAME_LEN)
		return false;
	*run = strtoull(name, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return false;
	*pid = strtol(end + 1, &end, 10);
	return !strcmp(end, ".txt");
}

static void index_clear(struct crashdir *d)
{
	d->n = 0;
	for (size_t i = 0; i < HEADS; i++)
		d->head[i] = NONE;
}

static void index_add(struct crashdir *d, const char *name)
{
	uint64_t run;
	long pid;
	if (!record_name(name, &run, &pid))
		return;
	if (d->n == d->alloc) {
		d->alloc = d->alloc ? d->alloc * 2 : 256;
		d->e = xrealloc(d->e, (size_t)d->alloc * sizeof(*d->e));
	}
	struct entry *x = &d->e[d->n];
	uint32_t h = (uint32_t)(run & (HEADS - 1));
	x->run = run;
	x->next = d->head[h];
	snprintf(x->name, sizeof(x->name), "%s", name);
	d->head[h] = d->n++;
}

/* The folder listed into the index (after the watch was set: a record
 * linked in between is indexed twice, which a find sees through). */
static void index_scan(struct crashdir *d)
{
	index_clear(d);
	DIR *dir = opendir(d->dir);
	if (!dir)
		return;
	struct dirent *de;
	while ((de = readdir(dir)))
		index_add(d, de->d_name);
	closedir(dir);
}

/* The events queued since the last find, into the index. */
static void drain(struct crashdir *d)
{
	char buf[65536] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		ssize_t len = read(d->fd, buf, sizeof(buf));
		if (len <= 0)
			break;   /* EAGAIN: nothing more */
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (const void *)p;
			if (ev->mask & IN_Q_OVERFLOW)
				d->stale = true;
			if (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) {
				/* the folder went away (or elsewhere): list its path from now on */
				close(d->fd);
				d->fd = -1;
				return;
			}
			if (!d->stale && ev->len && (ev->mask & (IN_CREATE | IN_MOVED_TO)))
				index_add(d, ev->name);
			p += sizeof(*ev) + ev->len;
		}
	}
	if (d->stale) {   /* the queue still runs: what it holds now is in the listing too */
		d->stale = false;
		index_scan(d);
	}
}

struct crashdir *crashdir_open(const char *dir, bool watch)
{
	struct crashdir *d = xcalloc(1, sizeof(*d));
	d->dir = xstrdup(dir);
	d->fd = -1;
	index_clear(d);
	if (!watch)
		return d;
	d->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (d->fd >= 0 && inotify_add_watch(d->fd, dir, IN_CREATE | IN_MOVED_TO | IN_MOVE_SELF |
					    IN_DELETE_SELF | IN_ONLYDIR) < 0) {
		close(d->fd);
		d->fd = -1;
	}
	if (d->fd >= 0)
		index_scan(d);
	return d;
}

void crashdir_close(struct crashdir *d)
{
	if (!d)
		return;
	if (d->fd >= 0)
		close(d->fd);
	free(d->e);
	free(d->dir);
	free(d);
}

bool crashdir_watching(const struct crashdir *d)
{
	return d->fd >= 0;
}

/* ---- choosing ---- */

struct found {
	char name[NAME_LEN];
	int64_t t;
	bool main;
};

static int found_cmp(const void *a, const void *b)
{
	const struct found *x = a, *y = b;
	if (x->main != y->main)
		return x->main ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t ? 1 : strcmp(x->name, y->name);
}

struct pick {
	int dirfd;                   /* where names are, or -1: under dir */
	const char *dir;
	uint64_t run;
	pid_t main_pid;
	int64_t since_ns;
	struct found *f;             /* max + 1 */
	size_t n, max;
};

/* Name as a candidate: a record of the run, there, and new enough; the
 * best max kept (the main record, then the oldest), each name once. */
static void consider(struct pick *p, const char *name)
{
	uint64_t run;
	long pid;
	struct stat st;
	if (!record_name(name, &run, &pid) || run != p->run)
		return;
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->f[i].name, name))
			return;
	char path[CRASHLOG_PATH_LEN];
	if (p->dirfd < 0 && snprintf(path, sizeof(path), "%s/%s", p->dir, name) >= (int)sizeof(path))
		return;
	if (fstatat(p->dirfd < 0 ? AT_FDCWD : p->dirfd, p->dirfd < 0 ? path : name, &st, 0) < 0 ||
	    !S_ISREG(st.st_mode))
		return;
	int64_t t = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	if (t < p->since_ns)
		return;
	struct found x = { .t = t, .main = pid == (long)p->main_pid };
	snprintf(x.name, sizeof(x.name), "%s", name);
	if (p->n < p->max + 1)
		p->f[p->n++] = x;
	else if (found_cmp(&x, &p->f[p->max]) < 0)
		p->f[p->max] = x;
	qsort(p->f, p->n, sizeof(*p->f), found_cmp);
}

size_t crashdir_find(struct crashdir *d, uint64_t run, pid_t main_pid, int64_t since_ns,
		     char (*paths)[CRASHLOG_PATH_LEN], size_t max)
{
	if (!max)
		return 0;
	if (d->fd >= 0)
		drain(d);
	struct pick p = { .dirfd = -1, .dir = d->dir, .run = run, .main_pid = main_pid, .since_ns = since_ns,
			  .f = xcalloc(max + 1, sizeof(struct found)), .max = max };
	if (d->fd >= 0) {
		for (uint32_t i = d->head[run & (HEADS - 1)]; i != NONE; i = d->e[i].next)
			if (d->e[i].run == run)
				consider(&p, d->e[i].name);
	} else {
		DIR *dir = opendir(d->dir);
		struct dirent *de;
		p.dirfd = dir ? dirfd(dir) : -1;
		while (dir && (de = readdir(dir)))
			consider(&p, de->d_name);
		if (dir)
			closedir(dir);
	}
	size_t n = p.n > max ? max : p.n;
	for (size_t i = 0; i < n; i++)
		snprintf(paths[i], CRASHLOG_PATH_LEN, "%s/%s", d->dir, p.f[i].name);
	free(p.f);
	return n;
}
