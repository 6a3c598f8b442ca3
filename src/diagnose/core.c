/*
 * core.c: locating cores from kernel.core_pattern (see core.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diagnose/core.h"
#include "util/banned.h"

static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, len - 1);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int core_pattern_read(char *pattern, size_t len, bool *uses_pid)
{
	char v[16];
	*uses_pid = !read_small("/proc/sys/kernel/core_uses_pid", v, sizeof(v)) && v[0] == '1';
	return read_small("/proc/sys/kernel/core_pattern", pattern, len);
}

static void put(char *out, size_t len, size_t *k, const char *s)
{
	for (; *s && *k + 1 < len; s++)
		out[(*k)++] = *s;
	out[*k] = '\0';
}

int core_expand(const char *pattern, bool uses_pid, const char *cwd, pid_t pid, const char *comm,
		int sig, uid_t uid, gid_t gid, const char *host, char *out, size_t len)
{
	size_t k = 0;
	out[0] = '\0';
	if (pattern[0] == '|')
		return -ENOTSUP;
	if (pattern[0] != '/' && cwd) {
		put(out, len, &k, cwd);
		put(out, len, &k, "/");
	}
	bool has_pid = false;
	char num[32];
	for (const char *p = pattern; *p; p++) {
		if (*p != '%') {
			char c[2] = { *p, 0 };
			/* glob metacharacters in the pattern itself are literal */
			if (strchr("*?[\\", *p))
				put(out, len, &k, "\\");
			put(out, len, &k, c);
			continue;
		}
		p++;
		switch (*p) {
		case 'p': case 'P': case 'i': case 'I':
			snprintf(num, sizeof(num), "%d", (int)pid);
			put(out, len, &k, num);
			has_pid = true;
			break;
		case 'e':
			put(out, len, &k, comm);
			break;
		case 's':
			snprintf(num, sizeof(num), "%d", sig);
			put(out, len, &k, num);
			break;
		case 'u':
			snprintf(num, sizeof(num), "%u", (unsigned)uid);
			put(out, len, &k, num);
			break;
		case 'g':
			snprintf(num, sizeof(num), "%u", (unsigned)gid);
			put(out, len, &k, num);
			break;
		case 'h':
			put(out, len, &k, host);
			break;
		case '%':
			put(out, len, &k, "%");
			break;
		case '\0':
			p--;
			break;
		default:
			put(out, len, &k, "*");
			break;
		}
	}
	if (uses_pid && !has_pid) {
		snprintf(num, sizeof(num), ".%d", (int)pid);
		put(out, len, &k, num);
	}
	return 0;
}

int core_find(const char *cwd, pid_t pid, const char *comm, int sig, time_t since,
	      char *path, size_t len, char *why, size_t whylen)
{
	char pattern[512];
	bool uses_pid;
	if (core_pattern_read(pattern, sizeof(pattern), &uses_pid) < 0) {
		snprintf(why, whylen, "cannot read /proc/sys/kernel/core_pattern");
		return -ENOENT;
	}
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	char g[1024];
	if (core_expand(pattern, uses_pid, cwd, pid, comm, sig, getuid(), getgid(), host, g, sizeof(g)) < 0) {
		snprintf(why, whylen, "kernel.core_pattern pipes cores to '%.200s'; jostle cannot collect "
			 "them (get them from that program, e.g. coredumpctl, or set kernel.core_pattern=core)",
			 pattern + 1);
		return -ENOTSUP;
	}
	glob_t gl;
	int rc = glob(g, GLOB_NOSORT, NULL, &gl);
	if (rc) {
		snprintf(why, whylen, "no core at '%.400s' (kernel.core_pattern '%.200s')", g, pattern);
		if (!uses_pid && !strstr(pattern, "%p") && !strstr(pattern, "%P"))
			snprintf(why + strlen(why), whylen - strlen(why), "; the core's name holds no pid, so "
				 "with concurrent runs in one directory another run's crash may have replaced or "
				 "taken it (kernel.core_uses_pid=1 avoids that)");
		return -ENOENT;
	}
	const char *best = NULL;
	time_t best_t = 0;
	for (size_t i = 0; i < gl.gl_pathc; i++) {
		struct stat st;
		if (stat(gl.gl_pathv[i], &st) || !S_ISREG(st.st_mode) || st.st_mtime < since)
			continue;
		if (!best || st.st_mtime > best_t) {
			best = gl.gl_pathv[i];
			best_t = st.st_mtime;
		}
	}
	if (best)
		snprintf(path, len, "%s", best);
	else
		snprintf(why, whylen, "no core newer than the run at '%.400s'", g);
	if (!best && !uses_pid && !strstr(pattern, "%p") && !strstr(pattern, "%P"))
		snprintf(why + strlen(why), whylen - strlen(why), "; the core's name holds no pid, so with "
			 "concurrent runs in one directory another run's crash may have replaced or taken it "
			 "(kernel.core_uses_pid=1 avoids that)");
	globfree(&gl);
	return best ? 0 : -ENOENT;
}
