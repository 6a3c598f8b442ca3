/*
 * diagnose.h: explaining a hung process tree before it is killed.
 *
 *   struct diag d;
 *   struct diag_opts o = DIAG_OPTS_INIT;
 *   diag_run(&d, pid, &o);          tree, thread states over a window, stacks
 *   diag_write_text(&d, &buf);      DIR/stacks/RUN.txt
 *   diag_write_record(&d, &buf);    the "diag" member of a run record
 *   diag_evidence(&d, &ev);         kind/key/frames for the signature
 *   diag_python_end(&d, 2000, dir); optional: SIGABRT to Python processes
 *                                   whose frames could not be read
 *   diag_release(&d);
 *
 * diag_run() first samples every thread of every process of the tree for
 * the window (state, wait channel, syscall, CPU time), so that nothing it
 * does itself disturbs the picture, and only then unwinds the stacks
 * (stack.h), which stops each thread briefly. It never kills anything.
 * While the tree is stopped for the unwinding, the Python stacks of its
 * Python processes are read too (pystack.h) and merged into the native
 * ones: each _PyEval_EvalFrameDefault frame becomes the Python frames it
 * runs, so folding, culprit frames and signatures see Python functions.
 *
 * Classification, from each thread's role over the window:
 *   livelock    some threads runnable and burning CPU, none in D or stopped
 *   deadlock    no thread busy; threads blocked in futex waits (locks,
 *               condition variables, joins), none in I/O
 *   blocked-io  no thread busy; threads in D or waiting on pipes, sockets, poll
 *   sleeping    no thread busy; threads only in timed sleeps
 *   stopped     every thread stopped (T) or traced
 *   mixed       anything else (e.g. I/O and locks together)
 *   progressing busy threads that move: changing code, processes born or
 *               ended, memory being touched (motion.h): not stuck; the run
 *               is slow or still a hang by CPU and cause (docs/timeouts.md)
 *   gone        the tree vanished before it could be read
 * Threads waiting for a child (wait4) and zombies are neutral: a shell that
 * waits for its hung child does not make a livelock "mixed".
 */
#ifndef JOSTLE_DIAGNOSE_H
#define JOSTLE_DIAGNOSE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "diagnose/churn.h"
#include "diagnose/motion.h"
#include "diagnose/proctree.h"
#include "diagnose/stack.h"
#include "signature/evidence.h"
#include "util/dbuf.h"
#include "util/strvec.h"

enum diag_role {
	DIAG_ROLE_SPIN,      /* runnable / burning CPU */
	DIAG_ROLE_LOCK,      /* futex wait */
	DIAG_ROLE_IO,        /* D state, pipe, socket, poll, read/write */
	DIAG_ROLE_SLEEP,     /* nanosleep, pause, other interruptible waits */
	DIAG_ROLE_STOPPED,   /* T or t */
	DIAG_ROLE_CHILD,     /* waiting for a child, or held by a tracer of its own tree (LeakSanitizer): neutral */
	DIAG_ROLE_ZOMBIE,    /* Z, X, or vanished: neutral */
	DIAG_ROLE_NR
};

enum diag_kind {
	DIAG_GONE,
	DIAG_LIVELOCK,
	DIAG_DEADLOCK,
	DIAG_BLOCKED_IO,
	DIAG_SLEEPING,
	DIAG_STOPPED,
	DIAG_MIXED,
	DIAG_PROGRESSING,
};

/* Thread states counted: R S D T Z and everything else. */
enum { DIAG_ST_R, DIAG_ST_S, DIAG_ST_D, DIAG_ST_T, DIAG_ST_Z, DIAG_ST_OTHER, DIAG_ST_NR };

struct diag_opts {
	int window_ms;          /* sampling window (default 200) */
	int samples;            /* state samples within the window (default 10) */
	bool stacks;            /* unwind native stacks (default true) */
	bool python;            /* read Python stacks and merge them (default
				 * true; needs stacks) */
	size_t fold_frames;     /* frames per folded line (default 16) */
	proctree_adopt_fn *adopt;   /* processes reparented to jostle (may be NULL) */
	void *adopt_ctx;
	/* Checked between samples and between processes' unwinding (may be
	 * NULL): non-zero asks the diagnosis to stop where it is (the engine's
	 * bound on a diagnosis, or Ctrl-C); what was read so far is kept. */
	const atomic_int *stop;
	bool motion;            /* with busy threads, look again: stuck or slow? (default true) */
	int motion_gap_ms;      /* between the stack snapshots (default 40) */
};

#define DIAG_OPTS_INIT { .window_ms = 200, .samples = 10, .stacks = true, .python = true, \
			 .fold_frames = 16, .motion = true, .motion_gap_ms = 40 }

struct diag_thread {
	pid_t pid, tid;
	char comm[64];
	char state;             /* the most frequent state over the samples */
	char wchan[64];         /* "" when not waiting or unknown */
	long syscall;           /* procfs_parse_syscall(): -1 running, -2 unknown */
	uint64_t cpu_ns;        /* CPU consumed over the window */
	unsigned r_samples, samples;
	enum diag_role role;
	bool bystander;         /* busy in another process than a deadlocked one */
};

struct diag_proc {
	pid_t pid, ppid;
	char comm[64];
	int depth;
	bool adopted;
	bool python;            /* a Python interpreter */
	bool faulthandler;      /* it handles SIGABRT (faulthandler enabled) */
	uint64_t starttime;     /* clock ticks after boot: a pid reused is another process */
	uint64_t faults0;       /* page faults when the diagnosis began */
	uint64_t ticks0;        /* CPU ticks then, its reaped children's included */
	const char *backend;    /* stack backend that worked, or NULL */
	char stack_error[256];  /* why no stacks, "" when there are */
	/* Python stacks (pystack.h), when python: */
	char py_version[24];    /* "3.11.2", "" when unknown */
	bool py_frames;         /* its Python frames were read and merged */
	unsigned py_threads;    /* Python threads merged */
	int py_finalizing;      /* the interpreter's own flag (pystack.h): 1 finalizing, 0 not, -1 unknown */
	bool exit_cleanup;      /* its main thread busy in exit cleanup (motion_exit_cleanup) */
	struct strvec py_problems;  /* owned: one line per problem */
};

/* How a Python process's stacks are known. */
enum diag_pystacks {
	DIAG_PY_NONE,           /* not at all */
	DIAG_PY_FRAMES,         /* read from outside and merged (pystack.h) */
	DIAG_PY_FAULTHANDLER,   /* to be printed by faulthandler: diag_python_end() */
};

struct diag {
	pid_t root;
	int window_ms;
	struct diag_proc *procs;        /* owned, tree pre-order */
	size_t nprocs;
	struct diag_thread *threads;    /* owned, grouped by process */
	size_t nthreads;
	unsigned states[DIAG_ST_NR];
	unsigned roles[DIAG_ROLE_NR];
	enum diag_kind kind;
	char summary[512];              /* the one-line classification */
	struct stack_set stacks;        /* owned */
	struct stack_set *more;         /* owned: later snapshots of the busy processes */
	size_t nmore;
	bool motion_done;               /* the busy threads were looked at again */
	/* A Python process busy in its exit cleanup, and every other busy
	 * thread in such a process too: progressing, its own reason (motion.h) */
	bool exit_cleanup;
	struct motion motion;           /* what that found (motion.h) */
	struct churn churn;             /* owned: processes seen come and go (churn.h) */
	unsigned bystanders;            /* busy threads set aside (diag_thread.bystander) */
	struct stack_fold *folds;       /* owned */
	size_t nfolds;
	size_t late_threads;    /* started after the sampling: no role, stacks left out */
	int64_t sample_ns, stack_ns, total_ns;   /* time spent in each phase */
	int64_t python_ns;      /* of stack_ns: reading and merging Python frames */
	bool stopped;           /* opts.stop was seen: the diagnosis is partial */
	/* Set by the caller, for the record: how late after the run's deadline
	 * the engine saw it, and how long the run waited for a free worker. */
	int64_t late_ns, queued_ns;
};

/*
 * Diagnose the tree of ROOT. 0, or -ESRCH when the tree is gone (d is
 * still valid: kind DIAG_GONE), or another -errno. Always release d.
 */
int diag_run(struct diag *d, pid_t root, const struct diag_opts *o);
void diag_release(struct diag *d);

const char *diag_kind_name(enum diag_kind k);
const char *diag_role_name(enum diag_role r);

/*
 * The role of a thread from what was sampled (pure): dominant state, CPU
 * over the window, samples in R, syscall number and wait channel.
 */
enum diag_role diag_role_of(char state, uint64_t cpu_ns, int64_t window_ns,
			    unsigned r_samples, unsigned samples, long syscall, const char *wchan);
/* The classification from the role counts (pure) and the count of D threads. */
enum diag_kind diag_classify(const unsigned roles[DIAG_ROLE_NR], unsigned d_state);
/* The one-line summary into buf (pure). */
void diag_format_summary(enum diag_kind k, const unsigned states[DIAG_ST_NR],
			 const unsigned roles[DIAG_ROLE_NR], size_t nthreads, char *buf, size_t len);

/* Human-readable report (DIR/stacks/RUN.txt, `jostle stacks`). */
void diag_write_text(const struct diag *d, struct dbuf *out);
/* The full diagnosis as one JSON object (`jostle stacks --format json`). */
void diag_write_json(const struct diag *d, struct dbuf *out);
/* The compact "diag" object of a run record (kind, counts, top folds). */
void diag_write_record(const struct diag *d, struct dbuf *out);
/*
 * Whether a "diag" object written by diag_write_record() says the tree was
 * in a Python exit cleanup ("exit_cleanup":true; struct diag.exit_cleanup).
 * A key can only be matched as a key: inside a JSON string its quotes are
 * escaped.
 */
bool diag_record_exit_cleanup(const char *json);

/*
 * Signature evidence of the hang: kind = the classification name, key
 * line "hang: KIND", frames = the culprit functions: the top program frame
 * of the threads that decide the class (busy ones for a livelock, blocked
 * ones for a deadlock...), most frequent first, then the others.
 */
void diag_evidence(const struct diag *d, struct evidence *ev);

/*
 * The evidence of a busy-wait (the engine decides one from the run's CPU,
 * run/late.h): kind "busy-wait", key line "hang: busy-wait", frames = the
 * top program frames of the hottest threads (those that used at least half
 * the CPU of the hottest one over the window), most frequent first.
 */
void diag_evidence_hot(const struct diag *d, struct evidence *ev);

/* How the Python stacks of process p are known (NONE for other processes,
 * and for one in its exit cleanup whose frames were not read). */
enum diag_pystacks diag_pystacks_of(const struct diag_proc *p);
const char *diag_pystacks_name(enum diag_pystacks k);

/*
 * The fallback for Python stacks that could not be read from outside: end
 * every Python process of the tree whose frames were not read
 * (diag_pystacks_of() says DIAG_PY_FAULTHANDLER) with SIGABRT, so that
 * faulthandler prints all threads' tracebacks to its stderr, and wait up to
 * wait_ms for them to die. CRASH_DIR (may be NULL): the runs' crash
 * record folder, where each is marked first so that jostle's crash
 * handler writes no record for this SIGABRT (crashlog_mark_sent).
 * Returns the number signalled.
 */
int diag_python_end(const struct diag *d, int wait_ms, const char *crash_dir);

#endif
