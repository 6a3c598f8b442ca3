/*
 * stack_gdb.c: the gdb stack backend, for when libdw cannot unwind (no
 * CFI, an exotic loader, a libdw too old for the binary).
 *
 * Runs `gdb -p PID -batch -nx -ex 'thread apply all bt'` (spawn.h) with
 * stdin from /dev/null, reads its output into a capped buffer under a deadline (gdb
 * that hangs is killed), and parses the text with stack_gdb_parse(), a
 * pure function tested on a recorded transcript.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diagnose/stack.h"
#include "util/dbuf.h"
#include "util/spawn.h"
#include "util/banned.h"

#define GDB_TIMEOUT_MS 20000
#define GDB_OUTPUT_CAP (4u << 20)

/* "#3  0x000055e1 in ns::f (this=0x1) at /tmp/t.c:6" -> frame. */
static void parse_frame(const char *text, struct stack_thread *t)
{
	char line[2048];
	size_t ll = strcspn(text, "\n");
	if (ll >= sizeof(line))
		ll = sizeof(line) - 1;
	memcpy(line, text, ll);
	line[ll] = '\0';
	const char *p = line + 1;
	while (*p >= '0' && *p <= '9')
		p++;
	while (*p == ' ')
		p++;
	uint64_t pc = 0;
	if (!strncmp(p, "0x", 2)) {
		pc = strtoull(p, NULL, 16);
		const char *in = strstr(p, " in ");
		if (!in)
			return;
		p = in + 4;
	}
	if (*p == '<')  /* <signal handler called> */
		return;
	const char *end = strstr(p, " (");
	size_t n = end ? (size_t)(end - p) : strcspn(p, " \n");
	char fn[512];
	if (n >= sizeof(fn))
		n = sizeof(fn) - 1;
	memcpy(fn, p, n);
	fn[n] = '\0';
	char module[512] = "";
	const char *from = strstr(p + n, " from ");
	const char *at = strstr(p + n, " at ");
	const char *m = from ? from + 6 : at ? at + 4 : NULL;
	if (m) {
		size_t ml = strcspn(m, from ? " \n" : ": \n");
		if (ml >= sizeof(module))
			ml = sizeof(module) - 1;
		memcpy(module, m, ml);
		module[ml] = '\0';
	}
	stack_thread_push(t, fn, module, pc);
}

int stack_gdb_parse(const char *text, pid_t pid, struct stack_set *out)
{
	int threads = 0;
	struct stack_thread *cur = NULL;
	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n');
		if (!strncmp(line, "Thread ", 7)) {
			/* Thread 2 (Thread 0x7f (LWP 7875) "t"):  or  Thread 1 (process 7873 "t"): */
			const char *lwp = strstr(line, "(LWP ");
			const char *proc = strstr(line, "(process ");
			long tid = lwp ? strtol(lwp + 5, NULL, 10) : proc ? strtol(proc + 9, NULL, 10) : 0;
			if (tid > 0) {
				cur = stack_set_add(out, pid, (pid_t)tid);
				threads++;
			} else {
				cur = NULL;
			}
		} else if (line[0] == '#' && cur) {
			parse_frame(line, cur);
		} else if (line[0] == '\n' || line[0] == '\0') {
			cur = NULL;
		}
		line = eol ? eol + 1 : NULL;
	}
	return threads;
}

static const char *gdb_path(void)
{
	static const char *const paths[] = { "/usr/bin/gdb", "/usr/local/bin/gdb", "/bin/gdb", NULL };
	for (const char *const *p = paths; *p; p++)
		if (!access(*p, X_OK))
			return *p;
	return NULL;
}

static const char *gdb_unavailable(void)
{
	return gdb_path() ? NULL : "gdb is not installed (apt-get install gdb)";
}

static int gdb_capture(pid_t pid, struct stack_set *out, char *err, size_t errlen)
{
	char pidarg[16];
	snprintf(pidarg, sizeof(pidarg), "%d", (int)pid);
	const char *argv[] = { gdb_path(), "-p", pidarg, "-batch", "-nx", "-q",
			       "-ex", "set pagination off", "-ex", "set width 0",
			       "-ex", "thread apply all bt", NULL };
	struct dbuf b;
	dbuf_init(&b, GDB_OUTPUT_CAP);
	int status = 0;
	int rc = spawn_capture((char *const *)argv, &b, GDB_TIMEOUT_MS, &status);
	if (rc < 0 && rc != -ETIMEDOUT) {
		dbuf_release(&b);
		snprintf(err, errlen, "starting gdb: %s", strerror(-rc));
		return rc;
	}
	bool timed_out = rc == -ETIMEDOUT;
	int threads = stack_gdb_parse(dbuf_str(&b), pid, out);
	dbuf_release(&b);
	if (threads > 0)
		return threads;
	if (timed_out)
		snprintf(err, errlen, "gdb did not finish within %d ms", GDB_TIMEOUT_MS);
	else
		snprintf(err, errlen, "gdb printed no stacks (exit status %d)",
			 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return timed_out ? -ETIMEDOUT : -EIO;
}

const struct stack_backend stack_backend_gdb = {
	.name = "gdb",
	.unavailable = gdb_unavailable,
	.capture = gdb_capture,
};
