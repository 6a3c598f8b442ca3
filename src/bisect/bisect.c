/*
 * bisect.c: the search (see bisect.h).
 *
 * One step: recount what the last batch added, update the posterior, stop
 * if a commit (or a block of skipped commits and the one after) holds the
 * confidence or the budget is spent, else pick the commit where a batch
 * is expected to say most, make sure it has a built worktree, and run the
 * batch there. The bad revision is tested first until it fails, because
 * its failure names the signature that counts and tells the bad rate.
 *
 * Batches go through the engine unchanged: series_run() with the commit's
 * results directory, first_index where the last batch ended (so runs,
 * seeds and logs number on), the commit's own master seed (derived from
 * the bisection's seed and the commit hash, so a commit's runs do not
 * depend on the order of the search), and the remaining time budget. What
 * the engine prints per series (its summary, warnings) goes to the
 * commit's engine.log; the terminal gets one progress line per batch.
 *
 * Worktrees are made on first use and kept (the build is the expensive
 * part), at most WORKTREES_MAX at a time, the least recently used removed
 * first. Signals: SIGINT, SIGTERM and SIGHUP set a flag; the engine reads
 * them itself during a batch (signalfd) and returns 130; a build or git
 * command in flight is ended (child.h). Either way the state is written
 * and the worktrees removed before we return.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bisect/bisect.h"
#include "bisect/child.h"
#include "bisect/posterior.h"
#include "bisect/repo.h"
#include "bisect/state.h"
#include "bisect/tally.h"
#include "bisect/verdict.h"
#include "results/finish.h"
#include "run/replay.h"
#include "util/clock.h"
#include "util/dbuf.h"
#include "util/fileio.h"
#include "util/path.h"
#include "util/rng.h"
#include "util/spawn.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define WORKTREES_MAX 8
#define LEARN_DIR "learn"

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

struct worktree {
	size_t i;
	char *path;
	uint64_t used;
};

struct bisect {
	struct bisect_opts *bo;
	struct run_opts *ro;
	struct repo repo;             /* a copy of *bo->repo (borrowed contents) */
	struct bstate st;
	struct tally *t;              /* n + 1, loaded for the commits tested */
	struct tally learn;
	bool auto_chaos;              /* learn a configuration first */
	struct pressure_opts fixed;   /* every commit's conditions */
	unsigned jobs, batch;
	char *tmp;                    /* owned: the worktrees' parent, NULL until needed */
	struct worktree wt[WORKTREES_MAX];
	size_t nwt;
	uint64_t clock;
	int cwd_fd;
	int64_t start, deadline;      /* deadline 0: no --time */
	int status;                   /* exit status once decided */
};

/* ---- small helpers ---------------------------------------------------- */

static char *commit_dir(const struct bisect *b, size_t i)
{
	return path_join(b->ro->out_dir, b->st.c[i].dir);
}

static void say(const struct bisect *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct bisect *b, const char *fmt, ...)
{
	va_list ap;
	if (b->ro->quiet)
		return;
	va_start(ap, fmt);
	fputs("jostle: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Fail the bisection with a one-line reason (also kept for bisect.json). */
static void fail(struct bisect *b, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(struct bisect *b, int status, const char *fmt, ...)
{
	va_list ap;
	char msg[1024];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "jostle: %s\n", msg);
	free(b->st.error);
	b->st.error = xstrdup(msg);
	b->st.end = BE_ERROR;
	b->status = status;
}

/* mkdir, where the parent exists; an existing directory is fine. */
static int make_dir(const char *path)
{
	return mkdir(path, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

static uint64_t commit_seed(const struct bisect *b, size_t i)
{
	uint64_t h = 0;
	const char *s = b->repo.hash.v[i];
	for (int k = 0; k < 16 && s[k]; k++)
		h = h << 4 | (uint64_t)(s[k] <= '9' ? s[k] - '0' : s[k] - 'a' + 10);
	uint64_t x = b->st.seed ^ h;
	return rng_splitmix64(&x);
}

static uint64_t runs_left(const struct bisect *b)
{
	if (!b->ro->runs)
		return UINT64_MAX;
	return b->st.runs_total >= b->ro->runs ? 0 : b->ro->runs - b->st.runs_total;
}

static int64_t time_left(const struct bisect *b)
{
	if (!b->deadline)
		return INT64_MAX;
	int64_t left = b->deadline - clock_mono_ns();
	return left > 0 ? left : 0;
}

/* ---- counting --------------------------------------------------------- */

/* The bad signature: the most frequent failure of the bad revision (of the
 * learning runs, which are on the bad revision too, when there are any). */
static void choose_signature(struct bisect *b)
{
	if (b->st.any_failure)
		return;
	const struct tally_sig *top = tally_top(&b->learn);
	if (!top)
		top = tally_top(&b->t[b->repo.n]);
	if (!top)
		return;
	if (b->st.sig_id && !strcmp(b->st.sig_id, top->id))
		return;
	free(b->st.sig_id);
	free(b->st.sig_key);
	b->st.sig_id = xstrdup(top->id);
	b->st.sig_key = top->key ? xstrdup(top->key) : NULL;
}

/* Counts of every commit from the tallies, then the posterior. */
static void recount(struct bisect *b)
{
	struct bstate *s = &b->st;
	choose_signature(b);
	s->runs_total = b->learn.runs;
	s->learn_runs = b->learn.runs;
	for (size_t i = 0; i <= b->repo.n; i++) {
		const struct tally *t = &b->t[i];
		struct bstate_commit *c = &s->c[i];
		uint64_t f = s->any_failure ? t->fails : s->sig_id ? tally_fails(t, s->sig_id) : 0;
		c->all_runs = t->runs;
		c->all_fails = t->fails;
		c->fails = f;
		/* a failure of another signature is no evidence either way */
		c->runs = t->runs - (t->fails - f);
		s->runs_total += t->runs;
		posterior_set(&s->post, i, c->runs, c->fails);
		s->post.skip[i] = c->skipped;
	}
	posterior_update(&s->post);
	s->block_p = posterior_best_block(&s->post, &s->lo, &s->hi);
	s->elapsed_s = b->bo->elapsed_s + (double)(clock_mono_ns() - b->start) / 1e9;
}

static int reload(struct bisect *b, size_t i)
{
	char *dir = commit_dir(b, i);
	tally_release(&b->t[i]);
	int rc = tally_load(&b->t[i], dir);
	free(dir);
	return rc;
}

static void save(struct bisect *b)
{
	int rc = bstate_write(&b->st, b->ro->out_dir);
	if (rc < 0)
		fprintf(stderr, "jostle: cannot write '%s/bisect.json': %s\n", b->ro->out_dir, strerror(-rc));
}

/* ---- worktrees and builds --------------------------------------------- */

static void worktree_drop(struct bisect *b, size_t k)
{
	(void)repo_worktree_remove(&b->repo, b->wt[k].path);
	free(b->wt[k].path);
	b->wt[k] = b->wt[--b->nwt];
}

/* Run --build in path; its output into the commit's build.log. 0 built,
 * 1 the build failed, else an exit status. */
static int build(struct bisect *b, size_t i, const char *path)
{
	if (!b->bo->build)
		return 0;
	char *dir = commit_dir(b, i), *log = path_join(dir, "build.log");
	free(dir);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fail(b, 2, "cannot write '%s': %s", log, strerror(errno));
		free(log);
		return 2;
	}
	char *const argv[] = { (char *)"/bin/sh", (char *)"-c", (char *)b->bo->build, NULL };
	struct child_req req = { .argv = argv, .cwd = path, .out_fd = fd, .stop = &stop_flag };
	say(b, "#%zu %.10s: building (%s)", i, b->repo.hash.v[i], b->bo->build);
	int st = child_run(&req);
	close(fd);
	if (stop_flag) {
		free(log);
		return 130;
	}
	if (st < 0) {
		fail(b, 2, "cannot run --build '%s': %s", b->bo->build, strerror(-st));
		free(log);
		return 2;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		say(b, "#%zu %.10s does not build (%s); skipped", i, b->repo.hash.v[i], log);
		free(log);
		return 1;
	}
	free(log);
	return 0;
}

/* The built worktree of commit i: 0 and *path, 1 when it does not build
 * (marked skipped), else an exit status. */
static int worktree_get(struct bisect *b, size_t i, const char **path)
{
	for (size_t k = 0; k < b->nwt; k++)
		if (b->wt[k].i == i) {
			b->wt[k].used = ++b->clock;
			*path = b->wt[k].path;
			return 0;
		}
	if (!b->tmp) {
		const char *t = getenv("TMPDIR");
		char *tmpl = xasprintf("%s/jostle-bisect-XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(tmpl)) {
			fail(b, 2, "cannot make a temporary directory '%s': %s", tmpl, strerror(errno));
			free(tmpl);
			return 2;
		}
		b->tmp = tmpl;
	}
	if (b->nwt == WORKTREES_MAX) {
		size_t old = 0;
		for (size_t k = 1; k < b->nwt; k++)
			if (b->wt[k].used < b->wt[old].used)
				old = k;
		worktree_drop(b, old);
	}
	char *p = xasprintf("%s/%.12s", b->tmp, b->repo.hash.v[i]), why[512];
	int rc = repo_worktree_add(&b->repo, i, p, why, sizeof(why));
	if (rc < 0) {
		free(p);
		if (stop_flag)
			return 130;
		fail(b, 2, "%s", why);
		return 2;
	}
	b->wt[b->nwt++] = (struct worktree){ .i = i, .path = p, .used = ++b->clock };
	char *dir = commit_dir(b, i);
	(void)make_dir(dir);
	free(dir);
	rc = build(b, i, p);
	if (rc == 1) {
		b->st.c[i].skipped = true;
		worktree_drop(b, b->nwt - 1);
		return 1;
	}
	if (rc)
		return rc;
	*path = p;
	return 0;
}

/* ---- one batch -------------------------------------------------------- */

/*
 * m runs of COMMAND in worktree wt, into results directory dir (absolute),
 * numbered from first, under the conditions po. Returns 0, or an exit
 * status (130 interrupted, 2 COMMAND cannot start, 3).
 */
static int batch(struct bisect *b, size_t i, const char *wt, const char *dir, struct pressure_opts *po,
		 unsigned jobs, uint64_t seed, uint64_t first, uint64_t m)
{
	const char *hash = b->repo.hash.v[i];
	if (chdir(wt) < 0) {
		fail(b, 3, "cannot enter the worktree '%s': %s", wt, strerror(errno));
		return 3;
	}
	char *path = spawn_resolve(b->ro->argv[0]);
	if (!path) {
		int e = errno;
		(void)!fchdir(b->cwd_fd);
		fail(b, 2, "at commit %.10s (#%zu): command '%s' %s", hash, i, b->ro->argv[0],
		     e == EACCES ? "is not executable" : "not found (checked the worktree and PATH)");
		return 2;
	}
	struct run_opts o = *b->ro;
	o.path = path;
	o.out_dir = (char *)dir;
	o.first_index = first;
	o.runs = first + m;
	o.time_ns = b->deadline ? time_left(b) : 0;
	if (b->deadline && o.time_ns <= 0)
		o.time_ns = 1;
	o.seed = seed;
	o.quiet = true;
	o.no_report = true;
	o.pressure = *po;
	o.jobs = jobs;
	o.settings_extra = NULL;
	setenv("JOSTLE_BISECT_COMMIT", hash, 1);

	char *log = path_join(dir, "engine.log"), line[512];
	int status = replay_series(&o, log, line, sizeof(line));
	unsetenv("JOSTLE_BISECT_COMMIT");
	free(path);
	(void)!fchdir(b->cwd_fd);
	if (status == 2) {
		const char *msg = !strncmp(line, "jostle: ", 8) ? line + 8 : line;
		fail(b, 2, "at commit %.10s (#%zu): %s", hash, i, *msg ? msg : "COMMAND could not start");
	} else if (status == 3) {
		fail(b, 3, "at commit %.10s (#%zu): internal error in the engine (see '%s')", hash, i, log);
	} else if (status == 130 || stop_flag) {
		stop_flag = 1;
		status = 130;
	} else {
		status = 0;
	}
	free(log);
	return status;
}

/* ---- learning a configuration (--chaos auto) -------------------------- */

static int learn_load(struct bisect *b, int64_t run)
{
	char *spec = xasprintf("%s/%s:%" PRId64, b->ro->out_dir, LEARN_DIR, run), why[768];
	unsigned rjobs = 0;
	b->fixed = b->ro->pressure;
	int rc = replay_load(&b->fixed, spec, &rjobs, why, sizeof(why));
	free(spec);
	if (rc < 0) {
		fail(b, 2, "the learned configuration: %s", why);
		return 2;
	}
	b->fixed.replay_config_only = true;
	unsigned base = b->ro->pressure.base_jobs ? b->ro->pressure.base_jobs : b->ro->jobs;
	b->jobs = pressure_jobs(&b->fixed, b->bo->jobs_set || !rjobs ? base : rjobs, true);
	b->st.config_run = run;
	free(b->st.config_arm);
	b->st.config_arm = xstrdup(b->fixed.replay_arm);
	return 0;
}

/* The arm that fails most with the bad signature: failure rate with two
 * pseudo-runs at the pooled rate (portfolio.h's prior), so an arm with a
 * lucky first run does not win. Returns the run whose configuration to
 * use, or -1 when nothing failed. */
static int64_t learn_pick(const struct bisect *b)
{
	const struct tally *t = &b->learn;
	const char *id = b->st.sig_id;
	uint64_t fails = id ? tally_fails(t, id) : t->fails;
	if (!fails || !t->runs)
		return -1;
	double pooled = (double)fails / (double)t->runs, best = -1;
	int64_t run = -1;
	for (size_t a = 0; a < t->narms; a++) {
		const struct tally_arm *arm = &t->arms[a];
		uint64_t f = id ? tally_sig_count(arm->sigs, arm->nsigs, id) : 0;
		if (!id)
			for (size_t k = 0; k < arm->nsigs; k++)
				f += arm->sigs[k].count;
		double score = ((double)f + 2 * pooled) / ((double)arm->runs + 2);
		if (score <= best)
			continue;
		best = score;
		run = arm->last_run;
		for (size_t k = 0; f && k < arm->nsigs; k++)
			if (!id || !strcmp(arm->sigs[k].id, id))
				run = arm->sigs[k].last_run;
	}
	return run;
}

/* Run the auto portfolio on the bad revision until it has --learn runs and
 * a failure, then fix the best arm's configuration. 0, or an exit status;
 * b->st.end says when the budget ran out first. */
static int learn(struct bisect *b)
{
	size_t n = b->repo.n;
	char *dir = path_join(b->ro->out_dir, LEARN_DIR);
	int rc = make_dir(dir);
	if (rc < 0 || tally_load(&b->learn, dir) < 0) {
		fail(b, 3, "cannot read '%s/runs.jsonl'", dir);
		free(dir);
		return 3;
	}
	if (b->bo->config_run >= 0) {
		free(dir);
		choose_signature(b);
		return learn_load(b, b->bo->config_run);
	}
	for (;;) {
		choose_signature(b);
		uint64_t f = b->st.any_failure || !b->st.sig_id ? b->learn.fails : tally_fails(&b->learn, b->st.sig_id);
		if (b->learn.runs >= b->bo->learn && f > 0)
			break;
		recount(b);
		uint64_t left = runs_left(b);
		if (!left || !time_left(b)) {
			b->st.end = BE_NEVER_FAILED;
			free(dir);
			return 0;
		}
		uint64_t m = b->learn.runs < b->bo->learn ? b->bo->learn - b->learn.runs : b->bo->learn / 2 + 1;
		if (m > left)
			m = left;
		const char *wt;
		rc = worktree_get(b, n, &wt);
		if (rc == 1) {
			fail(b, 2, "the bad revision %.10s does not build; see '%s/%s/build.log'",
			     b->repo.hash.v[n], b->ro->out_dir, b->st.c[n].dir);
			rc = 2;
		}
		if (rc)
			break;
		say(b, "learning the configuration on the bad revision: %" PRIu64 " runs of --chaos auto", m);
		rc = batch(b, n, wt, dir, &b->ro->pressure, b->ro->jobs, b->st.seed, b->learn.next_index, m);
		tally_release(&b->learn);
		(void)tally_load(&b->learn, dir);
		if (rc)
			break;
	}
	free(dir);
	if (rc)
		return rc;
	choose_signature(b);
	int64_t run = learn_pick(b);
	if (run < 0) {
		b->st.end = BE_NEVER_FAILED;
		return 0;
	}
	rc = learn_load(b, run);
	if (!rc)
		say(b, "every commit is tested under arm '%s' (the configuration of learn run %" PRId64 ")",
		    b->st.config_arm, run);
	return rc;
}

/* ---- the search ------------------------------------------------------- */

/* One batch at commit i. 0, 1 skipped, or an exit status. */
static int test(struct bisect *b, size_t i, uint64_t m)
{
	const char *wt;
	int rc = worktree_get(b, i, &wt);
	if (rc)
		return rc;
	char *dir = commit_dir(b, i), *runs = path_join(dir, "runs.jsonl");
	rc = batch(b, i, wt, dir, &b->fixed, b->jobs, commit_seed(b, i), b->t[i].next_index, m);
	b->st.c[i].tested = access(runs, F_OK) == 0;
	free(runs);
	free(dir);
	if (reload(b, i) < 0 && !rc) {
		fail(b, 3, "cannot read the runs of commit %.10s", b->repo.hash.v[i]);
		rc = 3;
	}
	return rc;
}

static bool decided(struct bisect *b)
{
	struct bstate *s = &b->st;
	size_t n = b->repo.n;
	if (!s->c[n].fails || s->block_p < s->confidence)
		return false;
	if (s->lo != s->hi)
		s->end = BE_SKIPPED;
	else if (s->hi == 0)
		s->end = BE_GOOD_FAILS;
	else
		s->end = BE_FOUND;
	return true;
}

static int search(struct bisect *b)
{
	struct bstate *s = &b->st;
	size_t n = b->repo.n;
	for (;;) {
		if (stop_flag) {
			s->end = BE_INTERRUPTED;
			return 130;
		}
		recount(b);
		if (decided(b))
			return 0;
		uint64_t left = runs_left(b);
		if (!left || !time_left(b)) {
			s->end = s->c[n].fails ? BE_BUDGET : BE_NEVER_FAILED;
			return 0;
		}
		size_t j = n;
		if (s->c[n].fails && !posterior_next(&s->post, b->batch, &j)) {
			s->end = BE_STUCK;
			return 0;
		}
		uint64_t m = b->batch < left ? b->batch : left;
		int rc = test(b, j, m);
		if (rc == 1) {
			if (j == n) {
				fail(b, 2, "the bad revision %.10s does not build; see '%s/%s/build.log'",
				     b->repo.hash.v[n], b->ro->out_dir, s->c[n].dir);
				return 2;
			}
			recount(b);
			save(b);
			continue;
		}
		if (rc == 130) {
			s->end = BE_INTERRUPTED;
			recount(b);
			return 130;
		}
		if (rc)
			return rc;
		recount(b);
		save(b);
		const struct bstate_commit *c = &s->c[j];
		size_t best = posterior_best(&s->post, NULL);
		say(b, "#%zu %.10s: %" PRIu64 " of %" PRIu64 " runs failed there; most likely #%zu %.10s "
		    "(p %.3f); %" PRIu64 " runs", j, b->repo.hash.v[j], c->fails, c->runs, best,
		    b->repo.hash.v[best], s->post.p[best], s->runs_total);
	}
}

/* ---- set-up and the end ----------------------------------------------- */

static void finish(struct bisect *b)
{
	struct bstate *s = &b->st;
	recount(b);
	if (s->end == BE_RUNNING && !b->status)
		(void)decided(b);
	save(b);
	struct dbuf show, text;
	dbuf_init(&show, 1u << 20);
	dbuf_init(&text, 16u << 20);
	if (s->end == BE_FOUND && repo_show_stat(&b->repo, s->hi, &show) < 0)
		dbuf_reset(&show);
	verdict_render(s, dbuf_str(&show), true, &text);
	char *md = path_join(b->ro->out_dir, "report.md");
	if (fileio_write_file(md, text.buf, text.len) < 0)
		fprintf(stderr, "jostle: cannot write '%s'\n", md);
	free(md);
	dbuf_reset(&text);
	verdict_render(s, dbuf_str(&show), false, &text);
	/* an error before any run (a command not found) was said on stderr: a
	 * table of untested commits would only bury it */
	if (s->end != BE_ERROR || s->runs_total)
		fputs(dbuf_str(&text), stdout);
	fflush(stdout);
	dbuf_release(&show);
	dbuf_release(&text);
	/* the per-commit reports, once (the batches skipped them) */
	for (size_t i = 0; !b->ro->no_report && i <= b->repo.n; i++) {
		if (!s->c[i].tested)
			continue;
		char *dir = commit_dir(b, i);
		struct finish_req f = { .dir = dir, .reports = true, .stop_reason = "bisect" };
		(void)finish_series(&f);
		free(dir);
	}
}

static void cleanup(struct bisect *b)
{
	b->repo.stop = NULL;   /* removing the worktrees must not be cut short by Ctrl-C */
	while (b->nwt)
		worktree_drop(b, b->nwt - 1);
	if (b->tmp) {
		rmdir(b->tmp);
		free(b->tmp);
	}
	for (size_t i = 0; b->t && i <= b->repo.n; i++)
		tally_release(&b->t[i]);
	free(b->t);
	tally_release(&b->learn);
	free(b->st.c);
	free(b->st.sig_id);
	free(b->st.sig_key);
	free(b->st.config_arm);
	free(b->st.error);
	posterior_release(&b->st.post);
	if (b->cwd_fd >= 0)
		close(b->cwd_fd);
}

int bisect_run(struct bisect_opts *bo)
{
	struct bisect b;
	struct sigaction sa, old[3];
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };

	memset(&b, 0, sizeof(b));
	b.bo = bo;
	b.ro = bo->run;
	b.cwd_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	b.repo = *bo->repo;
	b.repo.stop = &stop_flag;
	b.start = clock_mono_ns();
	b.deadline = b.ro->time_ns ? b.start + b.ro->time_ns : 0;
	stop_flag = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;   /* no SA_RESTART: a wait in flight returns at once */
	sigemptyset(&sa.sa_mask);
	for (int k = 0; k < 3; k++)
		sigaction(sigs[k], &sa, &old[k]);

	int rc;
	size_t n = b.repo.n;
	struct bstate *s = &b.st;
	s->repo = &b.repo;
	s->c = xcalloc(n + 1, sizeof(*s->c));
	s->seed = b.ro->seed;
	s->confidence = bo->confidence;
	s->any_failure = bo->any_failure;
	s->config_run = -1;
	s->args = bo->args;
	s->nargs = bo->nargs;
	posterior_init(&s->post, n);
	b.t = xcalloc(n + 1, sizeof(*b.t));
	char *commits = path_join(b.ro->out_dir, "commits");
	(void)make_dir(commits);
	free(commits);
	for (size_t i = 0; i <= n; i++) {
		snprintf(s->c[i].dir, sizeof(s->c[i].dir), "commits/%.12s", b.repo.hash.v[i]);
		for (size_t k = 0; k < bo->nskipped; k++)
			if (!strcmp(bo->skipped[k], b.repo.hash.v[i]))
				s->c[i].skipped = true;
		char *dir = commit_dir(&b, i), *runs = path_join(dir, "runs.jsonl");
		if (access(runs, F_OK) == 0) {
			s->c[i].tested = true;
			(void)reload(&b, i);
		}
		free(dir);
		free(runs);
	}
	const struct pressure_opts *po = &b.ro->pressure;
	b.auto_chaos = po->any && !po->replay && (!po->chaos_set || po->chaos == CHAOS_AUTO);
	b.fixed = *po;
	b.jobs = b.ro->jobs;
	say(&b, "bisecting %zu commits from %.10s to %.10s; results in %s (seed 0x%016" PRIx64 ")", n,
	    b.repo.hash.v[0], b.repo.hash.v[n], b.ro->out_dir, s->seed);
	rc = 0;
	if (b.auto_chaos) {
		rc = learn(&b);
		if (rc == 130)
			s->end = BE_INTERRUPTED;
	}
	b.batch = bo->batch ? bo->batch : (2 * b.jobs > 20 ? 2 * b.jobs : 20);
	if (!rc && s->end == BE_RUNNING)
		rc = search(&b);
	if (rc == 130 || stop_flag)
		s->end = BE_INTERRUPTED;
	if (!b.status)
		b.status = rc;
	finish(&b);
	if (!b.status && s->end != BE_FOUND)
		b.status = s->end == BE_INTERRUPTED ? 130 : 1;
	if (s->end == BE_INTERRUPTED)
		b.status = 130;
	cleanup(&b);
	for (int k = 0; k < 3; k++)
		sigaction(sigs[k], &old[k], NULL);
	return b.status;
}
