/*
 * record.h: the lines of runs.jsonl (docs/FORMAT.md). Building a line and
 * writing it are separate so the write is one write() call: a reader never
 * sees half a record from a live writer, and a killed jostle leaves at most
 * one partial last line (which readers skip).
 */
#ifndef JOSTLE_RECORD_H
#define JOSTLE_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "run/capture.h"
#include "run/series.h"
#include "util/dbuf.h"

/* The "series" line: the command, settings and machine. */
void record_series(struct dbuf *b, const char *series_id, const struct run_opts *o,
		   int64_t start_real);
/* The "run" line of a classified run; log is relative to the results dir or NULL. */
void record_run(struct dbuf *b, const char *series_id, const struct run *r,
		int64_t series_start_mono, const struct capture *cap, const char *log);
/* The CPU a classified run used (its tree: what the record says). */
void record_cpu(const struct run *r, double *user_s, double *sys_s);
/* The "end" line of a series (issue 6): why it stopped, for the reports;
 * without and taken: rundiag_stop()'s counts of sampled crash records. */
void record_end(struct dbuf *b, const char *series_id, const char *stop, bool interrupted,
		double elapsed_s, uint64_t without, uint64_t taken);
/*
 * Append b to fd with one write (retried on EINTR/short writes). 0, or -1
 * with errno: the write's error (ENOSPC, EIO ...), after cutting the file
 * back to where it was, so that a full disk never leaves half a record; or
 * ENOENT when the file was written but is no longer in any folder (the
 * results folder was removed while the series ran).
 */
int record_write(int fd, const struct dbuf *b);

#endif
