/*
 * report_html.c: one self-contained HTML page to look at a series.
 *
 * No network, no script, no external style or font: the page carries its
 * style sheet and draws its charts as inline SVG generated here, and a
 * Content-Security-Policy forbids every script and remote load, so even a
 * mistake in escaping could not run anything. All program output passes
 * through escape_html. The page is built from the aggregates in struct
 * results (fixed-size histograms, per-signature and per-cell counters, at
 * most RESULTS_MAX_POINTS failure ticks), so 100,000 runs give the same
 * small page as 100: nothing is emitted per run.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "results/report.h"
#include "results/stats.h"
#include "util/escape.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define HTML_MAX_SIGS 20
#define HTML_LOG_HEAD 16384
#define HTML_LOG_TAIL 16384

static const char *const palette[] = {
	"#d62728", "#1f77b4", "#ff7f0e", "#9467bd", "#2ca02c",
	"#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f",
};
#define PALETTE_NR (sizeof(palette) / sizeof(palette[0]))

static const char css[] =
	":root{--fg:#1d2330;--muted:#5b6475;--line:#d8dde6;--bg:#f6f7f9;--bad:#c62828;--good:#2e7d32}"
	"*{box-sizing:border-box}"
	"body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
	"color:var(--fg);background:var(--bg)}"
	"main{max-width:1100px;margin:0 auto;padding:24px}"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 10px}"
	"code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}"
	"pre{background:#fff;border:1px solid var(--line);border-radius:6px;padding:10px;"
	"overflow:auto;max-height:480px;white-space:pre-wrap;word-break:break-all}"
	".meta{color:var(--muted);margin:2px 0}.meta code{color:var(--fg);word-break:break-all}"
	".cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:12px;margin:18px 0}"
	".card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:12px 14px}"
	".card b{display:block;font-size:22px;white-space:nowrap}.card b.s{font-size:17px;line-height:26px}.card span{color:var(--muted);font-size:12px}"
	".proof{grid-column:1/-1;font-size:16px;font-weight:600;border-left:6px solid var(--bad)}"
	".proof.clean{border-left-color:var(--good)}"
	".panel{background:#fff;border:1px solid var(--line);border-radius:8px;padding:12px;overflow:auto}"
	"svg{display:block;max-width:100%;height:auto}svg text{font:11px system-ui,sans-serif;fill:#5b6475}"
	"table{border-collapse:collapse;width:100%;background:#fff}"
	"th,td{border:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}"
	"th{background:#eef1f5;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"td.heat{text-align:center;min-width:90px}td.differs{outline:3px solid #000;outline-offset:-3px;font-weight:700}"
	"details{background:#fff;border:1px solid var(--line);border-radius:8px;margin:10px 0;padding:8px 12px}"
	"summary{cursor:pointer;font-weight:600}.swatch{display:inline-block;width:10px;height:10px;"
	"border-radius:2px;margin-right:6px}"
	"table.settings{width:auto;margin:6px 0 2px;font-size:12px}table.settings th{background:none;"
	"color:var(--muted);font-weight:400}svg text.axis{fill:#1d2330}"
	"footer{color:var(--muted);font-size:12px;margin:30px 0 10px}";

static void esc(struct dbuf *b, const char *s)
{
	if (s)
		escape_html(b, s, strlen(s));
}

static void esc_cut(struct dbuf *b, const char *s, size_t max)
{
	if (!s)
		return;
	size_t len = strlen(s);
	escape_html(b, s, len > max ? max : len);
	if (len > max)
		dbuf_adds(b, "\xe2\x80\xa6");
}

/* A "nice" step for an axis from 0 to max with about n ticks. */
static double nice_step(double max, int n)
{
	if (!(max > 0))
		return 1;
	double raw = max / n, mag = pow(10, floor(log10(raw)));
	double f = raw / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

static void fmt_num(char *buf, size_t len, double v)
{
	if (fabs(v) >= 1e6)
		snprintf(buf, len, "%.3g", v);
	else
		snprintf(buf, len, "%g", v);
}

static void card(struct dbuf *b, const char *value, const char *label)
{
	dbuf_addf(b, "<div class=\"card\"><b%s>%s</b><span>%s</span></div>",
		  strlen(value) > 9 ? " class=\"s\"" : "", value, label);
}

static void cards(struct dbuf *b, const struct results *r)
{
	const struct results_totals *t = &r->totals;
	char v[96], lo[32], hi[32], proof[256];
	double l, h;
	dbuf_adds(b, "<section class=\"cards\" id=\"cards\">");
	snprintf(v, sizeof(v), "%" PRIu64, t->counted);
	card(b, v, "runs");
	snprintf(v, sizeof(v), "%" PRIu64, t->failures);
	card(b, v, "failed");
	report_pct(v, sizeof(v), t->counted ? (double)t->failures / (double)t->counted : 0);
	stats_wilson(t->failures, t->counted, STATS_Z95, &l, &h);
	report_pct(lo, sizeof(lo), l);
	report_pct(hi, sizeof(hi), h);
	card(b, v, "failure rate");
	snprintf(v, sizeof(v), "%s\xe2\x80\x93%s", lo, hi);
	card(b, v, "95% interval (Wilson)");
	snprintf(v, sizeof(v), "%zu", r->sigs_nr);
	card(b, v, "signatures");
	snprintf(v, sizeof(v), "%" PRIu64 " / %" PRIu64, t->crash, t->hang);
	card(b, v, "crashes / hangs");
	if (t->cut) {
		snprintf(v, sizeof(v), "%" PRIu64, t->cut);
		card(b, v, "cut: still running at the end, not counted");
	}
	if (t->slow) {
		snprintf(v, sizeof(v), "%" PRIu64, t->slow);
		card(b, v, "slow: " REPORT_SLOW_WHY ", not counted");
	}
	if (t->skip) {
		snprintf(v, sizeof(v), "%" PRIu64, t->skip);
		card(b, v, "skipped: exit status 77, not counted");
	}
	snprintf(v, sizeof(v), "%.3g s", t->counted ? t->wall_sum / (double)t->counted : 0);
	card(b, v, "mean run time");
	snprintf(v, sizeof(v), "%.3g s", t->wall_max);
	card(b, v, "longest run");
	report_proof_totals(proof, sizeof(proof), t);
	dbuf_addf(b, "<div class=\"card proof%s\" id=\"proof\">%s</div>",
		  t->counted && !t->failures ? " clean" : "", proof);
	dbuf_adds(b, "</section>\n");
}

/* Failures per bin of a growing histogram, with one tick per failure. */
static void chart_over(struct dbuf *b, const struct results *r, const struct results_hist *h,
		       double xmax, bool time, const size_t *rank)
{
	/* y0 leaves a line above the plot for the axis title, right of the
	 * tick labels, so the two never overlap */
	const double W = 960, H = 204, x0 = 48, x1 = 945, y0 = 24, y1 = 134, sy0 = 144, sy1 = 164;
	if (!(xmax > 0))
		xmax = 1;
	int nb = (int)ceil(xmax / h->width);
	if (nb < 1)
		nb = 1;
	if (nb > RESULTS_BINS)
		nb = RESULTS_BINS;
	double span = nb * h->width;
	uint64_t fpeak = 1;
	for (int i = 0; i < nb; i++)
		if (h->fails[i] > fpeak)
			fpeak = h->fails[i];
	double ystep = fmax(1.0, nice_step((double)fpeak, 4));   /* counts: whole steps */
	double ytop = ceil((double)fpeak / ystep) * ystep;
	dbuf_addf(b, "<svg viewBox=\"0 0 %g %g\" width=\"%g\" role=\"img\" aria-label=\"failures over %s\">",
		  W, H, W, time ? "time" : "run index");
	char num[32];
	for (double y = 0; y <= ytop + 1e-9; y += ystep) {
		double py = y1 - (y1 - y0) * y / ytop;
		fmt_num(num, sizeof(num), y);
		dbuf_addf(b, "<line x1=\"%g\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e7ee\"/>"
			     "<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
			  x0, x1, py, py, x0 - 6, py + 4, num);
	}
	double bw = (x1 - x0) / nb;
	for (int i = 0; i < nb; i++) {
		double px = x0 + i * bw;
		double from = i * h->width, to = (i + 1) * h->width;
		if (h->runs[i] == 0)
			continue;
		double bh = (y1 - y0) * (double)h->fails[i] / ytop;
		dbuf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
			     "<title>%s %g\xe2\x80\x93%g%s: %" PRIu64 " of %" PRIu64 " runs failed</title></rect>",
			  px + 0.5, y1 - bh, bw > 2 ? bw - 1 : bw, h->fails[i] ? fmax(bh, 1.5) : 0.0,
			  h->fails[i] ? "#d62728" : "#ccc", time ? "seconds" : "runs", from,
			  time ? to : to - 1, time ? "" : "", h->fails[i], h->runs[i]);
		/* a faint mark that runs happened in this bin */
		dbuf_addf(b, "<rect x=\"%.1f\" y=\"%g\" width=\"%.1f\" height=\"2\" fill=\"#c9ced8\"/>",
			  px + 0.5, y1 + 1, bw > 2 ? bw - 1 : bw);
	}
	/* the tick strip: each failure where it happened, coloured by signature */
	dbuf_addf(b, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"#f3f5f8\"/>",
		  x0, sy0, x1 - x0, sy1 - sy0);
	for (size_t i = 0; i < r->points_nr; i++) {
		const struct results_point *p = &r->points[i];
		double v = time ? p->t : (double)p->run;
		if (!isfinite(v) || v < 0)
			continue;
		double px = x0 + (x1 - x0) * v / span;
		size_t rk = rank[p->sig];
		dbuf_addf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%g\" y2=\"%g\" stroke=\"%s\" stroke-width=\"1.2\"/>",
			  px, px, sy0, sy1, rk < PALETTE_NR ? palette[rk] : "#333");
	}
	double xstep = nice_step(span, 8);
	if (!time && xstep < 1)
		xstep = 1;   /* run indices are whole numbers */
	for (double x = 0; x <= span + 1e-9; x += xstep) {
		double px = x0 + (x1 - x0) * x / span;
		fmt_num(num, sizeof(num), x);
		dbuf_addf(b, "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%s</text>", px, sy1 + 14, num);
	}
	dbuf_addf(b, "<text class=\"axis\" x=\"%g\" y=\"%g\" text-anchor=\"end\">%s</text>", x1, H - 4,
		  time ? "seconds since the start of the series" : "run index");
	dbuf_addf(b, "<text class=\"axis\" x=\"%g\" y=\"%g\">failed runs</text></svg>", x0, y0 - 12);
	if (r->points_truncated)
		dbuf_addf(b, "<p class=\"meta\">Ticks show the first %d failures.</p>", RESULTS_MAX_POINTS);
}

static void chart_sigs(struct dbuf *b, const struct results *r, size_t n)
{
	const double W = 960, row = 26, x0 = 300, x1 = 900, top = 10;
	double H = top + row * (double)n + 30, xmax = 0;
	uint64_t total = r->totals.counted;
	for (size_t i = 0; i < n; i++) {
		double lo, hi;
		stats_wilson(r->sigs[r->sig_order[i]].count, total, STATS_Z95, &lo, &hi);
		if (hi > xmax)
			xmax = hi;
	}
	double step = nice_step(xmax, 5), xtop = ceil(xmax / step) * step;
	if (!(xtop > 0))
		xtop = 1;
	dbuf_addf(b, "<svg viewBox=\"0 0 %g %g\" width=\"%g\" role=\"img\" aria-label=\"failure rate per signature\">",
		  W, H, W);
	char pct[32], lo_s[32], hi_s[32];
	for (double x = 0; x <= xtop + 1e-12; x += step) {
		double px = x0 + (x1 - x0) * x / xtop;
		report_pct(pct, sizeof(pct), x);
		dbuf_addf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%g\" y2=\"%g\" stroke=\"#e3e7ee\"/>"
			     "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%s</text>",
			  px, px, top, H - 24, px, H - 8, pct);
	}
	for (size_t i = 0; i < n; i++) {
		const struct results_sig *s = &r->sigs[r->sig_order[i]];
		double lo, hi, p = total ? (double)s->count / (double)total : 0;
		stats_wilson(s->count, total, STATS_Z95, &lo, &hi);
		double y = top + row * (double)i, cy = y + row / 2;
		dbuf_addf(b, "<text x=\"%g\" y=\"%.1f\">%s ", 6.0, cy + 4, s->id);
		esc_cut(b, s->kind, 12);
		dbuf_adds(b, " \xc2\xb7 ");
		esc_cut(b, s->key_line ? s->key_line : s->key, 28);
		dbuf_adds(b, "</text>");
		report_pct(pct, sizeof(pct), p);
		report_pct(lo_s, sizeof(lo_s), lo);
		report_pct(hi_s, sizeof(hi_s), hi);
		dbuf_addf(b, "<rect x=\"%g\" y=\"%.1f\" width=\"%.1f\" height=\"%g\" fill=\"%s\" opacity=\"0.85\">"
			     "<title>%s: %" PRIu64 " of %" PRIu64 " runs, %s (95%% CI %s\xe2\x80\x93%s)</title></rect>",
			  x0, y + 5, (x1 - x0) * p / xtop, row - 10, i < PALETTE_NR ? palette[i] : "#333",
			  s->id, s->count, total, pct, lo_s, hi_s);
		double plo = x0 + (x1 - x0) * lo / xtop, phi = x0 + (x1 - x0) * hi / xtop;
		dbuf_addf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#111\" stroke-width=\"1.5\"/>"
			     "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#111\"/>"
			     "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#111\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\">%s</text>",
			  plo, phi, cy, cy, plo, plo, cy - 5, cy + 5, phi, phi, cy - 5, cy + 5,
			  phi + 6, cy + 4, pct);
	}
	dbuf_adds(b, "</svg>");
}

static void chart_durations(struct dbuf *b, const struct results *r)
{
	const double W = 960, H = 204, x0 = 48, x1 = 945, y0 = 24, y1 = 154;
	int first = RESULTS_DUR_BINS, last = -1;
	uint64_t ymax = 1;
	for (int i = 0; i < RESULTS_DUR_BINS; i++) {
		uint64_t n = r->dur_pass[i] + r->dur_fail[i] + r->dur_hang[i];
		if (!n)
			continue;
		if (i < first)
			first = i;
		last = i;
		if (n > ymax)
			ymax = n;
	}
	if (last < 0) {
		dbuf_adds(b, "<p class=\"meta\">No runs.</p>");
		return;
	}
	/* whole decades around the data */
	first = first / 6 * 6;
	last = (last / 6 + 1) * 6 - 1;
	if (last >= RESULTS_DUR_BINS)
		last = RESULTS_DUR_BINS - 1;
	int nb = last - first + 1;
	double bw = (x1 - x0) / nb, ystep = fmax(1.0, nice_step((double)ymax, 4));
	double ytop = ceil((double)ymax / ystep) * ystep;
	char num[32];
	dbuf_addf(b, "<svg viewBox=\"0 0 %g %g\" width=\"%g\" role=\"img\" aria-label=\"run durations\">",
		  W, H, W);
	for (double y = 0; y <= ytop + 1e-9; y += ystep) {
		double py = y1 - (y1 - y0) * y / ytop;
		fmt_num(num, sizeof(num), y);
		dbuf_addf(b, "<line x1=\"%g\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e7ee\"/>"
			     "<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
			  x0, x1, py, py, x0 - 6, py + 4, num);
	}
	for (int i = first; i <= last; i++) {
		double px = x0 + (i - first) * bw, base = y1;
		const uint64_t parts[3] = { r->dur_pass[i], r->dur_fail[i], r->dur_hang[i] };
		static const char *const fill[3] = { "#9aa5b5", "#ff7f0e", "#d62728" };
		static const char *const what[3] = { "passed", "failed or crashed", "hung" };
		for (int k = 0; k < 3; k++) {
			if (!parts[k])
				continue;
			double bh = (y1 - y0) * (double)parts[k] / ytop;
			dbuf_addf(b, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
				     "<title>%.3g\xe2\x80\x93%.3g s: %" PRIu64 " %s</title></rect>",
				  k == 2 ? "hang" : k == 1 ? "fail" : "pass", px + 0.5, base - bh,
				  bw - 1, bh, fill[k], results_dur_edge(i), results_dur_edge(i + 1),
				  parts[k], what[k]);
			base -= bh;
		}
		if (r->dur_hang[i])
			dbuf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" style=\"fill:#d62728;font-weight:700\">hang</text>",
				  px + bw / 2, base - 4);
	}
	for (int i = first; i <= last + 1; i += 6) {
		double px = x0 + (i - first) * bw, e = results_dur_edge(i);
		if (e < 1)
			snprintf(num, sizeof(num), "%g ms", e * 1000);
		else
			snprintf(num, sizeof(num), "%g s", e);
		dbuf_addf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%g\" y2=\"%g\" stroke=\"#888\"/>"
			     "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%s</text>",
			  px, px, y1, y1 + 5, px, y1 + 18, num);
	}
	dbuf_addf(b, "<text class=\"axis\" x=\"%g\" y=\"%g\" text-anchor=\"end\">run wall time (log scale): "
		     "grey passed, orange failed or crashed, red hung</text>"
		     "<text class=\"axis\" x=\"%g\" y=\"%g\">runs</text></svg>", x1, H - 4, x0, y0 - 12);
}

/* Split "A=1,B=x" into its first assignment and the rest. */
static void split_cell(const char *label, struct dbuf *row, struct dbuf *col)
{
	const char *comma = strchr(label, ',');
	if (comma) {
		dbuf_add(row, label, (size_t)(comma - label));
		dbuf_adds(col, comma + 1);
	} else {
		dbuf_adds(row, label);
		dbuf_adds(col, "");
	}
}

static void heat_map(struct dbuf *b, const struct results *r)
{
	struct report_cell *cells = xcalloc(r->cells_nr, sizeof(*cells));
	report_cells(r, cells);
	struct strvec rows = STRVEC_INIT, cols = STRVEC_INIT;
	struct dbuf rb, cb;
	dbuf_init(&rb, 1 << 20);
	dbuf_init(&cb, 1 << 20);
	double rmax = 0;
	for (size_t i = 0; i < r->cells_nr; i++) {
		dbuf_reset(&rb);
		dbuf_reset(&cb);
		split_cell(cells[i].g->key, &rb, &cb);
		size_t j;
		for (j = 0; j < rows.nr && strcmp(rows.v[j], dbuf_str(&rb)); j++)
			;
		if (j == rows.nr)
			strvec_push(&rows, dbuf_str(&rb));
		for (j = 0; j < cols.nr && strcmp(cols.v[j], dbuf_str(&cb)); j++)
			;
		if (j == cols.nr)
			strvec_push(&cols, dbuf_str(&cb));
		double p = cells[i].g->runs ? (double)cells[i].g->fails / (double)cells[i].g->runs : 0;
		if (p > rmax)
			rmax = p;
	}
	dbuf_adds(b, "<table id=\"heatmap\"><tr><th></th>");
	for (size_t c = 0; c < cols.nr; c++) {
		dbuf_adds(b, "<th>");
		esc(b, cols.v[c][0] ? cols.v[c] : "all");
		dbuf_adds(b, "</th>");
	}
	dbuf_adds(b, "</tr>");
	char pct[32], lo[32], hi[32], p[96];
	for (size_t ro = 0; ro < rows.nr; ro++) {
		dbuf_adds(b, "<tr><th>");
		esc(b, rows.v[ro]);
		dbuf_adds(b, "</th>");
		for (size_t c = 0; c < cols.nr; c++) {
			const struct report_cell *cell = NULL;
			for (size_t i = 0; i < r->cells_nr && !cell; i++) {
				dbuf_reset(&rb);
				dbuf_reset(&cb);
				split_cell(cells[i].g->key, &rb, &cb);
				if (!strcmp(dbuf_str(&rb), rows.v[ro]) && !strcmp(dbuf_str(&cb), cols.v[c]))
					cell = &cells[i];
			}
			if (!cell) {
				dbuf_adds(b, "<td class=\"heat\">\xe2\x80\x94</td>");
				continue;
			}
			double rate = cell->g->runs ? (double)cell->g->fails / (double)cell->g->runs : 0;
			double a = rmax > 0 ? rate / rmax : 0;
			int red = 255, gb = (int)lround(255 - 190 * a);
			report_pct(pct, sizeof(pct), rate);
			report_pct(lo, sizeof(lo), cell->lo);
			report_pct(hi, sizeof(hi), cell->hi);
			report_vs_rest(p, sizeof(p), cell);
			dbuf_addf(b, "<td class=\"heat%s\" style=\"background:rgb(%d,%d,%d)\" title=\"",
				  cell->differs ? " differs" : "", red, gb, gb);
			esc(b, cell->g->key);
			dbuf_addf(b, ": 95%% CI %s\xe2\x80\x93%s; vs the other cells: %s%s\">%s<br><small>%"
				     PRIu64 "/%" PRIu64 "%s</small></td>",
				  lo, hi, p, cell->differs ? " (differs)" : "", pct, cell->g->fails,
				  cell->g->runs, cell->differs ? " \xe2\x80\xa2 differs" : "");
		}
		dbuf_adds(b, "</tr>");
	}
	dbuf_addf(b, "</table><p class=\"meta\">Colour: failure rate, white 0 to red %s. "
		     "A cell outlined in black fails significantly more often than all other cells together "
		     "(two-sided Fisher exact test, Bonferroni correction for %zu cells, family-wise "
		     "\xce\xb1 = 0.05).</p>", "the highest", r->cells_nr);
	strvec_release(&rows);
	strvec_release(&cols);
	dbuf_release(&rb);
	dbuf_release(&cb);
	free(cells);
}

static void groups_table(struct dbuf *b, const struct results_group *g, size_t n,
			 const char *what)
{
	struct report_cell *cells = xcalloc(n, sizeof(*cells));
	char pct[32], lo[32], hi[32], p[96];
	double rmax = 0;
	report_groups(g, n, cells);
	for (size_t i = 0; i < n; i++)
		if (g[i].runs && (double)g[i].fails / (double)g[i].runs > rmax)
			rmax = (double)g[i].fails / (double)g[i].runs;
	bool skips = false;
	for (size_t i = 0; i < n; i++)
		skips |= g[i].skip > 0;
	/* slow, cut and skipped runs in columns of their own: in no rate */
	dbuf_addf(b, "<table><tr><th>%s</th><th>runs</th><th>failed</th><th>slow</th><th>cut</th>"
		     "%s<th>rate</th><th>95%% interval</th><th>vs the others</th></tr>", what,
		  skips ? "<th>skipped</th>" : "");
	for (size_t i = 0; i < n; i++) {
		const struct report_cell *c = &cells[i];
		double rate = c->g->runs ? (double)c->g->fails / (double)c->g->runs : 0;
		int gb = (int)lround(255 - 190 * (rmax > 0 ? rate / rmax : 0));
		report_pct(pct, sizeof(pct), rate);
		report_pct(lo, sizeof(lo), c->lo);
		report_pct(hi, sizeof(hi), c->hi);
		report_vs_rest(p, sizeof(p), c);
		dbuf_adds(b, "<tr><td><code>");
		esc(b, c->g->key);
		dbuf_addf(b, "</code></td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
			     "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64 "</td>",
			  c->g->runs, c->g->fails, c->g->slow, c->g->cut);
		if (skips)
			dbuf_addf(b, "<td class=\"n\">%" PRIu64 "</td>", c->g->skip);
		if (!c->g->runs) {
			dbuf_adds(b, "<td class=\"n\">\xe2\x80\x93</td><td>\xe2\x80\x93</td>"
				     "<td>no counted run</td></tr>");
			continue;
		}
		dbuf_addf(b, "<td class=\"n%s\" style=\"background:rgb(255,%d,%d)\">%s</td>"
			     "<td>%s\xe2\x80\x93%s</td><td>%s%s</td></tr>",
			  c->differs ? " differs" : "", gb, gb, pct, lo, hi,
			  p, c->differs ? " (differs)" : "");
	}
	dbuf_adds(b, "</table><p class=\"meta\">Rates are over counted runs (passed or failed): "
		     "slow, cut and skipped runs are in none.</p>");
	free(cells);
}

/* The series' settings as a table of name and value, three to a row;
 * unset (null) settings are left out. */
static void settings_table(struct dbuf *b, const char *json)
{
	cJSON *o = json ? cJSON_Parse(json) : NULL;
	const cJSON *v;
	int col = 0;
	if (!cJSON_IsObject(o) || !o->child) {
		cJSON_Delete(o);
		return;
	}
	dbuf_adds(b, "<table class=\"settings\"><tr>");
	cJSON_ArrayForEach(v, o) {
		if (cJSON_IsNull(v) || !v->string)
			continue;
		if (col == 3) {
			dbuf_adds(b, "</tr><tr>");
			col = 0;
		}
		dbuf_adds(b, "<th>");
		esc(b, v->string);
		dbuf_adds(b, "</th><td><code>");
		if (cJSON_IsString(v)) {
			esc_cut(b, v->valuestring, 500);
		} else {
			char *t = cJSON_PrintUnformatted(v);
			esc_cut(b, t, 500);
			free(t);
		}
		dbuf_adds(b, "</code></td>");
		col++;
	}
	dbuf_adds(b, "</tr></table>");
	cJSON_Delete(o);
}

static void diag_table(struct dbuf *b, const char *json)
{
	cJSON *d = json ? cJSON_Parse(json) : NULL;
	if (!cJSON_IsObject(d)) {
		cJSON_Delete(d);
		return;
	}
	dbuf_adds(b, "<table class=\"diag\">");
	const cJSON *v;
	cJSON_ArrayForEach(v, d) {
		if (!v->string)
			continue;
		dbuf_adds(b, "<tr><th>");
		esc(b, v->string);
		dbuf_adds(b, "</th><td><pre>");
		if (cJSON_IsString(v)) {
			esc(b, v->valuestring);
		} else if (cJSON_IsArray(v)) {
			const cJSON *e;
			cJSON_ArrayForEach(e, v) {
				if (cJSON_IsString(e)) {
					esc(b, e->valuestring);
				} else {
					char *t = cJSON_PrintUnformatted(e);
					esc(b, t);
					free(t);
				}
				dbuf_addc(b, '\n');
			}
		} else {
			char *t = cJSON_PrintUnformatted(v);
			esc(b, t);
			free(t);
		}
		dbuf_adds(b, "</pre></td></tr>");
	}
	dbuf_adds(b, "</table>");
	cJSON_Delete(d);
}

static void examples(struct dbuf *b, const struct results *r, size_t n)
{
	struct dbuf log;
	dbuf_init(&log, REPORT_CAP);
	for (size_t i = 0; i < n; i++) {
		const struct results_sig *s = &r->sigs[r->sig_order[i]];
		dbuf_addf(b, "<details class=\"sig\" id=\"sig-%s\"%s><summary><span class=\"swatch\" "
			     "style=\"background:%s\"></span>%s ", s->id, i == 0 ? " open" : "",
			  i < PALETTE_NR ? palette[i] : "#333", s->id);
		esc(b, s->kind);
		dbuf_addf(b, " \xe2\x80\x94 %" PRIu64 " run%s, first %" PRId64 ", last %" PRId64
			     "</summary>", s->count, s->count == 1 ? "" : "s", s->first_run, s->last_run);
		dbuf_adds(b, "<p>Key line: <code>");
		esc_cut(b, s->key_line ? s->key_line : s->key, 2000);
		dbuf_addf(b, "</code><br>Example: run %" PRId64, s->example_run);
		if (s->cell && *s->cell) {
			dbuf_adds(b, " in cell <code>");
			esc(b, s->cell);
			dbuf_adds(b, "</code>");
		}
		if (s->log) {
			dbuf_adds(b, ", log <code>");
			esc(b, s->log);
			dbuf_adds(b, "</code>");
		}
		dbuf_adds(b, "</p>");
		if (s->frames.nr) {
			dbuf_adds(b, "<p>Top frames:</p><pre class=\"frames\">");
			for (size_t f = 0; f < s->frames.nr; f++) {
				esc(b, s->frames.v[f]);
				dbuf_addc(b, '\n');
			}
			dbuf_adds(b, "</pre>");
		}
		if (s->diag) {
			dbuf_adds(b, "<p>Diagnosis:</p>");
			diag_table(b, s->diag);
		}
		dbuf_reset(&log);
		if (report_read_log(r, s, true, &log, HTML_LOG_HEAD, HTML_LOG_TAIL)) {
			dbuf_adds(b, "<p>Stacks (identical stacks folded):</p><pre class=\"stacks\">");
			escape_html(b, log.buf, log.len);
			dbuf_adds(b, "</pre>");
		}
		dbuf_reset(&log);
		bool have = report_read_log(r, s, false, &log, HTML_LOG_HEAD, HTML_LOG_TAIL);
		dbuf_adds(b, have ? "<p>Log (head and tail):</p><pre class=\"log\">" : "<p class=\"meta\">");
		escape_html(b, log.buf ? log.buf : "", log.len);
		dbuf_adds(b, have ? "</pre>" : "</p>");
		dbuf_adds(b, "</details>\n");
	}
	dbuf_release(&log);
}

#define HTML_MAX_TEST_ROWS 40

/* One table of tests (report_md.c's test_table): name, failed/runs, rate,
 * interval, the run indices of the first and last failure, the message. */
static void test_table(struct dbuf *b, const struct results *r, const char *title,
		       const size_t *idx, size_t n)
{
	dbuf_addf(b, "<h3>%s (%zu)</h3><table><tr><th>test</th><th>failed</th><th>rate</th>"
		     "<th>95%% interval</th><th>runs</th><th>message</th></tr>", title, n);
	for (size_t i = 0; i < n && i < HTML_MAX_TEST_ROWS; i++) {
		const struct results_test *t = &r->tests[idx[i]];
		double lo, hi;
		char a[32], l[32], h[32];
		stats_wilson(t->fails, t->runs, STATS_Z95, &lo, &hi);
		report_pct(a, sizeof(a), t->runs ? (double)t->fails / (double)t->runs : 0);
		report_pct(l, sizeof(l), lo);
		report_pct(h, sizeof(h), hi);
		dbuf_adds(b, "<tr><td><code>");
		esc(b, t->name);
		dbuf_addf(b, "</code></td><td class=\"n\">%" PRIu64 "/%" PRIu64 "</td><td class=\"n\">"
			     "%s</td><td>%s\xe2\x80\x93%s</td><td>%" PRId64 "..%" PRId64 "</td><td>",
			  t->fails, t->runs, a, l, h, t->first_fail, t->last_fail);
		if (t->crashes || t->hangs)
			dbuf_addf(b, "%" PRIu64 " crash, %" PRIu64 " hang; ", t->crashes, t->hangs);
		if (t->key_line[0]) {
			dbuf_adds(b, "<code>");
			esc_cut(b, t->key_line[0], 160);
			dbuf_adds(b, "</code>");
		}
		if (t->sig_id[1])
			dbuf_addf(b, " (and %d more messages)", t->sig_id[2] ? (t->sig_id[3] ? 3 : 2) : 1);
		dbuf_adds(b, "</td></tr>");
	}
	dbuf_adds(b, "</table>");
	if (n > HTML_MAX_TEST_ROWS)
		dbuf_addf(b, "<p class=\"meta\">%zu more are in summary.json.</p>", n - HTML_MAX_TEST_ROWS);
}

/* --tests: flaky tests, always-failing tests, the tests whose time varies
 * most; report_tests_select chooses them, as for report.md. */
static void tests_section(struct dbuf *b, const struct results *r)
{
	struct report_tests sel;
	report_tests_select(&sel, r, 5);
	dbuf_addf(b, "<h2>Tests</h2><div class=\"panel\" id=\"tests\"><p>%zu tests in %" PRIu64
		     " runs with per-test results: <b>%zu flaky</b> (failed in some runs, passed in "
		     "others), %zu always failing.</p>", r->tests_nr, r->totals.with_tests, sel.nflaky,
		  sel.nalways);
	if (sel.nflaky)
		test_table(b, r, "Flaky tests", sel.flaky, sel.nflaky);
	if (sel.nalways)
		test_table(b, r, "Always failing", sel.always, sel.nalways);
	if (sel.nvaries) {
		dbuf_adds(b, "<h3>Time varies most (seconds)</h3><table><tr><th>test</th><th>mean</th>"
			     "<th>sd</th><th>min</th><th>max</th></tr>");
		for (size_t i = 0; i < sel.nvaries; i++) {
			const struct results_test *t = &r->tests[sel.varies[i]];
			dbuf_adds(b, "<tr><td><code>");
			esc(b, t->name);
			dbuf_addf(b, "</code></td><td class=\"n\">%.3g</td><td class=\"n\">%.3g</td>"
				     "<td class=\"n\">%.3g</td><td class=\"n\">%.3g</td></tr>",
				  t->tsum / (double)t->timed, results_test_sd(t), t->tmin, t->tmax);
		}
		dbuf_adds(b, "</table>");
	}
	dbuf_adds(b, "<p class=\"meta\">Rates are of the runs that ran the test (skips are in none), "
		     "with 95% Wilson intervals; a test running when its suite crashed or hung failed "
		     "in that run.</p></div>\n");
	report_tests_release(&sel);
}

int report_html(struct dbuf *b, const struct results *r)
{
	const struct results_totals *t = &r->totals;
	size_t nsig = r->sigs_nr > HTML_MAX_SIGS ? HTML_MAX_SIGS : r->sigs_nr;
	size_t *rank = xcalloc(r->sigs_nr + 1, sizeof(*rank));
	for (size_t i = 0; i < r->sigs_nr; i++)
		rank[r->sig_order[i]] = i;
	struct dbuf tmp;
	dbuf_init(&tmp, 1 << 20);

	dbuf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		     "style-src 'unsafe-inline'; img-src data:\">"
		     "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">");
	dbuf_addf(b, "<title>jostle: %" PRIu64 " of %" PRIu64 " runs failed</title><style>%s</style>"
		     "</head>\n<body><main>", t->failures, t->counted, css);
	dbuf_addf(b, "<h1>jostle: %" PRIu64 " of %" PRIu64 " runs failed</h1>", t->failures, t->counted);
	for (size_t i = 0; i < r->series_nr && i < 5; i++) {
		const struct results_series *s = &r->series[i];
		dbuf_reset(&tmp);
		report_command(&tmp, s);
		dbuf_adds(b, "<p class=\"meta\">command <code>");
		esc_cut(b, dbuf_str(&tmp), 2000);
		dbuf_reset(&tmp);
		report_machine(&tmp, s);
		dbuf_adds(b, "</code> on <code>");
		esc(b, dbuf_str(&tmp));
		dbuf_adds(b, "</code><br>series <code>");
		esc(b, s->id);
		dbuf_adds(b, "</code> started <code>");
		esc(b, s->start);
		dbuf_adds(b, "</code>, seed <code>");
		esc(b, s->seed);
		dbuf_addf(b, "</code>, %" PRIu64 " runs", s->runs);
		if (s->stop) {
			dbuf_adds(b, ", stopped: ");
			esc(b, s->stop);
		}
		dbuf_adds(b, "</p>");
		settings_table(b, s->settings);
	}
	if (r->series_nr > 5)
		dbuf_addf(b, "<p class=\"meta\">and %zu more series</p>", r->series_nr - 5);
	cards(b, r);

	dbuf_adds(b, "<h2>Failures over run index</h2><div class=\"panel\" id=\"by-index\">");
	chart_over(b, r, &r->by_index, (double)(t->run_max + 1), false, rank);
	dbuf_adds(b, "</div>\n");
	if (t->have_t) {
		dbuf_adds(b, "<h2>Failures over time</h2><div class=\"panel\" id=\"by-time\">");
		chart_over(b, r, &r->by_time, t->t_end, true, rank);
		dbuf_adds(b, "</div>\n");
	}
	if (nsig) {
		dbuf_addf(b, "<h2>Signatures</h2><div class=\"panel\" id=\"signatures\">");
		chart_sigs(b, r, nsig);
		dbuf_adds(b, "<p class=\"meta\">Bars: share of all runs that failed with the signature; "
			     "whiskers: 95% Wilson interval.");
		if (r->sigs_nr > nsig)
			dbuf_addf(b, " %zu more signatures are in summary.json.", r->sigs_nr - nsig);
		dbuf_adds(b, "</p></div>\n");
	}
	dbuf_adds(b, "<h2>Run durations</h2><div class=\"panel\" id=\"durations\">");
	chart_durations(b, r);
	dbuf_adds(b, "</div>\n");
	if (r->cells_nr) {
		dbuf_adds(b, "<h2>Matrix</h2><div class=\"panel\" id=\"matrix\">");
		heat_map(b, r);
		dbuf_adds(b, "</div>\n");
	}
	if (r->arms_nr) {
		dbuf_adds(b, "<h2>Conditions</h2><div class=\"panel\" id=\"arms\">");
		groups_table(b, r->arms, r->arms_nr, "chaos configuration");
		dbuf_adds(b, "</div>\n");
	}
	if (r->tests_nr)
		tests_section(b, r);
	if (nsig) {
		dbuf_adds(b, "<h2>Examples</h2><div id=\"examples\">");
		examples(b, r, nsig);
		dbuf_adds(b, "</div>\n");
	}
	dbuf_addf(b, "<footer>jostle %s \xc2\xb7 computed from runs.jsonl (%" PRIu64 " records",
		  JOSTLE_VERSION, t->records);
	if (t->bad_lines)
		dbuf_addf(b, ", %" PRIu64 " unreadable lines skipped", t->bad_lines);
	dbuf_adds(b, ")</footer></main></body></html>\n");
	dbuf_release(&tmp);
	free(rank);
	return 0;
}
