/*
 * cli_stacks.c: `jostle stacks PID`: the hang diagnosis of a live process
 * tree, on demand (the "gdb snapshot of a wedged process" of seed 003, in
 * one command). The same code runs inside `jostle run` on a timeout.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "diagnose/diagnose.h"
#include "util/banned.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: jostle stacks PID [--window MS] [--format text|json] [--no-stacks]\n"
		"                         [--native-only] [--python-abort]\n\n"
		"Diagnose a live process tree without stopping it for long: every process\n"
		"under PID, every thread's state, wait channel and CPU use over a sampling\n"
		"window, a one-line classification (livelock, deadlock, blocked-io, sleeping,\n"
		"stopped, mixed), and every thread's native stack (libdw, gdb as fallback),\n"
		"identical stacks folded with counts. In Python processes (CPython 3.11+)\n"
		"each interpreter frame of the native stack is replaced by the Python\n"
		"frames it runs (function, file, line), read from outside the process.\n\n"
		"  --window MS        sampling window in milliseconds (default 200)\n"
		"  --format FMT       text (default) or json\n"
		"  --no-stacks        skip the stacks (no ptrace, the tree is never stopped)\n"
		"  --native-only      native stacks only: do not read Python frames\n"
		"  --python-abort     afterwards, end the Python processes whose frames could\n"
		"                     not be read and that have faulthandler enabled with\n"
		"                     SIGABRT, so they print every thread's traceback to\n"
		"                     their stderr (this kills them)\n\n"
		"Exit status: 0 when the tree was diagnosed, 1 when PID is gone, 2 on bad usage.\n");
}

static int parse_ms(const char *s, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 60000)
		return -1;
	*out = (int)v;
	return 0;
}

int cmd_stacks(int argc, char **argv)
{
	struct diag_opts o = DIAG_OPTS_INIT;
	const char *format = "text";
	bool python_abort = false;
	long pid = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "--window") || !strcmp(a, "--diag-window")) {
			if (i + 1 >= argc || parse_ms(argv[i + 1], &o.window_ms))
				return cli_usage_error(NULL, "'%s' needs a window in milliseconds, "
						       "1 to 60000", a);
			i++;
		} else if (!strcmp(a, "--format")) {
			if (i + 1 >= argc || (strcmp(argv[i + 1], "text") && strcmp(argv[i + 1], "json")))
				return cli_usage_error(NULL, "'--format' expects 'text' or 'json'");
			format = argv[++i];
		} else if (!strcmp(a, "--no-stacks")) {
			o.stacks = false;
		} else if (!strcmp(a, "--native-only")) {
			o.python = false;
		} else if (!strcmp(a, "--python-abort")) {
			python_abort = true;
		} else if (a[0] == '-') {
			return cli_usage_error("stacks", "unknown option '%s'", a);
		} else if (!pid) {
			char *end;
			errno = 0;
			pid = strtol(a, &end, 10);
			if (errno || end == a || *end || pid <= 1 || pid > INT_MAX)
				return cli_usage_error(NULL, "'%s' is not a process id "
						       "(expected a number > 1)", a);
		} else {
			return cli_usage_error(NULL, "unexpected argument '%s'; one PID only", a);
		}
	}
	if (!pid) {
		usage(stderr);
		return EXIT_USAGE;
	}
	struct diag d;
	int rc = diag_run(&d, (pid_t)pid, &o);
	if (rc == -ESRCH) {
		fprintf(stderr, "jostle: process %ld does not exist\n", pid);
		diag_release(&d);
		return EXIT_FAILURES;
	}
	if (rc < 0) {
		fprintf(stderr, "jostle: cannot diagnose %ld: %s\n", pid, strerror(-rc));
		diag_release(&d);
		return EXIT_INTERNAL;
	}
	struct dbuf out;
	dbuf_init(&out, 64u << 20);
	if (!strcmp(format, "json")) {
		diag_write_json(&d, &out);
		dbuf_addc(&out, '\n');
	} else {
		diag_write_text(&d, &out);
	}
	fwrite(out.buf, 1, out.len, stdout);
	fflush(stdout);
	dbuf_release(&out);
	if (python_abort)
		diag_python_end(&d, 2000, NULL);
	diag_release(&d);
	return EXIT_OK;
}
