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
	p = end;
	while (*p == ' ')
		p++;
	p += strcspn(p, " ");      /* dev */
	m.inode = strtoull(p, &end, 10);
	if (end == p)
		return;
	p = end;
	while (*p == ' ')
		p++;
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

int crashlog_find(const char *dir, uint64_t run, pid_t main_pid, int64_t since_ns,
		  char *path, size_t len)
{
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
		struct stat st;
		if (fstatat(dirfd(d), name, &st, 0) < 0 || !S_ISREG(st.st_mode))
			continue;
		int64_t t = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
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

/* Report every file that holds a pc, once. Returns modules reported. */
static int report_modules(Dwfl *dwfl, const struct crashlog *c, char *why, size_t whylen)
{
	const struct crashlog_map *done[CRASHLOG_MAX_PCS];
	size_t ndone = 0;
	int reported = 0;
	for (size_t i = 0; i < c->npc; i++) {
		const struct crashlog_map *m = map_of(c, lookup_pc(c, i));
		if (!m || m->path[0] != '/' || !m->inode)
			continue;   /* anonymous memory, [vdso], a JIT */
		const struct crashlog_map *b = base_of(c, m);
		if (!b)
			continue;
		bool seen = false;
		for (size_t k = 0; k < ndone && !seen; k++)
			seen = done[k] == b;
		if (seen)
			continue;
		done[ndone++] = b;
		struct stat st;
		if (stat(b->path, &st) < 0 || (uint64_t)st.st_ino != b->inode) {
			if (!why[0])
				snprintf(why, whylen, "'%s' changed since the crash; its frames are unnamed", b->path);
			continue;
		}
		if (dwfl_report_elf(dwfl, frame_basename(b->path), b->path, -1, b->start, false))
			reported++;
		else if (!why[0])
			snprintf(why, whylen, "'%s': %s", b->path, dwfl_errmsg(-1));
	}
	return reported;
}

int crashlog_symbolize(const struct crashlog *c, struct stack_set *out, struct dbuf *text,
		       char *why, size_t whylen)
{
	char note[512] = "";
	if (!c->npc) {
		snprintf(why, whylen, "the crash record has no stack (backtrace found no frames)");
		return -ENODATA;
	}
	Dwfl *dwfl = dwfl_begin(&offline_callbacks);
	if (!dwfl) {
		snprintf(why, whylen, "dwfl_begin: %s", dwfl_errmsg(-1));
		return -ENOMEM;
	}
	dwfl_report_begin(dwfl);
	report_modules(dwfl, c, note, sizeof(note));
	dwfl_report_end(dwfl, NULL, NULL);
	struct stack_thread *t = stack_set_add(out, c->pid, c->tid);
	int named = 0;
	for (size_t i = 0; i < c->npc; i++) {
		uint64_t at = lookup_pc(c, i);
		Dwfl_Module *mod = dwfl_addrmodule(dwfl, at);
		const char *name = mod ? dwfl_module_addrname(mod, at) : NULL;
		const struct crashlog_map *m = map_of(c, at);
		const char *module = m && m->path[0] ? m->path : NULL;
		stack_thread_push(t, name, module, c->pc[i]);
		if (name && *name)
			named++;
		if (!text)
			continue;
		const struct stack_frame *f = &t->frames[t->nr - 1];
		dbuf_addf(text, "  #%zu %s", i, f->fn[0] ? f->fn : "??");
		if (module)
			dbuf_addf(text, " in %s", frame_basename(module));
		Dwfl_Line *line = mod ? dwfl_module_getsrc(mod, at) : NULL;
		int lineno = 0;
		const char *src = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
		if (src && lineno > 0)
			dbuf_addf(text, " (%s:%d)", frame_basename(src), lineno);
		else if (m && !f->fn[0])
			dbuf_addf(text, " +0x%" PRIx64, c->pc[i] - m->start + m->offset);
		dbuf_addc(text, '\n');
	}
	dwfl_end(dwfl);
	if (!named && note[0])
		snprintf(why, whylen, "%s", note);
	else if (!named)
		snprintf(why, whylen, "no frame of the crash could be named");
	return named;
}
