/*
 * localize.c: the driver of `jostle localize` (see localize.h): discovery,
 * the rounds with their plans, the stopping rule, the findings.
 *
 * Why delays at a random half of the sites rather than one site at a time:
 * with one site per run, N sites cost N separate rate estimates; with
 * each site on in half of the runs, every run informs every site's
 * estimate at once (the classic group-testing design), and the pairs come
 * for free (a quarter of the runs delay at any two given sites together).
 * The price is noise from the other delays, which the stratified estimate
 * averages out and the elimination of clearly weaker sites reduces round
 * by round.
 *
 * How often a delayed site delays: a site called a million times per run
 * must not be delayed a million times (the run would never end, and every
 * other thread would be slowed alike), and a site called once must be
 * delayed that once. A site delays at each call with probability
 * min(1, delays / its mean calls per process in discovery): about `delays`
 * delays per run wherever it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "localize/catalog.h"
#include "localize/effect.h"
#include "localize/findings.h"
#include "localize/localize.h"
#include "localize/round.h"
#include "pressure/siteplan.h"
#include "results/stats.h"
#include "run/series.h"
#include "signature/frame.h"
#include "util/clock.h"
#include "util/rng.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define PAIR_TOP 8          /* the pair is searched among the leading sites */
#define DISCOVER_TIMEOUT_NS (60 * NS_PER_S)

int localize_check_dynamic(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
	Elf *e;
	GElf_Ehdr eh;
	size_t phnum = 0;
	bool interp = false;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	/* not ELF (a script: its interpreter is what runs), or unreadable ELF:
	 * nothing to refuse */
	if (e && elf_kind(e) == ELF_K_ELF && gelf_getehdr(e, &eh) && elf_getphdrnum(e, &phnum) == 0) {
		for (size_t i = 0; i < phnum && !interp; i++) {
			GElf_Phdr ph;
			interp = gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP;
		}
		if (!interp && (eh.e_type == ET_EXEC || eh.e_type == ET_DYN))
			rc = -ENOEXEC;
	}
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

/* ---- the state of one localization ----------------------------------- */

struct loc {
	const struct localize_opts *lo;
	struct run_opts *o;
	struct catalog cat;
	struct effect_data data;
	bool *cand;                 /* per catalog site: still a candidate */
	bool *tested;               /* per catalog site: randomized in some round */
	struct effect *eff;         /* per catalog site, 95% intervals (reported) */
	struct effect *sim;         /* per catalog site, simultaneous intervals over the
				     * candidates (elimination, stopping) */
	struct findings_round *rounds;
	size_t nrounds, rounds_alloc;
	uint64_t runs_left;         /* UINT64_MAX: bounded by time only */
	int64_t deadline;           /* monotonic, 0: none */
	int64_t start;
	int64_t timeout_ns;         /* of the rounds */
	double max_pass_s;          /* the slowest passing run so far */
	uint64_t discover_runs, discover_fails;
	uint64_t round_runs, round_fails;
	char replay[64];
	const char *stop;
	bool interrupted;
};

static char *subdir(const struct loc *L, const char *name)
{
	char *d = xasprintf("%s/%s", L->o->out_dir, name);
	if (mkdir(d, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "jostle: cannot create '%s': %s\n", d, strerror(errno));
		free(d);
		return NULL;
	}
	return d;
}

/* The seed of series K (0: discovery): each series its own run seeds. */
static uint64_t series_seed(uint64_t master, uint64_t k)
{
	uint64_t s = master ^ (k * 0x9e3779b97f4a7c15ULL) ^ 0x6c6f63616c697a65ULL;
	return rng_splitmix64(&s);
}

/* Runs and time this series may take; false when the budget is spent. */
static bool budget(struct loc *L, uint64_t want, struct run_opts *ro)
{
	if (L->interrupted || round_interrupted())
		return false;
	ro->runs = want < L->runs_left ? want : L->runs_left;
	ro->time_ns = 0;
	if (L->deadline) {
		int64_t left = L->deadline - clock_mono_ns();
		if (left < NS_PER_S / 10)
			return false;
		ro->time_ns = left;
	}
	return ro->runs > 0;
}

/* Run one series; print its log when it could not start. Returns the
 * series' status. */
static int series(struct loc *L, struct run_opts *ro, const char *dir)
{
	char *log = xasprintf("%s/jostle.log", dir);
	int st = round_series(ro, log);
	if (st == 2 || st < 0 || st == 3) {
		FILE *f = fopen(log, "re");
		char line[1024];
		if (st < 0)
			fprintf(stderr, "jostle: cannot start a series: %s\n", strerror(-st));
		while (f && fgets(line, sizeof(line), f))
			fputs(line, stderr);
		if (f)
			fclose(f);
	}
	if (st == 130 || round_interrupted())
		L->interrupted = true;
	free(log);
	return st;
}

static void count_runs(struct loc *L, const struct round_run *r, size_t n, uint64_t *runs, uint64_t *fails)
{
	for (size_t i = 0; i < n; i++) {
		if (r[i].outcome == ROUND_IGNORED)
			continue;
		(*runs)++;
		*fails += r[i].outcome == ROUND_FAIL;
		if (r[i].outcome == ROUND_PASS && r[i].wall_s > L->max_pass_s)
			L->max_pass_s = r[i].wall_s;
	}
	L->runs_left -= L->runs_left == UINT64_MAX ? 0 : (n < L->runs_left ? n : L->runs_left);
}

static int discover(struct loc *L)
{
	struct run_opts ro = *L->o;
	char *dir = subdir(L, "discover");
	if (!dir)
		return 2;
	char *plan = xasprintf("%s/plan.txt", dir);
	struct siteplan sp = { .path = plan, .n = 0, .incl = NULL };
	int rc = catalog_write_plan(&L->cat, plan, NULL, NULL, 0), st = 0;
	if (rc < 0) {
		fprintf(stderr, "jostle: cannot write '%s': %s\n", plan, strerror(-rc));
		st = 2;
	}
	ro.out_dir = dir;
	ro.quiet = true;
	ro.no_report = true;
	ro.seed = series_seed(L->o->seed, 0);
	ro.pressure.sites = &sp;
	if (!L->lo->timeout_set && ro.timeout_ns > DISCOVER_TIMEOUT_NS)
		ro.timeout_ns = DISCOVER_TIMEOUT_NS;
	if (st == 0 && budget(L, L->lo->discover, &ro)) {
		st = series(L, &ro, dir);
		struct round_run *runs;
		size_t n;
		if (st != 2 && st >= 0 && round_read(dir, &runs, &n) == 0) {
			count_runs(L, runs, n, &L->discover_runs, &L->discover_fails);
			free(runs);
		}
		if (catalog_read_dir(&L->cat, dir) < 0)
			fprintf(stderr, "jostle: cannot read the site tables in '%s/sites'\n", dir);
	}
	free(plan);
	free(dir);
	return st == 2 || st < 0 || st == 3 ? 2 : 0;
}

/* The candidates of the first round: every site seen, or when there are
 * more than max_sites, the program's own sites first (the runtime's
 * locks matter less often), then the most called. */
static int cand_cmp(const void *pa, const void *pb, void *arg)
{
	const struct catalog *c = arg;
	const struct lsite *a = &c->v[*(const size_t *)pa], *b = &c->v[*(const size_t *)pb];
	bool ra = frame_is_runtime(a->fn ? a->fn : "", a->module);
	bool rb = frame_is_runtime(b->fn ? b->fn : "", b->module);
	if (ra != rb)
		return ra ? 1 : -1;
	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	return 0;
}

static void first_candidates(struct loc *L)
{
	size_t max = L->lo->max_sites < SITEMASK_MAX ? L->lo->max_sites : SITEMASK_MAX;
	size_t *order = xcalloc(L->cat.n, sizeof(*order));

	for (size_t i = 0; i < L->cat.n; i++)
		order[i] = i;
	qsort_r(order, L->cat.n, sizeof(*order), cand_cmp, &L->cat);
	for (size_t i = 0; i < L->cat.n && i < max; i++)
		L->cand[order[i]] = true;
	free(order);
}

/* Per-call delay probability of site i: about lo->delays delays per run. */
static double site_prob(const struct loc *L, size_t i)
{
	const struct lsite *s = &L->cat.v[i];
	double mean = s->procs ? (double)s->calls / (double)s->procs : 1;
	double p = mean > 0 ? L->lo->delays / mean : 1;
	return p > 1 ? 1 : p;
}

static void describe(const struct loc *L, size_t i, char *buf, size_t len)
{
	catalog_describe(&L->cat.v[i], buf, len);
}

static void estimate(struct loc *L)
{
	size_t m = 0;

	for (size_t i = 0; i < L->cat.n; i++)
		m += L->cand[i];
	double zs = effect_z_simultaneous(m, 0.95);
	for (size_t i = 0; i < L->cat.n; i++) {
		effect_site(&L->data, i, STATS_Z95, &L->eff[i]);
		effect_site(&L->data, i, zs, &L->sim[i]);
	}
}

/* A failing run of the last round with site `site` on: "round-K:RUN". */
static void pick_replay(struct loc *L, size_t site)
{
	for (size_t k = L->data.nrounds; k-- > 0 && !L->replay[0];) {
		const struct effect_round *r = &L->data.rounds[k];
		long bit = -1;
		for (size_t b = 0; b < r->nbits; b++)
			if (r->site[b] == site)
				bit = (long)b;
		if (bit < 0)
			continue;
		char *dir = xasprintf("%s/round-%zu", L->o->out_dir, k + 1);
		struct round_run *runs;
		size_t n;
		if (round_read(dir, &runs, &n) == 0) {
			for (size_t j = 0; j < n; j++)
				if (runs[j].outcome == ROUND_FAIL && sitemask_get(runs[j].mask, (size_t)bit)) {
					snprintf(L->replay, sizeof(L->replay), "round-%zu:%" PRIu64, k + 1, runs[j].run);
					break;
				}
			free(runs);
		}
		free(dir);
	}
}

/* One round: plan, series, read back. Returns false when nothing ran. */
static bool round_one(struct loc *L, size_t k)
{
	size_t n = 0;
	size_t *sites = xcalloc(L->cat.n, sizeof(*sites));
	for (size_t i = 0; i < L->cat.n; i++)
		if (L->cand[i])
			sites[n++] = i;
	double *prob = xcalloc(n ? n : 1, sizeof(*prob));
	double *incl = xcalloc(n ? n : 1, sizeof(*incl));
	for (size_t b = 0; b < n; b++) {
		prob[b] = site_prob(L, sites[b]);
		incl[b] = L->lo->density;
	}
	char name[32];
	snprintf(name, sizeof(name), "round-%zu", k);
	char *dir = subdir(L, name);
	char *plan = dir ? xasprintf("%s/plan.txt", dir) : NULL;
	bool ran = false;
	struct run_opts ro = *L->o;
	struct siteplan sp = { .path = plan, .n = n, .incl = incl };
	int rc = dir ? catalog_write_plan(&L->cat, plan, sites, prob, n) : -EIO;
	if (rc < 0 && dir)
		fprintf(stderr, "jostle: cannot write '%s': %s\n", plan, strerror(-rc));
	ro.out_dir = dir;
	ro.quiet = true;
	ro.no_report = true;
	ro.seed = series_seed(L->o->seed, k);
	ro.pressure.sites = &sp;
	ro.timeout_ns = L->timeout_ns;
	if (rc == 0 && budget(L, L->lo->round_runs, &ro)) {
		int st = series(L, &ro, dir);
		struct round_run *runs;
		size_t nr;
		if (st >= 0 && st != 2 && st != 3 && round_read(dir, &runs, &nr) == 0) {
			struct effect_round *er = effect_round_new(&L->data, sites, n);
			bool *on = xcalloc(n ? n : 1, sizeof(*on));
			uint64_t rr = 0, rf = 0;
			for (size_t j = 0; j < nr; j++) {
				if (runs[j].outcome == ROUND_IGNORED)
					continue;
				for (size_t b = 0; b < n; b++)
					on[b] = sitemask_get(runs[j].mask, b);
				effect_round_add(er, on, runs[j].outcome == ROUND_FAIL);
			}
			count_runs(L, runs, nr, &rr, &rf);
			L->round_runs += rr;
			L->round_fails += rf;
			ALLOC_GROW(L->rounds, L->nrounds + 1, L->rounds_alloc);
			L->rounds[L->nrounds++] = (struct findings_round){ rr, rf, n, L->lo->density };
			for (size_t b = 0; b < n; b++)
				L->tested[sites[b]] = true;
			free(on);
			free(runs);
			ran = nr > 0;
		} else if (st == 2 || st == 3 || st < 0) {
			L->stop = "a round could not run";
		}
	}
	free(plan);
	free(dir);
	free(sites);
	free(prob);
	free(incl);
	return ran;
}

static void progress(const struct loc *L, size_t k)
{
	const struct findings_round *r = &L->rounds[L->nrounds - 1];
	size_t lead = L->cat.n, left = 0;
	char what[512] = "";

	if (L->o->quiet)
		return;
	for (size_t i = 0; i < L->cat.n; i++) {
		left += L->cand[i];
		if (L->cand[i] && (lead == L->cat.n || effect_cmp(&L->eff[i], &L->eff[lead]) < 0))
			lead = i;
	}
	if (lead < L->cat.n)
		describe(L, lead, what, sizeof(what));
	fprintf(stderr, "jostle: round %zu: %" PRIu64 " runs, %" PRIu64 " failed; candidates: %zu",
		k, r->runs, r->fails, left);
	if (lead < L->cat.n)
		fprintf(stderr, "; leading: %s %+.2f [%+.2f, %+.2f]", what, L->eff[lead].diff,
			L->eff[lead].lo, L->eff[lead].hi);
	fputc('\n', stderr);
}

static void rounds(struct loc *L)
{
	for (size_t k = 1; ; k++) {
		if (!round_one(L, k)) {
			if (!L->stop)
				L->stop = L->interrupted ? "interrupted" : "budget spent";
			return;
		}
		estimate(L);
		effect_prune(L->sim, L->cand, L->cat.n);
		progress(L, k);
		size_t lead;
		if (k >= 2 && effect_separated(L->sim, L->cand, L->cat.n, &lead)) {
			L->stop = "the leading site is separated from every other";
			return;
		}
		if (L->interrupted) {
			L->stop = "interrupted";
			return;
		}
		if (L->discover_fails == L->discover_runs && L->round_fails == L->round_runs) {
			/* with delays everywhere, and at random halves of the
			 * sites: nothing made a run pass */
			L->stop = "every run failed, with and without delays at each site: the failure "
				  "does not depend on the timing of these calls";
			return;
		}
		/* the rounds' timeout: ten times the slowest passing run */
		if (!L->lo->timeout_set && L->max_pass_s > 0) {
			int64_t t = (int64_t)(L->max_pass_s * 10 * 1e9);
			if (t < 2 * NS_PER_S)
				t = 2 * NS_PER_S;
			if (t < L->timeout_ns)
				L->timeout_ns = t;
		}
	}
}

static int rank_cmp(const void *pa, const void *pb)
{
	const struct finding *a = pa, *b = pb;
	int c = effect_cmp(&a->e, &b->e);
	if (c)
		return c;
	return a->site < b->site ? -1 : a->site > b->site;
}

static void best_pair(const struct loc *L, const struct finding *rank, size_t n,
		      struct effect_pair *best, bool *have)
{
	size_t top = n < PAIR_TOP ? n : PAIR_TOP;
	double z = effect_z_simultaneous(top * (top - 1) / 2, 0.95);

	*have = false;
	for (size_t i = 0; i < top; i++)
		for (size_t j = i + 1; j < top; j++) {
			struct effect_pair p;
			effect_pair(&L->data, rank[i].site, rank[j].site, z, &p);
			if (!p.strata)
				continue;
			if (!*have || p.lo > best->lo) {
				*best = p;
				*have = true;
			}
		}
}

static int finish(struct loc *L)
{
	struct finding *rank = xcalloc(L->cat.n ? L->cat.n : 1, sizeof(*rank));
	size_t n = 0;
	struct findings f;

	estimate(L);
	for (size_t i = 0; i < L->cat.n; i++)
		if (L->tested[i]) {
			rank[n].site = i;
			rank[n].e = L->eff[i];
			n++;
		}
	qsort(rank, n, sizeof(*rank), rank_cmp);
	memset(&f, 0, sizeof(f));
	if (n)
		pick_replay(L, rank[0].site);
	best_pair(L, rank, n, &f.pair, &f.have_pair);
	f.cat = &L->cat;
	f.dir = L->o->out_dir;
	f.argv = L->o->argv;
	f.seed = L->o->seed;
	f.rank = rank;
	f.nrank = n;
	f.discover_runs = L->discover_runs;
	f.discover_fails = L->discover_fails;
	f.rounds = L->rounds;
	f.nrounds = L->nrounds;
	f.round_runs = L->round_runs;
	f.round_fails = L->round_fails;
	f.delays = L->lo->delays;
	f.stop = L->stop ? L->stop : "budget spent";
	f.replay = L->replay[0] ? L->replay : NULL;
	f.elapsed_s = (double)(clock_mono_ns() - L->start) / 1e9;
	int rc = findings_write(&f, !L->o->no_report);
	if (rc < 0)
		fprintf(stderr, "jostle: cannot write the findings to '%s': %s\n", L->o->out_dir, strerror(-rc));
	if (!L->o->quiet || rc < 0)
		findings_print(&f, stderr, 10);
	free(rank);
	if (L->interrupted)
		return 130;
	if (rc < 0)
		return 3;
	return L->discover_fails + L->round_fails ? 1 : 0;
}

int localize_run(const struct localize_opts *lo)
{
	struct loc L;
	int status;

	memset(&L, 0, sizeof(L));
	L.lo = lo;
	L.o = lo->run;
	L.cat = (struct catalog)CATALOG_INIT;
	L.data = (struct effect_data)EFFECT_DATA_INIT;
	L.start = clock_mono_ns();
	L.runs_left = L.o->runs ? L.o->runs : L.o->time_ns ? UINT64_MAX : LOCALIZE_DEFAULT_RUNS;
	L.deadline = L.o->time_ns ? L.start + L.o->time_ns : 0;
	L.timeout_ns = L.o->timeout_ns;
	if (!lo->timeout_set && L.timeout_ns > DISCOVER_TIMEOUT_NS)
		L.timeout_ns = DISCOVER_TIMEOUT_NS;
	round_signals_install();
	status = discover(&L);
	if (status == 0 && !L.cat.n && !L.interrupted) {
		fprintf(stderr, "jostle: no call site was recorded in %" PRIu64 " runs of '%s': it made no "
			"pthread call the sync chaos library interposes (a static binary, a Go program, "
			"one that only spins on atomics), or no process of it exited normally (a process "
			"writes its sites at exit); nothing to localize\n", L.discover_runs, L.o->argv[0]);
		status = 2;
	}
	if (status == 0 && L.cat.n) {
		if (!L.o->quiet)
			fprintf(stderr, "jostle: discovery: %" PRIu64 " runs under sync chaos, %" PRIu64
				" failed; %zu call sites\n", L.discover_runs, L.discover_fails, L.cat.n);
		catalog_symbolize(&L.cat);
		L.cand = xcalloc(L.cat.n, sizeof(*L.cand));
		L.tested = xcalloc(L.cat.n, sizeof(*L.tested));
		L.eff = xcalloc(L.cat.n, sizeof(*L.eff));
		L.sim = xcalloc(L.cat.n, sizeof(*L.sim));
		first_candidates(&L);
		if (!L.interrupted)
			rounds(&L);
		else
			L.stop = "interrupted";
		status = finish(&L);
	} else if (L.interrupted) {
		status = 130;
	}
	round_signals_restore();
	catalog_release(&L.cat);
	effect_data_release(&L.data);
	free(L.cand);
	free(L.tested);
	free(L.eff);
	free(L.sim);
	free(L.rounds);
	return status;
}
