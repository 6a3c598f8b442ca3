/*
 * series.c: the engine of `jostle run` (see series.h).
 *
 * One thread, one poll() loop; hang diagnoses run on worker threads
 * (diagpool.h) whose results come back through a pipe in the same poll, so
 * the loop never waits on them. Signals (SIGCHLD, SIGINT, SIGTERM, SIGHUP)
 * are blocked and read from a signalfd, so there are no handlers to race
 * with; children start with the original mask. Every run's output pipe is
 * non-blocking on our side. Deadlines (timeouts, kill escalation, the time
 * budget, progress ticks) bound the poll timeout, so a hang is noticed
 * within a millisecond or two of its deadline.
 *
 * A run is finished only when its main child was reaped, nothing it started
 * is alive any more (group + reparented orphans, see reap.h), its pipe
 * reached EOF (or everything holding it was killed) and its diagnosis
 * worker, if it had one, is back. Only then is it
 * classified and written to runs.jsonl, in one write() per line.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diagnose/proctree.h"
#include "diagnose/stall.h"
#include "pressure/cpuset.h"
#include "results/finish.h"
#include "run/machine.h"
#include "run/diagpool.h"
#include "run/late.h"
#include "run/guardian.h"
#include "run/matrix.h"
#include "run/progress.h"
#include "run/reap.h"
#include "run/record.h"
#include "run/series.h"
#include "run/share.h"
#include "signature/crash.h"
#include "util/clock.h"
#include "util/fileio.h"
#include "util/jsonw.h"
#include "util/path.h"
#include "util/regex.h"
#include "util/rng.h"
#include "util/spawn.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define CLEANUP_DRAIN_NS (100 * NS_PER_MS)  /* wait for EOF after everything died */
#define READ_BUDGET (1u << 20)              /* bytes read from one pipe per loop turn */

struct series {
	struct run_opts *o;
	struct guardian guard;      /* ends our runs if we are killed (guardian.h) */
	struct run *slots;          /* nslots: -j runs plus those handed to diagnosis */
	unsigned nslots;
	pid_t *pidbuf;              /* nslots entries: scratch for main_pids() */
	unsigned active;            /* runs holding a -j slot */
	unsigned live;              /* runs in any slot */
	struct share_clock share;   /* each run's share of the machine's time (share.h) */
	struct diagpool pool;       /* hang diagnosis workers (window_ms > 0) */
	bool diag_on;
	uint64_t next_index;
	int sigfd;
	int devnull;
	int jsonl_fd;
	sigset_t child_mask;
	char series_id[17];
	int64_t start_mono, start_real, end_budget;
	bool stopping;
	bool budget_spent;          /* the time budget ended the series: runs in
				     * flight cut at end_budget + overrun_ns */
	bool budget_cut;            /* ... and they were */
	bool interrupted;
	int interrupts;
	const char *stop_reason;
	int start_error;            /* -errno of an exec failure: exit 2 */
	int write_error;            /* -errno: the results could not be written: exit 3 */
	uint64_t records_without;   /* runs without a crash record (rundiag_stop) */
	uint64_t records_taken;     /* ... whose crashes took their records' signature */
	unsigned fd_cap;            /* runs at a time since a start ran out of descriptors (0: jobs) */
	/* Live counts for the stopping rules and the exit status; the end
	 * of the series is told from runs.jsonl (series_reports). */
	uint64_t by_outcome[OUT__COUNT];
	int64_t first_pass_logged;  /* run index of the logged passing run, or -1 */
	struct progress prog;
	/* The environment of every child: the user's, then our variables.
	 * Our slots are rewritten in place for each run (no copying). */
	struct strvec env;
	size_t env_run, env_seed, env_seed32;
	ptrdiff_t env_crash;        /* JOSTLE_CRASH_DIR's slot, -1 without the crash handler */
	size_t env_delay;           /* JOSTLE_DELAY_SLOT's (delays.h) */
	char delay_var[40], *delay_slot;   /* ... and the vector's own string of it */
	struct delays delays;       /* what the chaos library did to each run (delays.h) */
	struct late_ref late_ref;   /* passing runs, for the verdict on late ones (late.h) */
	struct late_ref unloaded;   /* ... those no load of jostle's slowed: their CPU rate */
	char *crash_var;            /* borrowed: that slot's own string */
	char run_var[40], seed_var[48], seed32_var[32];
	struct dbuf text;           /* scratch: a run's captured text */
	struct dbuf text_sym;       /* scratch: that text with sanitizer frames named */
	struct dbuf line;           /* scratch: one record */
	struct strvec argv_run;     /* scratch: a run's own argv (runtests_argv) */
	struct pressure pr;         /* pressure and chaos (pressure.h) */
	char *settings_extra;       /* owned: pressure's "settings" members */
	/* --matrix (issue 6): one label, environment and CPU set per cell */
	struct cell_plan *cells;
};

/* ---- matrix cells (issue 6) ----------------------------------------- */

struct cell_plan {
	char label[512];
	struct strvec env;          /* the whole environment of a run in this cell */
	cpu_set_t cpus;
	unsigned ncpus;             /* 0: no cpus axis, inherit */
	char cpu_list[256];         /* the same as a list, "0-1" */
	struct late_ref late_ref;   /* the cell's passing runs: its variables may change the work */
};

/* The first n CPUs we may run on, as a mask and as a list. */
static unsigned first_cpus(unsigned n, cpu_set_t *out, char *list, size_t len)
{
	struct cpuset avail, first;
	CPU_ZERO(out);
	list[0] = '\0';
	if (cpuset_available(&avail) < 0)
		return 0;
	cpuset_first(&avail, (int)n, &first);
	cpuset_to_mask(&first, out);
	cpuset_format(&first, list, len);
	return (unsigned)CPU_COUNT(out);
}

static void cells_build(struct series *s)
{
	const struct matrix *m = s->o->matrix;
	if (!m)
		return;
	s->cells = xcalloc(m->cells, sizeof(*s->cells));
	for (size_t c = 0; c < m->cells; c++) {
		struct cell_plan *p = &s->cells[c];
		matrix_label(m, c, p->label, sizeof(p->label));
		unsigned want = matrix_cpus(m, c);
		if (want)
			p->ncpus = first_cpus(want, &p->cpus, p->cpu_list, sizeof(p->cpu_list));
	}
}

/* Point the run at its cell: returns its environment (base plus the
 * cell's variables; base itself without a matrix) and sets *aff to the
 * cell's CPUs when it has a cpus= axis (refused with pressure options). */
static char *const *cell_for_run(struct series *s, struct run *r, char *const *base,
				 const cpu_set_t **aff)
{
	if (!s->cells)
		return base;
	size_t c = matrix_cell(s->o->matrix, r->index);
	struct cell_plan *p = &s->cells[c];
	r->cell = p->label;
	if (p->ncpus) {
		*aff = &p->cpus;
		r->cell_cpus = p->cpu_list;
	}
	/* copy the environment as it is for this run (its JOSTLE_RUN and
	 * JOSTLE_SEED slots are set), then apply the cell */
	strvec_release(&p->env);
	for (char *const *e = base; *e; e++)
		strvec_push(&p->env, *e);
	matrix_env(s->o->matrix, c, &p->env);
	return p->env.v;
}

static void cells_release(struct series *s)
{
	if (!s->cells)
		return;
	for (size_t c = 0; c < s->o->matrix->cells; c++)
		strvec_release(&s->cells[c].env);
	free(s->cells);
	s->cells = NULL;
}

static void note_stop(struct series *s, const char *why)
{
	if (!s->stopping) {
		s->stopping = true;
		s->stop_reason = why;
	}
}

/* ---- environment ---------------------------------------------------- */

static void env_build(struct series *s)
{
	extern char **environ;
	static const char *const ours[] = { "JOSTLE_RUN=", "JOSTLE_SEED=", "JOSTLE_SEED32=", "JOSTLE_OUT=",
					    "JOSTLE_CRASH_DIR=", "JOSTLE_SHARD=", NULL };
	for (char **e = environ; *e; e++) {
		int skip = 0;
		for (int k = 0; ours[k]; k++)
			if (!strncmp(*e, ours[k], strlen(ours[k])))
				skip = 1;
		if (!skip)
			strvec_push(&s->env, *e);
	}
	strvec_setenv(&s->env, "JOSTLE_OUT", s->o->out_dir);
	if (s->guard.pid)
		strvec_setenv(&s->env, GUARDIAN_VAR, s->guard.value);
	/* Python children print every thread's traceback on a fatal signal. */
	if (!getenv("PYTHONFAULTHANDLER"))
		strvec_setenv(&s->env, "PYTHONFAULTHANDLER", "1");
	/* the crash handler (rundiag.h) */
	rundiag_env(s->o, &s->env);
	s->env_crash = strvec_env_index(&s->env, "JOSTLE_CRASH_DIR");
	s->crash_var = s->env_crash >= 0 ? s->env.v[s->env_crash] : NULL;
	strvec_push(&s->env, "JOSTLE_RUN=");
	s->env_run = s->env.nr - 1;
	strvec_push(&s->env, "JOSTLE_SEED=");
	s->env_seed = s->env.nr - 1;
	strvec_push(&s->env, "JOSTLE_SEED32=");
	s->env_seed32 = s->env.nr - 1;
	delays_env(&s->delays, &s->env);
	strvec_push(&s->env, "JOSTLE_DELAY_SLOT=");
	s->env_delay = s->env.nr - 1;
	s->delay_slot = s->env.v[s->env_delay];
}

static void env_for_run(struct series *s, struct run *r)
{
	static char no_record[] = "JOSTLE_CRASH_DIR=";   /* the handler is inert */
	if (s->env_crash >= 0) {
		r->no_record = !rundiag_record_next(s->o);
		s->env.v[s->env_crash] = r->no_record ? no_record : s->crash_var;
	}
	snprintf(s->run_var, sizeof(s->run_var), "JOSTLE_RUN=%" PRIu64, r->index);
	snprintf(s->seed_var, sizeof(s->seed_var), "JOSTLE_SEED=%" PRIu64, r->seed);
	snprintf(s->seed32_var, sizeof(s->seed32_var), "JOSTLE_SEED32=%" PRIu32, rng_seed32(r->seed));
	/* The vector owns heap strings; point our two slots at static buffers
	 * for the duration of the spawn and restore them after. */
	s->env.v[s->env_run] = s->run_var;
	s->env.v[s->env_seed] = s->seed_var;
	s->env.v[s->env_seed32] = s->seed32_var;
	/* the run's slot of the delay account: its engine slot */
	size_t slot = (size_t)(r - s->slots);
	snprintf(s->delay_var, sizeof(s->delay_var), "JOSTLE_DELAY_SLOT=%zu", slot);
	s->env.v[s->env_delay] = s->delay_var;
	delays_reset(&s->delays, slot);
}

static void env_restore(struct series *s, char *run_slot, char *seed_slot, char *seed32_slot)
{
	if (s->env_crash >= 0)
		s->env.v[s->env_crash] = s->crash_var;
	s->env.v[s->env_run] = run_slot;
	s->env.v[s->env_seed] = seed_slot;
	s->env.v[s->env_seed32] = seed32_slot;
	s->env.v[s->env_delay] = s->delay_slot;
}

/* ---- launching ------------------------------------------------------ */

static bool may_launch(struct series *s, int64_t now)
{
	if (s->stopping)
		return false;
	if (s->o->runs && s->next_index >= s->o->runs)
		return false;
	if (s->o->time_ns && now >= s->end_budget) {
		note_stop(s, "time budget spent");
		s->budget_spent = true;
		return false;
	}
	return true;
}

static int64_t stall_first_look(struct series *s, const struct run *r);

static int launch(struct series *s, struct run *r, int64_t now)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	if (fcntl(pfd[0], F_SETFL, O_NONBLOCK) < 0) {
		int e = errno;
		close(pfd[0]);
		close(pfd[1]);
		return -e;
	}
	memset(r, 0, sizeof(*r));
	r->index = plan_run_index(&s->o->shard, s->next_index);
	r->seed = rng_run_seed(s->o->seed, r->index);
	capture_init(&r->cap, s->o->head_cap, s->o->tail_cap);

	runtests_env(s->o, r->index, &s->env);   /* --tests: JOSTLE_JUNIT and the runners' variables */
	char *run_slot = s->env.v[s->env_run], *seed_slot = s->env.v[s->env_seed];
	char *seed32_slot = s->env.v[s->env_seed32];
	env_for_run(s, r);
	/* pressure.h: the run's CPUs, cgroup and environment (a no-op without) */
	const cpu_set_t *affinity;
	int (*hook)(pid_t, void *);
	void *hook_arg;
	int rc;
	char *const *envp = pressure_prepare(&s->pr, r->index, &r->seed, s->env.v,
					     &affinity, &hook, &hook_arg, &rc);
	if (!envp) {
		env_restore(s, run_slot, seed_slot, seed32_slot);
		close(pfd[0]);
		close(pfd[1]);
		capture_release(&r->cap);
		r->state = RS_FREE;
		return rc;
	}
	/* --matrix (issue 6): the cell's variables on top, its CPUs */
	envp = cell_for_run(s, r, envp, &affinity);
	struct spawn_req req = {
		.path = s->o->path,
		.argv = runtests_argv(s->o, r->index, &s->argv_run),
		.envp = envp,
		.stdin_fd = s->devnull,
		.out_fd = pfd[1],
		.affinity = affinity,
		.core_limit = rundiag_core_limit(s->o),
		.nofile = fdlimit_child(&s->o->fdlimit),
		.sigmask = &s->child_mask,
		.before_exec = hook,
		.before_exec_arg = hook_arg,
	};
	r->start_mono = clock_mono_ns();
	r->start_real = clock_real_ns();
	rc = spawn_start(&req, &r->pid);
	env_restore(s, run_slot, seed_slot, seed32_slot);
	close(pfd[1]);
	if (rc < 0) {
		pressure_abandon(&s->pr, r->index);
		close(pfd[0]);
		capture_release(&r->cap);
		r->state = RS_FREE;
		return rc;
	}
	r->share_mark = share_enter(&s->share, r->start_mono);
	r->sharing = true;
	pressure_started(&s->pr, r->index, r->pid, now);
	r->config_json = pressure_config_json(&s->pr, r->index);
	r->fd = pfd[0];
	r->deadline = r->start_mono + s->o->timeout_ns;
	r->stall_next = stall_first_look(s, r);
	r->state = RS_RUNNING;
	r->counted = true;
	s->next_index++;
	s->active++;
	s->live++;
	return 0;
}

/* ---- ending runs ---------------------------------------------------- */

static size_t main_pids(struct series *s, pid_t *out)
{
	size_t n = 0;
	for (unsigned i = 0; i < s->nslots; i++)
		if (s->slots[i].state != RS_FREE && !s->slots[i].exited)
			out[n++] = s->slots[i].pid;
	return n;
}

/* Signal what run r started; returns how many are still alive. */
static size_t signal_run(struct series *s, struct run *r, int sig)
{
	size_t n = main_pids(s, s->pidbuf);
	return reap_signal_run(r->pid, r->index, sig, s->pidbuf, n);
}

/*
 * What the run's processes used so far, before jostle signals them: a hung
 * run's busy threads often live in grandchildren that nobody waits for,
 * so the main child's rusage never sees them. Once the main child is
 * reaped, what is left is added to its rusage instead.
 */
static void account_tree(struct run *r)
{
	char want[48];
	struct proctree t = PROCTREE_INIT;
	double u, sy;
	snprintf(want, sizeof(want), "JOSTLE_RUN=%" PRIu64, r->index);
	if (proctree_collect(&t, r->pid, proctree_env_match, want) == 0) {
		proctree_cpu(&t, r->exited ? r->pid : 0, &u, &sy);
		if (r->exited) {
			r->extra_user_s = u > r->extra_user_s ? u : r->extra_user_s;
			r->extra_sys_s = sy > r->extra_sys_s ? sy : r->extra_sys_s;
		} else {
			r->tree_user_s = u > r->tree_user_s ? u : r->tree_user_s;
			r->tree_sys_s = sy > r->tree_sys_s ? sy : r->tree_sys_s;
		}
	}
	proctree_release(&t);
}

/* Start ending a live run: SIGTERM now, SIGKILL after the grace period. */
static void begin_kill(struct series *s, struct run *r, int64_t now)
{
	if (!r->kill_step)
		account_tree(r);
	signal_run(s, r, SIGTERM);
	/* a tree a diagnosis stopped acts on SIGTERM only once continued */
	signal_run(s, r, SIGCONT);
	r->kill_step = 1;
	r->kill_at = now + s->o->grace_ns;
	if (r->state == RS_RUNNING || r->state == RS_DIAGNOSING)
		r->state = RS_KILLING;
}

/* The run no longer holds a -j slot: another run may start in its place. */
static void uncount(struct series *s, struct run *r)
{
	if (r->counted) {
		r->counted = false;
		s->active--;
	}
}

/* The run's main child is gone: its share of the machine ends (share.h). */
static void share_end(struct series *s, struct run *r)
{
	if (r->sharing) {
		r->sharing = false;
		r->share_s = share_leave(&s->share, r->end_mono, r->share_mark);
	}
}

/* End every run in flight except `done` (the one just recorded, may be NULL). */
static void cancel_all(struct series *s, const struct run *done, int64_t now)
{
	for (unsigned i = 0; i < s->nslots; i++) {
		struct run *r = &s->slots[i];
		if (r->state == RS_FREE || r->cancelled || r == done)
			continue;
		r->cancelled = true;
		if (r->diag_job)
			diagpool_stop_job(r->diag_job);
		begin_kill(s, r, now);
	}
}

/*
 * The results cannot be written any more (a full disk, the folder removed):
 * say so once and end the series. runs.jsonl keeps every complete record
 * (record_write never leaves half of one); runs still going are not
 * recorded.
 */
static void results_lost(struct series *s, int err, int64_t now)
{
	if (s->write_error)
		return;
	s->write_error = err;
	if (err == -ENOENT)
		fprintf(stderr, "jostle: the results folder '%s' was removed; stopping\n", s->o->out_dir);
	else
		fprintf(stderr, "jostle: cannot write the results in '%s': %s; stopping (runs.jsonl "
			"keeps every run recorded before)\n", s->o->out_dir, strerror(-err));
	note_stop(s, "results not writable");
	cancel_all(s, NULL, now);
}

static int write_log(struct series *s, const char *rel)
{
	char *path = path_join(s->o->out_dir, rel);
	int rc = fileio_write_file(path, dbuf_str(&s->text), s->text.len);
	if (rc < 0)
		unlink(path);   /* no half log */
	free(path);
	return rc;
}

static void write_record(struct series *s, int64_t now)
{
	if (!s->write_error && record_write(s->jsonl_fd, &s->line) < 0)
		results_lost(s, -errno, now);
}

/* Where the run had a cgroup of its own, its account is the whole truth. */
static void account_cgroup(struct series *s, struct run *r)
{
	double u, sy;
	if (pressure_run_cpu(&s->pr, r->index, &u, &sy) == 0) {
		r->tree_user_s = u;
		r->tree_sys_s = sy;
		r->extra_user_s = r->extra_sys_s = 0;   /* the cgroup counted them */
	}
}

/*
 * CPU of one instruction stepped by --chaos step (a trap and our handler),
 * taken out of a stepped run's CPU: an upper bound. Measured 19.7-25 us
 * alone (jacobi_barrier_reuse --fixed, 12 runs under --chaos step against
 * 12 plain, 2-CPU VM at load 20: 0.037-0.058 s plain, 0.055-0.256 s with
 * 743-10526 steps) and about 36 us in auto's crowd of 16 (spsc_ring_publish
 * --fixed: 0.27 s with 7264 steps), where 20 us made a correct run 6.2x.
 */
#define STEP_CPU_S 50e-6

/* The run's own CPU: its tree's, less what jostle's chaos library spent in
 * it (its spins, the traps of its instruction steps). */
static double own_cpu(const struct run *r)
{
	double user_s, sys_s;
	record_cpu(r, &user_s, &sys_s);
	double c = user_s + sys_s - r->delays.spin_s - (double)r->delays.steps * STEP_CPU_S;
	return c > 0 ? c : 0;
}

/* Where the run's passing runs are kept: per matrix cell (a cell's
 * variables may change the work), else one for the series (auto's arms
 * change the schedule, not the work). */
static struct late_ref *late_ref_of(struct series *s, const struct run *r)
{
	if (s->cells)
		return &s->cells[matrix_cell(s->o->matrix, r->index)].late_ref;
	return &s->late_ref;
}

/*
 * A run past its deadline (late.h, docs/timeouts.md): a hang when it spun
 * (several times a passing run's CPU) or was stuck; `slow`, no failure,
 * only when what jostle did accounts for it (its injected delay, its arm's
 * load, an interpreter's exit cleanup); else the user's timeout, a hang.
 * One that ended on its own with a failure is judged by how it ended (its
 * own failure, not ours), unless the diagnosis had seen it stuck, which
 * then decides (a program's own watchdog firing at the same moment must
 * not split one hang in two). --timeout-strict: always a hang.
 */
static enum outcome late_outcome(struct series *s, struct run *r)
{
	const struct run_opts *o = s->o;
	bool own_end = r->ended_by_itself && !rundiag_python_ended(r);
	bool ok = own_end && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0 && !o->fail_on;
	if (own_end && !ok) {
		if (o->timeout_strict)
			return OUT_HANG;
		if (!rundiag_saw_stuck(r))
			return OUT__COUNT;   /* by how it ended */
		r->late = "stuck";
		return OUT_HANG;
	}
	if (r->stalled && !own_end) {
		r->late = "stalled";   /* nothing could run: a deadlock, before its deadline */
		return OUT_HANG;
	}
	const struct late_ref *ref = late_ref_of(s, r);
	unsigned ncpus = 0;
	struct late_in in = {
		.cpu_s = own_cpu(r),
		.wall_s = (double)(r->end_mono - r->start_mono) / 1e9,
		.delay_s = r->delays.delay_s,
		.loaded = pressure_run_loaded(&s->pr, r->index, &ncpus),
		.ended_ok = ok,
		.exit_cleanup = rundiag_exit_cleanup(r),
		.seen = rundiag_seen(r),
		.ref_cpu_s = late_ref_cpu(ref),
		.ref_wall_s = late_ref_wall(ref),
	};
	double free_wall = late_ref_wall(&s->unloaded);
	in.ref_rate = free_wall > 0 ? late_ref_cpu(&s->unloaded) / free_wall : 0;
	in.cpus = ncpus ? ncpus : machine_cpus();
	struct late_out out;
	late_judge(&in, &out);
	r->late = out.late;
	r->slow_why = out.slow_why;
	r->cpu_factor = out.cpu_factor;
	if (o->timeout_strict) {   /* what it was, said; a hang all the same */
		r->slow_why = NULL;
		return OUT_HANG;
	}
	return out.verdict == LATE_SLOW ? OUT_SLOW : OUT_HANG;
}

static void classify(struct series *s, struct run *r)
{
	const struct run_opts *o = s->o;
	dbuf_reset(&s->text);
	capture_text(&r->cap, &s->text);
	if (r->timed_out || !WIFEXITED(r->status) || WEXITSTATUS(r->status) != 0 || o->fail_on)
		rundiag_symbolize(o, &s->text, &s->text_sym);
	const char *text = dbuf_str(&s->text);
	size_t len = s->text.len;
	r->outcome = OUT__COUNT;
	if (r->timed_out || r->extended) {
		/* a diagnosis that found the tree gone: it had ended before our signals */
		if (rundiag_found_gone(r) && WIFEXITED(r->status))
			r->ended_by_itself = true;
		r->outcome = late_outcome(s, r);
	}
	if (r->outcome == OUT_HANG || r->outcome == OUT_SLOW)
		;
	else if (WIFSIGNALED(r->status) || (!r->no_record && rundiag_crashed(o, r)))
		r->outcome = OUT_CRASH;
	else if (WIFEXITED(r->status) && WEXITSTATUS(r->status) == 77)
		r->outcome = OUT_SKIP;   /* the program's own "skipped" (no driver, no device) */
	else if (WIFEXITED(r->status) && WEXITSTATUS(r->status) != 0)
		r->outcome = OUT_FAIL;
	else if (o->fail_on && regex_search(o->fail_on, text, len, NULL))
		r->outcome = OUT_FAIL;
	else if (crash_sanitizer_failed(text, len))
		r->outcome = OUT_FAIL;   /* compute-sanitizer exits 0 after its report */
	else
		r->outcome = OUT_PASS;
	if (r->outcome != OUT_PASS && r->outcome != OUT_SLOW && r->outcome != OUT_SKIP && o->ignore &&
	    regex_search(o->ignore, text, len, NULL))
		r->outcome = OUT_IGNORED;
	if (r->outcome == OUT_PASS || r->outcome == OUT_IGNORED || r->outcome == OUT_SLOW ||
	    r->outcome == OUT_SKIP) {
		runtests_collect(o, r, text, len);
		return;
	}
	signature_from_output(&r->sig, outcome_name(r->outcome), text, len, o->sig_re);
	if (!r->sig.key) {
		/* Silent failures are told apart by how they ended. */
		char what[64];
		if (r->outcome == OUT_HANG)
			snprintf(what, sizeof(what), "timed out");
		else if (WIFSIGNALED(r->status))
			snprintf(what, sizeof(what), "killed by %s", sigabbrev_np(WTERMSIG(r->status)) ?
				 sigabbrev_np(WTERMSIG(r->status)) : "signal");
		else
			snprintf(what, sizeof(what), "exit status %d", WEXITSTATUS(r->status));
		r->sig.key_line = xstrdup(what);
		r->sig.key = xstrdup(what);
		signature_update_id(&r->sig);
	}
	/* Finer kind, key and frames from diagnosis and crash reports (rundiag.h). */
	rundiag_classify(o, r, text, len);
	runtests_collect(o, r, text, len);
}

static uint64_t failures(const struct series *s)
{
	return s->by_outcome[OUT_FAIL] + s->by_outcome[OUT_CRASH] + s->by_outcome[OUT_HANG];
}

static void finish(struct series *s, struct run *r, int64_t now)
{
	if (r->fd >= 0) {
		close(r->fd);
		r->fd = -1;
	}
	r->end_mono = r->end_mono ? r->end_mono : now;
	share_end(s, r);
	account_cgroup(s, r);   /* its whole CPU, before it is judged */
	delays_read(&s->delays, (size_t)(r - s->slots), &r->delays);
	if (r->cancelled) {
		/* Still going when the series ended: recorded, so that a long
		 * run cut by --time does not vanish, and counted in no rate.
		 * Not when the results cannot be written (results_lost() said
		 * so once). */
		char logrel[64];
		r->outcome = OUT_CUT;
		s->by_outcome[OUT_CUT]++;
		if (!s->write_error) {
			dbuf_reset(&s->text);
			capture_text(&r->cap, &s->text);
			runtests_collect(s->o, r, dbuf_str(&s->text), s->text.len);   /* the tests it finished */
			snprintf(logrel, sizeof(logrel), "logs/%" PRIu64 ".log", r->index);
			int rc = write_log(s, logrel);
			if (rc < 0)
				results_lost(s, rc, now);
			dbuf_reset(&s->line);
			r->cut_by = s->stop_reason;
			record_run(&s->line, s->series_id, r, s->start_mono, &r->cap,
				   rc < 0 ? NULL : logrel);
			write_record(s, now);
		}
	} else {
		classify(s, r);
		char logrel[64] = "";
		bool want_log = r->outcome != OUT_PASS ||
				(s->first_pass_logged < 0);
		if (want_log) {
			snprintf(logrel, sizeof(logrel), "logs/%" PRIu64 ".log", r->index);
			int rc = write_log(s, logrel);
			if (rc < 0) {
				results_lost(s, rc, now);
				want_log = false;
			}
			if (r->outcome == OUT_PASS)
				s->first_pass_logged = (int64_t)r->index;
		}
		if (r->outcome == OUT_PASS) {   /* what a passing run costs (late.h) */
			double wall = (double)(r->end_mono - r->start_mono) / 1e9;
			unsigned ncpus;
			late_ref_add(late_ref_of(s, r), own_cpu(r), wall);
			if (!pressure_run_loaded(&s->pr, r->index, &ncpus))
				late_ref_add(&s->unloaded, own_cpu(r), wall);
		}
		dbuf_reset(&s->line);
		record_run(&s->line, s->series_id, r, s->start_mono, &r->cap,
			   want_log ? logrel : NULL);
		write_record(s, now);
		rundiag_ended(r);
		s->by_outcome[r->outcome]++;
		progress_count(&s->prog, r->outcome);
		uint64_t fails = failures(s);
		const char *met = NULL;
		if (s->o->until == UNTIL_FIRST_FAILURE && fails >= 1)
			met = "first failure";
		else if (s->o->until == UNTIL_FAILURES && fails >= s->o->until_k)
			met = "failure limit reached";
		else if (s->o->until == UNTIL_CONFIDENT && fails >= 1)
			met = "a failure appeared before the bound was reached";
		/* every other stop cancels the runs in flight itself, the time
		 * budget's once their overrun is over */
		if (met) {
			note_stop(s, met);
			cancel_all(s, r, now);
		}
	}
	/* slow and cut runs are no failure and no pass: their time is charged
	 * to their arm (portfolio.h) */
	double user_s, sys_s;
	record_cpu(r, &user_s, &sys_s);
	enum portfolio_outcome how = r->cancelled ? PORTFOLIO_CUT : outcome_is_failure(r->outcome) ? PORTFOLIO_FAIL :
				     r->outcome == OUT_SLOW ? PORTFOLIO_SLOW : PORTFOLIO_PASS;
	pressure_ended(&s->pr, r->index, how, (double)(r->end_mono - r->start_mono) / 1e9, r->share_s,
		       user_s + sys_s);
	r->config_json = NULL;
	capture_release(&r->cap);
	signature_release(&r->sig);
	free(r->diag_json);
	r->diag_json = NULL;
	rundiag_release(r);
	runtests_release(r);
	r->state = RS_FREE;
	uncount(s, r);
	s->live--;
}

/* ---- hang diagnosis (diagpool.h) -------------------------------------
 * A run past its deadline gives its -j slot up at once, so the next run
 * starts while it waits in RS_DIAGNOSING for a free worker and while the
 * worker has it; when the worker is back the run is killed and recorded.
 * Live trees stay bounded: at most 3 per worker hold no slot (waiting,
 * diagnosed or being ended); beyond that a hung run keeps its slot until a
 * worker takes it, and nslots (-j + 4 per worker) is the hard limit. */
#define UNCOUNTED_PER_WORKER 3

/* The longest a diagnosis may take before it is stopped and the tree killed. */
static int64_t diag_bound_ns(const struct run_opts *o)
{
	return 10 * NS_PER_S + (int64_t)o->diag.window_ms * NS_PER_MS;
}

static void diag_begin(struct series *s, struct run *r, int64_t now)
{
	struct diagpool_req req = {
		.pid = r->pid,
		.index = r->index,
		.owner = r,
		.late_ns = r->late_ns,
		.queued_ns = now - r->deadline - r->late_ns,
	};
	r->diag_job = diagpool_start(&s->pool, &req);
	if (!r->diag_job) {
		fprintf(stderr, "jostle: run %" PRIu64 ": no diagnosis worker (%s); ended undiagnosed\n",
			r->index, strerror(errno));
		r->diag_taken = true;
		begin_kill(s, r, now);
		return;
	}
	uncount(s, r);
	r->diag_bound_at = now + diag_bound_ns(s->o);
	r->diag_abandon_at = r->diag_bound_at + 2 * s->o->grace_ns + 5 * NS_PER_S;
}

/* Hand waiting runs to free workers, the earliest deadline first. */
static void diag_dispatch(struct series *s, int64_t now)
{
	while (s->diag_on && diagpool_idle(&s->pool)) {
		struct run *next = NULL;
		for (unsigned i = 0; i < s->nslots; i++) {
			struct run *r = &s->slots[i];
			if (r->state == RS_DIAGNOSING && !r->diag_job && !r->diag_taken &&
			    (!next || r->deadline < next->deadline))
				next = r;
		}
		if (!next)
			return;
		diag_begin(s, next, now);
	}
}

/*
 * Under --chaos auto, a run of an arm that slows runs down (sync chaos,
 * noise, one CPU) may pass the user's timeout without being stuck. When
 * its first diagnosis saw no definite hang (livelock, sleeping or mixed,
 * where a perturbation can be all it is: not a deadlock, not blocked I/O),
 * it runs on to a deadline scaled by the arm's measured slowdown (capped:
 * pressure.h); past that it is diagnosed again, and judged.
 */
static bool try_extend(struct series *s, struct run *r)
{
	if (s->o->timeout_strict || r->stalled || r->extended || r->exited || r->cancelled || s->stopping ||
	    !rundiag_may_be_slow(r))
		return false;
	double scale = pressure_timeout_scale(&s->pr, r->index, (double)s->o->timeout_ns / 1e9);
	if (scale <= 1.0)
		return false;
	r->extended = true;
	r->timeout_scale = scale;
	r->timed_out = false;
	r->diag_taken = false;
	r->deadline = r->start_mono + (int64_t)((double)s->o->timeout_ns * scale);
	r->state = RS_RUNNING;
	if (!r->counted) {
		r->counted = true;
		s->active++;
	}
	return true;
}

/* Workers that came back: their findings into the runs, then the kill. */
static void diag_collect(struct series *s, int64_t now)
{
	struct diagpool_job *job;
	while ((job = diagpool_reap(&s->pool))) {
		struct run *r = job->req.owner;
		rundiag_hang_take(r, job);
		diagpool_job_free(job);
		r->diag_job = NULL;
		r->diag_taken = true;
		if (r->state == RS_DIAGNOSING && !try_extend(s, r))
			begin_kill(s, r, now);
	}
}

/* A diagnosis past its bound is stopped and its tree killed; a worker
 * that does not come back even then is given up. */
static void diag_watch(struct series *s, struct run *r, int64_t now)
{
	if (!r->diag_job)
		return;
	if (r->state == RS_DIAGNOSING && now >= r->diag_bound_at) {
		fprintf(stderr, "jostle: run %" PRIu64 ": diagnosis still going after %.0f s; "
			"stopped, and the run ended\n", r->index, (double)diag_bound_ns(s->o) / 1e9);
		diagpool_stop_job(r->diag_job);
		begin_kill(s, r, now);
	} else if (now >= r->diag_abandon_at && diagpool_abandon(&s->pool, r->diag_job)) {
		fprintf(stderr, "jostle: run %" PRIu64 ": its diagnosis did not come back; "
			"recorded without it\n", r->index);
		r->diag_job = NULL;
		r->diag_taken = true;
	}
}

/*
 * A killed run whose root process is gone though we never reaped it. A
 * diagnosis that unwinds in this process (stack_libdw.c does so only where
 * its helper process may not trace) can take the exit in libdwfl's ptrace
 * wait (__WALL) when the kill comes first, and the series would then wait
 * for it for good. It is recorded as killed; a zombie still answers
 * kill(pid, 0).
 */
static void lost_exit(struct series *s, struct run *r, int64_t now)
{
	if (kill(r->pid, 0) == 0 || errno != ESRCH)
		return;
	r->exited = true;
	r->ended_by_itself = false;
	r->status = SIGKILL;   /* a wait status: killed by SIGKILL */
	memset(&r->ru, 0, sizeof(r->ru));
	r->end_mono = now;
	share_end(s, r);
}

/* ---- stalls (diagnose/stall.h) ---------------------------------------
 * A live run is looked at from STALL_FIRST_TIMES a passing run's wall time
 * (STALL_FIRST_S at the least), then every STALL_EVERY_NS: most runs end
 * before the first look, and a look costs a few /proc reads per thread. */
#define STALL_FIRST_S 0.2
#define STALL_FIRST_TIMES 2.0
#define STALL_EVERY_NS (150 * NS_PER_MS)

static int64_t stall_first_look(struct series *s, const struct run *r)
{
	double first = STALL_FIRST_TIMES * late_ref_wall(late_ref_of(s, r));
	first = first > STALL_FIRST_S ? first : STALL_FIRST_S;
	return r->start_mono + (int64_t)(first * 1e9);
}

/* The run's processes: its main child's tree, and the orphans of it that
 * were reparented to jostle (reap.h). */
static size_t stall_roots(struct series *s, const struct run *r, pid_t *roots, size_t max)
{
	size_t nmain = main_pids(s, s->pidbuf);
	roots[0] = r->pid;
	return 1 + reap_orphans(r->index, s->pidbuf, nmain, roots + 1, max - 1);
}

/* True when the run was seen still long enough to be called stalled. */
static bool stall_check(struct series *s, struct run *r, int64_t now)
{
	if (s->o->no_stall_check || r->exited || now < r->stall_next)
		return false;
	double ref_wall = late_ref_wall(late_ref_of(s, r));
	r->stall_next = now + STALL_EVERY_NS;
	pid_t roots[16];
	struct stall_look look;
	if (stall_look(roots, stall_roots(s, r, roots, 16), &look) < 0 || !stall_look_still(&look)) {
		r->stall_since = 0;
		return false;
	}
	if (!r->stall_since || !stall_look_same(&r->stall_first, &look)) {
		r->stall_since = now;
		r->stall_first = look;
		return false;
	}
	double window = stall_window_s(&look, ref_wall);
	return window >= 0 && (double)(now - r->stall_since) / 1e9 >= window;
}

/* Advance one run's state machine. */
static void step(struct series *s, struct run *r, int64_t now)
{
	switch (r->state) {
	case RS_FREE:
		return;
	case RS_RUNNING:
		if (r->exited) {
			r->state = RS_CLEANUP;
			break;
		}
		if (now < r->deadline && stall_check(s, r, now)) {
			r->stalled = true;
			r->timed_out = true;   /* ended by jostle, as at a deadline */
			r->deadline = now;
		}
		if (now >= r->deadline) {
			r->timed_out = true;
			r->late_ns = now - r->deadline;
			/* Explain the hang before anything is killed (diagpool.h). */
			if (s->diag_on) {
				r->state = RS_DIAGNOSING;
				if (s->live - s->active < UNCOUNTED_PER_WORKER * s->pool.workers)
					uncount(s, r);
			} else
				begin_kill(s, r, now);
		}
		return;
	case RS_DIAGNOSING:
		if (!r->diag_job && r->exited) {
			/* it ended on its own while it waited for a worker */
			r->diag_taken = true;
			r->state = RS_CLEANUP;
			break;
		}
		diag_watch(s, r, now);
		return;
	case RS_KILLING:
		diag_watch(s, r, now);
		if (!r->exited && r->kill_step >= 2 && now >= r->kill_at && !r->diag_job)
			lost_exit(s, r, now);
		if (r->exited) {
			r->state = RS_CLEANUP;
			break;
		}
		if (now >= r->kill_at && r->kill_step < 2) {
			signal_run(s, r, SIGKILL);
			r->kill_step = 2;
			r->kill_at = now + s->o->grace_ns;
		}
		return;
	case RS_CLEANUP:
		diag_watch(s, r, now);
		break;
	}
	/* The main child is gone: end what it left behind, then wait for EOF. */
	if (signal_run(s, r, 0) > 0) {
		if (r->kill_step == 0) {
			account_tree(r);
			signal_run(s, r, SIGTERM);
			r->kill_step = 1;
			r->kill_at = now + s->o->grace_ns;
		} else if (now >= r->kill_at) {
			signal_run(s, r, SIGKILL);
			r->kill_step = 2;
			r->kill_at = now + s->o->grace_ns;
		}
		return;
	}
	if (r->diag_job)
		return;   /* recorded once its worker is back */
	if (r->fd < 0) {
		finish(s, r, now);
		return;
	}
	/* Nothing of the run is alive but the pipe is open: unread data, or a
	 * writer that escaped our view (cleared environment and own session). */
	if (!r->drain_at)
		r->drain_at = now + CLEANUP_DRAIN_NS;
	else if (now >= r->drain_at)
		finish(s, r, now);
}

/* ---- the loop -------------------------------------------------------- */

static struct run *find_pid(struct series *s, pid_t pid)
{
	for (unsigned i = 0; i < s->nslots; i++)
		if (s->slots[i].state != RS_FREE && !s->slots[i].exited && s->slots[i].pid == pid)
			return &s->slots[i];
	return NULL;
}

/* Reap pid (a child that has ended); false when it was not ready. */
static bool reap_one(struct series *s, pid_t pid)
{
	int status;
	struct rusage ru;
	pid_t p = wait4(pid, &status, WNOHANG | __WALL | __WNOTHREAD, &ru);
	if (p <= 0)
		return false;
	struct run *r = find_pid(s, p);
	if (!r)
		return true;   /* an orphan adopted from some run: nothing to record */
	r->exited = true;
	r->ended_by_itself = r->kill_step == 0;
	r->status = status;
	r->ru = ru;
	r->end_mono = clock_mono_ns();
	share_end(s, r);
	return true;
}

/*
 * Reap every child that ended (a stack helper of a diagnosis worker, too:
 * stack_libdw.c reaps it through a pidfd and does not mind). Where a
 * worker ptrace-attaches from this process (stack_libdw.c's fallback), the
 * kernel lets any wait of ours take that ptrace stop, as if we were the
 * tracer, and the worker would wait for it forever. So the next child is
 * looked at first (WNOWAIT) and reaped only when it ended; when it is a
 * stop, which is a worker's, the runs' root processes are reaped one by
 * one instead and the rest waits for the next turn.
 */
static void reap(struct series *s)
{
	for (;;) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT | __WALL | __WNOTHREAD) < 0 ||
		    si.si_pid == 0)
			return;
		if (si.si_code == CLD_TRAPPED || si.si_code == CLD_STOPPED) {
			for (unsigned i = 0; i < s->nslots; i++) {
				struct run *r = &s->slots[i];
				if (r->state != RS_FREE && !r->exited && !r->diag_job)
					(void)reap_one(s, r->pid);
			}
			return;
		}
		if (!reap_one(s, si.si_pid))
			return;
	}
}

static void read_output(struct run *r)
{
	char buf[65536];
	size_t budget = READ_BUDGET;
	while (budget) {
		ssize_t n = read(r->fd, buf, sizeof(buf));
		if (n > 0) {
			capture_append(&r->cap, buf, (size_t)n);
			budget -= (size_t)n > budget ? budget : (size_t)n;
			continue;
		}
		if (n == 0) {
			close(r->fd);
			r->fd = -1;
		}
		return; /* EAGAIN or EINTR: come back on the next turn */
	}
}

static void on_signal(struct series *s, int64_t now)
{
	struct signalfd_siginfo si;
	while (read(s->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			continue; /* reaped below */
		s->interrupts++;
		s->interrupted = true;
		note_stop(s, "interrupted");
		if (s->interrupts == 1) {
			if (!s->o->quiet)
				fprintf(stderr, "\njostle: interrupted; ending runs (again to kill at once)\n");
			cancel_all(s, NULL, now);
		} else {
			for (unsigned i = 0; i < s->nslots; i++)
				if (s->slots[i].state != RS_FREE)
					signal_run(s, &s->slots[i], SIGKILL);
		}
	}
}

static int64_t next_deadline(struct series *s, int64_t now)
{
	int64_t t = now + 1000 * NS_PER_MS;
	for (unsigned i = 0; i < s->nslots; i++) {
		struct run *r = &s->slots[i];
		if (r->state == RS_RUNNING && r->deadline < t)
			t = r->deadline;
		if (r->state == RS_RUNNING && r->stall_next && r->stall_next < t)
			t = r->stall_next > now ? r->stall_next : now;
		if (r->state == RS_KILLING && r->kill_at < t)
			t = r->kill_at;
		if (r->diag_job) {
			int64_t d = r->state == RS_DIAGNOSING ? r->diag_bound_at : r->diag_abandon_at;
			t = d < t ? d : t;
		}
		if (r->state == RS_CLEANUP) {
			/* Poll leftovers often; they usually die within milliseconds. */
			int64_t soon = now + 5 * NS_PER_MS;
			t = soon < t ? soon : t;
		}
	}
	if (s->o->time_ns && !s->stopping && s->end_budget < t)
		t = s->end_budget;
	if (s->budget_spent && !s->budget_cut && s->end_budget + s->o->overrun_ns < t)
		t = s->end_budget + s->o->overrun_ns > now ? s->end_budget + s->o->overrun_ns : now;
	int64_t pt = progress_next(&s->prog);
	if (pt && pt < t)
		t = pt;
	int64_t ct = pressure_next_ns(&s->pr);
	if (ct < t)
		t = ct > now ? ct : now;
	return t;
}

static int loop(struct series *s)
{
	struct pollfd *pfd = xcalloc(s->nslots + 2, sizeof(*pfd));
	struct run **who = xcalloc(s->nslots + 2, sizeof(*who));
	for (;;) {
		int64_t now = clock_mono_ns();
		if (s->o->time_ns && now >= s->end_budget && !s->stopping) {
			note_stop(s, "time budget spent");
			s->budget_spent = true;
		}
		/* the runs in flight: cut now, or once they had overrun_ns to
		 * end (a hang is a failure only once the stall check or the
		 * timeout has seen it: cut, it counts in no rate). Every one,
		 * those being diagnosed too: the overrun is a bound (a diagnosis
		 * whose unwinder failed held a series of reproduce 220 s past
		 * its budget) */
		if (s->budget_spent && !s->budget_cut && now >= s->end_budget + s->o->overrun_ns) {
			s->budget_cut = true;
			cancel_all(s, NULL, now);
		}
		while (s->active < (s->fd_cap ? s->fd_cap : s->o->jobs) && may_launch(s, now) &&
		       pressure_may_launch(&s->pr, s->active)) {
			struct run *r = NULL;
			for (unsigned i = 0; i < s->nslots; i++)
				if (s->slots[i].state == RS_FREE) {
					r = &s->slots[i];
					break;
				}
			if (!r)
				break;   /* every slot holds a run being diagnosed or ended */
			int rc = launch(s, r, now);
			if ((rc == -EMFILE || rc == -ENFILE) && s->active > 0) {
				/* descriptors fdlimit.h did not count: fewer at a time */
				if (!s->fd_cap)
					fprintf(stderr, "jostle: warning: out of file descriptors with %u "
						"runs going: running %u at a time\n", s->active, s->active);
				s->fd_cap = s->active;
				break;
			}
			if (rc < 0) {
				s->start_error = rc;
				note_stop(s, "start error");
				cancel_all(s, NULL, now);
				break;
			}
		}
		if (s->live == 0 && (s->stopping || !may_launch(s, now)))
			break;
		diag_dispatch(s, now);

		nfds_t n = 0;
		pfd[n].fd = s->sigfd;
		pfd[n].events = POLLIN;
		who[n++] = NULL;
		if (s->diag_on) {
			pfd[n].fd = s->pool.fd;
			pfd[n].events = POLLIN;
			who[n++] = NULL;
		}
		for (unsigned i = 0; i < s->nslots; i++) {
			struct run *r = &s->slots[i];
			if (r->state != RS_FREE && r->fd >= 0) {
				pfd[n].fd = r->fd;
				pfd[n].events = POLLIN;
				who[n++] = r;
			}
		}
		int64_t until = next_deadline(s, now);
		int ms = until > now ? (int)((until - now + NS_PER_MS - 1) / NS_PER_MS) : 0;
		int rc = poll(pfd, n, ms);
		if (rc < 0 && errno != EINTR) {
			fprintf(stderr, "jostle: internal error: poll: %s\n", strerror(errno));
			free(pfd);
			free(who);
			return -1;
		}
		now = clock_mono_ns();
		if (rc > 0) {
			if (pfd[0].revents)
				on_signal(s, now);
			for (nfds_t i = 1; i < n; i++)
				if (pfd[i].revents && who[i])
					read_output(who[i]);
		}
		if (s->diag_on)
			diag_collect(s, now);
		reap(s);
		for (unsigned i = 0; i < s->nslots; i++)
			step(s, &s->slots[i], now);
		pressure_tick(&s->pr, now);
		progress_tick(&s->prog, now, s->next_index, s->active);
	}
	free(pfd);
	free(who);
	return 0;
}

/* ---- set-up and tear-down ------------------------------------------- */

static int open_results(struct series *s)
{
	const struct run_opts *o = s->o;
	char *logs = xasprintf("%s/logs", o->out_dir);
	int rc = mkdir(logs, 0755) < 0 && errno != EEXIST ? -errno : 0;
	free(logs);
	if (rc < 0)
		return rc;
	rundiag_start(o);
	char *path = xasprintf("%s/runs.jsonl", o->out_dir);
	s->jsonl_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	free(path);
	return s->jsonl_fd < 0 ? -errno : 0;
}

/* ---- the end of a series ---------------------------------------------
 * The "end" line; then reporting reads runs.jsonl back (finish.h). */
static void series_end(struct series *s, double elapsed)
{
	const struct run_opts *o = s->o;
	static char why[160];
	if (o->until == UNTIL_CONFIDENT && !s->interrupted && !s->start_error &&
	    failures(s) == 0) {
		finish_confident_reason(why, sizeof(why), o->confident_rate, s->by_outcome[OUT_PASS],
					s->stop_reason);
		s->stop_reason = why;
	}
	dbuf_reset(&s->line);
	record_end(&s->line, s->series_id, s->stop_reason, s->interrupted, elapsed,
		   s->records_without, s->records_taken);
	write_record(s, clock_mono_ns());
	struct finish_req f = {
		.dir = o->out_dir,
		.reports = !o->no_report,
		.matrix = o->matrix != NULL,
		.elapsed_s = elapsed,
		.stop_reason = s->stop_reason,
		.summary = s->start_error ? NULL : stderr,
		.read_only = s->write_error != 0,
	};
	(void)finish_series(&f);
}

int series_run(struct run_opts *o)
{
	struct series s;
	memset(&s, 0, sizeof(s));
	s.o = o;
	s.jsonl_fd = -1;
	s.sigfd = -1;
	s.stop_reason = o->runs ? "all runs done" : "stopped";
	s.first_pass_logged = -1;
	s.next_index = o->first_index;
	/* room for the names rundiag_symbolize() adds to frame lines; the two
	 * buffers swap, so both get it */
	dbuf_init(&s.text, 4 * (o->head_cap + o->tail_cap) + 4096);
	dbuf_init(&s.text_sym, 4 * (o->head_cap + o->tail_cap) + 4096);
	dbuf_init(&s.line, 8u << 20);
	unsigned workers = 0;
	if (o->diag.window_ms) {
		cpu_set_t mine;
		workers = sched_getaffinity(0, sizeof(mine), &mine) == 0 ? (unsigned)CPU_COUNT(&mine) : 1;
		workers = workers < 1 ? 1 : workers > 8 ? 8 : workers;
	}
	/* room for the runs handed to diagnosis and those being ended after it */
	s.nslots = o->jobs + (UNCOUNTED_PER_WORKER + 1) * workers;
	s.slots = xcalloc(s.nslots, sizeof(*s.slots));
	s.pidbuf = xcalloc(s.nslots, sizeof(*s.pidbuf));
	uint64_t idstate = (uint64_t)clock_real_ns() ^ ((uint64_t)getpid() << 32);
	snprintf(s.series_id, sizeof(s.series_id), "%016" PRIx64, rng_splitmix64(&idstate));

	char why[768];
	int rc = pressure_start(&s.pr, &o->pressure, o->jobs, s.nslots, o->seed, why, sizeof(why));
	if (rc < 0) {
		fprintf(stderr, "jostle: %s\n", why);
		free(s.slots);
		free(s.pidbuf);
		dbuf_release(&s.text);
		dbuf_release(&s.text_sym);
		dbuf_release(&s.line);
		return 2;
	}
	if (s.pr.on) {
		struct dbuf sx;
		dbuf_init(&sx, 4096);
		pressure_settings_json(&s.pr, &sx);
		s.settings_extra = dbuf_detach(&sx, NULL);
		o->settings_extra = s.settings_extra;
	}
	rc = open_results(&s);
	if (rc < 0) {
		pressure_stop(&s.pr);
		fprintf(stderr, "jostle: cannot write results to '%s': %s\n", o->out_dir, strerror(-rc));
		free(s.slots);
		free(s.pidbuf);
		return 2;
	}
	/* with a chaos library in the series, what it does to each run is
	 * counted (delays.h); without the account a late run's delay is 0 */
	if (s.pr.lib && (rc = delays_open(&s.delays, o->out_dir, s.nslots)) < 0)
		fprintf(stderr, "jostle: warning: no account of injected delays (%s); runs that sync chaos "
			"slows past --timeout count as hangs\n", strerror(-rc));
	if (workers) {
		rc = diagpool_init(&s.pool, o->out_dir, o->diag.window_ms, workers);
		if (rc < 0)
			fprintf(stderr, "jostle: hangs will not be diagnosed: %s\n", strerror(-rc));
		s.diag_on = rc == 0;
	}
	s.devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &s.child_mask);
	s.sigfd = signalfd(-1, &block, SFD_NONBLOCK | SFD_CLOEXEC);
	signal(SIGPIPE, SIG_IGN);
	if (reap_become_subreaper() < 0)
		fprintf(stderr, "jostle: warning: cannot become a child subreaper; daemonized grandchildren may escape\n");
	if (guardian_start(&s.guard) < 0)
		fprintf(stderr, "jostle: warning: no guardian; if jostle is killed, what its runs started may outlive it\n");
	env_build(&s);
	cells_build(&s);

	s.start_mono = clock_mono_ns();
	s.start_real = clock_real_ns();
	s.end_budget = o->time_ns ? s.start_mono + o->time_ns : 0;
	dbuf_reset(&s.line);
	record_series(&s.line, s.series_id, o, s.start_real);
	write_record(&s, s.start_mono);
	progress_init(&s.prog, o, s.start_mono);

	int lrc = loop(&s);

	/* Whatever happened, nothing we started outlives us: noise and cgroups
	 * first (every run has ended), then anything left. */
	pressure_stop(&s.pr);
	diagpool_release(&s.pool);
	rundiag_stop(&s.records_without, &s.records_taken);
	reap_kill_all(NULL, 0);   /* the guardian too */
	guardian_release(&s.guard);
	progress_done(&s.prog);
	double elapsed = (double)(clock_mono_ns() - s.start_mono) / 1e9;
	series_end(&s, elapsed);
	int status;
	if (s.start_error) {
		fprintf(stderr, "jostle: cannot start '%s': %s\n", o->argv[0], strerror(-s.start_error));
		status = 2;
	} else {
		/* the rate per configuration: in the summary, from runs.jsonl (summary.h) */
		if (lrc < 0 || s.write_error)
			status = 3;
		else if (s.interrupted)
			status = 130;
		else
			status = failures(&s) ? 1 : 0;
	}
	for (size_t i = 0; i < s.nslots; i++)
		capture_release(&s.slots[i].cap);
	free(s.slots);
	free(s.pidbuf);
	close(s.jsonl_fd);
	close(s.sigfd);
	close(s.devnull);
	strvec_release(&s.env);
	strvec_release(&s.argv_run);
	cells_release(&s);
	delays_close(&s.delays);
	dbuf_release(&s.text);
	dbuf_release(&s.text_sym);
	dbuf_release(&s.line);
	o->settings_extra = NULL;
	free(s.settings_extra);
	sigprocmask(SIG_SETMASK, &s.child_mask, NULL);
	return status;
}
