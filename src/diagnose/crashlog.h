/*
 * crashlog.h: the records of libjostle-crash.so (preload/crash.c), the crash
 * handler `jostle run` preloads into every run, and their symbolization.
 *
 * A record is DIR/crashes/RUN.PID.txt (docs/FORMAT.md): the signal, the
 * fault address, the crashing pid and tid, and a copy of the process's
 * /proc/self/maps; then either (version 2) the crashing thread's registers
 * and a raw copy of its stack, or (version 1, and the handler on an
 * architecture it has no registers for) the pcs backtrace() found.
 * crashlog_parse() reads one (pure: text in, struct out; a record cut short
 * by a second fatal signal still parses as far as it goes);
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

struct crashlog_map {
	uint64_t start, end, offset, inode;
	char perms[5];
	char *path;          /* owned; "" for anonymous memory, "[vdso]" ... */
};

/* A copy of stack memory: the bytes at [addr, addr + len). */
struct crashlog_stack {
	uint64_t addr;
	size_t len;
	unsigned char *bytes;           /* owned */
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
	struct crashlog_map *maps;      /* owned */
	size_t nmaps, alloc;
};

#define CRASHLOG_INIT { 0 }

/*
 * Parse TEXT (LEN bytes) into out (initialized with CRASHLOG_INIT).
 * Returns 0, or -EINVAL with a reason in why when TEXT is not a record.
 */
int crashlog_parse(const char *text, size_t len, struct crashlog *out, char *why, size_t whylen);

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
 * then still holds the interrupted pc).
 */
int crashlog_unwind(struct crashlog *c, char *why, size_t whylen);

/*
 * The crash record of run RUN in DIR (files RUN.PID.txt written at or after
 * SINCE_NS, realtime, 0 for any): the one of MAIN_PID when there is one, else the
 * earliest (a crashing child, or a grandchild). Returns 0 and its path, or
 * -ENOENT.
 */
int crashlog_find(const char *dir, uint64_t run, pid_t main_pid, int64_t since_ns,
		  char *path, size_t len);

struct stack_set;
struct dbuf;

/*
 * The files symbolization has read, kept across records: opening a library
 * and reading its symbol table and line program costs tens of milliseconds,
 * which a series of a thousand crashes of one program would pay a thousand
 * times in jostle's event loop. Each file (path and inode) is reported once,
 * at a base of the cache's own choosing, and a record's pcs are moved there
 * from where its maps say the file was loaded (ASLR moves it every run).
 * Owned by the caller; crashlog_symbols_free(NULL) is a no-op.
 */
struct crashlog_symbols;
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
 * Symbolize c's pcs (unwound first by crashlog_unwind, for a record of
 * version 2) into a new thread of out (pid, tid of the crash;
 * frames innermost first, names normalized as stack.h does), through cache
 * (NULL: a cache of this call only). When text is not NULL, append one
 * line per frame to it: "  #0 fn in module (file:line)". Returns the
 * number of frames with a name (>= 0), or -errno with a reason in why.
 */
int crashlog_symbolize(struct crashlog_symbols *cache, const struct crashlog *c, struct stack_set *out,
		       struct dbuf *text, char *why, size_t whylen);

#endif
