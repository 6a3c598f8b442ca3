/*
 * diagpool.h: hang diagnoses on worker threads, off the engine's event loop.
 *
 * A run past its deadline is handed to a worker, which reads its tree in
 * /proc, unwinds its stacks, writes DIR/stacks/RUN.txt and (for Python)
 * asks faulthandler for tracebacks; the engine meanwhile serves every other
 * run. When a worker is done it writes its job's address to the pool's
 * pipe; the engine polls pool->fd and collects finished jobs with
 * diagpool_reap().
 *
 *   diagpool_init(&p, out_dir, window_ms, workers);    once per series
 *   if (diagpool_idle(&p)) job = diagpool_start(&p, &req);
 *   ... poll(p.fd) ... while ((job = diagpool_reap(&p))) use and free it;
 *   diagpool_stop_job(job);        bound passed or Ctrl-C: stop early
 *   diagpool_abandon(&p, job);     a worker stuck in the kernel: give up
 *   diagpool_release(&p);          at the end of the series
 *
 * Workers are threads of jostle, not processes: under Yama's ptrace_scope=1
 * (Ubuntu's default) only an ancestor may attach to a process, and a
 * forked worker is the run's sibling, not its ancestor. Hence the engine
 * waits with __WNOTHREAD (series.c), so that it never takes the ptrace
 * stops that belong to a worker. A worker touches nothing of the engine:
 * its inputs are copied into the job, its outputs are read by the engine
 * only after the job was handed back.
 */
#ifndef JOSTLE_DIAGPOOL_H
#define JOSTLE_DIAGPOOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "signature/evidence.h"

struct diagpool {
	int fd;              /* read end: readable when a job finished (poll it) */
	int wfd;             /* write end, the workers' */
	char *out_dir;       /* owned copy */
	int window_ms;
	unsigned workers;    /* at most this many jobs at once */
	unsigned busy;       /* jobs started and not yet reaped or abandoned */
};

/* What the engine asks for: the run's root process and index. */
struct diagpool_req {
	pid_t pid;
	uint64_t index;
	void *owner;          /* the engine's run, handed back untouched */
	int64_t late_ns;      /* for the record: deadline -> seen by the engine */
	int64_t queued_ns;    /* for the record: waited for a free worker */
};

enum { DIAGPOOL_RUNNING, DIAGPOOL_DONE, DIAGPOOL_ABANDONED };

struct diagpool_job {
	struct diagpool_req req;
	const char *out_dir;      /* borrowed from the pool */
	int window_ms;
	int wfd;
	pthread_t thread;
	atomic_int stop;          /* engine -> worker: stop early */
	atomic_int state;         /* who owns the job once the worker is done */
	int64_t started;          /* monotonic */
	/* results, read only after diagpool_reap() returned the job */
	char *diag_json;          /* owned: the record's "diag" object */
	struct evidence hang;     /* kind, key line, culprit frames */
	struct evidence hot;      /* the same as a busy-wait: the hottest threads' frames */
	bool hang_done;           /* the tree was there to diagnose */
	bool python_ended;        /* Python processes were asked for tracebacks */
};

/* 0, or -errno (no pipe). workers >= 1. */
int diagpool_init(struct diagpool *p, const char *out_dir, int window_ms, unsigned workers);
bool diagpool_idle(const struct diagpool *p);
/* Start a worker for req. NULL (with errno set) when no thread could be created. */
struct diagpool_job *diagpool_start(struct diagpool *p, const struct diagpool_req *req);
void diagpool_stop_job(struct diagpool_job *job);
/* A finished job, or NULL when none is waiting. The caller frees it. */
struct diagpool_job *diagpool_reap(struct diagpool *p);
/*
 * Give up on a job whose worker does not come back (blocked in the kernel
 * on a process in D state): true when it was given up (the worker frees it
 * when, if ever, it returns), false when it had just finished (it will be
 * reaped as usual).
 */
bool diagpool_abandon(struct diagpool *p, struct diagpool_job *job);
void diagpool_job_free(struct diagpool_job *job);
/* End of series: closes the pipe. Workers still running were abandoned. */
void diagpool_release(struct diagpool *p);

#endif
