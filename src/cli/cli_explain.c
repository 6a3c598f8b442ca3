/*
 * cli_explain.c: `jostle explain LOG`: the crash evidence in a saved log
 * (a run's DIR/logs/RUN.log, a CI job log): the finer kind, the key line,
 * the program frames, the stacks of the report (crash.h), and the
 * signature id that `jostle run` and `jostle survey` give the same output.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "signature/crash.h"
#include "signature/signature.h"
#include "util/dbuf.h"
#include "util/fileio.h"
#include "util/jsonw.h"
#include "util/banned.h"

#define EXPLAIN_MAX_INPUT (256u << 20)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: jostle explain LOG [--format text|json]\n\n"
		"Find the crash report in LOG ('-' for stdin): AddressSanitizer, LeakSanitizer,\n"
		"ThreadSanitizer, UBSan, glibc malloc aborts and failed assertions, Python's\n"
		"'Fatal Python error' with every thread's traceback, NVIDIA compute-sanitizer.\n"
		"Prints the kind, the key line, the program's top frames and the signature id.\n\n"
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
