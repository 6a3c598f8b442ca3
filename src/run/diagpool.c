/*
 * diagpool.c: hang diagnoses on worker threads (see diagpool.h).
 *
 * A job belongs to its worker until the worker is done, then to whoever
 * wins one compare-and-swap on job->state: the worker (DONE: it hands the
 * job to the engine through the pipe) or the engine (ABANDONED: the worker
 * frees it itself, whenever it returns). Workers are detached threads, so a
 * worker stuck in the kernel never holds up the end of a series.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diagnose/diagnose.h"
#include "run/diagpool.h"
#include "run/reap.h"
#include "util/clock.h"
#include "util/dbuf.h"
#include "util/fileio.h"
#include "util/path.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* How long Python processes get to print their tracebacks and die. */
#define PYTHON_END_MS 1000

int diagpool_init(struct diagpool *p, const char *out_dir, int window_ms, unsigned workers)
{
	memset(p, 0, sizeof(*p));
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	if (fcntl(fds[0], F_SETFL, O_NONBLOCK) < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		return -e;
	}
	p->fd = fds[0];
	p->wfd = fds[1];
	p->out_dir = xstrdup(out_dir);
	p->window_ms = window_ms;
	p->workers = workers ? workers : 1;
	return 0;
}

bool diagpool_idle(const struct diagpool *p)
{
	return p->busy < p->workers;
}

/* Processes reparented to jostle belong to the run whose JOSTLE_RUN they carry. */
static bool adopt_same_run(pid_t pid, void *ctx)
{
	uint64_t run;
	return reap_run_of(pid, &run) == 0 && run == *(const uint64_t *)ctx;
}

void diagpool_job_free(struct diagpool_job *job)
{
	if (!job)
		return;
	free(job->diag_json);
	free((char *)job->out_dir);
	free(job);
}

static void *worker(void *arg)
{
	struct diagpool_job *job = arg;
	struct diag_opts dopt = DIAG_OPTS_INIT;
	dopt.window_ms = job->window_ms;
	dopt.adopt = adopt_same_run;
	dopt.adopt_ctx = &job->req.index;
	dopt.stop = &job->stop;
	struct diag d;
	(void)diag_run(&d, job->req.pid, &dopt);
	d.late_ns = job->req.late_ns;
	d.queued_ns = job->req.queued_ns;

	struct dbuf b;
	dbuf_init(&b, 16u << 20);
	diag_write_text(&d, &b);
	char name[64];
	snprintf(name, sizeof(name), "stacks/%" PRIu64 ".txt", job->req.index);
	char *path = path_join(job->out_dir, name);
	int rc = fileio_write_file(path, dbuf_str(&b), b.len);
	if (rc < 0)
		fprintf(stderr, "jostle: cannot write '%s': %s\n", path, strerror(-rc));
	free(path);
	/* Python: every thread's traceback into the run's output, unless the
	 * engine wants the tree now. */
	if (!atomic_load(&job->stop)) {
		/* marked in DIR/crashes so that the crash handler writes no record
		 * for our SIGABRT (a no-op without the handler's folder) */
		char *crashes = path_join(job->out_dir, "crashes");
		job->python_ended = diag_python_end(&d, PYTHON_END_MS, crashes) > 0;
		free(crashes);
	}
	d.total_ns = clock_mono_ns() - job->started;
	dbuf_reset(&b);
	diag_write_record(&d, &b);
	job->diag_json = dbuf_detach(&b, NULL);
	dbuf_release(&b);
	diag_evidence(&d, &job->hang);
	diag_evidence_hot(&d, &job->hot);
	job->hang_done = d.kind != DIAG_GONE;
	diag_release(&d);

	int expect = DIAGPOOL_RUNNING;
	if (atomic_compare_exchange_strong(&job->state, &expect, DIAGPOOL_DONE)) {
		/* 8 bytes: one atomic write (PIPE_BUF), never interleaved */
		if (fileio_write_all(job->wfd, &job, sizeof(job)) < 0)
			fprintf(stderr, "jostle: internal error: a diagnosis could not report back\n");
	} else {
		diagpool_job_free(job);   /* abandoned: nobody waits for it */
	}
	return NULL;
}

struct diagpool_job *diagpool_start(struct diagpool *p, const struct diagpool_req *req)
{
	struct diagpool_job *job = xcalloc(1, sizeof(*job));
	job->req = *req;
	job->out_dir = xstrdup(p->out_dir);   /* the worker may outlive the pool */
	job->window_ms = p->window_ms;
	job->wfd = p->wfd;
	job->started = clock_mono_ns();
	atomic_init(&job->stop, 0);
	atomic_init(&job->state, DIAGPOOL_RUNNING);
	pthread_attr_t attr;
	int rc = pthread_attr_init(&attr);
	if (!rc)
		rc = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (!rc)
		rc = pthread_create(&job->thread, &attr, worker, job);
	pthread_attr_destroy(&attr);
	if (rc) {
		diagpool_job_free(job);
		errno = rc;
		return NULL;
	}
	p->busy++;
	return job;
}

void diagpool_stop_job(struct diagpool_job *job)
{
	atomic_store(&job->stop, 1);
}

struct diagpool_job *diagpool_reap(struct diagpool *p)
{
	struct diagpool_job *job;
	for (;;) {
		ssize_t n = read(p->fd, &job, sizeof(job));
		if (n == (ssize_t)sizeof(job)) {
			p->busy--;
			return job;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return NULL;   /* EAGAIN: nothing finished */
	}
}

bool diagpool_abandon(struct diagpool *p, struct diagpool_job *job)
{
	int expect = DIAGPOOL_RUNNING;
	atomic_store(&job->stop, 1);
	if (!atomic_compare_exchange_strong(&job->state, &expect, DIAGPOOL_ABANDONED))
		return false;
	p->busy--;
	return true;
}

void diagpool_release(struct diagpool *p)
{
	if (!p->out_dir)
		return;   /* never initialized */
	close(p->fd);
	close(p->wfd);
	free(p->out_dir);
	memset(p, 0, sizeof(*p));
}
