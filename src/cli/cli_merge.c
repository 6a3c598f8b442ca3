/*
 * cli_merge.c: `jostle merge DIR... -o OUT`: results from many machines
 * into one directory, then its summary and reports.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "results/merge.h"
#include "results/report.h"
#include "results/results.h"
#include "results/shards.h"
#include "util/banned.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: jostle merge DIR... -o OUT\n\n"
		   "Merge results directories (shards, machines, days) into OUT: every series\n"
		   "and run of each DIR/runs.jsonl, the logs and stacks they reference renamed so\n"
		   "they cannot collide, then OUT/summary.json, report.md and report.html.\n"
		   "OUT must not exist or be empty.\n\n"
		   "Shards of one series (jostle run --shard K/N) must share the command, the\n"
		   "master seed, N and the settings (other than -n, --time, --until, -j); a\n"
		   "shard given twice is refused. Missing shards, a DIR without runs.jsonl and\n"
		   "shards that were killed or interrupted are reported, and the statistics are\n"
		   "those of the runs that are there: exactly those of one series of them.\n\n"
		   "  -o, --output OUT   the merged results directory (required)\n"
		   "  -h, --help         this help\n");
}

int cmd_merge(int argc, char **argv)
{
	const char *dirs[1024], *out = NULL;
	size_t n = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (i + 1 >= argc)
				return cli_usage_error("merge", "'%s' needs a directory", a);
			out = argv[++i];
		} else if (!strncmp(a, "--output=", 9)) {
			out = a + 9;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage_error("merge", "unknown option '%s' for merge", a);
		} else if (n < sizeof(dirs) / sizeof(dirs[0])) {
			dirs[n++] = a;
		} else {
			return cli_usage_error(NULL, "too many directories for merge (at most 1024)");
		}
	}
	if (!out)
		return cli_usage_error("merge", "merge needs -o OUT, the directory to create");
	if (!n)
		return cli_usage_error(NULL, "merge needs at least one results directory");
	struct merge_stats st;
	char err[4096] = "";
	int e = merge_dirs(dirs, n, out, &st, err, sizeof(err));
	if (e == -EINVAL) {
		fprintf(stderr, "jostle: merge: %s\n", err);
		return EXIT_USAGE;
	}
	if (e < 0) {
		fprintf(stderr, "jostle: merge: '%s': %s%s\n", err, strerror(-e),
			e == -ENOTEMPTY ? " (OUT must not exist or be empty)" : "");
		return EXIT_USAGE;
	}
	struct results r;
	results_init(&r);
	e = results_load_dir(&r, out);
	if (!e) {
		results_finish(&r);
		e = report_write_results(&r, out, true);
	}
	if (e < 0)
		fprintf(stderr, "jostle: merge: cannot write the reports in '%s': %s\n", out, strerror(-e));
	printf("merged %zu directories into %s: %" PRIu64 " series, %" PRIu64 " runs, %" PRIu64
	       " files copied", n, out, st.series, st.runs, st.files);
	if (st.bad_lines)
		printf(", %" PRIu64 " unreadable lines dropped", st.bad_lines);
	if (st.cut_lines)
		printf(" (%" PRIu64 " cut short at the end of an input)", st.cut_lines);
	if (st.missing_files)
		printf(", %" PRIu64 " referenced files missing", st.missing_files);
	if (st.skipped)
		printf(", %" PRIu64 " without runs.jsonl skipped", st.skipped);
	printf("\n");
	struct dbuf sh;
	dbuf_init(&sh, 1 << 20);
	shards_line(&sh, &r);
	if (sh.len)
		printf("shards: %s\n", dbuf_str(&sh));
	dbuf_release(&sh);
	results_release(&r);
	if (st.dup_series)
		fprintf(stderr, "jostle: warning: %" PRIu64 " series appear in more than one input; "
				"their runs are counted more than once\n", st.dup_series);
	return e < 0 ? EXIT_INTERNAL : EXIT_OK;
}
