/*
 * fuzz_results.c: runs.jsonl read back (results.c) and everything computed
 * from it: every report format (report*.c), the end-of-series summary
 * (summary.c), compare (compare.c) and merge (merge.c). A runs.jsonl may be
 * cut by a kill -9, filled up by a full disk, or come from another machine
 * or version.
 *
 * The input is DIR/runs.jsonl; compare runs it against itself, and merge
 * copies it into a fresh folder, which is read back and must count the
 * same runs.
 */
#include "fuzz.h"

#include <sys/stat.h>

#include "results/compare.h"
#include "results/merge.h"
#include "results/report.h"
#include "results/results.h"
#include "results/summary.h"

static FILE *devnull;

static void load(struct results *r, const char *dir)
{
	results_init(r);
	results_load_dir(r, dir);
	results_finish(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!devnull)
		devnull = fopen("/dev/null", "we");
	char in[400], out[400];
	snprintf(in, sizeof(in), "%s/in", fuzz_dir());
	snprintf(out, sizeof(out), "%s/out", fuzz_dir());
	mkdir(in, 0755);
	fuzz_file("in/runs.jsonl", data, size);

	struct results r;
	load(&r, in);
	struct dbuf doc;
	dbuf_init(&doc, REPORT_CAP);
	for (size_t i = 0; i < report_formats_nr; i++) {
		dbuf_reset(&doc);
		report_formats[i].write(&doc, &r);
	}
	dbuf_reset(&doc);
	compare_results(&r, &r, &doc);
	dbuf_release(&doc);
	summary_print(&r, devnull, in, 1.0, "count");
	report_print_matrix(devnull, &r);

	/* merge into a fresh folder and read that back */
	const char *dirs[] = { in };
	struct merge_stats st;
	char err[512];
	fuzz_rm_tree(out);
	if (merge_dirs(dirs, 1, out, &st, err, sizeof(err)) == 0) {
		struct results m;
		load(&m, out);
		if (m.totals.records != r.totals.records || m.totals.counted != r.totals.counted)
			abort();   /* merge lost or invented runs */
		results_release(&m);
	}
	results_release(&r);
	return 0;
}
