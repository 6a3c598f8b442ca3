/*
 * procfs.c: /proc parsers and openat()-based readers (see procfs.h).
 *
 * The parsers never trust the text: every number is range-checked, the
 * comm field of stat is found by the *last* ')' (a thread may name itself
 * "a) R 1 (b"), and a short or garbled file is -EINVAL, not a crash.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diagnose/procfs.h"
#include "util/xalloc.h"
#include "util/banned.h"

static int parse_u64(const char **p, uint64_t *out)
{
	const char *s = *p;
	while (*s == ' ')
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	uint64_t v = 0;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*out = v;
	*p = s;
	return 0;
}

static int parse_i64(const char **p, int64_t *out)
{
	const char *s = *p;
	while (*s == ' ')
		s++;
	bool neg = *s == '-';
	if (neg)
		s++;
	uint64_t v;
	if (parse_u64(&s, &v) || v > (uint64_t)INT64_MAX)
		return -EINVAL;
	*out = neg ? -(int64_t)v : (int64_t)v;
	*p = s;
	return 0;
}

int procfs_parse_stat(const char *text, struct procfs_stat *out)
{
	memset(out, 0, sizeof(*out));
	const char *open = strchr(text, '(');
	const char *close = strrchr(text, ')');
	if (!open || !close || close < open)
		return -EINVAL;
	const char *p = text;
	int64_t v;
	if (parse_i64(&p, &v) || v <= 0 || v > INT_MAX)
		return -EINVAL;
	out->pid = (pid_t)v;
	size_t n = (size_t)(close - open - 1);
	if (n >= sizeof(out->comm))
		n = sizeof(out->comm) - 1;
	memcpy(out->comm, open + 1, n);
	out->comm[n] = '\0';
	p = close + 1;
	while (*p == ' ')
		p++;
	if (!*p || *p == ' ')
		return -EINVAL;
	out->state = *p++;
	/* Fields after state, numbered as in proc(5) from 4 (ppid). */
	int64_t f[40];
	int nf = 0;
	while (nf < 40) {
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			break;
		/* Some fields (rsslim) are unsigned 64-bit: keep their bits. */
		uint64_t u;
		const char *q = p;
		if (!parse_i64(&q, &f[nf])) {
			p = q;
		} else if (!parse_u64(&p, &u)) {
			f[nf] = (int64_t)(u & INT64_MAX);
		} else {
			return -EINVAL;
		}
		nf++;
	}
	/* proc(5): 4 ppid 5 pgrp ... 10 minflt 12 majflt 14 utime 15 stime ... 20 num_threads 22 starttime 24 rss ... 39 processor */
	if (nf < 19)
		return -EINVAL;
#define F(k) f[(k) - 4]
	out->ppid = (pid_t)F(4);
	out->pgrp = (pid_t)F(5);
	if (F(14) < 0 || F(15) < 0 || F(22) < 0)
		return -EINVAL;
	out->minflt = F(10) > 0 ? (uint64_t)F(10) : 0;
	out->majflt = F(12) > 0 ? (uint64_t)F(12) : 0;
	out->utime = (uint64_t)F(14);
	out->stime = (uint64_t)F(15);
	out->cutime = F(16) > 0 ? (uint64_t)F(16) : 0;
	out->cstime = F(17) > 0 ? (uint64_t)F(17) : 0;
	out->num_threads = (long)F(20);
	out->starttime = (uint64_t)F(22);
	out->rss_pages = nf > 24 - 4 && F(24) > 0 ? (uint64_t)F(24) : 0;
	out->processor = nf > 39 - 4 ? (int)F(39) : -1;
#undef F
	return 0;
}

/* "Key:\tvalue" lines: the value of KEY (without leading blanks) or NULL. */
static const char *status_field(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *line = text; line && *line;) {
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			const char *v = line + kl + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			return v;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return NULL;
}

static long status_long(const char *text, const char *key)
{
	const char *v = status_field(text, key);
	int64_t n;
	if (!v || parse_i64(&v, &n))
		return -1;
	return (long)n;
}

int procfs_parse_status(const char *text, struct procfs_status *out)
{
	memset(out, 0, sizeof(*out));
	const char *v = status_field(text, "Name");
	if (!v)
		return -EINVAL;
	size_t n = strcspn(v, "\n");
	if (n >= sizeof(out->name))
		n = sizeof(out->name) - 1;
	memcpy(out->name, v, n);
	out->name[n] = '\0';
	v = status_field(text, "State");
	out->state = v && *v && *v != '\n' ? *v : '?';
	out->tgid = (pid_t)status_long(text, "Tgid");
	out->ppid = (pid_t)status_long(text, "PPid");
	out->tracer = (pid_t)status_long(text, "TracerPid");
	out->threads = status_long(text, "Threads");
	out->vm_rss_kb = status_long(text, "VmRSS");
	v = status_field(text, "SigCgt");
	out->sig_caught = v ? strtoull(v, NULL, 16) : 0;
	return 0;
}

const char *procfs_parse_wchan(const char *text, char *buf, size_t len)
{
	if (!len)
		return buf;
	size_t n = strcspn(text, "\n");
	if (n >= len)
		n = len - 1;
	memcpy(buf, text, n);
	buf[n] = '\0';
	if (!strcmp(buf, "0"))
		buf[0] = '\0';
	return buf;
}

long procfs_parse_syscall(const char *text)
{
	if (!strncmp(text, "running", 7))
		return -1;
	const char *p = text;
	int64_t v;
	if (parse_i64(&p, &v) || v < 0)
		return -2;
	return (long)v;
}

static int parse_hex(const char **p, uint64_t *out)
{
	const char *s = *p;
	while (*s == ' ')
		s++;
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !isxdigit((unsigned char)s[2]))
		return -EINVAL;
	s += 2;
	uint64_t v = 0;
	for (; isxdigit((unsigned char)*s); s++) {
		if (v >> 60)
			return -EINVAL;
		unsigned d = isdigit((unsigned char)*s) ? (unsigned)(*s - '0')
							: (unsigned)(tolower((unsigned char)*s) - 'a' + 10);
		v = v << 4 | d;
	}
	*out = v;
	*p = s;
	return 0;
}

int procfs_parse_syscall_args(const char *text, long *nr, uint64_t args[6])
{
	if (!strncmp(text, "running", 7))
		return 1;
	const char *p = text;
	int64_t v;
	if (parse_i64(&p, &v) || v < -1 || v > INT_MAX)
		return -EINVAL;
	*nr = (long)v;
	memset(args, 0, 6 * sizeof(*args));
	if (v < 0)
		return 0;   /* blocked, not in a system call: "-1 SP PC" */
	for (int i = 0; i < 6; i++)
		if (parse_hex(&p, &args[i]))
			return -EINVAL;
	return 0;
}

int procfs_parse_schedstat(const char *text, uint64_t *ns)
{
	const char *p = text;
	return parse_u64(&p, ns) ? -EINVAL : 0;
}

pid_t procfs_parse_pid_name(const char *name)
{
	const char *p = name;
	uint64_t v;
	if (parse_u64(&p, &v) || *p || v == 0 || v > INT_MAX || name[0] == ' ')
		return 0;
	return (pid_t)v;
}

int procfs_parse_pids(const char *text, pid_t **out, size_t *nr, size_t *alloc)
{
	int added = 0;
	const char *p = text;
	for (;;) {
		while (*p == ' ' || *p == '\n' || *p == '\t')
			p++;
		if (!*p)
			return added;
		uint64_t v;
		if (parse_u64(&p, &v) || v == 0 || v > INT_MAX ||
		    (*p && *p != ' ' && *p != '\n' && *p != '\t'))
			return -EINVAL;
		ALLOC_GROW(*out, *nr + 1, *alloc);
		(*out)[(*nr)++] = (pid_t)v;
		added++;
	}
}

const char *procfs_environ_get(const char *text, size_t len, const char *name, size_t *vlen)
{
	size_t nl = strlen(name);
	size_t i = 0;
	while (i < len) {
		const char *e = text + i;
		const char *end = memchr(e, '\0', len - i);
		size_t el = end ? (size_t)(end - e) : len - i;
		if (el > nl && !memcmp(e, name, nl) && e[nl] == '=') {
			if (vlen)
				*vlen = el - nl - 1;
			return e + nl + 1;
		}
		i += el + 1;
	}
	return NULL;
}

int procfs_open(pid_t pid)
{
	if (pid <= 0)
		return -EINVAL;
	char path[32];
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	return fd;
}

int procfs_open_task(int pid_dirfd, pid_t tid)
{
	char path[32];
	snprintf(path, sizeof(path), "task/%d", (int)tid);
	int fd = openat(pid_dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	return fd;
}

long procfs_read(int dirfd, const char *name, char *buf, size_t len)
{
	if (len == 0)
		return -EINVAL;
	buf[0] = '\0';
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	size_t got = 0;
	while (got < len - 1) {
		ssize_t n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			/* A thread that exits between open and read gives ESRCH. */
			int e = errno;
			close(fd);
			buf[got] = '\0';
			return -e;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return (long)got;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

/* Numeric entries of the directory open as fd (consumed), sorted. */
static int list_pids(int fd, pid_t **out)
{
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		return -e;
	}
	pid_t *v = NULL;
	size_t nr = 0, alloc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		pid_t p = procfs_parse_pid_name(de->d_name);
		if (!p)
			continue;
		ALLOC_GROW(v, nr + 1, alloc);
		v[nr++] = p;
	}
	closedir(d);
	if (nr > 1)
		qsort(v, nr, sizeof(*v), cmp_pid);
	*out = v;
	return (int)nr;
}

int procfs_tasks(int pid_dirfd, pid_t **out)
{
	*out = NULL;
	int fd = openat(pid_dirfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	return list_pids(fd, out);
}

int procfs_all_pids(pid_t **out)
{
	*out = NULL;
	int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	return list_pids(fd, out);
}
