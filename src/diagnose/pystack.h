/*
 * pystack.h: the Python stacks of a live CPython process, read from the
 * outside, and merged into its native stacks.
 *
 *   struct pystack ps;
 *   pystack_read(pid, &ps);             the process stopped (SIGSTOP)
 *   pystack_merge(&ps, &stacks, pid);   into the native stacks of pid
 *   pystack_release(&ps);
 *
 * pystack_read() finds the interpreter among the process's modules (the
 * python executable, or a libpython that a program embeds), locates
 * _PyRuntime, Py_Version and PyCode_Type through the module's ELF symbol
 * tables (libdwfl), picks the struct layout of that version
 * (pyoffsets.h), and walks interpreters -> thread states -> frames with
 * process_vm_readv(): file, function and line of every frame, and which C
 * call of the eval loop (_PyEval_EvalFrameDefault) runs it. Nothing is
 * written to the process and nothing is stopped here: the caller stops
 * the process first (diagnose.c stops the whole tree for the native
 * unwinding), else the stacks may be torn.
 *
 * Supported: CPython 3.11 and 3.12 (layouts built in), 3.13 and 3.14 (from
 * the _Py_DebugOffsets the interpreter publishes), 64-bit, the default
 * (GIL) build; free-threaded 3.13t/3.14t builds are read through the
 * same debug offsets (thread-local bytecode of 3.14t included) but were
 * not tested. Older versions, 32-bit processes and interpreters whose
 * symbols are stripped are refused with one line saying so.
 *
 * Problems are never printed: each one is a line in ps.problems ("Python
 * 3.10.13 is not supported (3.11 and later are)", "thread 123: frame 4 is
 * not a code object (a frame push in progress?): its Python frames stop
 * there"), and whatever could be read is kept.
 *
 * Thread-safe: no state outside the arguments.
 */
#ifndef JOSTLE_PYSTACK_H
#define JOSTLE_PYSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "diagnose/pyoffsets.h"
#include "diagnose/stack.h"
#include "util/strvec.h"

/* Frames read per thread at most (a deeper stack is cut, truncated set). */
#define PYSTACK_MAX_FRAMES 512

struct pystack_frame {
	char *name;          /* owned: the function (co_name), "???" unreadable */
	char *file;          /* owned: co_filename, "???" unreadable */
	int line;            /* 0 when unknown */
	unsigned call;       /* the C call of the eval loop that runs it, 0 = innermost */
};

struct pystack_thread {
	pid_t tid;                      /* native thread id, 0 when unknown */
	struct pystack_frame *frames;   /* owned, innermost first */
	size_t nr, alloc;
	unsigned ncalls;                /* C calls of the eval loop on this thread */
	bool truncated;
};

struct pystack {
	unsigned version;               /* PY_VERSION_HEX, 0 when unknown */
	bool free_threaded;
	char module[256];               /* the object holding _PyRuntime, "" if none */
	struct pystack_thread *threads; /* owned */
	size_t nthreads, alloc;
	struct strvec problems;         /* owned; one line each */
	/* The interpreter's own word on exit cleanup (_PyRuntime._finalizing):
	 * 1 when Py_FinalizeEx is past the program's threads and atexit
	 * handlers (tearing down: modules cleared, objects freed), 0 when
	 * not, -1 when it could not be read */
	int finalizing;
};

#define PYSTACK_INIT { .finalizing = -1 }

/* The memory of the process being read: the real one, or a test's. */
struct pystack_mem {
	/* Read LEN bytes at ADDR: 0, or -errno (-EFAULT: not mapped). */
	int (*read)(const struct pystack_mem *m, uint64_t addr, void *buf, size_t len);
	pid_t pid;
	void *ctx;
};

/*
 * Read every Python thread of process PID into *out (initialized here;
 * always pystack_release it). Returns the number of threads read, or
 * -errno with the reason in out->problems: -ENOENT (no interpreter found
 * or not initialized), -EPROTONOSUPPORT (a version jostle cannot read),
 * -ESRCH (gone), -EPERM.
 */
int pystack_read(pid_t pid, struct pystack *out);

/*
 * The walk itself, from _PyRuntime at RUNTIME with layout O, over any
 * memory (pure but for M; unit-tested on a fabricated address space).
 * CODE_TYPE is &PyCode_Type (0: not checked). Appends to out->threads and
 * out->problems; returns the number of threads, or -errno.
 */
int pystack_walk(const struct pystack_mem *m, const struct pyoffsets *o, uint64_t runtime,
		 uint64_t code_type, struct pystack *out);

/*
 * The line of byte offset ADDR in a 3.11+ location table (co_linetable, LEN
 * bytes) of a code object starting at FIRSTLINENO (pure). A negative
 * address (a frame not started yet) is its first line; 0 when the table
 * has no line for ADDR.
 */
int pystack_line(const uint8_t *table, size_t len, int firstlineno, int addr);

/*
 * True when /proc/PID/maps text MAPS maps a Python interpreter: an object
 * named python3.X or libpython3.X.so (pure).
 */
bool pystack_maps_python(const char *maps);

/*
 * Merge the Python frames of ps into the native stacks of process PID in
 * s: each _PyEval_EvalFrameDefault frame is replaced by the Python frames
 * its call runs, innermost first. A Python thread whose native stack is
 * missing gets a stack of its Python frames alone. Lines for what could not
 * be matched go to ps->problems. Returns the number of threads merged.
 */
int pystack_merge(struct pystack *ps, struct stack_set *s, pid_t pid);

void pystack_release(struct pystack *ps);

#endif
