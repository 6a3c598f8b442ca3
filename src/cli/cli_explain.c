/*
 * cli_explain.c: `jostle explain LOG`: the crash evidence in a saved log
 * (a run's DIR/logs/RUN.log, a CI job log): the finer kind, the key line,
 * the program frames, the stacks of the report (crash.h), and the
 * signature id that `jostle run` and `jostle survey` give the same output.
 * A crash handler's record (DIR/crashes/RUN.PID.txt, crashlog.h) is
 * unwound and symbolized instead, as `jostle run` does, with the signature
 * a run gets from it when its output names nothing.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "diagnose/crashlog.h"
#include "results/results.h"
#include "signature/evidence.h"
#include "signature/crash.h"
#include "signature/frame.h"
#include "signature/signature.h"
#include "util/dbuf.h"
#include "util/fileio.h"
#include "util/jsonw.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define EXPLAIN_MAX_INPUT (256u << 20)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: jostle explain LOG [--format text|json]\n\n"
		"Find the crash report in LOG ('-' for stdin): AddressSanitizer, LeakSanitizer,\n"
		"ThreadSanitizer, UBSan, glibc malloc aborts and failed assertions, Python's\n"
		"'Fatal Python error' with every thread's traceback, NVIDIA compute-sanitizer.\n"
		"Prints the kind, the key line, the program's top frames and the signature id.\n"
		"LOG may also be a crash record of jostle's crash handler (DIR/crashes/RUN.PID.txt):\n"
		"its crashing thread is unwound and named, with the signature a run gets from it.\n\n"
		"  --format FMT   text (default) or json\n\n"
		"Exit status: 0 when a report was found, 1 when none, 2 on bad usage.\n");
}

static int read_all(const char *path, struct dbuf *b)
{
	if (!strcmp(path, "-"))
		return fileio_read_fd(0, b);   /* past the cap: the head is enough to find a report */
	return fileio_read_file(path, b);
}

static void write_json(const struct crash_report *r, const struct signature *sig, struct dbuf *o)
{
	dbuf_addc(o, '{');
	jsonw_kstr(o, "sig_id", sig->id);
	dbuf_addc(o, ',');
	jsonw_kstr(o, "sig_kind", sig->kind);
	dbuf_addc(o, ',');
	jsonw_kstr(o, "sig_key", sig->key);
	dbuf_addc(o, ',');
	jsonw_kstrs(o, "sig_frames", sig->frames, sig->nframes);
	dbuf_addc(o, ',');
	jsonw_key(o, "crash");
	crash_write_json(r, o);
	dbuf_adds(o, "}\n");
}

/* The program the run of a record at PATH (DIR/crashes/RUN.PID.txt) ran:
 * the basename of its series' argv[0] in DIR/runs.jsonl, into out; ""
 * when the record is not in a run's folder. */
static void record_program(const char *path, char *out, size_t len)
{
	out[0] = '\0';
	char *dir = realpath(path, NULL);
	for (int up = 0; dir && up < 2; up++) {   /* DIR/crashes/RUN.PID.txt -> DIR */
		char *slash = strrchr(dir, '/');
		if (slash)
			*(slash == dir ? slash + 1 : slash) = '\0';
	}
	struct results res;
	results_init(&res);
	if (dir && results_load_dir(&res, dir) == 0 && res.series_nr && res.series[0].argv.nr)
		snprintf(out, len, "%s", frame_basename(res.series[0].argv.v[0]));
	results_release(&res);
	free(dir);
}

/* A crash handler's record: its stack, and the signature `jostle run`
 * gives a crash whose output names nothing but that record (scoped to the
 * program of the run whose folder holds it, signature_scope). */
static int explain_record(const char *path, const char *format)
{
	struct crashlog c = CRASHLOG_INIT;
	struct evidence ev;
	struct dbuf text, out;
	char why[512] = "";
	memset(&ev, 0, sizeof(ev));
	dbuf_init(&text, 1u << 24);
	dbuf_init(&out, 1u << 24);
	int rc = crashlog_explain(NULL, path, "crash", 0, &c, &text, &ev, why, sizeof(why));
	if (rc < 0) {
		fprintf(stderr, "jostle: %s\n", why);
		crashlog_release(&c);
		dbuf_release(&text);
		dbuf_release(&out);
		return EXIT_FAILURES;
	}
	struct signature sig;
	memset(&sig, 0, sizeof(sig));
	snprintf(sig.kind, sizeof(sig.kind), "crash");
	const char *abbrev = c.signo ? sigabbrev_np(c.signo) : NULL;
	char what[64];
	snprintf(what, sizeof(what), "killed by %s", abbrev ? abbrev : "signal");
	sig.key_line = xstrdup(what);
	sig.key = xstrdup(what);
	evidence_apply(&ev, &sig, ev.kind[0] != '\0');
	char program[256];
	record_program(path, program, sizeof(program));
	signature_scope(&sig, program);
	char cut[256];
	bool truncated = crashlog_truncation(&c, cut, sizeof(cut));
	if (!strcmp(format, "json")) {
		dbuf_addc(&out, '{');
		jsonw_kstr(&out, "sig_id", sig.id);
		dbuf_addc(&out, ',');
		jsonw_kstr(&out, "sig_kind", sig.kind);
		dbuf_addc(&out, ',');
		jsonw_kstr(&out, "sig_key", sig.key);
		dbuf_addc(&out, ',');
		jsonw_kstrs(&out, "sig_frames", sig.frames, sig.nframes);
		dbuf_addc(&out, ',');
		jsonw_kstr(&out, "sig_scope", sig.scope[0] ? sig.scope : NULL);
		dbuf_adds(&out, ",\"record\":{");
		jsonw_kstr(&out, "signal", c.signame);
		dbuf_addf(&out, ",\"pid\":%d,\"tid\":%d,\"complete\":%s,", (int)c.pid, (int)c.tid,
			  truncated ? "false" : "true");
		jsonw_kstr(&out, "stack", dbuf_str(&text));
		dbuf_adds(&out, "}}\n");
	} else {
		dbuf_add(&out, dbuf_str(&text), text.len);
		dbuf_addf(&out, "signature: %s (kind %s, key '%s'%s%s; as jostle run records this crash when "
			  "its output names nothing)\n", sig.id, sig.kind, sig.key,
			  sig.scope[0] ? ", program " : "", sig.scope);
	}
	fwrite(out.buf ? out.buf : "", 1, out.len, stdout);
	signature_release(&sig);
	crashlog_release(&c);
	dbuf_release(&text);
	dbuf_release(&out);
	return EXIT_OK;
}

static bool is_record(const char *path)
{
	char head[16] = "";
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		return false;
	ssize_t n = read(fd, head, sizeof(head) - 1);
	close(fd);
	return n >= 13 && !memcmp(head, "jostle-crash ", 13);
}

int cmd_explain(int argc, char **argv)
{
	const char *path = NULL, *format = "text";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--format")) {
			if (i + 1 >= argc || (strcmp(argv[i + 1], "text") && strcmp(argv[i + 1], "json")))
				return cli_usage_error(NULL, "'--format' expects 'text' or 'json'");
			format = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_usage_error("explain", "unknown option '%s'", argv[i]);
		} else if (!path) {
			path = argv[i];
		} else {
			return cli_usage_error(NULL, "unexpected argument '%s'; one LOG only", argv[i]);
		}
	}
	if (!path) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (is_record(path))
		return explain_record(path, format);
	struct dbuf text;
	dbuf_init(&text, EXPLAIN_MAX_INPUT);
	int rc = read_all(path, &text);
	if (rc < 0) {
		fprintf(stderr, "jostle: cannot read '%s': %s\n", path, strerror(-rc));
		dbuf_release(&text);
		return EXIT_USAGE;
	}
	static struct crash_report r;
	bool found = crash_parse(dbuf_str(&text), text.len, &r);
	struct signature sig;
	/* The id `jostle run` and `jostle survey` give this output. */
	signature_from_output(&sig, "crash", dbuf_str(&text), text.len, NULL);
	dbuf_release(&text);
	struct dbuf out;
	dbuf_init(&out, 1u << 24);
	if (!strcmp(format, "json")) {
		write_json(&r, &sig, &out);
	} else {
		crash_write_text(&r, &out);
		if (found)
			dbuf_addf(&out, "signature: %s (kind %s, as jostle run and jostle survey record it)\n",
				  sig.id, sig.kind);
	}
	fwrite(out.buf ? out.buf : "", 1, out.len, stdout);
	dbuf_release(&out);
	signature_release(&sig);
	return found ? EXIT_OK : EXIT_FAILURES;
}
