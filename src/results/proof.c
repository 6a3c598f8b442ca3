/*
 * proof.c: compare's line about a reproducer (see proof.h). The two
 * reproducer.json files are the copies `jostle run --reproducer` wrote
 * into each results directory: the same condition when their
 * "condition" objects agree once what each build matched is left out.
 */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/proof.h"
#include "results/report.h"
#include "results/stats.h"
#include "util/fileio.h"
#include "util/jsonr.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define ALPHA 0.05

static cJSON *load(const char *dir)
{
	char *path = xasprintf("%s/reproducer.json", dir);
	struct dbuf b;
	cJSON *o = NULL;

	dbuf_init(&b, 16u << 20);
	if (fileio_read_file(path, &b) == 0)
		o = cJSON_Parse(dbuf_str(&b));
	dbuf_release(&b);
	free(path);
	return o;
}

/* The condition without what one build matched: comparable text (owned). */
static char *condition_text(const cJSON *o)
{
	cJSON *c = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(o, "condition"), 1);
	const cJSON *s;

	if (!c)
		return xstrdup("");
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(c, "sites")) {
		static const char *const applied[] = { "matched", "matched_module", "matched_offset", "matched_line" };
		for (size_t i = 0; i < sizeof(applied) / sizeof(applied[0]); i++)
			cJSON_DeleteItemFromObjectCaseSensitive((cJSON *)s, applied[i]);
	}
	char *t = cJSON_PrintUnformatted(c);
	cJSON_Delete(c);
	char *r = xstrdup(t ? t : "");
	free(t);
	return r;
}

/* The sites of AFTER's copy that its build did not have: one line each. */
static size_t missing_sites(const cJSON *after, struct dbuf *out, size_t *nsites)
{
	const cJSON *s;
	size_t missing = 0;

	*nsites = 0;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(after, "condition"), "sites")) {
		(*nsites)++;
		if (jsonr_str(s, "matched"))
			continue;
		missing++;
		const char *file = jsonr_str(s, "file"), *slash = file ? strrchr(file, '/') : NULL;
		const cJSON *line = cJSON_GetObjectItemCaseSensitive(s, "line");
		dbuf_addf(out, "site %s in %s at %s:%d of the reproducer no longer exists in the new build: its "
			  "delay was not applied after the fix\n", jsonr_str(s, "call") ? jsonr_str(s, "call") : "?",
			  jsonr_str(s, "function") ? jsonr_str(s, "function") : "?", slash ? slash + 1 : file ? file : "?",
			  cJSON_IsNumber(line) ? (int)line->valuedouble : 0);
	}
	return missing;
}

void proof_reproducer(const char *before_dir, const char *after_dir, const struct results *before,
		      const struct results *after, struct dbuf *out, enum compare_verdict *v)
{
	cJSON *b = load(before_dir), *a = load(after_dir);
	uint64_t k1 = before->totals.failures, n1 = before->totals.counted;
	uint64_t k2 = after->totals.failures, n2 = after->totals.counted;
	char p[48];

	if (!a && !b)
		return;
	if (!a || !b) {
		dbuf_addf(out, "only %s ran under a reproducer: no proof under it (run both with the same "
			  "--reproducer FILE)\n", b ? "BEFORE" : "AFTER");
		goto done;
	}
	char *tb = condition_text(b), *ta = condition_text(a);
	bool same = !strcmp(tb, ta);
	free(tb);
	free(ta);
	if (!same) {
		dbuf_addf(out, "BEFORE and AFTER ran under different reproducers: no proof under the "
			  "reproducer (run both with the same --reproducer FILE)\n");
		if (compare_verdict_ok(*v))
			*v = COMPARE_NOT_ENOUGH;
		goto done;
	}
	size_t nsites;
	size_t missing = missing_sites(a, out, &nsites);
	double pv = n1 && n2 ? stats_fisher2(k1, n1 - k1, k2, n2 - k2) : 1;
	report_pval(p, sizeof(p), pv);
	bool drop = n1 && n2 && pv < ALPHA && (double)k2 / (double)n2 < (double)k1 / (double)n1;
	if (drop) {
		dbuf_addf(out, "%s under the reproducer: %" PRIu64 "/%" PRIu64 " after vs %" PRIu64 "/%" PRIu64
			  " before (%s)\n", k2 ? "better" : "fixed", k2, n2, k1, n1, p);
	} else if (n1 && n2 && k1 && !k2) {
		uint64_t need = stats_n2_clean_for_fisher(k1, n1, ALPHA);
		dbuf_addf(out, "not proven under the reproducer yet: %" PRIu64 "/%" PRIu64 " after vs %" PRIu64
			  "/%" PRIu64 " before (%s); about %" PRIu64 " more clean runs would prove it\n",
			  k2, n2, k1, n1, p, need > n2 ? need - n2 : 1);
	} else {
		dbuf_addf(out, "not fixed under the reproducer: %" PRIu64 "/%" PRIu64 " after vs %" PRIu64 "/%"
			  PRIu64 " before (%s)\n", k2, n2, k1, n1, p);
	}
	if (missing && missing == nsites) {
		dbuf_addf(out, "none of the reproducer's %zu sites exists in the new build: the runs after did "
			  "not run under its condition, so this is no proof of the fix\n", nsites);
		if (compare_verdict_ok(*v))
			*v = COMPARE_NOT_ENOUGH;
	} else if (missing) {
		dbuf_addf(out, "the proof is weaker: %zu of the reproducer's %zu sites were not delayed after "
			  "the fix (the code around them changed), so the runs after had less of the "
			  "condition than the runs before\n", missing, nsites);
	}
done:
	cJSON_Delete(a);
	cJSON_Delete(b);
}
