/*
 * stack.h: native stacks of the threads of live processes, and folding
 * identical stacks into "98 x spin_wait <- aicore_execute <- start_thread".
 *
 * Capture goes through backends, `const struct stack_backend` records
 * (stack_libdw.c: elfutils libdwfl, attaching with ptrace; stack_gdb.c:
 * `gdb -p PID -batch`). stack_capture() tries them in order and keeps the
 * first that returns any stack; each failure's reason is kept for the
 * report.
 *
 * Ownership: a stack_set owns its threads, their frames and every string
 * in them; stack_set_release() frees it all. Capture appends to a set, so
 * one set may hold the threads of several processes.
 */
#ifndef JOSTLE_STACK_H
#define JOSTLE_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define STACK_MAX_FRAMES 64
/* A stack with Python frames merged in (pystack.h) may be this long. */
#define STACK_MAX_MERGED (4 * STACK_MAX_FRAMES)

struct stack_frame {
	char *fn;          /* owned; normalized name, "libfoo.so+0x1230" where no
	                    * symbol covers the pc (dwname.h), "" when unknown; a
	                    * Python frame's function (co_name) */
	char *module;      /* owned; object path (or source file), or NULL */
	uint64_t pc;       /* 0 for Python frames */
	int line;          /* a Python frame's line, 0 when unknown */
	bool python;       /* a Python frame: module is its source file */
	char *key;         /* owned; how signatures name a Python frame, as
			    * they name faulthandler's: "t.py:waiter"; NULL
			    * for native frames */
};

struct stack_thread {
	pid_t pid, tid;
	struct stack_frame *frames;   /* owned, innermost first */
	size_t nr;
	bool truncated;               /* deeper than STACK_MAX_FRAMES */
};

struct stack_set {
	struct stack_thread *v;       /* owned */
	size_t nr, alloc;
};

#define STACK_SET_INIT { NULL, 0, 0 }

struct stack_backend {
	const char *name;
	/* NULL when usable on this machine, else why not (static string). */
	const char *(*unavailable)(void);
	/*
	 * Append the stacks of every thread of process PID to out. Returns the
	 * number of threads appended (>= 0) or -errno, with a reason in err.
	 * The process is stopped only while it is unwound and is left running.
	 */
	int (*capture)(pid_t pid, struct stack_set *out, char *err, size_t errlen);
};

extern const struct stack_backend stack_backend_libdw;

/*
 * The libdw backend unwinds a live process from a helper: this program
 * (/proc/self/exe) run as `PROGRAM STACK_HELPER_ARG PID PARENT`, which
 * writes its answer on stdout (stack_libdw.c says why). A program that
 * captures stacks hands such a call to stack_helper_main() first thing in
 * main() (jostle's main.c, test_stack); in one that does not, the helper
 * gives no answer and the unwinding happens in the caller.
 */
#define STACK_HELPER_ARG "__jostle-stack-helper"
int stack_helper_main(int argc, char **argv);
extern const struct stack_backend stack_backend_gdb;

/*
 * Parse the output of gdb's `thread apply all bt` for process PID into out
 * (pure; stack_gdb.c). Returns the number of threads appended.
 */
int stack_gdb_parse(const char *text, pid_t pid, struct stack_set *out);

/*
 * The threads of a core file, the crashing thread first (libdw; in
 * stack_libdw.c). EXE (may be NULL) is the executable, for symbols when
 * the core lacks its path. *pid gets the pid recorded in the core.
 * Returns threads appended or -errno with a reason in err.
 */
int stack_from_core(const char *core, const char *exe, struct stack_set *out, pid_t *pid,
		    char *err, size_t errlen);

/* The backends in the order stack_capture() tries them; NULL-terminated. */
extern const struct stack_backend *const stack_backends[];

/*
 * Capture PID with the first backend that works; *used names it (NULL if
 * none did). why (may be NULL) collects "name: reason; " for each backend
 * that failed. Returns threads appended or -errno.
 */
int stack_capture(pid_t pid, struct stack_set *out, const char **used, char *why, size_t whylen);

/* Append one thread (takes nothing; the caller fills frames with stack_thread_push). */
struct stack_thread *stack_set_add(struct stack_set *s, pid_t pid, pid_t tid);
/* Append a frame; FN is normalized with frame_normalize(), MODULE copied. */
void stack_thread_push(struct stack_thread *t, const char *fn, const char *module, uint64_t pc);
/* Append a frame no symbol names, as LABEL ("libfoo.so+0x1230", dwname.h)
 * kept as it is: a program frame when MODULE is not runtime (frame.h). */
void stack_thread_push_label(struct stack_thread *t, const char *label, const char *module, uint64_t pc);
/* Free the strings of a frame (not the frame). */
void stack_frame_release(struct stack_frame *f);
/*
 * A frame as stacks show it, into buf: "fn" for a native frame ("??" or
 * "?? (module)" when unknown), "fn (file.py:LINE)" for a Python frame.
 * Returns buf.
 */
const char *stack_frame_label(const struct stack_frame *f, char *buf, size_t len);
void stack_set_release(struct stack_set *s);

/* The thread of TID in s, or NULL. */
const struct stack_thread *stack_set_find(const struct stack_set *s, pid_t tid);

/*
 * The i-th program frame (not runtime: frame.h) of a thread, innermost
 * first, or NULL. stack_program_frame(t, 0) is "the culprit function".
 * A Python frame is runtime when its file is in the standard library
 * (frame_python_stdlib()), and is named by its key ("t.py:waiter").
 */
const char *stack_program_frame(const struct stack_thread *t, size_t i);

/* A folded stack: the threads that share one frame list. */
struct stack_fold {
	char *line;         /* owned: "f0 <- f1 <- ..." (unknown frames "??") */
	unsigned count;
	const struct stack_thread *example;  /* borrowed from the set */
};

/*
 * Fold the threads of s into *out (caller frees with stack_fold_free): identical frame
 * lists counted, most common first, ties by line. MAXFRAMES (> 0) caps the
 * frames per line. Returns the number of folds.
 */
size_t stack_fold(const struct stack_set *s, size_t maxframes, struct stack_fold **out);
void stack_fold_free(struct stack_fold *f, size_t nr);

#endif
