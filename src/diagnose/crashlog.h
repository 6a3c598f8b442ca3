/*
 * crashlog.h: the records of libjostle-crash.so (preload/crash.c), the crash
 * handler `jostle run` preloads into every run, and their symbolization.
 *
 * A record is DIR/crashes/RUN.PID.txt (docs/FORMAT.md): the signal, the
 * fault address, the crashing pid and tid, and a copy of the process's
 * /proc/self/maps; then either (versions 2 and 3) the crashing thread's
 * registers and a raw copy of its stack, or (version 1, and the handler on
 * an architecture it has no registers for) the pcs backtrace() found.
 * Version 3 ends with an "end" line and may hold "also" lines (other
 * threads that crashed at the same time) and "hole" lines (stack bytes
 * that could not be read).
 * crashlog_parse() reads one (pure: text in, struct out; a record cut short
 * still parses as far as it goes, and says so in complete);
 * crashlog_unwind() turns registers and stack into pcs offline, with
 * elfutils libdwfl and the CFI of the files the maps copy names;
 * crashlog_symbolize() turns pcs into function names, with libdwfl too:
 * each mapped file that holds a pc is looked up in its own symbol table and
 * DWARF, so static functions of the executable are named (which dladdr
 * could not do).
 *
 * Ownership: a crashlog owns its maps, their paths and its stack copies;
 * crashlog_release() frees them. The stack thread crashlog_symbolize() appends belongs to the
 * set.
 */
#ifndef JOSTLE_CRASHLOG_H
#define JOSTLE_CRASHLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CRASHLOG_MAX_PCS 64
#define CRASHLOG_MAX_REGS 64
#define CRASHLOG_MAX_STACKS 2
#define CRASHLOG_MAX_ALSO 16

struct crashlog_map {
	uint64_t start, end, offset, inode;
	char perms[5];
	char *path;          /* owned; "" for anonymous memory, "[vdso]" ... */
};

/* A copy of stack memory: the bytes at [addr, addr + len), of which
 * [hole, hole + hole_len) could not be read (zeros; hole_len 0: none). */
struct crashlog_stack {
	uint64_t addr;
	size_t len;
	unsigned char *bytes;           /* owned */
	uint64_t hole;
	size_t hole_len;
};

/* Another thread that crashed while the record was written. */
struct crashlog_also {
	pid_t tid;
	int signo;
	uint64_t pc, addr;
};

struct crashlog {
	int version;         /* of the format: 1 pcs, 2 registers and stack */
	int signo;
	char signame[16];    /* "SIGSEGV" */
	int code;            /* si_code */
	uint64_t addr;       /* si_addr */
	pid_t pid, tid;
	uint64_t pc[CRASHLOG_MAX_PCS];  /* the interrupted pc first */
	bool exact[CRASHLOG_MAX_PCS];   /* pc[i] is where it stopped, not a return address */
	size_t npc;
	char arch[16];                  /* "x86_64" ("" in version 1) */
	uint64_t reg[CRASHLOG_MAX_REGS];  /* in the arch's DWARF numbering */
	uint64_t regmask;               /* bit N: reg[N] was recorded */
	struct crashlog_stack stack[CRASHLOG_MAX_STACKS];
	size_t nstack;
	uint64_t lost_sp;               /* not 0: a stack at this sp could not be read at all */
	struct crashlog_also also[CRASHLOG_MAX_ALSO];
	size_t nalso;                   /* also[] used */
	size_t nalso_more;              /* others the writer had no room for */
	bool has_maps;                  /* the "maps" line was read */
	bool complete;                  /* the "end" line was read (version 3) */
	size_t bytes;                   /* the record's size */
	char unwind_stop[200];          /* crashlog_unwind: why it stopped early, "" if not */
	struct crashlog_map *maps;      /* owned */
	size_t nmaps, alloc;
};

#define CRASHLOG_INIT { 0 }

/*
 * Parse TEXT (LEN bytes) into out (initialized with CRASHLOG_INIT).
 * Returns 0, or -EINVAL with a reason in why when TEXT is not a record
 * (-ENODATA when it is empty). A record of version 3 without its "end" line
 * parses (complete false): crashlog_truncation() says what it lacks.
 */
int crashlog_parse(const char *text, size_t len, struct crashlog *out, char *why, size_t whylen);

/*
 * For a record cut short (a version-3 record without its "end" line: the
 * writer was killed): what it lacks, as a sentence into buf ("cut short in
 * its maps copy: ..."), and true. False and buf "" for a complete record
 * (or an older version, which cannot tell).
 */
bool crashlog_truncation(const struct crashlog *c, char *buf, size_t len);

/* Read and parse the record at PATH. 0, or -errno with a reason in why. */
int crashlog_read(const char *path, struct crashlog *out, char *why, size_t whylen);

void crashlog_release(struct crashlog *c);

/*
 * Unwind a record of version 2: the crashing thread's frames from its
 * registers, through its stack copy, by the CFI (.eh_frame, else
 * .debug_frame) of the files the maps copy names, into c->pc (the
 * interrupted pc first, then return addresses; c->exact says which).
 * A file replaced since the crash (another inode) is not read: the unwind
 * stops there. A record without registers (version 1) is left as it is.
 * Returns the number of pcs (>= 1), or -errno with a reason in why (c->pc
 * then still holds the interrupted pc). cache (may be NULL) keeps the files
 * it opened for the next record (struct crashlog_symbols below).
 */
struct crashlog_symbols;
int crashlog_unwind(struct crashlog_symbols *cache, struct crashlog *c, char *why, size_t whylen);

/*
 * Before jostle sends process PID a signal that is no crash (the SIGABRT
 * that makes Python's faulthandler print every thread): DIR/PID.sent, which
 * tells the crash handler to write no record (it removes the mark); after
 * the process ended, crashlog_unmark_sent() removes one left over. 0, or
 * -errno.
 */
int crashlog_mark_sent(const char *dir, pid_t pid);
void crashlog_unmark_sent(const char *dir, pid_t pid);

struct stack_set;
struct dbuf;

/*
 * The files symbolization has read, kept across records: opening a library
 * and reading its symbol table and line program costs tens of milliseconds,
 * which a series of a thousand crashes of one program would pay a thousand
 * times in jostle's event loop. Each file (path and inode) is reported once,
 * at a base of the cache's own choosing, and a record's pcs are moved there
 * from where its maps say the file was loaded (ASLR moves it every run).
 * Each name found is remembered too (libdwfl looks a symbol up by a linear
 * scan of the table), and the unwinder's open files are kept for the next
 * record (each unwind would otherwise map, parse and unmap every file).
 * One thread at a time. Owned by the caller; crashlog_symbols_free(NULL) is a no-op.
 */
struct crashlog_symbols *crashlog_symbols_new(void);
void crashlog_symbols_free(struct crashlog_symbols *cache);

/*
 * The function (as the symbol table names it, mangled), source file and line
 * at VADDR of the ELF file PATH (an address as the file's program headers
 * number it: what a sanitizer prints as "(PATH+0xVADDR)"), through cache.
 * 0, or -ENOENT when the file or a name is not found (fn "" then).
 */
int crashlog_symbols_lookup(struct crashlog_symbols *cache, const char *path, uint64_t vaddr,
			    char *fn, size_t fnlen, char *src, size_t srclen, int *line);

/*
 * The innermost function at VADDR of PATH as its DWARF describes it: where
 * the compiler inlined a function, that function's own name (the symbol
 * table, and so crashlog_symbols_lookup, names only the function it was
 * inlined into). 0, or -ENOENT without DWARF for the address.
 */
int crashlog_symbols_inlined(struct crashlog_symbols *cache, const char *path, uint64_t vaddr,
			     char *fn, size_t fnlen);

/*
 * Symbolize c's pcs (unwound first by crashlog_unwind, for a record of
 * version 2) into a new thread of out (pid, tid of the crash;
 * frames innermost first, names normalized as stack.h does), through cache
 * (NULL: a cache of this call only). When text is not NULL, append one
 * line per frame to it: "  #0 fn in module (file:line)". Returns the
 * number of frames with a name (>= 0), or -errno with a reason in why.
 */
int crashlog_symbolize(struct crashlog_symbols *cache, const struct crashlog *c, struct stack_set *out,
		       struct dbuf *text, char *why, size_t whylen);

/*
 * The record at PATH read, unwound and symbolized, as `jostle run` does for
 * every record of a failed run and `jostle explain RECORD` for one: appends
 * to text a title line ("TITLE (pid P, tid T, SIGSEGV at 0x0): stack of the
 * crashing thread from jostle's crash handler", with "(a child process of
 * the run's pid MAIN)" when MAIN is not 0 and not P), the frames
 * (crashlog_symbolize) and what could not be read. ev (may be NULL) gets
 * the program frames (frame.h: names, or module+offset where no symbol
 * covers them) and, when the crash stopped in the allocator (a SIGSEGV
 * inside malloc or free, or glibc's own abort there), kind "heap-corruption"
 * with key line "heap corruption", the same evidence whichever way the
 * corruption showed. cache as in crashlog_symbolize. *out holds the parsed
 * record on return (the caller releases it, on failure too). Returns 0, or
 * -errno with a reason in why (a problem that left frames is said in text:
 * 0 is returned).
 */
struct evidence;
int crashlog_explain(struct crashlog_symbols *cache, const char *path, const char *title, pid_t main_pid,
		     struct crashlog *out, struct dbuf *text, struct evidence *ev, char *why, size_t whylen);

#endif
