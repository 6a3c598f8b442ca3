/*
 * report.c: the table of report formats, writing reports to files, and
 * the phrases and numbers every format shares (see report.h), so that the
 * Markdown, HTML, JUnit and JSON documents state the same facts the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>

#include "results/report.h"
#include "results/stats.h"
#include "util/escape.h"
#include "util/fileio.h"
#include "util/path.h"
#include "util/xalloc.h"
#include "util/banned.h"

const struct report_format report_formats[] = {
	{ .name = "text", .file = "report.txt", .what = "plain text for a terminal", .write = report_text },
	{ .name = "md", .file = "report.md", .what = "GitHub Markdown to paste into an issue", .write = report_md },
	{ .name = "html", .file = "report.html", .what = "one self-contained page with charts", .write = report_html },
	{ .name = "junit", .file = "report.xml", .what = "JUnit XML for CI test reporters", .write = report_junit },
	{ .name = "json", .file = "summary.json", .what = "the summary.json document (docs/FORMAT.md)", .write = report_json },
};
const size_t report_formats_nr = sizeof(report_formats) / sizeof(report_formats[0]);

const struct report_format *report_format_find(const char *name)
{
	for (size_t i = 0; i < report_formats_nr; i++)
		if (!strcmp(report_formats[i].name, name))
			return &report_formats[i];
	return NULL;
}

int report_write_file(const struct results *r, const struct report_format *fmt, const char *path)
{
	struct dbuf b;
	dbuf_init(&b, REPORT_CAP);
	int err = fmt->write(&b, r);
	if (err < 0) {
		dbuf_release(&b);
		return err;
	}
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	err = fileio_write_all(fd, dbuf_str(&b), b.len);
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
out:
	free(tmp);
	dbuf_release(&b);
	return err;
}

int report_write_results(const struct results *r, const char *dir, bool md_html)
{
	static const char *const which[] = { "json", "md", "html" };
	int err = 0;
	for (size_t i = 0; i < (md_html ? sizeof(which) / sizeof(which[0]) : 1); i++) {
		const struct report_format *f = report_format_find(which[i]);
		char *path = path_join(dir, f->file);
		int e = report_write_file(r, f, path);
		if (e < 0 && !err)
			err = e;
		free(path);
	}
	return err;
}

int report_write_dir(const char *dir, bool md_html)
{
	struct results r;
	results_init(&r);
	int err = results_load_dir(&r, dir);
	if (!err) {
		results_finish(&r);
		err = report_write_results(&r, dir, md_html);
	}
	results_release(&r);
	return err;
}

void report_pct(char *buf, size_t len, double p)
{
	double pc = p * 100.0;
	if (!(p > 0.0))
		snprintf(buf, len, "0%%");
	else if (p >= 1.0)
		snprintf(buf, len, "100%%");
	else if (pc >= 99.95)
		snprintf(buf, len, "%.2f%%", pc);
	else if (pc >= 1.0)
		snprintf(buf, len, "%.1f%%", pc);
	else if (pc >= 0.1)
		snprintf(buf, len, "%.2f%%", pc);
	else
		snprintf(buf, len, "%.2g%%", pc);
}

void report_bound(char *buf, size_t len, double p)
{
	double pc = p * 100.0;
	if (!(p > 0.0) || !(p < 1.0)) {
		report_pct(buf, len, p);
		return;
	}
	/* three significant digits, rounded up: a bound printed lower than
	 * it is would claim more than the runs prove */
	int dec = 2 - (int)floor(log10(pc));
	dec = dec < 0 ? 0 : dec > 12 ? 12 : dec;
	double scale = pow(10.0, dec);
	double up = ceil(pc * scale * (1.0 - 1e-12)) / scale;
	if (up >= 100.0)
		snprintf(buf, len, "100%%");
	else
		snprintf(buf, len, "%.*f%%", dec, up);
}

void report_pval(char *buf, size_t len, double p)
{
	if (p < 1e-300)
		snprintf(buf, len, "p < 1e-300");
	else if (p < 0.001)
		snprintf(buf, len, "p = %.0e", p);
	else if (p >= 0.9995)
		snprintf(buf, len, "p = 1");
	else
		snprintf(buf, len, "p = %.2g", p);
}

void report_rate(char *buf, size_t len, uint64_t k, uint64_t n)
{
	double lo, hi;
	char a[32], b[32], c[32];
	stats_wilson(k, n, STATS_Z95, &lo, &hi);
	report_pct(a, sizeof(a), n ? (double)k / (double)n : 0.0);
	report_pct(b, sizeof(b), lo);
	report_pct(c, sizeof(c), hi);
	snprintf(buf, len, "%s (95%% CI %s\xe2\x80\x93%s)", a, b, c);
}

void report_proof(char *buf, size_t len, uint64_t k, uint64_t n)
{
	char a[32], rate[96];
	if (n == 0) {
		snprintf(buf, len, "no runs recorded");
	} else if (k == 0) {
		report_bound(a, sizeof(a), stats_cp_upper0(n, REPORT_ALPHA));
		snprintf(buf, len, "0 of %" PRIu64 " runs failed: failure rate < %s with 95%% confidence",
			 n, a);
	} else {
		report_rate(rate, sizeof(rate), k, n);
		snprintf(buf, len, "%" PRIu64 " of %" PRIu64 " runs failed: failure rate %s", k, n, rate);
	}
}

void report_proof_totals(char *buf, size_t len, const struct results_totals *t)
{
	if (t->counted || (!t->skip && !t->slow && !t->cut)) {
		report_proof(buf, len, t->failures, t->counted);
		return;
	}
	if (t->skip && !t->slow && !t->cut) {
		snprintf(buf, len, "not tested: all %" PRIu64 " runs skipped themselves (exit status 77)",
			 t->skip);
		return;
	}
	int n = snprintf(buf, len, "not tested: no run passed or failed (");
	const uint64_t v[] = { t->slow, t->cut, t->skip };
	static const char *const what[] = {
		("slow: " REPORT_SLOW_WHY), "cut: still running when the series ended",
		"skipped: exit status 77" };
	for (size_t i = 0, k = 0; i < 3; i++)
		if (v[i] && n >= 0 && (size_t)n < len)
			n += snprintf(buf + n, len - (size_t)n, "%s%" PRIu64 " %s", k++ ? "; " : "", v[i],
				      what[i]);
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ")");
}

void report_command(struct dbuf *b, const struct results_series *s)
{
	for (size_t i = 0; i < s->argv.nr; i++) {
		if (i)
			dbuf_addc(b, ' ');
		escape_shell(b, s->argv.v[i]);
	}
}

void report_machine(struct dbuf *b, const struct results_series *s)
{
	dbuf_adds(b, s->hostname ? s->hostname : "unknown host");
	if (s->cpus >= 0)
		dbuf_addf(b, ", %" PRId64 " CPUs", s->cpus);
	if (s->kernel)
		dbuf_addf(b, ", %s%s", strncmp(s->kernel, "Linux", 5) ? "Linux " : "", s->kernel);
	if (s->loadavg >= 0)
		dbuf_addf(b, ", load %.2f", s->loadavg);
	if (s->mem_mb >= 0)
		dbuf_addf(b, ", %" PRId64 " MB", s->mem_mb);
}

static void add_cut_lines(struct dbuf *out, const char *s, size_t n)
{
	const size_t max_line = 2000;
	while (n) {
		const char *nl = memchr(s, '\n', n);
		size_t len = nl ? (size_t)(nl - s) + 1 : n;
		size_t body = nl ? len - 1 : len;
		if (body > max_line) {
			dbuf_add(out, s, max_line);
			dbuf_addf(out, " [... %zu more bytes on this line]%s", body - max_line,
				  nl ? "\n" : "");
		} else {
			dbuf_add(out, s, len);
		}
		s += len;
		n -= len;
	}
}

bool report_read_log(const struct results *r, const struct results_sig *s, bool stacks,
		     struct dbuf *out, size_t head, size_t tail)
{
	const char *rel = stacks ? s->stacks : s->log;
	char guess[64];
	if (!rel && stacks && s->example_run >= 0) {
		snprintf(guess, sizeof(guess), "stacks/%" PRId64 ".txt", s->example_run);
		rel = guess;
	}
	if (!rel) {
		dbuf_adds(out, stacks ? "(no stacks recorded)" : "(no log recorded)");
		return false;
	}
	char *path = s->dir < r->dirs.nr ? path_join_inside(r->dirs.v[s->dir], rel) : NULL;
	if (!path) {
		dbuf_adds(out, "(log path outside the results directory; not read)");
		return false;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	free(path);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		if (rel != guess)
			dbuf_addf(out, "(%s: cannot be read)", rel);
		else
			dbuf_adds(out, "(no stacks recorded)");
		return false;
	}
	size_t size = (size_t)st.st_size;
	size_t first = size <= head + tail ? size : head;
	char *buf = xmalloc(first + tail + 1);
	ssize_t got = pread(fd, buf, first, 0);
	if (got < 0)
		got = 0;
	add_cut_lines(out, buf, (size_t)got);
	if (size > head + tail) {
		ssize_t t = pread(fd, buf, tail, (off_t)(size - tail));
		if (t < 0)
			t = 0;
		/* start the tail at a line boundary when one is near */
		const char *nl = memchr(buf, '\n', (size_t)t);
		size_t skip = nl && (size_t)(nl - buf) < 4096 ? (size_t)(nl - buf) + 1 : 0;
		dbuf_addf(out, "%s[... %zu bytes omitted ...]\n",
			  out->len && out->buf[out->len - 1] != '\n' ? "\n" : "",
			  size - first - (size_t)t + skip);
		add_cut_lines(out, buf + skip, (size_t)t - skip);
	}
	free(buf);
	close(fd);
	return true;
}

const char *report_diag_line(char *buf, size_t len, const struct results_sig *s)
{
	buf[0] = '\0';
	if (!s->diag)
		return NULL;
	cJSON *d = cJSON_Parse(s->diag);
	if (!cJSON_IsObject(d)) {
		cJSON_Delete(d);
		return NULL;
	}
	/* a crash report parsed from the output (rundiag.c): no hang at all */
	const cJSON *crash = cJSON_GetObjectItemCaseSensitive(d, "crash");
	if (cJSON_IsObject(crash)) {
		const cJSON *kind = cJSON_GetObjectItemCaseSensitive(crash, "kind");
		const cJSON *tool = cJSON_GetObjectItemCaseSensitive(crash, "tool");
		snprintf(buf, len, "%s%s%s%s", cJSON_IsString(kind) && *kind->valuestring ?
			 kind->valuestring : "reported", cJSON_IsString(tool) ? " (report of " : "",
			 cJSON_IsString(tool) ? tool->valuestring : "", cJSON_IsString(tool) ? ")" : "");
		cJSON_Delete(d);
		return "crash";
	}
	static const char *const names[] = { "class", "classification", "hang", "kind", "state" };
	const char *cls = NULL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !cls; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, names[i]);
		if (cJSON_IsString(v))
			cls = v->valuestring;
	}
	size_t off = 0;
	off += (size_t)snprintf(buf, len, "%s", cls ? cls : "diagnosed");
	const cJSON *v;
	const char *sep = ": ";
	cJSON_ArrayForEach(v, d) {
		if (!cJSON_IsNumber(v) || off >= len || !v->string)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s %g", sep, v->string, v->valuedouble);
		sep = ", ";
	}
	cJSON_Delete(d);
	return "hang";
}

void report_cells(const struct results *r, struct report_cell *cells)
{
	report_groups(r->cells, r->cells_nr, cells);
}

void report_groups(const struct results_group *groups, size_t n, struct report_cell *cells)
{
	uint64_t all_runs = 0, all_fails = 0;
	for (size_t i = 0; i < n; i++) {
		all_runs += groups[i].runs;
		all_fails += groups[i].fails;
	}
	double alpha = n ? REPORT_ALPHA / (double)n : REPORT_ALPHA;
	for (size_t i = 0; i < n; i++) {
		const struct results_group *g = &groups[i];
		struct report_cell *c = &cells[i];
		c->g = g;
		stats_wilson(g->fails, g->runs, STATS_Z95, &c->lo, &c->hi);
		uint64_t rest_runs = all_runs - g->runs, rest_fails = all_fails - g->fails;
		c->p = n > 1 ? stats_fisher2(g->fails, g->runs - g->fails, rest_fails,
						       rest_runs - rest_fails) : 1.0;
		/* marked only when it fails more: one bad cell makes every other
		 * cell "differ" from a rest that contains it, which says nothing */
		double rate = g->runs ? (double)g->fails / (double)g->runs : 0.0;
		double rest = rest_runs ? (double)rest_fails / (double)rest_runs : 0.0;
		c->differs = n > 1 && c->p < alpha && rate > rest;
		c->dir = n < 2 || !rest_runs || rate == rest ? 0 : rate > rest ? 1 : -1;
	}
}

void report_vs_rest(char *buf, size_t len, const struct report_cell *c)
{
	char p[48];
	report_pval(p, sizeof(p), c->p);
	snprintf(buf, len, "%s, %s", c->dir > 0 ? "fails more" : c->dir < 0 ? "fails less" :
		 "same rate", p);
}

/* ---- per-test results (--tests) ---- */

/* The lists of report_tests_select: each fills idx (r->tests_nr + 1 long)
 * and returns the count. */
static size_t tests_flaky(const struct results *r, size_t *idx)
{
	size_t n = 0;
	for (size_t i = 0; i < r->tests_nr; i++)
		if (results_test_flaky(&r->tests[r->test_order[i]]))
			idx[n++] = r->test_order[i];
	return n;
}

static size_t tests_always(const struct results *r, size_t *idx)
{
	size_t n = 0;
	for (size_t i = 0; i < r->tests_nr; i++)
		if (results_test_always_fails(&r->tests[r->test_order[i]]))
			idx[n++] = r->test_order[i];
	return n;
}

static const struct results *sd_ctx;

static int by_sd(const void *a, const void *b)
{
	double x = results_test_sd(&sd_ctx->tests[*(const size_t *)a]);
	double y = results_test_sd(&sd_ctx->tests[*(const size_t *)b]);
	if (x != y)
		return x < y ? 1 : -1;
	return strcmp(sd_ctx->tests[*(const size_t *)a].name, sd_ctx->tests[*(const size_t *)b].name);
}

static size_t tests_variance(const struct results *r, size_t *idx, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < r->tests_nr; i++)
		if (results_test_sd(&r->tests[i]) > 0)
			idx[k++] = i;
	sd_ctx = r;
	qsort(idx, k, sizeof(*idx), by_sd);
	sd_ctx = NULL;
	return k < n ? k : n;
}

void report_tests_select(struct report_tests *sel, const struct results *r, size_t nvaries)
{
	sel->flaky = xcalloc(r->tests_nr + 1, sizeof(*sel->flaky));
	sel->always = xcalloc(r->tests_nr + 1, sizeof(*sel->always));
	sel->varies = xcalloc(r->tests_nr + 1, sizeof(*sel->varies));
	sel->nflaky = tests_flaky(r, sel->flaky);
	sel->nalways = tests_always(r, sel->always);
	sel->nvaries = nvaries ? tests_variance(r, sel->varies, nvaries) : 0;
}

void report_tests_release(struct report_tests *sel)
{
	free(sel->flaky);
	free(sel->always);
	free(sel->varies);
	*sel = (struct report_tests){ 0 };
}
