/*
 * crashlog.h: the records of libjostle-crash.so (preload/crash.c), the crash
 * handler `jostle run` preloads into every run, and their symbolization.
 *
 * A record is DIR/crashes/RUN.PID.txt: the signal, the fault address, the
 * crashing pid and tid, the raw pcs of the crashing thread (the faulting pc
 * first, then return addresses) and a copy of the process's
 * /proc/self/maps. crashlog_parse() reads one (pure: text in, struct out;
 * a record cut short by a second fatal signal still parses as far as it
 * goes); crashlog_symbolize() turns its pcs into function names offline,
 * with elfutils libdwfl: each mapped file that holds a pc is reported at
 * its load address from the maps copy and looked up in its own symbol
 * table and DWARF, so static functions of the executable are named (which
 * dladdr could not do).
 *
 * Ownership: a crashlog owns its maps and their paths; crashlog_release()
 * frees them. The stack thread crashlog_symbolize() appends belongs to the
 * set.
 */
#ifndef JOSTLE_CRASHLOG_H
#define JOSTLE_CRASHLOG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CRASHLOG_MAX_PCS 64

struct crashlog_map {
	uint64_t start, end, offset, inode;
	char perms[5];
	char *path;          /* owned; "" for anonymous memory, "[vdso]" ... */
};

struct crashlog {
	int signo;
	char signame[16];    /* "SIGSEGV" */
	int code;            /* si_code */
	uint64_t addr;       /* si_addr */
	pid_t pid, tid;
	uint64_t pc[CRASHLOG_MAX_PCS];  /* the faulting pc first */
	size_t npc;
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
 * Symbolize c's pcs into a new thread of out (pid, tid of the crash;
 * frames innermost first, names normalized as stack.h does), through cache
 * (NULL: a cache of this call only). When text is not NULL, append one
 * line per frame to it: "  #0 fn in module (file:line)". Returns the
 * number of frames with a name (>= 0), or -errno with a reason in why.
 */
int crashlog_symbolize(struct crashlog_symbols *cache, const struct crashlog *c, struct stack_set *out,
		       struct dbuf *text, char *why, size_t whylen);

#endif
