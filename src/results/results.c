/*
 * results.c: read runs.jsonl files and aggregate them (see results.h).
 *
 * Lines are parsed one at a time with cJSON and folded into counters keyed
 * by signature, cell and configuration (small open-addressing string maps),
 * histograms whose bins double in width as values grow, and a capped list
 * of failure points. A line that does not parse (a writer killed mid-line)
 * or is not an object is counted and skipped, as docs/FORMAT.md asks.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "results/results.h"
#include "util/jsonr.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* ---- string -> index map ---- */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static size_t *strmap_slot(struct strmap *m, const char *key, bool *found)
{
	size_t i = (size_t)hash_str(key) & (m->cap - 1);
	while (m->keys[i]) {
		if (!strcmp(m->keys[i], key)) {
			*found = true;
			return &m->vals[i];
		}
		i = (i + 1) & (m->cap - 1);
	}
	*found = false;
	return &m->vals[i];
}

static void strmap_grow(struct strmap *m)
{
	struct strmap old = *m;
	m->cap = old.cap ? old.cap * 2 : 16;
	m->keys = xcalloc(m->cap, sizeof(*m->keys));
	m->vals = xcalloc(m->cap, sizeof(*m->vals));
	m->nr = 0;
	for (size_t i = 0; i < old.cap; i++) {
		if (!old.keys[i])
			continue;
		bool found;
		size_t *v = strmap_slot(m, old.keys[i], &found);
		*v = old.vals[i];
		m->keys[v - m->vals] = old.keys[i];
		m->nr++;
	}
	free(old.keys);
	free(old.vals);
}

/* Index stored for key, or SIZE_MAX after reserving a slot that
 * strmap_set() then fills. */
static size_t strmap_get(struct strmap *m, const char *key)
{
	if (!m->cap)
		return SIZE_MAX;
	bool found;
	size_t *v = strmap_slot(m, key, &found);
	return found ? *v : SIZE_MAX;
}

static void strmap_set(struct strmap *m, const char *key, size_t val)
{
	if ((m->nr + 1) * 2 > m->cap)
		strmap_grow(m);
	bool found;
	size_t *v = strmap_slot(m, key, &found);
	if (!found) {
		m->keys[v - m->vals] = xstrdup(key);
		m->nr++;
	}
	*v = val;
}

static void strmap_release(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* ---- histograms ---- */

static void hist_add(struct results_hist *h, double x, bool fail)
{
	if (!(x >= 0.0))
		x = 0.0;
	while (x >= h->width * RESULTS_BINS && h->width < 1e300) {
		for (int i = 0; i < RESULTS_BINS / 2; i++) {
			h->runs[i] = h->runs[2 * i] + h->runs[2 * i + 1];
			h->fails[i] = h->fails[2 * i] + h->fails[2 * i + 1];
		}
		memset(h->runs + RESULTS_BINS / 2, 0, sizeof(h->runs) / 2);
		memset(h->fails + RESULTS_BINS / 2, 0, sizeof(h->fails) / 2);
		h->width *= 2.0;
	}
	int i = (int)(x / h->width);
	if (i >= RESULTS_BINS)
		i = RESULTS_BINS - 1;
	h->runs[i]++;
	if (fail)
		h->fails[i]++;
}

double results_dur_edge(int i)
{
	return RESULTS_DUR_MIN * pow(10.0, i / 6.0);
}

static int dur_bin(double s)
{
	if (!(s > RESULTS_DUR_MIN))
		return 0;
	int i = (int)floor(log10(s / RESULTS_DUR_MIN) * 6.0);
	return i < 0 ? 0 : i >= RESULTS_DUR_BINS ? RESULTS_DUR_BINS - 1 : i;
}

/* ---- cJSON helpers ---- */

static char *jdup(const cJSON *o, const char *key)
{
	const char *s = jsonr_str(o, key);
	return s ? xstrdup(s) : NULL;
}

static char *jtext(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v || cJSON_IsNull(v))
		return NULL;
	return cJSON_PrintUnformatted(v);
}

bool results_is_failure(const char *o)
{
	return o && (!strcmp(o, "fail") || !strcmp(o, "crash") || !strcmp(o, "hang"));
}

void results_init(struct results *r)
{
	memset(r, 0, sizeof(*r));
	r->by_index.width = 1.0;
	r->by_time.width = 0.1;
	r->totals.run_max = -1;
}

static void add_series(struct results *r, const cJSON *o, size_t dir)
{
	const char *id = jsonr_str(o, "series");
	if (id && strmap_get(&r->series_map, id) != SIZE_MAX)
		return;   /* the same series twice (a resumed run): keep the first */
	ALLOC_GROW(r->series, r->series_nr + 1, r->series_alloc);
	struct results_series *s = &r->series[r->series_nr];
	memset(s, 0, sizeof(*s));
	s->id = jdup(o, "series");
	s->jostle = jdup(o, "jostle");
	s->cwd = jdup(o, "cwd");
	s->start = jdup(o, "start");
	s->seed = jdup(o, "seed");
	s->settings = jtext(o, "settings");
	const cJSON *argv = cJSON_GetObjectItemCaseSensitive(o, "argv"), *a;
	cJSON_ArrayForEach(a, argv)
		if (cJSON_IsString(a))
			strvec_push(&s->argv, a->valuestring);
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "machine");
	s->hostname = jdup(m, "hostname");
	s->kernel = jdup(m, "kernel");
	s->cpus = (int64_t)jsonr_num(m, "cpus", -1);
	s->mem_mb = (int64_t)jsonr_num(m, "mem_mb", -1);
	s->loadavg = jsonr_num(m, "loadavg", -1);
	s->dir = dir;
	s->elapsed_s = -1;
	const cJSON *set = cJSON_GetObjectItemCaseSensitive(o, "settings");
	s->timeout_s = jsonr_num(set, "timeout_s", 0);
	s->time_s = jsonr_num(set, "time_s", 0);
	const cJSON *shard = cJSON_GetObjectItemCaseSensitive(o, "shard");
	double k = jsonr_num(shard, "index", -1), n = jsonr_num(shard, "count", 0);
	if (n >= 1 && k >= 0 && k < n) {
		s->shard_index = (uint64_t)k;
		s->shard_count = (uint64_t)n;
	}
	if (id)
		strmap_set(&r->series_map, id, r->series_nr);
	r->series_nr++;
}

static struct results_group *group_get(struct strmap *map, struct results_group **arr,
				       size_t *nr, size_t *alloc, const char *key)
{
	size_t i = strmap_get(map, key);
	if (i == SIZE_MAX) {
		ALLOC_GROW(*arr, *nr + 1, *alloc);
		i = (*nr)++;
		memset(&(*arr)[i], 0, sizeof((*arr)[i]));
		(*arr)[i].key = xstrdup(key);
		strmap_set(map, key, i);
	}
	return &(*arr)[i];
}

void results_group_uncounted(char *buf, size_t len, const struct results_group *g)
{
	size_t off = 0;
	buf[0] = '\0';
	const uint64_t v[] = { g->slow, g->cut, g->skip };
	static const char *const what[] = { "slow", "cut", "skipped" };
	for (size_t i = 0; i < 3 && off < len; i++)
		if (v[i])
			off += (size_t)snprintf(buf + off, len - off, "%s%" PRIu64 " %s",
						off ? ", " : "", v[i], what[i]);
}

/*
 * The run's matrix cell, chaos arm and configuration. OUTCOME is one of
 * "pass", "fail" (any failure), "slow", "cut", "skip": the uncounted ones
 * are kept apart in every group, so a table never shows a slow run as a
 * clean one, and their time is the group's time all the same.
 */
static void add_groups(struct results *r, const cJSON *o, const char *outcome, double wall)
{
	struct results_group *g[3] = { NULL, NULL, NULL };
	const char *cell = jsonr_str(o, "cell");
	if (cell && *cell)
		g[0] = group_get(&r->cell_map, &r->cells, &r->cells_nr, &r->cells_alloc, cell);
	const cJSON *config = cJSON_GetObjectItemCaseSensitive(o, "config");
	const cJSON *arm = cJSON_GetObjectItemCaseSensitive(config, "arm");
	if (cJSON_IsString(arm) && *arm->valuestring)
		g[1] = group_get(&r->arm_map, &r->arms, &r->arms_nr, &r->arms_alloc, arm->valuestring);
	if (cJSON_IsObject(config) && config->child) {
		char *text = cJSON_PrintUnformatted(config);
		if (text) {
			g[2] = group_get(&r->config_map, &r->configs, &r->configs_nr,
					 &r->configs_alloc, text);
			free(text);
		}
	}
	const char *via = jsonr_str(config, "cpus_via");
	if (via && *via && strcmp(via, "none") && !r->totals.cpus_via)
		r->totals.cpus_via = xstrdup(via);
	double jobs = jsonr_num(config, "jobs", 0), machine = jsonr_num(o, "machine_s", -1);
	for (int i = 0; i < 3; i++) {
		if (!g[i])
			continue;
		if (!strcmp(outcome, "slow"))
			g[i]->slow++;
		else if (!strcmp(outcome, "cut"))
			g[i]->cut++;
		else if (!strcmp(outcome, "skip"))
			g[i]->skip++;
		else
			g[i]->runs++;
		g[i]->fails += !strcmp(outcome, "fail");
		g[i]->wall_s += wall;
		if (machine >= 0)
			g[i]->machine_s += machine;
		else
			g[i]->unshared++;
		if (jobs >= 1 && (uint64_t)jobs > g[i]->jobs)
			g[i]->jobs = (uint64_t)jobs;
	}
}

/*
 * Whether the run went past its timeout, and doing what: the record's
 * "late" (progressing, spinning or stuck), else what its outcome says (a
 * slow run was progressing, a hang was stuck, or spinning when its kind
 * is busy-wait). A cut run was past its timeout when its deadline had
 * been extended ("timeout_scale": it was judged not stuck, so progressing)
 * or it ran longer than the series' --timeout (not judged yet: stuck or
 * not, nobody knows); else it was cut before its timeout.
 */
static void add_late(struct results *r, const cJSON *o, const char *outcome, double wall)
{
	struct results_totals *tot = &r->totals;
	const char *late = jsonr_str(o, "late");
	if (late && !strcmp(late, "stalled")) {   /* a deadlock seen before its timeout */
		tot->stalled++;
		tot->in_time++;
		return;
	}
	bool slow = !strcmp(outcome, "slow"), hang = !strcmp(outcome, "hang");
	bool cut = !strcmp(outcome, "cut");
	bool scaled = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "timeout_scale"));
	double timeout = 0;
	const char *sid = jsonr_str(o, "series");
	size_t si = sid ? strmap_get(&r->series_map, sid) : SIZE_MAX;
	if (si != SIZE_MAX)
		timeout = r->series[si].timeout_s;
	bool cut_late = cut && (scaled || (timeout > 0 && wall > timeout));
	if (!late && !slow && !hang && !cut_late) {
		if (cut)
			tot->cut_early++;
		else
			tot->in_time++;
		return;
	}
	const char *kind = jsonr_str(o, "sig_kind");
	if (!late && cut && !scaled) {
		tot->outlasted++;
		tot->late_unjudged++;
		if (wall > tot->late_wall_max)
			tot->late_wall_max = wall;
		return;
	}
	if (!late)
		late = slow || cut ? "progressing" : kind && !strcmp(kind, "busy-wait") ? "spinning" : "stuck";
	tot->outlasted++;
	if (!strcmp(late, "progressing"))
		tot->late_progressing++;
	else if (!strcmp(late, "spinning"))
		tot->late_spinning++;
	else
		tot->late_stuck++;
	if (wall > tot->late_wall_max)
		tot->late_wall_max = wall;
}

static size_t sig_get(struct results *r, const cJSON *o, const char *outcome,
		      size_t dir, int64_t run, double t)
{
	char idbuf[64];
	const char *id = jsonr_str(o, "sig_id");
	if (!id) {
		snprintf(idbuf, sizeof(idbuf), "-%s", outcome);
		id = idbuf;
	}
	size_t i = strmap_get(&r->sig_map, id);
	if (i != SIZE_MAX)
		return i;
	ALLOC_GROW(r->sigs, r->sigs_nr + 1, r->sigs_alloc);
	i = r->sigs_nr++;
	struct results_sig *s = &r->sigs[i];
	memset(s, 0, sizeof(*s));
	s->id = xstrdup(id);
	s->kind = jdup(o, "sig_kind");
	if (!s->kind)
		s->kind = xstrdup(outcome);
	s->key = jdup(o, "sig_key");
	s->key_line = jdup(o, "key_line");
	s->key_guessed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "key_guessed"));
	const cJSON *frames = cJSON_GetObjectItemCaseSensitive(o, "frames"), *f;
	cJSON_ArrayForEach(f, frames)
		if (cJSON_IsString(f))
			strvec_push(&s->frames, f->valuestring);
	s->log = jdup(o, "log");
	s->stacks = jdup(o, "stacks");
	s->diag = jtext(o, "diag");
	s->cell = jdup(o, "cell");
	s->dir = dir;
	s->example_run = run;
	s->first_run = s->last_run = run;
	s->first_t = s->last_t = t;
	strmap_set(&r->sig_map, id, i);
	return i;
}

bool results_test_flaky(const struct results_test *t)
{
	return t->fails > 0 && t->fails < t->runs;
}

bool results_test_always_fails(const struct results_test *t)
{
	return t->runs > 0 && t->fails == t->runs;
}

double results_test_sd(const struct results_test *t)
{
	if (t->timed < 2)
		return -1;
	double n = (double)t->timed, mean = t->tsum / n;
	double var = (t->tsq - n * mean * mean) / (n - 1);
	return var > 0 ? sqrt(var) : 0;
}

static struct results_test *test_get(struct results *r, const char *name, size_t dir)
{
	size_t i = strmap_get(&r->test_map, name);
	if (i != SIZE_MAX)
		return &r->tests[i];
	ALLOC_GROW(r->tests, r->tests_nr + 1, r->tests_alloc);
	i = r->tests_nr++;
	struct results_test *t = &r->tests[i];
	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	t->first_fail = t->last_fail = -1;
	t->dir = dir;
	strmap_set(&r->test_map, name, i);
	return t;
}

/* The run's "tests" (docs/FORMAT.md), each test counted once per run. */
static void add_tests(struct results *r, const cJSON *o, size_t dir, int64_t run)
{
	const cJSON *tests = cJSON_GetObjectItemCaseSensitive(o, "tests"), *e;
	if (!cJSON_IsArray(tests))
		return;
	r->totals.with_tests++;
	cJSON_ArrayForEach(e, tests) {
		const char *name = jsonr_str(e, "name"), *outcome = jsonr_str(e, "outcome");
		if (!name || !outcome)
			continue;
		struct results_test *t = test_get(r, name, dir);
		if (t->seen_in == r->totals.records)
			continue;   /* the same test twice in one run (two reports of it) */
		t->seen_in = r->totals.records;
		if (!strcmp(outcome, "skip")) {
			t->skips++;
			continue;
		}
		bool failed = strcmp(outcome, "pass") != 0;
		t->runs++;
		double time = jsonr_num(e, "time", -1);
		if (time >= 0) {
			t->tsum += time;
			t->tsq += time * time;
			t->tmin = t->timed && t->tmin < time ? t->tmin : time;
			t->tmax = t->tmax > time ? t->tmax : time;
			t->timed++;
		}
		if (!failed)
			continue;
		t->fails++;
		t->crashes += !strcmp(outcome, "crash");
		t->hangs += !strcmp(outcome, "hang");
		if (t->first_fail < 0 || run < t->first_fail)
			t->first_fail = run;
		if (run > t->last_fail)
			t->last_fail = run;
		if (!t->log)
			t->log = jdup(o, "log");
		const char *id = jsonr_str(e, "sig_id");
		int k;
		for (k = 0; k < RESULTS_TEST_KEYS && t->sig_id[k]; k++)
			if (id && !strcmp(t->sig_id[k], id))
				break;
		if (k < RESULTS_TEST_KEYS && !t->sig_id[k]) {
			t->sig_id[k] = xstrdup(id ? id : "-");
			t->key_line[k] = jdup(e, "key_line");
		}
		if (k < RESULTS_TEST_KEYS)
			t->sig_count[k]++;
		else
			t->other_sigs++;
	}
}

static void add_run(struct results *r, const cJSON *o, size_t dir)
{
	struct results_totals *tot = &r->totals;
	const char *outcome = jsonr_str(o, "outcome");
	tot->records++;
	add_tests(r, o, dir, (int64_t)jsonr_num(o, "run", -1));
	if (!outcome) {
		tot->other++;
		return;
	}
	if (!strcmp(outcome, "ignored")) {
		tot->ignored++;
		return;
	}
	bool fail = results_is_failure(outcome);
	bool cut = !strcmp(outcome, "cut"), slow = !strcmp(outcome, "slow"),
	     skip = !strcmp(outcome, "skip");
	if (!fail && !cut && !slow && !skip && strcmp(outcome, "pass")) {
		tot->other++;
		return;
	}
	int64_t run = (int64_t)jsonr_num(o, "run", -1);
	double t = jsonr_num(o, "t", NAN), wall = jsonr_num(o, "wall_s", 0);
	if (!(wall >= 0))
		wall = 0;
	add_late(r, o, outcome, wall);
	add_groups(r, o, fail ? "fail" : outcome, wall);
	/* ended by the series' end, past the timeout but not stuck, or
	 * skipped by the program itself: neither pass nor fail */
	if (cut || slow || skip) {
		tot->cut += cut;
		tot->slow += slow;
		tot->skip += skip;
		return;
	}
	tot->counted++;
	if (!strcmp(outcome, "pass"))
		tot->pass++;
	else if (!strcmp(outcome, "fail"))
		tot->fail++;
	else if (!strcmp(outcome, "crash"))
		tot->crash++;
	else
		tot->hang++;
	if (fail)
		tot->failures++;
	tot->wall_sum += wall;
	if (wall > tot->wall_max)
		tot->wall_max = wall;
	if (run > tot->run_max)
		tot->run_max = run;
	if (run >= 0)
		hist_add(&r->by_index, (double)run, fail);
	if (isfinite(t)) {
		tot->have_t = true;
		if (t + wall > tot->t_end)
			tot->t_end = t + wall;
		hist_add(&r->by_time, t, fail);
	}
	int db = dur_bin(wall);
	if (!strcmp(outcome, "hang"))
		r->dur_hang[db]++;
	else if (fail)
		r->dur_fail[db]++;
	else
		r->dur_pass[db]++;

	const char *sid = jsonr_str(o, "series");
	if (sid) {
		size_t si = strmap_get(&r->series_map, sid);
		if (si != SIZE_MAX)
			r->series[si].runs++;
	}
	if (!fail)
		return;
	size_t si = sig_get(r, o, outcome, dir, run, t);
	struct results_sig *s = &r->sigs[si];
	s->count++;
	s->wall_sum += wall;
	if (run < s->first_run) {
		s->first_run = run;
	}
	if (run > s->last_run)
		s->last_run = run;
	if (isfinite(t)) {
		if (!isfinite(s->first_t) || t < s->first_t)
			s->first_t = t;
		if (!isfinite(s->last_t) || t > s->last_t)
			s->last_t = t;
	}
	if (r->points_nr < RESULTS_MAX_POINTS) {
		ALLOC_GROW(r->points, r->points_nr + 1, r->points_alloc);
		r->points[r->points_nr++] = (struct results_point){ run, t, (uint32_t)si };
	} else {
		r->points_truncated = true;
	}
}

static void add_end(struct results *r, const cJSON *o)
{
	const char *id = jsonr_str(o, "series");
	size_t si = id ? strmap_get(&r->series_map, id) : SIZE_MAX;
	if (si == SIZE_MAX)
		return;
	struct results_series *s = &r->series[si];
	free(s->stop);
	s->stop = jdup(o, "stop");
	s->ended = true;
	s->interrupted = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "interrupted"));
	s->elapsed_s = jsonr_num(o, "elapsed_s", -1);
}

bool results_add_json(struct results *r, const void *obj, size_t dir)
{
	const cJSON *o = obj;
	const char *type = jsonr_str(o, "type");
	if (!type)
		return false;
	if (!strcmp(type, "series"))
		add_series(r, o, dir);
	else if (!strcmp(type, "run"))
		add_run(r, o, dir);
	else if (!strcmp(type, "end"))
		add_end(r, o);
	else
		return false;
	return true;
}

void *results_parse_line(const char *line, size_t len)
{
	if (!len || memchr(line, '\0', len))
		return NULL;
	cJSON *o = cJSON_ParseWithLength(line, len);
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

ssize_t results_next_line(FILE *f, char **line, size_t *cap, bool *cut)
{
	ssize_t len;
	for (;;) {
		len = getline(line, cap, f);
		if (len < 0)
			return -1;
		*cut = (*line)[len - 1] != '\n';
		while (len > 0 && ((*line)[len - 1] == '\n' || (*line)[len - 1] == '\r'))
			(*line)[--len] = '\0';
		if (len > 0)
			return len;
	}
}

int results_load_file(struct results *r, const char *path, size_t dir)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	bool cut;
	while ((len = results_next_line(f, &line, &cap, &cut)) >= 0) {
		r->totals.lines++;
		cJSON *o = cut ? NULL : results_parse_line(line, (size_t)len);
		if (!o) {
			r->totals.bad_lines++;
			r->totals.cut_lines += cut;
			continue;
		}
		/* JSON of no record type is skipped like a line that does not parse */
		if (!results_add_json(r, o, dir))
			r->totals.bad_lines++;
		cJSON_Delete(o);
	}
	int err = ferror(f) ? -EIO : 0;
	free(line);
	fclose(f);
	return err;
}

int results_load_dir(struct results *r, const char *dir)
{
	size_t di = r->dirs.nr;
	strvec_push(&r->dirs, dir);
	char *path = xasprintf("%s/runs.jsonl", dir);
	int err = results_load_file(r, path, di);
	free(path);
	return err;
}

int results_load_dir_checked(struct results *r, const char *dir, char *why, size_t len)
{
	struct results_totals was = r->totals;
	*why = '\0';
	int err = results_load_dir(r, dir);
	if (err < 0)
		return err;
	uint64_t lines = r->totals.lines - was.lines;
	uint64_t bad = r->totals.bad_lines - was.bad_lines;
	uint64_t cut = r->totals.cut_lines - was.cut_lines;
	if (lines && bad == lines && bad > cut) {   /* not only what a killed writer cut */
		snprintf(why, len, "'%s/runs.jsonl' holds no jostle records (%" PRIu64 " line%s, "
			 "none a series or run); is '%s' a directory written by jostle run?",
			 dir, lines, lines == 1 ? "" : "s", dir);
		return -EBADMSG;
	}
	/* a cut last line is what a killed writer leaves: no news */
	if (bad > cut)
		snprintf(why, len, "%" PRIu64 " line%s of '%s/runs.jsonl' %s; ignored", bad - cut,
			 bad - cut == 1 ? "" : "s", dir,
			 bad - cut == 1 ? "is not a run record" : "are not run records");
	return 0;
}

static const struct results *sort_ctx;

static int by_count_desc(const void *a, const void *b)
{
	const struct results_sig *x = &sort_ctx->sigs[*(const size_t *)a];
	const struct results_sig *y = &sort_ctx->sigs[*(const size_t *)b];
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->id, y->id);
}

static int by_test_fails(const void *a, const void *b)
{
	const struct results_test *x = &sort_ctx->tests[*(const size_t *)a];
	const struct results_test *y = &sort_ctx->tests[*(const size_t *)b];
	if (x->fails != y->fails)
		return x->fails < y->fails ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int group_cmp(const void *a, const void *b)
{
	return strcmp(((const struct results_group *)a)->key,
		      ((const struct results_group *)b)->key);
}

void results_finish(struct results *r)
{
	free(r->sig_order);
	r->sig_order = xcalloc(r->sigs_nr + 1, sizeof(*r->sig_order));
	for (size_t i = 0; i < r->sigs_nr; i++)
		r->sig_order[i] = i;
	sort_ctx = r;
	if (r->sigs_nr)
		qsort(r->sig_order, r->sigs_nr, sizeof(*r->sig_order), by_count_desc);
	free(r->test_order);
	r->test_order = xcalloc(r->tests_nr + 1, sizeof(*r->test_order));
	for (size_t i = 0; i < r->tests_nr; i++)
		r->test_order[i] = i;
	if (r->tests_nr)
		qsort(r->test_order, r->tests_nr, sizeof(*r->test_order), by_test_fails);
	sort_ctx = NULL;
	/* the maps point into these arrays: drop them before sorting */
	strmap_release(&r->cell_map);
	strmap_release(&r->config_map);
	strmap_release(&r->arm_map);
	if (r->arms_nr)
		qsort(r->arms, r->arms_nr, sizeof(*r->arms), group_cmp);
	if (r->cells_nr)
		qsort(r->cells, r->cells_nr, sizeof(*r->cells), group_cmp);
	if (r->configs_nr)
		qsort(r->configs, r->configs_nr, sizeof(*r->configs), group_cmp);
}

void results_release(struct results *r)
{
	for (size_t i = 0; i < r->series_nr; i++) {
		struct results_series *s = &r->series[i];
		free(s->id);
		free(s->jostle);
		free(s->cwd);
		free(s->start);
		free(s->seed);
		free(s->settings);
		free(s->hostname);
		free(s->kernel);
		free(s->stop);
		strvec_release(&s->argv);
	}
	free(r->series);
	for (size_t i = 0; i < r->sigs_nr; i++) {
		struct results_sig *s = &r->sigs[i];
		free(s->id);
		free(s->kind);
		free(s->key);
		free(s->key_line);
		strvec_release(&s->frames);
		free(s->log);
		free(s->stacks);
		free(s->diag);
		free(s->cell);
	}
	free(r->sigs);
	free(r->sig_order);
	for (size_t i = 0; i < r->cells_nr; i++)
		free(r->cells[i].key);
	free(r->cells);
	for (size_t i = 0; i < r->configs_nr; i++)
		free(r->configs[i].key);
	free(r->configs);
	for (size_t i = 0; i < r->arms_nr; i++)
		free(r->arms[i].key);
	free(r->arms);
	for (size_t i = 0; i < r->tests_nr; i++) {
		struct results_test *t = &r->tests[i];
		free(t->name);
		free(t->log);
		for (int k = 0; k < RESULTS_TEST_KEYS; k++) {
			free(t->sig_id[k]);
			free(t->key_line[k]);
		}
	}
	free(r->tests);
	free(r->test_order);
	strmap_release(&r->test_map);
	free(r->points);
	free(r->totals.cpus_via);
	strmap_release(&r->sig_map);
	strmap_release(&r->cell_map);
	strmap_release(&r->config_map);
	strmap_release(&r->series_map);
	strmap_release(&r->arm_map);
	strvec_release(&r->dirs);
	results_init(r);
}
