/*
 * catalog.h: the call sites `jostle localize` knows of, and the plan files
 * it hands the preload library.
 *
 * A site is a call of an interposed function (pthread_mutex_lock, ...)
 * from one place of the program: the module (an ELF file, by absolute
 * path) and the offset of the return address in it, as the file's program
 * headers number addresses, so that it is the same in every run whatever
 * ASLR does. The preload library keeps the sites a process reached in
 * DIR/sites/RUN.PID.tab (util/sitetable.h, a file it counts in directly);
 * catalog_read_dir() adds every such table of a series. catalog_symbolize() names each site's
 * caller (function, file:line) from the module's symbols and DWARF.
 *
 * Ownership: a catalog owns its sites and their strings; catalog_release()
 * frees them.
 */
#ifndef JOSTLE_CATALOG_H
#define JOSTLE_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lsite {
	char *module;          /* owned: absolute path of the ELF file */
	uint64_t off;          /* offset of the return address in it */
	char call[32];         /* the interposed call: "pthread_mutex_lock" */
	uint64_t calls;        /* calls counted in the tables read */
	uint64_t delays;       /* delays injected there, in those tables */
	uint64_t procs;        /* processes whose table has it */
	char *start_module;    /* owned: pthread_create: the start routine's module, or NULL */
	uint64_t start_off;    /* and its offset there */
	char *start_fn;        /* owned: its name, or NULL */
	char *fn;              /* owned: the calling function, or NULL (not named) */
	char *src;             /* owned: its source file, or NULL */
	int line;              /* 0 when unknown */
};

struct catalog {
	struct lsite *v;
	size_t n, alloc;
	uint64_t tables;       /* tables read */
	uint64_t overflow;     /* calls at sites a table had no room for */
};

#define CATALOG_INIT { NULL, 0, 0, 0, 0 }

/* The index of (module, off), or -1. */
long catalog_find(const struct catalog *c, const char *module, uint64_t off);

/*
 * Add one site table (the bytes of a sites/RUN.PID.tab file,
 * util/sitetable.h): every valid slot is merged into c (calls, delays and
 * procs add up). Pure. Returns the number of sites in it, or -EINVAL when
 * DATA is not a table.
 */
long catalog_add_table(struct catalog *c, const void *data, size_t len);

/* Add every table of DIR/sites/, then sort the catalog by module and
 * offset (the same order in every series, whatever ASLR did). Returns the
 * number read (0 when there is none), or -errno when the folder exists
 * and cannot be read. */
long catalog_read_dir(struct catalog *c, const char *dir);

/* Name every site's caller: function (demangled), source file and line of
 * the call instruction. Sites whose module has no symbols keep fn NULL. */
void catalog_symbolize(struct catalog *c);

/*
 * Write a plan file for the library (format in preload/chaos.c) to PATH:
 * mode "record" when sites is NULL (discovery: the usual chaos, sites
 * recorded), else mode "mask" with the n catalog sites sites[0..n) as bits
 * 0..n-1, each delayed at a call with probability prob[i]. 0 or -errno.
 */
int catalog_write_plan(const struct catalog *c, const char *path, const size_t *sites,
		       const double *prob, size_t n);

/* "pthread_mutex_lock in drain at drain_uaf.c:171" (or "... at
 * drain_uaf+0x1a2b" without a name; for a thread creation whose start
 * routine is named, "start of worker (pthread_create in main at x.c:40)":
 * its delay holds up the new thread before it runs) into buf; the source
 * file by its basename. Returns buf. */
const char *catalog_describe(const struct lsite *s, char *buf, size_t len);

/* The function a delay at s holds up: the start routine of a thread
 * creation when named, else the calling function (NULL when not named). */
const char *catalog_function(const struct lsite *s);

void catalog_release(struct catalog *c);

#endif
