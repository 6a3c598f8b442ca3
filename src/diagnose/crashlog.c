/*
 * crashlog.c: parsing and symbolizing the crash handler's records (see
 * crashlog.h; the writer is preload/crash.c).
 *
 * Symbolization is offline: the process is gone, so nothing is attached and
 * nothing is read from /proc. Only the files that hold a pc are reported to
 * libdwfl (a Python process maps a hundred libraries; a stack touches a
 * few), each at the address of its mapping at file offset 0, which is where
 * dwfl_report_elf wants an ET_DYN placed (an ET_EXEC ignores it). A file
 * whose inode differs from the one in the maps copy was replaced since the
 * crash (a rebuild) and is left unnamed rather than named wrongly.
 *
 * As in stack_libdw.c, a return address is looked up at pc - 1, so a call
 * that is the last instruction of a function is not blamed on the next
 * one; frame 0, the faulting pc, is looked up as it is.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diagnose/crashlog.h"
#include "diagnose/dwname.h"
#include "diagnose/stack.h"
#include "signature/evidence.h"
#include "signature/frame.h"
#include "util/dbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define RECORD_MAX (16u << 20)

/* ---- parsing ---- */

static bool starts(const char *line, size_t n, const char *word)
{
	size_t k = strlen(word);
	return n > k && !memcmp(line, word, k) && line[k] == ' ';
}

/* A copy of the line's value after "word " (NUL-terminated, bounded). */
static const char *value(const char *line, size_t n, size_t skip, char *buf, size_t len)
{
	size_t k = n - skip < len - 1 ? n - skip : len - 1;
	memcpy(buf, line + skip, k);
	buf[k] = '\0';
	return buf;
}

static bool parse_num(const char *s, int base, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, base);
	if (errno || end == s)
		return false;
	*out = v;
	return true;
}

static char *skip_spaces(char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

/* "start-end perms offset dev inode   path" (the format of proc(5)). */
static void parse_map(struct crashlog *c, const char *line, size_t n)
{
	char buf[4096 + 128];
	value(line, n, 0, buf, sizeof(buf));
	char *p = buf, *end;
	struct crashlog_map m;
	memset(&m, 0, sizeof(m));
	m.start = strtoull(p, &end, 16);
	if (end == p || *end != '-')
		return;
	p = end + 1;
	m.end = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return;
	p = end + 1;
	if (strlen(p) < 5)
		return;
	memcpy(m.perms, p, 4);
	m.perms[4] = '\0';
	p += 4;
	m.offset = strtoull(p, &end, 16);
	if (end == p)
		return;
	p = skip_spaces(end);
	p += strcspn(p, " ");      /* dev */
	m.inode = strtoull(p, &end, 10);
	if (end == p)
		return;
	p = skip_spaces(end);
	ALLOC_GROW(c->maps, c->nmaps + 1, c->alloc);
	m.path = xstrdup(p);
	c->maps[c->nmaps++] = m;
}

/* "stack ADDR LEN" and the LEN raw bytes after it, as far as the text goes. */
static const char *parse_stack(struct crashlog *c, const char *line, size_t n, const char *p,
			       const char *end)
{
	char buf[64];
	char *sp;
	value(line, n, 6, buf, sizeof(buf));
	uint64_t addr = strtoull(buf, &sp, 16), len;
	if (sp == buf || !parse_num(sp, 10, &len))
		return p;   /* a line we cannot read: what follows is not text */
	size_t have = (size_t)(end - p) < len ? (size_t)(end - p) : (size_t)len;
	if (!len && !c->lost_sp)
		c->lost_sp = addr;   /* the writer found no readable mapping at sp */
	if (c->nstack < CRASHLOG_MAX_STACKS && have) {
		struct crashlog_stack *s = &c->stack[c->nstack++];
		s->addr = addr;
		s->len = have;
		s->bytes = xmalloc(have);
		memcpy(s->bytes, p, have);
	}
	p += have;
	return p < end && *p == '\n' ? p + 1 : p;
}

/* "hole ADDR LEN": bytes of the last stack copy that could not be read. */
static void parse_hole(struct crashlog *c, const char *line, size_t n)
{
	char buf[64];
	char *sp;
	value(line, n, 5, buf, sizeof(buf));
	uint64_t addr = strtoull(buf, &sp, 16), len;
	if (sp == buf || !parse_num(sp, 10, &len) || !c->nstack)
		return;
	struct crashlog_stack *s = &c->stack[c->nstack - 1];
	s->hole = addr;
	s->hole_len = (size_t)len;
}

/* "also TID SIGNO PC ADDR": another thread that crashed meanwhile. */
static void parse_also(struct crashlog *c, const char *line, size_t n)
{
	char buf[128];
	char *p, *e;
	value(line, n, 5, buf, sizeof(buf));
	struct crashlog_also a;
	memset(&a, 0, sizeof(a));
	a.tid = (pid_t)strtol(buf, &p, 10);
	a.signo = (int)strtol(p, &e, 10);
	if (e == p || c->nalso >= CRASHLOG_MAX_ALSO)
		return;
	a.pc = strtoull(e, &p, 16);
	a.addr = strtoull(p, NULL, 16);
	c->also[c->nalso++] = a;
}

/* Lines that end the maps copy of version 3 (the copy ran to the end before). */
static bool maps_end(const char *line, size_t n)
{
	return starts(line, n, "stack") || starts(line, n, "hole") || starts(line, n, "also") ||
	       starts(line, n, "also-more") || (n == 3 && !memcmp(line, "end", 3));
}

int crashlog_parse(const char *text, size_t len, struct crashlog *out, char *why, size_t whylen)
{
	const char *p = text, *end = text + len;
	bool header = false, in_maps = false;
	char buf[64];
	uint64_t v;
	out->bytes = len;
	if (!len) {
		snprintf(why, whylen, "empty crash record (the process was killed as its handler "
			 "created the file)");
		return -ENODATA;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *line = p;
		p = nl ? nl + 1 : end;
		if (!header) {
			if (n < 14 || memcmp(line, "jostle-crash ", 13)) {
				snprintf(why, whylen, "not a crash record (no 'jostle-crash' header)");
				return -EINVAL;
			}
			out->version = (int)strtol(value(line, n, 13, buf, sizeof(buf)), NULL, 10);
			header = true;
		} else if (in_maps && !(out->version >= 3 && maps_end(line, n))) {
			if (nl)   /* a last line without its newline may be cut short */
				parse_map(out, line, n);
		} else if (n == 4 && !memcmp(line, "maps", 4)) {
			in_maps = true;
			out->has_maps = true;
		} else if (n == 3 && !memcmp(line, "end", 3) && nl) {
			out->complete = true;
			in_maps = false;
		} else if (!nl) {
			/* a last line without its newline may be cut short: "pid 12" of 1234 */
		} else if (starts(line, n, "signal")) {
			value(line, n, 7, buf, sizeof(buf));
			char *name;
			long s = strtol(buf, &name, 10);
			out->signo = s > 0 && s < 128 ? (int)s : 0;
			while (*name == ' ')
				name++;
			snprintf(out->signame, sizeof(out->signame), "%s", name);
		} else if (starts(line, n, "code")) {
			out->code = (int)strtol(value(line, n, 5, buf, sizeof(buf)), NULL, 10);
		} else if (starts(line, n, "addr") && parse_num(value(line, n, 5, buf, sizeof(buf)), 16, &v)) {
			out->addr = v;
		} else if (starts(line, n, "pid") && parse_num(value(line, n, 4, buf, sizeof(buf)), 10, &v)) {
			out->pid = (pid_t)v;
		} else if (starts(line, n, "tid") && parse_num(value(line, n, 4, buf, sizeof(buf)), 10, &v)) {
			out->tid = (pid_t)v;
		} else if (starts(line, n, "pc") && nl && out->npc < CRASHLOG_MAX_PCS &&
			   parse_num(value(line, n, 3, buf, sizeof(buf)), 16, &v)) {
			out->exact[out->npc] = out->npc == 0;
			out->pc[out->npc++] = v;
		} else if (starts(line, n, "arch")) {
			value(line, n, 5, out->arch, sizeof(out->arch));
		} else if (starts(line, n, "reg") && nl) {
			char *val;
			value(line, n, 4, buf, sizeof(buf));
			unsigned long r = strtoul(buf, &val, 10);
			if (val != buf && r < CRASHLOG_MAX_REGS && parse_num(val, 16, &v)) {
				out->reg[r] = v;
				out->regmask |= 1ULL << r;
			}
		} else if (starts(line, n, "stack") && nl) {
			in_maps = false;
			p = parse_stack(out, line, n, p, end);
		} else if (starts(line, n, "hole") && nl) {
			parse_hole(out, line, n);
		} else if (starts(line, n, "also") && nl) {
			parse_also(out, line, n);
		} else if (starts(line, n, "also-more") && nl &&
			   parse_num(value(line, n, 10, buf, sizeof(buf)), 10, &v)) {
			out->nalso_more = (size_t)v;
		}
		/* unknown lines: a later version's additions */
	}
	if (!out->signo || !out->pid) {
		snprintf(why, whylen, "crash record cut short in its first lines (%zu bytes, no %s): the "
			 "process was killed as its handler began writing", len, out->signo ? "pid" : "signal");
		return -EINVAL;
	}
	return 0;
}

bool crashlog_truncation(const struct crashlog *c, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (c->version < 3 || c->complete)
		return false;
	const char *where = !c->has_maps ? "before its maps copy (no file of the process is known)" :
			    !c->nstack && !c->lost_sp ? "in its maps copy or before its stack copy" :
			    "in or after its stack copy";
	snprintf(buf, len, "the crash record is cut short %s, at %zu bytes: its writer was killed "
		 "(SIGKILL to the process group, or the disk is full)", where, c->bytes);
	return true;
}

int crashlog_read(const char *path, struct crashlog *out, char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(why, whylen, "cannot open '%s': %s", path, strerror(e));
		return -e;
	}
	struct dbuf b;
	dbuf_init(&b, RECORD_MAX);
	char chunk[8192];
	ssize_t r;
	while ((r = read(fd, chunk, sizeof(chunk))) > 0)
		dbuf_add(&b, chunk, (size_t)r);
	int e = errno;
	close(fd);
	int rc;
	if (r < 0) {
		snprintf(why, whylen, "cannot read '%s': %s", path, strerror(e));
		rc = -e;
	} else {
		char reason[160];
		rc = crashlog_parse(dbuf_str(&b), b.len, out, reason, sizeof(reason));
		if (rc < 0)
			snprintf(why, whylen, "'%s': %s", path, reason);
	}
	dbuf_release(&b);
	return rc;
}

void crashlog_release(struct crashlog *c)
{
	for (size_t i = 0; i < c->nstack; i++)
		free(c->stack[i].bytes);
	c->nstack = 0;
	for (size_t i = 0; i < c->nmaps; i++)
		free(c->maps[i].path);
	free(c->maps);
	c->maps = NULL;
	c->nmaps = c->alloc = 0;
}

/* ---- finding the run's record ---- */

static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

int crashlog_mark_sent(const char *dir, pid_t pid)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%d.sent", dir, (int)pid);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

void crashlog_unmark_sent(const char *dir, pid_t pid)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%d.sent", dir, (int)pid);
	(void)unlink(path);
}

/* ---- the caches (struct crashlog_symbols, crashlog.h) ---- */

#define SYMBOLS_MAX_FILES 128
#define SYMBOLS_FIRST_BASE (1ULL << 44)   /* above any ET_EXEC link address */
#define SYMBOLS_STRIDE (1ULL << 36)
#define UNWIND_MAX_FILES 32
#define MEMO_SLOTS 4096                   /* a power of two */

struct cached_file {
	char *path;                /* owned */
	uint64_t inode;
	Dwfl_Module *mod;          /* NULL: it could not be read (remembered too) */
	uint64_t low;              /* where the cache placed its first load */
};

/* A file the unwinder read, open and parsed for the next record. */
struct unwind_file {
	char *path;                /* owned */
	uint64_t inode;
	int64_t size, mtime_ns;    /* a file rewritten in place keeps its inode */
	int fd;                    /* owned */
	Elf *elf;                  /* owned: each Dwfl gets a reference (elf_begin dups it) */
};

/* A name found for a pc of a cached module. */
struct name_memo {
	Dwfl_Module *mod;          /* NULL: an empty slot */
	Dwarf_Addr at;
	bool sym;
	char *name;                /* owned */
};

struct crashlog_symbols {
	Dwfl_Callbacks cb;         /* the Dwfl keeps a pointer to them */
	Dwfl *dwfl;
	struct cached_file file[SYMBOLS_MAX_FILES];
	size_t n;
	uint64_t next_base;
	struct name_memo *memo;    /* MEMO_SLOTS, open addressing; NULL until used */
	size_t nmemo;
	struct unwind_file ufile[UNWIND_MAX_FILES];
	size_t nufile;
	Elf *host;                 /* jostle's own executable, for libdwfl's backend */
	int host_fd;
};

/* ---- unwinding ---- */

#if defined(__x86_64__)
#define HOST_ARCH "x86_64"
#elif defined(__aarch64__)
#define HOST_ARCH "aarch64"
#else
#define HOST_ARCH "?"
#endif

struct unwind_ref {
	const struct crashlog_map *m;      /* the file's offset-0 mapping */
	struct crashlog_symbols *k;        /* NULL: no cache */
};

struct unwind {
	const struct crashlog *c;
	struct unwind_ref *ref;            /* one per map, each module's userdata */
	uint64_t pc[CRASHLOG_MAX_PCS];
	bool exact[CRASHLOG_MAX_PCS];
	size_t n;
	uint64_t unread;           /* the last address the record did not hold */
	size_t unread_at;          /* frames found when it was asked for */
};

static void unwind_file_drop(struct unwind_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->path);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

static bool same_file(const struct unwind_file *f, const struct stat *st)
{
	return f->inode == (uint64_t)st->st_ino && f->size == (int64_t)st->st_size &&
	       f->mtime_ns == mtime_ns(st);
}

/* The cached open file of m (opened now if it is not cached), NULL if it
 * cannot be read or is not the file the crashed process had. */
static struct unwind_file *unwind_file_of(struct crashlog_symbols *k, const struct crashlog_map *m)
{
	struct stat st;
	if (stat(m->path, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_ino != m->inode)
		return NULL;
	for (size_t i = 0; i < k->nufile; i++) {
		struct unwind_file *f = &k->ufile[i];
		if (strcmp(f->path, m->path))
			continue;
		if (same_file(f, &st))
			return f;
		unwind_file_drop(f);   /* rebuilt: the slot is taken again below */
		*f = k->ufile[--k->nufile];
		memset(&k->ufile[k->nufile], 0, sizeof(k->ufile[0]));
		break;
	}
	if (k->nufile == UNWIND_MAX_FILES) {   /* ever new files: start over */
		for (size_t i = 0; i < k->nufile; i++)
			unwind_file_drop(&k->ufile[i]);
		k->nufile = 0;
	}
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat fst;
	Elf *elf = NULL;
	if (fstat(fd, &fst) < 0 || !same_file(&(struct unwind_file){ .inode = (uint64_t)st.st_ino,
		.size = (int64_t)st.st_size, .mtime_ns = mtime_ns(&st) }, &fst) ||
	    !(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	struct unwind_file *f = &k->ufile[k->nufile++];
	*f = (struct unwind_file){ .path = xstrdup(m->path), .inode = (uint64_t)fst.st_ino,
		.size = (int64_t)fst.st_size, .mtime_ns = mtime_ns(&fst), .fd = fd, .elf = elf };
	return f;
}

/* The file of a module reported from the maps copy (userdata: its
 * unwind_ref), refused when it was replaced since the crash. From the
 * cache, a new reference to its Elf (the Dwfl ends it, the file stays). */
static int unwind_find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
			   char **file_name, Elf **elfp)
{
	const struct unwind_ref *ref = *userdata;
	const struct crashlog_map *m = ref->m;
	(void)mod, (void)name, (void)base;
	if (ref->k) {
		struct unwind_file *f = unwind_file_of(ref->k, m);
		if (!f || !(*elfp = elf_begin(f->fd, ELF_C_READ_MMAP, f->elf)))
			return -1;
		*file_name = xstrdup(m->path);
		return -1;   /* no fd of its own: the cache keeps the file open */
	}
	int fd = open(m->path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_ino != m->inode) {
		close(fd);
		return -1;
	}
	*file_name = xstrdup(m->path);
	return fd;
}


/* Each mapped file as one module where the crashed process had it, as
 * dwfl_linux_proc_report() would have from the live process: from its
 * mapping at offset 0 to the end of the mappings of that file after it.
 * The files are opened only when the unwind reaches them. */
static int unwind_report(Dwfl *dwfl, const struct crashlog *c, struct unwind *u)
{
	dwfl_report_begin(dwfl);
	for (size_t i = 0; i < c->nmaps; i++) {
		const struct crashlog_map *b = &c->maps[i];
		if (b->offset || b->path[0] != '/' || !b->inode)
			continue;
		uint64_t end = b->end;
		for (size_t j = i + 1; j < c->nmaps; j++) {
			const struct crashlog_map *x = &c->maps[j];
			if (!x->offset || x->inode != b->inode || strcmp(x->path, b->path))
				break;
			end = x->end;
		}
		Dwfl_Module *mod = dwfl_report_module(dwfl, b->path, b->start, end);
		void **userdata;
		if (mod && dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL))
			*userdata = &u->ref[i];
	}
	return dwfl_report_end(dwfl, NULL, NULL);
}

/* A word of memory that a file holds as it was loaded: a segment that is
 * not writable (the writable ones changed as the program ran). */
static bool read_segment(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	Dwarf_Addr bias = 0;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	size_t nph = 0, size = 0;
	const char *raw = elf ? elf_rawfile(elf, &size) : NULL;
	if (!raw || elf_getphdrnum(elf, &nph) < 0)
		return false;
	Dwarf_Addr at = addr - bias;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || (ph.p_flags & PF_W))
			continue;
		if (at < ph.p_vaddr || at - ph.p_vaddr + sizeof(*result) > ph.p_filesz)
			continue;
		uint64_t off = ph.p_offset + (at - ph.p_vaddr);
		if (off + sizeof(*result) > size)
			return false;
		memcpy(result, raw + off, sizeof(*result));
		return true;
	}
	return false;
}

static bool memory_read(Dwfl *dwfl, const struct unwind *u, Dwarf_Addr addr, Dwarf_Word *result);

static bool unwind_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwind *u = arg;
	if (!memory_read(dwfl, u, addr, result)) {
		u->unread = addr;
		u->unread_at = u->n;
		return false;
	}
	return true;
}

static bool memory_read(Dwfl *dwfl, const struct unwind *u, Dwarf_Addr addr, Dwarf_Word *result)
{
	for (size_t i = 0; i < u->c->nstack; i++) {
		const struct crashlog_stack *s = &u->c->stack[i];
		if (addr >= s->addr && addr - s->addr + sizeof(*result) <= s->len) {
			if (s->hole_len && addr + sizeof(*result) > s->hole && addr < s->hole + s->hole_len)
				return false;   /* zeros the writer put where memory was gone */
			memcpy(result, s->bytes + (addr - s->addr), sizeof(*result));
			return true;
		}
	}
	return read_segment(dwfl, addr, result);
}

static pid_t unwind_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	const struct unwind *u = arg;
	(void)dwfl;
	if (*thread_argp)
		return 0;   /* one thread: the crashing one */
	*thread_argp = arg;
	return u->c->tid ? u->c->tid : u->c->pid;
}

static bool unwind_set_registers(Dwfl_Thread *thread, void *arg)
{
	const struct unwind *u = arg;
	const struct crashlog *c = u->c;
	for (unsigned r = 0; r < CRASHLOG_MAX_REGS; r++) {
		Dwarf_Word w = c->reg[r];
		if (((c->regmask >> r) & 1) && !dwfl_thread_state_registers(thread, (int)r, 1, &w))
			return false;
	}
	dwfl_thread_state_register_pc(thread, c->pc[0]);
	return true;
}

static const Dwfl_Thread_Callbacks unwind_thread_callbacks = {
	.next_thread = unwind_next_thread,
	.memory_read = unwind_memory_read,
	.set_initial_registers = unwind_set_registers,
};

static int unwind_frame(Dwfl_Frame *frame, void *arg)
{
	struct unwind *u = arg;
	Dwarf_Addr pc;
	bool activation = false;
	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	u->pc[u->n] = pc;
	u->exact[u->n] = activation;   /* the first frame, or one a signal interrupted */
	u->n++;
	return u->n < CRASHLOG_MAX_PCS ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* An ELF file of this machine's architecture, for libdwfl's backend when
 * no file of the crashed process can be read (they were deleted, or the
 * record was cut short before its maps copy): jostle's own executable. */
static Elf *host_elf(int *fd)
{
	elf_version(EV_CURRENT);
	*fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	Elf *e = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!e) {
		close(*fd);
		*fd = -1;
	}
	return e;
}

int crashlog_unwind(struct crashlog_symbols *k, struct crashlog *c, char *why, size_t whylen)
{
	if (!c->regmask || !c->npc)
		return (int)c->npc;   /* version 1: the handler's pcs are all there is */
	if (strcmp(c->arch, HOST_ARCH)) {
		snprintf(why, whylen, "a crash record of '%s' on '%s': only its pc is known", c->arch, HOST_ARCH);
		return -ENOTSUP;
	}
	Dwfl_Callbacks cb;
	Dwfl *dwfl = dwfl_begin(dwname_callbacks(&cb, unwind_find_elf));
	if (!dwfl) {
		snprintf(why, whylen, "dwfl_begin: %s", dwfl_errmsg(-1));
		return -ENOMEM;
	}
	struct unwind *u = xcalloc(1, sizeof(*u));
	u->c = c;
	u->ref = xcalloc(c->nmaps ? c->nmaps : 1, sizeof(*u->ref));
	for (size_t i = 0; i < c->nmaps; i++)
		u->ref[i] = (struct unwind_ref){ .m = &c->maps[i], .k = k };
	int rc = 0, efd = -1;
	Elf *arch;
	if (k) {
		if (!k->host)
			k->host = host_elf(&k->host_fd);
		arch = k->host;
	} else {
		arch = host_elf(&efd);
	}
	if (unwind_report(dwfl, c, u) != 0) {
		snprintf(why, whylen, "dwfl_report_end: %s", dwfl_errmsg(-1));
		rc = -ENOMEM;
	} else if (!dwfl_attach_state(dwfl, arch, c->pid, &unwind_thread_callbacks, u)) {
		snprintf(why, whylen, "cannot unwind: %s", dwfl_errmsg(-1));
		rc = -ENOENT;
	} else {
		/* an error at the outermost frame is how most unwinds end */
		(void)dwfl_getthread_frames(dwfl, c->tid ? c->tid : c->pid, unwind_frame, u);
		if (!u->n) {
			snprintf(why, whylen, "unwinding found no frame: %s", dwfl_errmsg(-1));
			rc = -ENODATA;
		}
	}
	dwfl_end(dwfl);
	if (!k && arch)
		elf_end(arch);
	if (efd >= 0)
		close(efd);
	if (u->n) {
		memcpy(c->pc, u->pc, u->n * sizeof(c->pc[0]));
		memcpy(c->exact, u->exact, u->n * sizeof(c->exact[0]));
		c->npc = u->n;
		rc = (int)c->npc;
		if (u->n == 1 && !c->nstack)
			snprintf(why, whylen, "only the crashing pc: %s", c->lost_sp ?
				 "the stack at its sp was not mapped any more" : "the record holds no stack copy");
		else if (u->unread && u->unread_at + 1 >= u->n)   /* libdwfl reads ahead one frame */
			snprintf(c->unwind_stop, sizeof(c->unwind_stop), "the unwind stopped after #%zu: its "
				 "caller's frame (0x%" PRIx64 ") is not in the record's stack copy (the stack was "
				 "unmapped there, or runs past the copy's %zu bytes)", u->n - 1, u->unread,
				 c->nstack ? c->stack[c->nstack - 1].len : (size_t)0);
	}
	free(u->ref);
	free(u);
	return rc;
}

/* ---- symbolizing ---- */

static const struct crashlog_map *map_of(const struct crashlog *c, uint64_t addr)
{
	for (size_t i = 0; i < c->nmaps; i++)
		if (addr >= c->maps[i].start && addr < c->maps[i].end)
			return &c->maps[i];
	return NULL;
}

/* Where the file of m is placed: its mapping at file offset 0. */
static const struct crashlog_map *base_of(const struct crashlog *c, const struct crashlog_map *m)
{
	const struct crashlog_map *best = NULL;
	for (size_t i = 0; i < c->nmaps; i++) {
		const struct crashlog_map *x = &c->maps[i];
		if (x->offset || x->inode != m->inode || strcmp(x->path, m->path))
			continue;
		if (x->start <= m->start && (!best || x->start > best->start))
			best = x;   /* the nearest below: a file mapped twice is two modules */
	}
	return best;
}

static uint64_t lookup_pc(const struct crashlog *c, size_t i)
{
	return c->exact[i] || c->pc[i] == 0 ? c->pc[i] : c->pc[i] - 1;
}

static void memo_clear(struct crashlog_symbols *k)
{
	for (size_t i = 0; k->memo && i < MEMO_SLOTS; i++) {
		free(k->memo[i].name);
		k->memo[i] = (struct name_memo){ 0 };
	}
	k->nmemo = 0;
}

/* dwname_lookup() of mod at AT, remembered: stacks of one bug repeat. */
static bool memo_lookup(struct crashlog_symbols *k, Dwfl_Module *mod, Dwarf_Addr at, char *buf, size_t len)
{
	if (!k->memo)
		k->memo = xcalloc(MEMO_SLOTS, sizeof(*k->memo));
	uint64_t h = ((uint64_t)(uintptr_t)mod ^ (uint64_t)at) * 0x9E3779B97F4A7C15ULL;
	size_t i = (size_t)(h >> 52) & (MEMO_SLOTS - 1);
	for (; k->memo[i].mod; i = (i + 1) & (MEMO_SLOTS - 1)) {
		if (k->memo[i].mod == mod && k->memo[i].at == at) {
			snprintf(buf, len, "%s", k->memo[i].name);
			return k->memo[i].sym;
		}
	}
	bool sym = dwname_lookup(mod, at, buf, len);
	if (k->nmemo >= MEMO_SLOTS / 4 * 3) {   /* full enough: start over */
		memo_clear(k);
		return sym;
	}
	k->memo[i] = (struct name_memo){ .mod = mod, .at = at, .sym = sym, .name = xstrdup(buf) };
	k->nmemo++;
	return sym;
}

struct crashlog_symbols *crashlog_symbols_new(void)
{
	struct crashlog_symbols *k = xcalloc(1, sizeof(*k));
	k->next_base = SYMBOLS_FIRST_BASE;
	k->host_fd = -1;
	dwname_callbacks(&k->cb, dwfl_build_id_find_elf);
	k->cb.section_address = dwfl_offline_section_address;
	return k;
}

void crashlog_symbols_free(struct crashlog_symbols *k)
{
	if (!k)
		return;
	memo_clear(k);
	free(k->memo);
	if (k->dwfl)
		dwfl_end(k->dwfl);
	for (size_t i = 0; i < k->n; i++)
		free(k->file[i].path);
	for (size_t i = 0; i < k->nufile; i++)
		unwind_file_drop(&k->ufile[i]);
	if (k->host)
		elf_end(k->host);
	if (k->host_fd >= 0)
		close(k->host_fd);
	free(k);
}

/* The cached module of the file mapped at b (its offset-0 mapping), reported on first sight. */
static struct cached_file *file_of(struct crashlog_symbols *k, const struct crashlog_map *b,
				   char *why, size_t whylen)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->file[i].inode == b->inode && !strcmp(k->file[i].path, b->path))
			return &k->file[i];
	if (k->n == SYMBOLS_MAX_FILES || !k->dwfl) {
		/* full (a series that crashes in ever new files): start over */
		memo_clear(k);   /* its modules go with the Dwfl */
		if (k->dwfl)
			dwfl_end(k->dwfl);
		for (size_t i = 0; i < k->n; i++)
			free(k->file[i].path);
		k->n = 0;
		k->next_base = SYMBOLS_FIRST_BASE;
		k->dwfl = dwfl_begin(&k->cb);
		if (!k->dwfl) {
			snprintf(why, whylen, "dwfl_begin: %s", dwfl_errmsg(-1));
			return NULL;
		}
	}
	struct cached_file *f = &k->file[k->n++];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(b->path);
	f->inode = b->inode;
	struct stat st;
	if (stat(b->path, &st) < 0 || (uint64_t)st.st_ino != b->inode) {
		if (!why[0])
			snprintf(why, whylen, "'%s' changed since the crash; its frames are unnamed", b->path);
		return f;
	}
	dwfl_report_begin_add(k->dwfl);
	f->mod = dwfl_report_elf(k->dwfl, frame_basename(b->path), b->path, -1, k->next_base, false);
	dwfl_report_end(k->dwfl, NULL, NULL);
	if (!f->mod) {
		if (!why[0])
			snprintf(why, whylen, "'%s': %s", b->path, dwfl_errmsg(-1));
		return f;
	}
	Dwarf_Addr low = 0, high = 0;
	dwfl_module_info(f->mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
	f->low = low;
	while (k->next_base <= high)
		k->next_base += SYMBOLS_STRIDE;
	return f;
}

/* The name of the pc at AT (a return address already moved back) of
 * record c: its symbol (true), else module+offset (dwname.h), "" when no
 * file of the record holds it. *mod and *moved: where the cache has it. */
static bool name_pc(struct crashlog_symbols *k, const struct crashlog *c, uint64_t at, char *name,
		    size_t len, Dwfl_Module **mod, Dwarf_Addr *moved, char *note, size_t notelen)
{
	const struct crashlog_map *m = map_of(c, at);
	const struct crashlog_map *b = m && m->path[0] == '/' && m->inode ? base_of(c, m) : NULL;
	struct cached_file *f = b ? file_of(k, b, note, notelen) : NULL;
	*mod = f ? f->mod : NULL;
	/* the pc where the cache placed the file: same offset from its first load */
	*moved = *mod ? f->low + (at - b->start) : 0;
	name[0] = '\0';
	if (*mod)
		return memo_lookup(k, *mod, *moved, name, len);
	if (b)   /* the file could not be read: its offset from the first load */
		snprintf(name, len, "%s+0x%" PRIx64, frame_basename(b->path), at - b->start);
	return false;
}

int crashlog_symbolize(struct crashlog_symbols *cache, const struct crashlog *c, struct stack_set *out,
		       struct dbuf *text, char *why, size_t whylen)
{
	char note[512] = "", unnamed[256] = "";
	size_t nunnamed = 0;
	if (!c->npc) {
		snprintf(why, whylen, "the crash record has no pc");
		return -ENODATA;
	}
	struct crashlog_symbols *k = cache ? cache : crashlog_symbols_new();
	struct stack_thread *t = stack_set_add(out, c->pid, c->tid);
	int named = 0;
	for (size_t i = 0; i < c->npc; i++) {
		uint64_t at = lookup_pc(c, i);
		Dwfl_Module *mod;
		Dwarf_Addr moved;
		char name[512];
		bool sym = name_pc(k, c, at, name, sizeof(name), &mod, &moved, note, sizeof(note));
		const struct crashlog_map *m = map_of(c, at);
		const char *module = m && m->path[0] ? m->path : NULL;
		if (sym) {
			stack_thread_push(t, name, module, c->pc[i]);
			named++;
		} else {
			stack_thread_push_label(t, name, module, c->pc[i]);
			size_t u = strlen(unnamed);
			if (u + 16 < sizeof(unnamed))
				snprintf(unnamed + u, sizeof(unnamed) - u, "%s#%zu", nunnamed ? ", " : "", i);
			nunnamed++;
		}
		if (!text)
			continue;
		const struct stack_frame *fr = &t->frames[t->nr - 1];
		dbuf_addf(text, "  #%zu %s", i, fr->fn[0] ? fr->fn : "??");
		if (!sym && fr->fn[0]) {
			dbuf_adds(text, " (no symbol)");
		} else if (module) {
			dbuf_addf(text, " in %s", frame_basename(module));
		}
		Dwfl_Line *line = mod ? dwfl_module_getsrc(mod, moved) : NULL;
		int lineno = 0;
		const char *src = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
		if (src && lineno > 0)
			dbuf_addf(text, " (%s:%d)", frame_basename(src), lineno);
		else if (m && !fr->fn[0])
			dbuf_addf(text, " +0x%" PRIx64, c->pc[i] - m->start + m->offset);
		dbuf_addc(text, '\n');
	}
	if (text) {
		char cut[256];
		if (nunnamed)
			dbuf_addf(text, "  (no symbol names frame%s %s%s: named by module and the file address "
				  "of the function's start)\n", nunnamed > 1 ? "s" : "", unnamed,
				  nunnamed > 16 ? ", ..." : "");
		if (c->lost_sp)
			dbuf_addf(text, "  (the stack at sp 0x%" PRIx64 " was not mapped: only the crashing pc "
				  "is known)\n", c->lost_sp);
		for (size_t i = 0; i < c->nstack; i++)
			if (c->stack[i].hole_len)
				dbuf_addf(text, "  (%zu bytes of the stack copy at 0x%" PRIx64 " could not be read: "
					  "unmapped as the process ended; the unwind stops there)\n",
					  c->stack[i].hole_len, c->stack[i].hole);
		if (c->unwind_stop[0])
			dbuf_addf(text, "  (%s)\n", c->unwind_stop);
		if (crashlog_truncation(c, cut, sizeof(cut)))
			dbuf_addf(text, "  (%s)\n", cut);
		for (size_t i = 0; i < c->nalso; i++) {
			const struct crashlog_also *a = &c->also[i];
			Dwfl_Module *mod;
			Dwarf_Addr moved;
			char name[512], fn[256];
			name_pc(k, c, a->pc, name, sizeof(name), &mod, &moved, note, sizeof(note));
			frame_normalize(name, fn, sizeof(fn));
			dbuf_addf(text, "  also: thread %d crashed at the same time (SIG%s at 0x%" PRIx64 ") in %s\n",
				  (int)a->tid, sigabbrev_np(a->signo) ? sigabbrev_np(a->signo) : "signal", a->addr,
				  name[0] && !strchr(name, '+') ? fn : name[0] ? name : "??");
		}
		if (c->nalso_more)
			dbuf_addf(text, "  also: %zu more threads crashed at the same time\n", c->nalso_more);
	}
	if (!cache)
		crashlog_symbols_free(k);
	if (!named && note[0])
		snprintf(why, whylen, "%s", note);
	else if (!named && nunnamed && t->nr && t->frames[0].fn[0])
		snprintf(why, whylen, "no symbol names a frame of the crash (stripped?): "
			 "frames named by module and offset");
	else if (!named)
		snprintf(why, whylen, "no frame of the crash could be named");
	return named;
}

int crashlog_symbols_lookup(struct crashlog_symbols *k, const char *path, uint64_t vaddr,
			    char *fn, size_t fnlen, char *src, size_t srclen, int *line)
{
	struct stat st;
	char note[256] = "";

	fn[0] = src[0] = '\0';
	*line = 0;
	if (path[0] != '/' || stat(path, &st) < 0)
		return -ENOENT;
	struct crashlog_map b = { .inode = (uint64_t)st.st_ino, .path = (char *)path };
	struct cached_file *f = file_of(k, &b, note, sizeof(note));
	if (!f || !f->mod)
		return -ENOENT;
	Dwarf_Addr bias = 0;
	if (!dwfl_module_getelf(f->mod, &bias))
		return -ENOENT;
	Dwarf_Addr at = vaddr + bias;
	const char *name = dwfl_module_addrname(f->mod, at);
	if (!name || !*name)
		return -ENOENT;
	snprintf(fn, fnlen, "%s", name);
	Dwfl_Line *l = dwfl_module_getsrc(f->mod, at);
	const char *s = l ? dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL) : NULL;
	if (s)
		snprintf(src, srclen, "%s", s);
	return 0;
}

/* ---- a record explained ---- */

/* The program frames of t into ev, and heap corruption when the frames
 * before the first of them hold the allocator. */
static void record_evidence(const struct stack_thread *t, struct evidence *ev)
{
	bool heap = false;
	for (size_t j = 0; j < t->nr; j++) {
		const struct stack_frame *f = &t->frames[j];
		if (!frame_is_runtime(f->fn, f->module))
			break;
		heap |= frame_is_allocator(f->fn);
	}
	for (size_t i = 0; ev->nframes < EVIDENCE_FRAMES; i++) {
		const char *fn = stack_program_frame(t, i);
		if (!fn)
			break;
		snprintf(ev->frames[ev->nframes++], sizeof(ev->frames[0]), "%s", fn);
	}
	if (heap) {
		snprintf(ev->kind, sizeof(ev->kind), "heap-corruption");
		snprintf(ev->key_line, sizeof(ev->key_line), "heap corruption");
	}
}

int crashlog_explain(struct crashlog_symbols *cache, const char *path, const char *title, pid_t main_pid,
		     struct crashlog *c, struct dbuf *text, struct evidence *ev, char *why, size_t whylen)
{
	int rc = crashlog_read(path, c, why, whylen);
	if (rc < 0)
		return rc;
	char note[512] = "";
	bool unwound = crashlog_unwind(cache, c, note, sizeof(note)) >= 0;
	dbuf_addf(text, "%s (pid %d, tid %d, %s", title, (int)c->pid, (int)c->tid,
		  c->signame[0] ? c->signame : "signal");
	if (c->code > 0)   /* a fault, not a signal sent by a process (abort) */
		dbuf_addf(text, " at 0x%" PRIx64, c->addr);
	dbuf_adds(text, "): stack of the crashing thread from jostle's crash handler");
	if (main_pid && c->pid != main_pid)
		dbuf_addf(text, " (a child process of the run's pid %d)", (int)main_pid);
	dbuf_addc(text, '\n');
	if (!unwound || (note[0] && c->npc == 1))
		dbuf_addf(text, "  (unwinding: %s)\n", note);
	struct stack_set s = STACK_SET_INIT;
	char sym[512] = "";
	rc = crashlog_symbolize(cache, c, &s, text, sym, sizeof(sym));
	if (rc <= 0 && sym[0])
		dbuf_addf(text, "  (%s)\n", sym);
	if (rc < 0 && !s.nr) {
		snprintf(why, whylen, "%s", sym);
		stack_set_release(&s);
		return rc;
	}
	if (ev && s.nr)
		record_evidence(&s.v[0], ev);
	stack_set_release(&s);
	return 0;
}

int crashlog_symbols_inlined(struct crashlog_symbols *k, const char *path, uint64_t vaddr,
			     char *fn, size_t fnlen)
{
	struct stat st;
	char note[256] = "";

	fn[0] = '\0';
	if (path[0] != '/' || stat(path, &st) < 0)
		return -ENOENT;
	struct crashlog_map b = { .inode = (uint64_t)st.st_ino, .path = (char *)path };
	struct cached_file *f = file_of(k, &b, note, sizeof(note));
	Dwarf_Addr bias = 0, dbias = 0;
	if (!f || !f->mod || !dwfl_module_getelf(f->mod, &bias))
		return -ENOENT;
	Dwarf_Addr at = vaddr + bias;
	Dwarf_Die *cu = dwfl_module_addrdie(f->mod, at, &dbias);
	Dwarf_Die *scopes = NULL;
	int n = cu ? dwarf_getscopes(cu, at - dbias, &scopes) : 0;
	for (int i = 0; i < n && !fn[0]; i++) {
		int tag = dwarf_tag(&scopes[i]);
		const char *name;
		if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) &&
		    (name = dwarf_diename(&scopes[i])))
			snprintf(fn, fnlen, "%s", name);
	}
	free(scopes);
	return fn[0] ? 0 : -ENOENT;
}
