/*
 * rundiag.c: hang and crash diagnosis inside `jostle run` (see rundiag.h).
 *
 * Hang diagnoses run on worker threads (diagpool.h); what they found is
 * taken into the run here when the engine collects them. Crash evidence is
 * read when a run is recorded, in the engine's thread: a crash record is
 * unwound in about a millisecond (bench/RESULTS.md, "crash storm").
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diagnose/core.h"
#include "diagnose/crashdir.h"
#include "diagnose/crashlog.h"
#include "diagnose/diagnose.h"
#include "diagnose/sansym.h"
#include "diagnose/stack.h"
#include "pressure/preload.h"
#include "run/reap.h"
#include "run/diagpool.h"
#include "run/recsample.h"
#include "run/rundiag.h"
#include "run/series.h"
#include "signature/crash.h"
#include "signature/frame.h"
#include "util/clock.h"
#include "util/fileio.h"
#include "util/strvec.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* The files crash records and sanitizer reports were symbolized with, for
 * the whole series (one series per jostle process; freed by rundiag_stop()). */
static struct crashlog_symbols *symbols;
static struct crashdir *records;   /* DIR/crashes of the series, watched */
static char records_dir[4096];
/* which runs keep a crash record once a crash repeats (recsample.h) */
static struct recsample sampler = RECSAMPLE_INIT;

struct rundiag_state {
	struct evidence hang;     /* from the hang diagnosis */
	struct evidence hot;      /* the same, as a busy-wait (diag_evidence_hot) */
	bool hang_done;
	bool python_ended;
	bool exit_cleanup;        /* a Python process of the tree was busy in its exit cleanup */
};

int rundiag_option(struct rundiag_opts *d, const char *name, const char *arg, char *why, size_t len)
{
	if (!strcmp(name, "diag-window")) {
		char *end;
		errno = 0;
		long v = strtol(arg ? arg : "", &end, 10);
		if (errno || !arg || end == arg || (*end && strcmp(end, "ms")) || v < 1 || v > 60000) {
			snprintf(why, len, "--diag-window '%s' is not a window; expected milliseconds "
				 "from 1 to 60000 (e.g. 200)", arg ? arg : "");
			return -1;
		}
		d->window_ms = (int)v;
	} else if (!strcmp(name, "no-diag")) {
		d->window_ms = 0;
	} else if (!strcmp(name, "core")) {
		d->core = true;
	} else if (!strcmp(name, "keep-cores")) {
		d->core = true;
		d->keep_cores = true;
	} else if (!strcmp(name, "no-crash-handler")) {
		d->crash_handler = false;
	} else if (!strcmp(name, "all-crash-records")) {
		d->all_records = true;
	} else if (!strcmp(name, "sanitizer-symbolize")) {
		d->sanitizer_symbolizes = true;
	} else {
		snprintf(why, len, "unknown option '--%s'", name);
		return -1;
	}
	return 0;
}

static void make_dir(const char *out_dir, const char *name)
{
	char *p = xasprintf("%s/%s", out_dir, name);
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		fprintf(stderr, "jostle: cannot create '%s': %s\n", p, strerror(errno));
	free(p);
}

void rundiag_start(const struct run_opts *o)
{
	if (o->diag.window_ms)
		make_dir(o->out_dir, "stacks");
	if (o->diag.crash_handler)
		make_dir(o->out_dir, "crashes");
	if (!o->diag.core)
		return;
	make_dir(o->out_dir, "cores");
	char pattern[512];
	bool uses_pid;
	if (core_pattern_read(pattern, sizeof(pattern), &uses_pid) < 0)
		fprintf(stderr, "jostle: --core: cannot read /proc/sys/kernel/core_pattern; cores may not be found\n");
	else if (pattern[0] == '|')
		fprintf(stderr, "jostle: --core: kernel.core_pattern pipes cores to '%s'; jostle cannot "
			"collect them (use coredumpctl, or set kernel.core_pattern=core)\n", pattern + 1);
}

/* ELF class and machine of PATH ("" when not ELF): a library of another
 * class or machine cannot be preloaded, and ld.so would say so on the
 * program's stderr. */
static void elf_kind(const char *path, unsigned char kind[3])
{
	unsigned char h[20] = { 0 };
	memset(kind, 0, 3);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) && !memcmp(h, "\177ELF", 4)) {
		kind[0] = h[4];            /* EI_CLASS */
		kind[1] = h[18];           /* e_machine, both bytes: any byte order */
		kind[2] = h[19];
	}
	close(fd);
}

void rundiag_env(const struct run_opts *o, struct strvec *env)
{
	if (!o->diag.sanitizer_symbolizes)
		sansym_env(env);
	if (!o->diag.crash_handler)
		return;
	unsigned char target[3], self[3];
	elf_kind(o->path, target);
	elf_kind("/proc/self/exe", self);
	if (target[0] && memcmp(target, self, sizeof(self)))
		return;   /* a 32-bit program from a 64-bit jostle */
	char *lib = preload_find("libjostle-crash.so", "JOSTLE_CRASH_LIB");
	if (!lib) {
		fprintf(stderr, "jostle: libjostle-crash.so is not next to the jostle binary nor in "
			"$JOSTLE_CRASH_LIB; plain crashes get frames only with --core\n");
		return;
	}
	/* A static program ignores LD_PRELOAD, but the dynamic programs it
	 * starts do not: it is set for every target. */
	preload_env_add(env, lib);
	/* absolute: a program may change its working directory before it crashes */
	char *dir = xasprintf("%s/crashes", o->out_dir), *abs = realpath(dir, NULL);
	strvec_setenv(env, "JOSTLE_CRASH_DIR", abs ? abs : dir);
	free(abs);
	free(dir);
	free(lib);
	/* our own SIGABRT (faulthandler's tracebacks, rundiag_hang) is no crash */
	char pid[24];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	strvec_setenv(env, "JOSTLE_PID", pid);
}

int rundiag_core_limit(const struct run_opts *o)
{
	return o->diag.core ? 1 : -1;
}

static struct rundiag_state *state(struct run *r)
{
	if (!r->diag_state)
		r->diag_state = xcalloc(1, sizeof(*r->diag_state));
	return r->diag_state;
}

static void write_file(const char *path, const struct dbuf *b)
{
	int rc = fileio_write_file(path, dbuf_str(b), b->len);
	if (rc < 0)
		fprintf(stderr, "jostle: cannot write '%s': %s\n", path, strerror(-rc));
}

void rundiag_hang_take(struct run *r, struct diagpool_job *job)
{
	struct rundiag_state *st = state(r);
	free(r->diag_json);
	r->diag_json = job->diag_json;
	job->diag_json = NULL;
	st->hang = job->hang;
	st->hot = job->hot;
	st->hang_done = job->hang_done;
	st->python_ended = job->python_ended;
	st->exit_cleanup = r->diag_json && diag_record_exit_cleanup(r->diag_json);
}

static bool hang_kind_is(const struct run *r, const char *const *kinds)
{
	const struct rundiag_state *st = r->diag_state;
	if (!st || !st->hang_done)
		return false;
	for (; *kinds; kinds++)
		if (!strcmp(st->hang.kind, *kinds))
			return true;
	return false;
}

bool rundiag_progressing(const struct run *r)
{
	static const char *const k[] = { "progressing", NULL };
	return hang_kind_is(r, k);
}

bool rundiag_saw_stuck(const struct run *r)
{
	static const char *const k[] = { "livelock", "deadlock", "blocked-io", "sleeping", "stopped",
					 "mixed", NULL };
	return hang_kind_is(r, k);
}

bool rundiag_may_be_slow(const struct run *r)
{
	static const char *const k[] = { "livelock", "sleeping", "mixed", NULL };
	return hang_kind_is(r, k);
}

enum late_seen rundiag_seen(const struct run *r)
{
	static const char *const moving[] = { "progressing", NULL };
	static const char *const in_place[] = { "livelock", NULL };
	static const char *const maybe[] = { "sleeping", "mixed", NULL };
	static const char *const stuck[] = { "deadlock", "blocked-io", "stopped", NULL };
	if (hang_kind_is(r, moving))
		return LATE_SEEN_PROGRESSING;
	if (hang_kind_is(r, in_place))
		return LATE_SEEN_LIVELOCK;
	if (hang_kind_is(r, maybe))
		return LATE_SEEN_MAYBE;
	if (hang_kind_is(r, stuck))
		return LATE_SEEN_STUCK;
	return LATE_SEEN_NONE;
}

bool rundiag_found_gone(const struct run *r)
{
	const struct rundiag_state *st = r->diag_state;
	return st && !st->hang_done;
}

bool rundiag_python_ended(const struct run *r)
{
	return r->diag_state && r->diag_state->python_ended;
}

/* --- exit cleanup (motion.h): a Python process tearing itself down --- */

bool rundiag_exit_cleanup(const struct run *r)
{
	return r->diag_state && r->diag_state->exit_cleanup;
}

/* The program frames of a thread into ev (a core's). */
static void take_frames(const struct stack_thread *t, struct evidence *ev)
{
	for (size_t i = 0; ev->nframes < EVIDENCE_FRAMES; i++) {
		const char *fn = stack_program_frame(t, i);
		if (!fn)
			break;
		snprintf(ev->frames[ev->nframes++], sizeof(ev->frames[0]), "%s", fn);
	}
}

/* With --core: the crashing thread's program frames from the core (when
 * READ; else the core is only kept or deleted). */
static void from_core(const struct run_opts *o, struct run *r, struct evidence *ev, bool read)
{
	char path[1024], why[512] = "";
	char cwd[1024];
	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), ".");
	const char *comm = frame_basename(o->path);
	char comm15[16];
	snprintf(comm15, sizeof(comm15), "%s", comm);  /* the kernel's comm is 15 bytes */
	time_t since = (time_t)(r->start_real / NS_PER_S) - 1;
	if (core_find(cwd, r->pid, comm15, WTERMSIG(r->status), since, path, sizeof(path), why, sizeof(why)) < 0) {
		fprintf(stderr, "jostle: run %" PRIu64 ": %s\n", r->index, why);
		return;
	}
	struct stack_set s = STACK_SET_INIT;
	pid_t core_pid = 0;
	int n = read ? stack_from_core(path, o->path, &s, &core_pid, why, sizeof(why)) : 0;
	if (n > 0 && core_pid != r->pid) {
		fprintf(stderr, "jostle: run %" PRIu64 ": '%s' is the core of pid %d, not of this run "
			"(concurrent crashes share one core file name; see kernel.core_uses_pid)\n",
			r->index, path, (int)core_pid);
		stack_set_release(&s);
		return;
	}
	if (n > 0) {
		take_frames(&s.v[0], ev);
		struct dbuf b;
		dbuf_init(&b, 1u << 20);
		dbuf_addf(&b, "crash of run %" PRIu64 " (pid %d, %s): stack of the crashing thread from its core\n",
			  r->index, (int)r->pid, sigabbrev_np(WTERMSIG(r->status)) ? sigabbrev_np(WTERMSIG(r->status)) : "signal");
		for (size_t i = 0; i < s.v[0].nr; i++)
			dbuf_addf(&b, "  #%zu %s%s%s\n", i, s.v[0].frames[i].fn[0] ? s.v[0].frames[i].fn : "??",
				  s.v[0].frames[i].module ? " in " : "",
				  s.v[0].frames[i].module ? frame_basename(s.v[0].frames[i].module) : "");
		char *out = xasprintf("%s/stacks/%" PRIu64 ".txt", o->out_dir, r->index);
		make_dir(o->out_dir, "stacks");
		write_file(out, &b);
		free(out);
		dbuf_release(&b);
	} else if (read) {
		fprintf(stderr, "jostle: run %" PRIu64 ": %s\n", r->index, why);
	}
	stack_set_release(&s);
	if (o->diag.keep_cores) {
		char *dst = xasprintf("%s/cores/%" PRIu64 ".core", o->out_dir, r->index);
		if (rename(path, dst) < 0)
			fprintf(stderr, "jostle: cannot move core '%s' to '%s': %s\n", path, dst, strerror(errno));
		free(dst);
	} else {
		unlink(path);
	}
}

/* Where the run's crash records are: the JOSTLE_RUN the run saw names
 * them. Replays share theirs, so for them only records written since the
 * run started count (less a tick: file times come from the kernel's
 * coarse clock). */
static char *records_of(const struct run_opts *o, const struct run *r, uint64_t *key, int64_t *since)
{
	/* a replay of the configuration alone (bisect, --reproducer) keeps
	 * each run's own JOSTLE_RUN, and so its own records */
	bool same_run = o->pressure.replay && !o->pressure.replay_config_only;
	*key = same_run ? o->pressure.replay_run : r->index;
	*since = same_run ? r->start_real - 20 * NS_PER_MS : 0;
	return xasprintf("%s/crashes", o->out_dir);
}

#define RUN_RECORDS_MAX 8

/*
 * The crash handler's records of the run (crashlog.h), each unwound and
 * symbolized into DIR/stacks/RUN.txt (after a hang's diagnosis when APPEND),
 * children's and grandchildren's like the main process's; the evidence of
 * the first (the main process's record, else the oldest: the first crash)
 * into ev. Returns the signal of the main process's record, 0 if none.
 */
static int from_crashlog(const struct run_opts *o, struct run *r, struct evidence *ev, bool append)
{
	uint64_t key;
	int64_t since;
	char *dir = records_of(o, r, &key, &since);
	char (*paths)[CRASHLOG_PATH_LEN] = xcalloc(RUN_RECORDS_MAX, sizeof(*paths));
	if (records && strcmp(records_dir, dir)) {   /* another series' folder */
		crashdir_close(records);
		records = NULL;
	}
	if (!records) {
		records = crashdir_open(dir, true);
		snprintf(records_dir, sizeof(records_dir), "%s", dir);
	}
	size_t n = crashdir_find(records, key, r->pid, since, paths, RUN_RECORDS_MAX);
	free(dir);
	int main_sig = 0;
	struct dbuf b;
	dbuf_init(&b, 4u << 20);
	if (!symbols)
		symbols = crashlog_symbols_new();
	char title[64];
	snprintf(title, sizeof(title), "crash of run %" PRIu64, r->index);
	for (size_t i = 0; i < n; i++) {
		struct crashlog c = CRASHLOG_INIT;
		char why[512] = "";
		if (i || append)
			dbuf_addc(&b, '\n');
		if (crashlog_explain(symbols, paths[i], title, r->pid, &c, &b, i ? NULL : ev, why, sizeof(why)) < 0) {
			fprintf(stderr, "jostle: run %" PRIu64 ": %s\n", r->index, why);
			dbuf_addf(&b, "%s: %s\n", title, why);
		} else {
			const char *rel = strstr(paths[i], "/crashes/");
			dbuf_addf(&b, "  (record: %s; `jostle explain` reads it again)\n", rel ? rel + 1 : paths[i]);
			if (c.pid == r->pid)
				main_sig = c.signo;
		}
		crashlog_release(&c);
	}
	free(paths);
	if (b.len) {
		char *out = xasprintf("%s/stacks/%" PRIu64 ".txt", o->out_dir, r->index);
		make_dir(o->out_dir, "stacks");
		int rc = append ? fileio_append_file(out, dbuf_str(&b), b.len) : fileio_write_file(out, dbuf_str(&b), b.len);
		if (rc < 0)
			fprintf(stderr, "jostle: cannot write '%s': %s\n", out, strerror(-rc));
		free(out);
	}
	dbuf_release(&b);
	return main_sig;
}

bool rundiag_crashed(const struct run_opts *o, const struct run *r)
{
	if (!o->diag.crash_handler)
		return false;
	uint64_t key;
	int64_t since;
	char *dir = records_of(o, r, &key, &since);
	char *path = xasprintf("%s/%" PRIu64 ".%d.txt", dir, key, (int)r->pid);
	struct stat st;
	bool found = stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		     (int64_t)st.st_mtim.tv_sec * NS_PER_S + st.st_mtim.tv_nsec >= since;
	free(path);
	free(dir);
	return found;
}

/*
 * A crash's key when the output holds no report of it: "killed by SEGV",
 * whatever the program printed last (a guess: the last line, or any line
 * with "error" in it, varies with timing), so that the same signal without
 * evidence is one signature. The signal is the one the crash record names
 * when the main process left one (the process may then have ended by its
 * exit racing the handler, or a SIGKILL from elsewhere), else its status.
 */
static void crash_key(struct run *r, int rec_sig)
{
	int sig = rec_sig ? rec_sig : WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0;
	/* the engine's key for a silent end ("exit status 0", "killed by KILL") too */
	bool silent = !r->sig.key || r->sig.weak_key || !strncmp(r->sig.key, "exit status ", 12) ||
		      !strncmp(r->sig.key, "killed by ", 10);
	if (!silent || !sig)
		return;
	char what[64];
	snprintf(what, sizeof(what), "killed by %s", sigabbrev_np(sig) ? sigabbrev_np(sig) : "signal");
	free(r->sig.key_line);
	free(r->sig.key);
	r->sig.key_line = xstrdup(what);
	r->sig.key = xstrdup(what);
	r->sig.weak_key = false;
	signature_update_id(&r->sig);
}

/*
 * The diagnosis wrote stacks/RUN.txt before the run's output was read; when
 * the signature's frames come from the output (a hung interpreter's
 * tracebacks), its "signature:" line is rewritten to the one runs.jsonl
 * records, so the two never disagree (issue 19).
 */
static void stacks_signature(const struct run_opts *o, const struct run *r, const char *whence)
{
	char *path = xasprintf("%s/stacks/%" PRIu64 ".txt", o->out_dir, r->index);
	struct dbuf in, out;
	dbuf_init(&in, 64u << 20);
	dbuf_init(&out, 64u << 20);
	if (fileio_read_file(path, &in) == 0) {
		const char *text = dbuf_str(&in), *at = NULL;
		for (const char *p = text; (p = strstr(p, "signature: ")); p++)
			if (p == text || p[-1] == '\n')
				at = p;
		size_t head = at ? (size_t)(at - text) : in.len;
		dbuf_add(&out, text, head);
		if (!at && head && text[head - 1] != '\n')
			dbuf_addc(&out, '\n');
		dbuf_addf(&out, "signature: %s; frames:", r->sig.kind[0] ? r->sig.kind : "hang");
		for (size_t i = 0; i < r->sig.nframes; i++)
			dbuf_addf(&out, " %s", r->sig.frames[i]);
		dbuf_addf(&out, "%s (%s)\n", r->sig.nframes ? "" : " (none)", whence);
		if (at) {
			const char *nl = strchr(at, '\n');
			if (nl)
				dbuf_adds(&out, nl + 1);
		}
		write_file(path, &out);
	}
	dbuf_release(&in);
	dbuf_release(&out);
	free(path);
}

static bool late_verdict_is(const struct run *r, const char *late)
{
	return r->late && !strcmp(r->late, late);
}

/*
 * A hang the engine judged by the run's CPU (late.h): a busy-wait takes the
 * hottest threads' frames and says how much CPU in the stacks file; a
 * moving run past the user's timeout is one signature ("hang: timeout", no
 * frames: what a moving program runs differs at every look).
 */
static void late_evidence(const struct run_opts *o, struct run *r, const struct rundiag_state *st)
{
	struct evidence ev;
	bool busy = late_verdict_is(r, "spinning");
	if (busy && st && st->hang_done) {
		ev = st->hot;
	} else {
		memset(&ev, 0, sizeof(ev));
		snprintf(ev.kind, sizeof(ev.kind), "%s", busy ? "busy-wait" : "timeout");
		snprintf(ev.key_line, sizeof(ev.key_line), "hang: %s", ev.kind);
	}
	evidence_apply(&ev, &r->sig, true);
	if (!busy || !o->diag.window_ms)
		return;
	char *path = xasprintf("%s/stacks/%" PRIu64 ".txt", o->out_dir, r->index);
	char *line = xasprintf("busy-wait: %.0fx the CPU of a passing run, in %.1f s\n", r->cpu_factor,
			       (double)(r->end_mono - r->start_mono) / 1e9);
	struct stat sb;
	if (stat(path, &sb) == 0) {   /* the diagnosis wrote one */
		stacks_signature(o, r, "busy-wait: the hottest threads");
		int rc = fileio_append_file(path, line, strlen(line));
		if (rc < 0)
			fprintf(stderr, "jostle: cannot write '%s': %s\n", path, strerror(-rc));
	}
	free(line);
	free(path);
}

/* A crash's signature as a run without a record shows it: kind, key and
 * the output's frames (recsample.h). Owned by the caller. */
static char *bare_key(const struct signature *sig)
{
	struct dbuf b;
	dbuf_init(&b, 1u << 16);
	dbuf_addf(&b, "%s\x1f%s", sig->kind, sig->key ? sig->key : "");
	for (size_t i = 0; i < sig->nframes; i++)
		dbuf_addf(&b, "\x1f%s", sig->frames[i]);
	return dbuf_detach(&b, NULL);
}

static void classify(const struct run_opts *o, struct run *r, const char *text, size_t len, char **bare)
{
	struct evidence ev;
	memset(&ev, 0, sizeof(ev));
	if (r->outcome == OUT_HANG) {
		/* a crash in the tree (a grandchild's): its stack after the hang's */
		if (o->diag.crash_handler)
			(void)from_crashlog(o, r, &ev, true);
		struct rundiag_state *st = r->diag_state;
		if (late_verdict_is(r, "spinning") || late_verdict_is(r, "progressing")) {
			late_evidence(o, r, st);
			return;
		}
		if (!st) {
			/* Not diagnosed (--no-diag, or no diagnosis worker came
			 * free): no evidence, and the last line it printed varies;
			 * one key for all of these, unless the output holds a
			 * recognized report. */
			if (r->sig.weak_key || !r->sig.key || !strcmp(r->sig.key, "timed out")) {
				free(r->sig.key_line);
				free(r->sig.key);
				r->sig.key_line = xstrdup("hang: not diagnosed");
				r->sig.key = xstrdup("hang: not diagnosed");
				r->sig.weak_key = false;
				signature_update_id(&r->sig);
			}
			return;
		}
		ev = st->hang;
		if (!st->hang_done) {
			/* It exited as the timeout hit: nothing to diagnose, and its last
			 * line varies; one key for all of these. */
			memset(&ev, 0, sizeof(ev));
			snprintf(ev.kind, sizeof(ev.kind), "hang");
			snprintf(ev.key_line, sizeof(ev.key_line), "hang: exited at the timeout");
		}
		/* A hung interpreter: its native frames are all runtime; the
		 * faulthandler dump in the output names the Python functions. */
		bool native = ev.nframes > 0;
		if (!native)
			crash_python_frames(text, len, &ev);
		evidence_apply(&ev, &r->sig, true);
		if (!native && ev.nframes)
			stacks_signature(o, r, "Python frames from the faulthandler dump in the log");
		return;
	}
	if (r->outcome != OUT_CRASH && r->outcome != OUT_FAIL)
		return;
	static struct crash_report rep;  /* 30 KB: not on the stack */
	if (crash_parse(text, len, &rep) && !r->diag_json) {
		struct dbuf b;
		dbuf_init(&b, 1u << 20);
		dbuf_adds(&b, "{\"crash\":");
		crash_write_json(&rep, &b);
		dbuf_addc(&b, '}');
		r->diag_json = dbuf_detach(&b, NULL);
	}
	/* Every record of the run is unwound into its stacks file; when the
	 * output named no frame (a plain SIGSEGV), the first record's program
	 * frames are the signature's, else the core's. */
	int rec_sig = 0;
	if (o->diag.crash_handler && !r->no_record)
		rec_sig = from_crashlog(o, r, &ev, false);
	bool cored = r->outcome == OUT_CRASH && WIFSIGNALED(r->status) && WCOREDUMP(r->status);
	if (o->diag.core && cored)
		from_core(o, r, &ev, ev.nframes == 0);
	if (r->outcome == OUT_CRASH) {
		crash_key(r, rec_sig);
		*bare = bare_key(&r->sig);
	}
	/* A crash that stopped in the allocator is heap corruption, as glibc's
	 * own abort there is (extractor.h): one signature whichever way the
	 * corruption showed (a SEGV inside malloc, or malloc's abort). */
	bool heap = !strcmp(ev.kind, "heap-corruption") && r->outcome == OUT_CRASH &&
		    (!strcmp(r->sig.kind, "heap-corruption") || !strncmp(r->sig.key, "killed by ", 10));
	if (heap)
		evidence_apply(&ev, &r->sig, true);
	else if (ev.nframes && !r->sig.nframes) {
		ev.kind[0] = '\0';
		evidence_apply(&ev, &r->sig, false);
	}
}

void rundiag_classify(const struct run_opts *o, struct run *r, const char *text, size_t len)
{
	char *bare = NULL;
	classify(o, r, text, len, &bare);
	/* what the output's own report does not name alone, the program does */
	signature_scope(&r->sig, frame_basename(o->argv[0]));
	if (bare && !r->no_record)
		recsample_learn(&sampler, bare, &r->sig, r->index);
	else if (bare)
		r->frames_taken = recsample_apply(&sampler, bare, &r->sig, &r->frames_from);
	free(bare);
}

bool rundiag_record_next(const struct run_opts *o)
{
	sampler.off = o->diag.all_records || o->pressure.replay;
	return !o->diag.crash_handler || recsample_record(&sampler);
}

void rundiag_ended(const struct run *r)
{
	recsample_ended(&sampler, r->outcome == OUT_CRASH);
}

void rundiag_stop(uint64_t *without, uint64_t *taken)
{
	crashlog_symbols_free(symbols);
	symbols = NULL;
	crashdir_close(records);
	records = NULL;
	*without = sampler.without;
	*taken = sampler.taken;
	recsample_release(&sampler);   /* zeroed: the next series of this process (bisect) starts afresh */
}

void rundiag_release(struct run *r)
{
	free(r->diag_state);
	r->diag_state = NULL;
}

void rundiag_symbolize(const struct run_opts *o, struct dbuf *text, struct dbuf *tmp)
{
	if (o->diag.sanitizer_symbolizes || !sansym_wanted(dbuf_str(text), text->len))
		return;
	if (!symbols)
		symbols = crashlog_symbols_new();
	dbuf_reset(tmp);
	if (sansym_rewrite(symbols, dbuf_str(text), text->len, tmp)) {
		struct dbuf t = *text;
		*text = *tmp;
		*tmp = t;
	}
}
