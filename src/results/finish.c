/*
 * finish.c: the end of a series of `jostle run` (see finish.h). Every
 * number a person sees at the end comes from runs.jsonl read back, the
 * same aggregation `jostle report` makes later.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "results/finish.h"
#include "results/report.h"
#include "results/results.h"
#include "results/stats.h"
#include "results/summary.h"
#include "util/banned.h"

uint64_t finish_confident_runs(double rate)
{
	return stats_runs_for_confidence(rate, REPORT_ALPHA);
}

void finish_confident_reason(char *buf, size_t len, double rate, uint64_t clean,
			     const char *stopped_because)
{
	uint64_t need = finish_confident_runs(rate);
	char pct[32];
	report_pct(pct, sizeof(pct), rate);
	if (clean >= need)
		snprintf(buf, len, "confident: 0 of %" PRIu64 " failed, failure rate "
			 "< %s with 95%% confidence", clean, pct);
	else
		snprintf(buf, len, "%s before the bound reached %s (%" PRIu64 " of %"
			 PRIu64 " clean runs)", stopped_because, pct, clean, need);
}

int finish_series(const struct finish_req *f)
{
	struct results res;
	results_init(&res);
	int rc = results_load_dir(&res, f->dir);
	bool loaded = rc == 0;
	if (loaded) {
		results_finish(&res);
		if (!f->read_only)
			rc = report_write_results(&res, f->dir, f->reports);
	}
	if (rc < 0 && !f->read_only)   /* read_only: the engine has said why */
		fprintf(stderr, "jostle: cannot write the reports in '%s': %s\n", f->dir, strerror(-rc));
	else if (rc == 0 && f->matrix)
		report_print_matrix(stderr, &res);
	if (loaded && f->summary)
		summary_print(&res, f->summary, f->dir, f->elapsed_s, f->stop_reason);
	results_release(&res);
	return rc;
}
