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
#include <dirent.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crashlog.h"
#include "dbuf.h"
#include "frame.h"
#include "stack.h"
#include "xalloc.h"
#include "banned.h"

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

int crashlog_parse(const char *text, size_t len, struct crashlog *out, char *why, size_t whylen)
{
	const char *p = text, *end = text + len;
	bool header = false, in_maps = false;
	char buf[64];
	uint64_t v;
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
			header = true;
		} else if (in_maps) {
			if (nl)   /* a last line without its newline may be cut short */
				parse_map(out, line, n);
		} else if (n == 4 && !memcmp(line, "maps", 4)) {
			in_maps = true;
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
			out->pc[out->npc++] = v;
		}
		/* unknown lines: a later version's additions */
	}
	if (!header) {
		snprintf(why, whylen, "empty crash record");
		return -EINVAL;
	}
	if (!out->signo || !out->pid) {
		snprintf(why, whylen, "crash record without a signal or pid (cut short?)");
		return -EINVAL;
	}
	return 0;
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

int crashlog_find(const char *dir, uint64_t run, pid_t main_pid, int64_t since_ns,
		  char *path, size_t len)
{
	/* The main process's record, by name: the common case, and the
	 * folder holds every record of the series, so a scan per crash would
	 * grow with the series. */
	struct stat st;
	snprintf(path, len, "%s/%" PRIu64 ".%ld.txt", dir, run, (long)main_pid);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && mtime_ns(&st) >= since_ns)
		return 0;
	DIR *d = opendir(dir);
	if (!d)
		return -ENOENT;
	char prefix[32];
	int pl = snprintf(prefix, sizeof(prefix), "%" PRIu64 ".", run);
	char best[256] = "";
	int64_t best_t = 0;
	bool best_main = false;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *name = de->d_name;
		if (strncmp(name, prefix, (size_t)pl))
			continue;
		char *end;
		long pid = strtol(name + pl, &end, 10);
		if (end == name + pl || strcmp(end, ".txt"))
			continue;
		if (fstatat(dirfd(d), name, &st, 0) < 0 || !S_ISREG(st.st_mode))
			continue;
		int64_t t = mtime_ns(&st);
		if (t < since_ns)
			continue;   /* an earlier run's (replays share their JOSTLE_RUN) */
		bool is_main = pid == (long)main_pid;
		if (best[0] && (best_main || (!is_main && t >= best_t)))
			continue;
		snprintf(best, sizeof(best), "%s", name);
		best_t = t;
		best_main = is_main;
	}
	closedir(d);
	if (!best[0])
		return -ENOENT;
	snprintf(path, len, "%s/%s", dir, best);
	return 0;
}

/* ---- symbolizing ---- */

static char *debuginfo_path;

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

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
	return i == 0 || c->pc[i] == 0 ? c->pc[i] : c->pc[i] - 1;
}

/* ---- the module cache ---- */

#define SYMBOLS_MAX_FILES 128
#define SYMBOLS_FIRST_BASE (1ULL << 44)   /* above any ET_EXEC link address */
#define SYMBOLS_STRIDE (1ULL << 36)

struct cached_file {
	char *path;                /* owned */
	uint64_t inode;
	Dwfl_Module *mod;          /* NULL: it could not be read (remembered too) */
	uint64_t low;              /* where the cache placed its first load */
};

struct crashlog_symbols {
	Dwfl *dwfl;
	struct cached_file file[SYMBOLS_MAX_FILES];
	size_t n;
	uint64_t next_base;
};

struct crashlog_symbols *crashlog_symbols_new(void)
{
	struct crashlog_symbols *k = xcalloc(1, sizeof(*k));
	k->next_base = SYMBOLS_FIRST_BASE;
	return k;
}

void crashlog_symbols_free(struct crashlog_symbols *k)
{
	if (!k)
		return;
	if (k->dwfl)
		dwfl_end(k->dwfl);
	for (size_t i = 0; i < k->n; i++)
		free(k->file[i].path);
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
		if (k->dwfl)
			dwfl_end(k->dwfl);
		for (size_t i = 0; i < k->n; i++)
			free(k->file[i].path);
		k->n = 0;
		k->next_base = SYMBOLS_FIRST_BASE;
		k->dwfl = dwfl_begin(&offline_callbacks);
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

int crashlog_symbolize(struct crashlog_symbols *cache, const struct crashlog *c, struct stack_set *out,
		       struct dbuf *text, char *why, size_t whylen)
{
	char note[512] = "";
	if (!c->npc) {
		snprintf(why, whylen, "the crash record has no stack (backtrace found no frames)");
		return -ENODATA;
	}
	struct crashlog_symbols *k = cache ? cache : crashlog_symbols_new();
	struct stack_thread *t = stack_set_add(out, c->pid, c->tid);
	int named = 0;
	for (size_t i = 0; i < c->npc; i++) {
		uint64_t at = lookup_pc(c, i);
		const struct crashlog_map *m = map_of(c, at);
		const struct crashlog_map *b = m && m->path[0] == '/' && m->inode ? base_of(c, m) : NULL;
		struct cached_file *f = b ? file_of(k, b, note, sizeof(note)) : NULL;
		/* the pc where the cache placed the file: same offset from its first load */
		Dwarf_Addr moved = f && f->mod ? f->low + (at - b->start) : 0;
		Dwfl_Module *mod = f ? f->mod : NULL;
		const char *name = mod ? dwfl_module_addrname(mod, moved) : NULL;
		const char *module = m && m->path[0] ? m->path : NULL;
		stack_thread_push(t, name, module, c->pc[i]);
		if (name && *name)
			named++;
		if (!text)
			continue;
		const struct stack_frame *fr = &t->frames[t->nr - 1];
		dbuf_addf(text, "  #%zu %s", i, fr->fn[0] ? fr->fn : "??");
		if (module)
			dbuf_addf(text, " in %s", frame_basename(module));
		Dwfl_Line *line = mod ? dwfl_module_getsrc(mod, moved) : NULL;
		int lineno = 0;
		const char *src = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
		if (src && lineno > 0)
			dbuf_addf(text, " (%s:%d)", frame_basename(src), lineno);
		else if (m && !fr->fn[0])
			dbuf_addf(text, " +0x%" PRIx64, c->pc[i] - m->start + m->offset);
		dbuf_addc(text, '\n');
	}
	if (!cache)
		crashlog_symbols_free(k);
	if (!named && note[0])
		snprintf(why, whylen, "%s", note);
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
