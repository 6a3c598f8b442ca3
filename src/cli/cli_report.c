/*
 * cli_report.c: `jostle report DIR... [--format F] [-o FILE]`: read the
 * runs.jsonl of one or more results directories and write one report.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "results/report.h"
#include "results/results.h"
#include "util/banned.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: jostle report DIR... [--format FORMAT] [-o FILE]\n\n"
		   "Summarize the runs recorded in DIR/runs.jsonl (several DIRs are read as one\n"
		   "series set). Everything is computed from runs.jsonl alone.\n\n"
		   "  -f, --format FORMAT   one of:\n");
	for (size_t i = 0; i < report_formats_nr; i++)
		fprintf(f, "                          %-6s %s\n", report_formats[i].name,
			report_formats[i].what);
	fprintf(f, "                        default: text, or from the extension of -o FILE\n"
		   "                        (.md, .html, .xml, .json)\n"
		   "  -o, --output FILE     write to FILE instead of standard output\n"
		   "  -h, --help            this help\n");
}

static const char *format_from_ext(const char *path)
{
	const char *dot = strrchr(path, '.');
	if (!dot)
		return NULL;
	if (!strcmp(dot, ".md"))
		return "md";
	if (!strcmp(dot, ".html") || !strcmp(dot, ".htm"))
		return "html";
	if (!strcmp(dot, ".xml"))
		return "junit";
	if (!strcmp(dot, ".json"))
		return "json";
	if (!strcmp(dot, ".txt"))
		return "text";
	return NULL;
}

int cmd_report(int argc, char **argv)
{
	const char *format = NULL, *output = NULL;
	const char *dirs[256];
	size_t ndirs = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "-f") || !strcmp(a, "--format") || !strcmp(a, "-o") ||
			   !strcmp(a, "--output")) {
			if (i + 1 >= argc)
				return cli_usage_error("report", "'%s' needs a value", a);
			if (a[1] == 'f' || a[2] == 'f')
				format = argv[++i];
			else
				output = argv[++i];
		} else if (!strncmp(a, "--format=", 9)) {
			format = a + 9;
		} else if (!strncmp(a, "--output=", 9)) {
			output = a + 9;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage_error("report", "unknown option '%s' for report", a);
		} else if (ndirs < sizeof(dirs) / sizeof(dirs[0])) {
			dirs[ndirs++] = a;
		} else {
			return cli_usage_error(NULL, "too many directories for report (at most 256)");
		}
	}
	if (!ndirs)
		return cli_usage_error("report", "report needs a results directory");
	if (!format)
		format = output && format_from_ext(output) ? format_from_ext(output) : "text";
	const struct report_format *fmt = report_format_find(format);
	if (!fmt)
		return cli_usage_error(NULL, "--format '%s' is not a report format; expected text, "
				       "md, html, junit or json", format);
	struct results r;
	results_init(&r);
	for (size_t i = 0; i < ndirs; i++) {
		char why[PATH_MAX + 200];
		int err = results_load_dir_checked(&r, dirs[i], why, sizeof(why));
		if (err < 0 && err != -EBADMSG)
			fprintf(stderr, "jostle: cannot read '%s/runs.jsonl': %s\n", dirs[i], strerror(-err));
		else if (why[0])
			fprintf(stderr, "jostle: report: %s\n", why);
		if (err < 0) {
			results_release(&r);
			return EXIT_USAGE;
		}
	}
	results_finish(&r);
	int rc = EXIT_OK;
	if (output) {
		int err = report_write_file(&r, fmt, output);
		if (err < 0) {
			fprintf(stderr, "jostle: cannot write '%s': %s\n", output, strerror(-err));
			rc = EXIT_INTERNAL;
		}
	} else {
		struct dbuf b;
		dbuf_init(&b, REPORT_CAP);
		fmt->write(&b, &r);
		if (fwrite(dbuf_str(&b), 1, b.len, stdout) != b.len || fflush(stdout) != 0) {
			fprintf(stderr, "jostle: cannot write the report: %s\n", strerror(errno));
			rc = EXIT_INTERNAL;
		}
		dbuf_release(&b);
	}
	results_release(&r);
	return rc;
}
