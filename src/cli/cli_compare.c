/*
 * cli_compare.c: `jostle compare BEFORE_DIR AFTER_DIR`: is AFTER better?
 * Exit 0 when it is significantly better or both are clean, 1 otherwise,
 * so that it can gate a CI job.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "results/compare.h"
#include "results/proof.h"
#include "results/report.h"
#include "results/results.h"
#include "util/banned.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: jostle compare BEFORE_DIR AFTER_DIR\n\n"
		   "Compare the failures recorded before and after a fix, in total and per\n"
		   "signature: counts, rates with 95%% Wilson intervals, a two-sided Fisher exact\n"
		   "test, and one conclusion (fixed / better / clean / worse / not enough runs /\n"
		   "no evidence of change).\n\n"
		   "Exit status: 0 when AFTER is significantly better (p < 0.05) or neither side\n"
		   "failed; 1 otherwise; 2 on bad usage or unreadable results.\n\n"
		   "  -h, --help   this help\n");
}

static int load(struct results *r, const char *dir)
{
	results_init(r);
	char why[PATH_MAX + 200];
	int err = results_load_dir_checked(r, dir, why, sizeof(why));
	if (err < 0 && err != -EBADMSG)
		fprintf(stderr, "jostle: cannot read '%s/runs.jsonl': %s\n", dir, strerror(-err));
	else if (why[0])
		fprintf(stderr, "jostle: compare: %s\n", why);
	if (err < 0) {
		results_release(r);
		return -1;
	}
	results_finish(r);
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	const char *dirs[2];
	int nd = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return EXIT_OK;
		}
		if (argv[i][0] == '-' && argv[i][1])
			return cli_usage_error("compare", "unknown option '%s' for compare", argv[i]);
		if (nd == 2)
			return cli_usage_error(NULL, "compare takes two directories, BEFORE and AFTER; "
					       "'%s' is a third", argv[i]);
		dirs[nd++] = argv[i];
	}
	if (nd != 2)
		return cli_usage_error("compare", "compare needs BEFORE_DIR and AFTER_DIR");
	struct results before, after;
	if (load(&before, dirs[0]) < 0)
		return EXIT_USAGE;
	if (load(&after, dirs[1]) < 0) {
		results_release(&before);
		return EXIT_USAGE;
	}
	struct dbuf out;
	dbuf_init(&out, REPORT_CAP);
	enum compare_verdict v = compare_results(&before, &after, &out);
	proof_reproducer(dirs[0], dirs[1], &before, &after, &out, &v);   /* issue 44 */
	fwrite(dbuf_str(&out), 1, out.len, stdout);
	dbuf_release(&out);
	results_release(&before);
	results_release(&after);
	return compare_verdict_ok(v) ? EXIT_OK : EXIT_FAILURES;
}
