/*
 * crash.h: crash evidence in a run's captured output.
 *
 * crash_parse() reads the text a run printed and finds the first report of
 * a known tool: AddressSanitizer, LeakSanitizer, ThreadSanitizer, UBSan,
 * glibc's malloc and fortify aborts, Python's faulthandler ("Fatal Python
 * error" with every thread's traceback) and NVIDIA compute-sanitizer. It is
 * pure (text in, struct out) and is tested on recorded reports in
 * tests/data/.
 *
 * The result is a finer kind ("asan-heap-use-after-free", "tsan-data-race",
 * "ubsan", "lsan", "glibc-abort", "python-fatal",
 * "compute-sanitizer-memcheck" ...), the key line as printed, the stacks of
 * the report (access, free, allocation; both sides of a race; each Python
 * thread) with normalized function names, and the top program frames for
 * the signature (evidence.h): runtime frames (libc, pthread, the loader,
 * the sanitizer runtime, the interpreter, CUDA's libraries) skipped, no
 * addresses, offsets, line numbers or paths. For a data race, the two
 * sides' frames are sorted so that the same race has the same frames
 * whichever thread came first.
 *
 * The run record's signature for a crash stays the one of the shared
 * extractor table (extractor.h), so that `jostle run` and `jostle survey`
 * give a failure the same id; this finer evidence goes into the record's
 * "diag" member and `jostle explain`.
 */
#ifndef JOSTLE_CRASH_H
#define JOSTLE_CRASH_H

#include <stdbool.h>
#include <stddef.h>

#include "signature/evidence.h"

#define CRASH_MAX_STACKS 8
#define CRASH_MAX_FRAMES 24

struct crash_stack {
	char title[64];       /* "access", "freed", "allocated", "previous", "thread 0x..." */
	char fn[CRASH_MAX_FRAMES][128];       /* normalized; "" for unknown */
	bool runtime[CRASH_MAX_FRAMES];       /* frame_is_runtime() of each */
	size_t nframes;
};

struct crash_report {
	struct evidence ev;   /* kind, key line, top program frames */
	const char *tool;     /* "AddressSanitizer", ... (static) */
	char access[64];      /* "READ of size 8", "Write of size 4", "" */
	struct crash_stack stacks[CRASH_MAX_STACKS];
	size_t nstacks;
};

/*
 * Parse TEXT (LEN bytes; NULs and invalid UTF-8 allowed). Returns true
 * and fills out when a report was found; false (out->ev.kind "") when not.
 */
bool crash_parse(const char *text, size_t len, struct crash_report *out);

/*
 * crash_sanitizer_failed: true when TEXT (LEN bytes) holds the error report
 * of a sanitizer (AddressSanitizer, LeakSanitizer, ThreadSanitizer, UBSan,
 * compute-sanitizer): a run whose output holds one failed, whatever its
 * exit status. compute-sanitizer exits 0 after its reports unless given
 * --error-exitcode; the others do with exitcode=0 or halt_on_error=0. A
 * compute-sanitizer warning (racecheck's "Warning: Race reported ...") is
 * not an error. Cheap on output that holds no report.
 */
bool crash_sanitizer_failed(const char *text, size_t len);

/*
 * Where a line stands in a report opened by an earlier line (for the
 * extractors, which read a log line by line; crash_parse() reads a whole
 * report at once and agrees with this):
 *   CRASH_LINE_IN     a line of the report that opens nothing of its own
 *   CRASH_LINE_END    the report's last line
 *   CRASH_LINE_OTHER  anything else (it may belong to the report or not)
 * KIND is the extractor's kind of the report ("asan", "compute-sanitizer",
 * NULL). compute-sanitizer prints one report per process, from its first
 * record to "ERROR SUMMARY" (or "RACECHECK SUMMARY"): the records in it, a
 * memcheck error and the API error it causes or many race hazards, are one
 * report of the kind of its first record, in `jostle run`, `jostle survey`
 * and `jostle explain` alike. Sanitizer reports end at "SUMMARY: ..." or
 * "==PID==ABORTING".
 */
enum crash_line { CRASH_LINE_OTHER, CRASH_LINE_IN, CRASH_LINE_END };
enum crash_line crash_report_line(const char *kind, const char *line, size_t len);

/*
 * The culprits of a Python traceback dump in TEXT (faulthandler's blocks of
 * "Thread ... (most recent call first):"): the innermost program frame of
 * each thread, as "file.py:function", sorted, into ev->frames. Used for
 * hung Python processes ended with SIGABRT, where which thread catches the
 * signal varies. Returns the number of frames.
 */
size_t crash_python_frames(const char *text, size_t len, struct evidence *ev);

/* Human-readable rendering of a report (for `jostle explain`). */
struct dbuf;
void crash_write_text(const struct crash_report *r, struct dbuf *out);
/* The report as one JSON object: kind, tool, key_line, access, frames, stacks. */
void crash_write_json(const struct crash_report *r, struct dbuf *out);

#endif
