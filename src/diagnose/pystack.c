/*
 * pystack.c: Python stacks read from outside the process (see pystack.h).
 *
 * Why libdwfl for the symbols: it already knows how a process maps its
 * modules (bias, deleted files, /proc/PID/root of a container) and finds
 * a symbol in .symtab, .dynsym or a separate debug file alike; the
 * interpreter exports _PyRuntime, Py_Version and PyCode_Type in .dynsym
 * even when stripped, because extension modules link against them.
 *
 * Why read in blocks: a frame, a thread state and a code object are each
 * one process_vm_readv() of their header, and a code object's name, file
 * and line table are read once per walk (a cache keyed by its address):
 * 100 threads in the same function cost 100 frame reads, not 100 x 6.
 *
 * How Python frames map onto native ones: every C call of the eval loop
 * (_PyEval_EvalFrameDefault) runs one or more Python frames, the calls
 * from Python to Python in between being inlined in the loop. The frame a
 * call started with is marked: is_entry in 3.11; from 3.12 on an entry
 * frame of the C stack's own (owner FRAME_OWNED_BY_CSTACK) is linked below
 * it. So frames are numbered by call, innermost 0, and the merge puts call
 * k where the k-th _PyEval_EvalFrameDefault of the native stack was.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "diagnose/pystack.h"
#include "signature/frame.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define MAX_INTERPRETERS 64
#define MAX_THREADS 8192
#define MAX_STRING 4096           /* characters of a name or file read */
#define MAX_LINETABLE (1u << 20)  /* bytes of a line table read */
#define CODE_CACHE 2048           /* code objects remembered per walk (power of 2) */

/* ---- the line table (pure) -------------------------------------------- */

/* A 6-bit-chunk varint of the location table (bit 6 continues). */
static unsigned varint(const uint8_t *t, size_t len, size_t *i)
{
	unsigned v = 0, shift = 0;
	while (*i < len && shift < 32) {
		uint8_t b = t[(*i)++];
		v |= (unsigned)(b & 63) << shift;
		shift += 6;
		if (!(b & 64))
			break;
	}
	return v;
}

static int svarint(const uint8_t *t, size_t len, size_t *i)
{
	unsigned v = varint(t, len, i);
	return (v & 1) ? -(int)(v >> 1) : (int)(v >> 1);
}

/*
 * Objects/locations.md of CPython 3.11+: entries start with a byte whose
 * bit 7 is set; bits 3-6 are the form, bits 0-2 the number of code units
 * covered minus one. Form 15: no location; 14 (long) and 13 (no columns):
 * a signed line delta follows; 10-12: the line moves by form - 10; 0-9:
 * same line. Only the line matters here, so the column bytes are skipped
 * by looking for the next entry's bit 7 (as CPython's own advance() does).
 */
int pystack_line(const uint8_t *t, size_t len, int firstlineno, int addr)
{
	if (addr < 0)
		return firstlineno;
	int line = firstlineno;
	long start = 0;
	size_t i = 0;
	while (i < len) {
		uint8_t first = t[i];
		if (!(first & 0x80)) {
			i++;
			continue;
		}
		int form = (first >> 3) & 15;
		long end = start + 2 * ((first & 7) + 1);
		size_t j = i + 1;
		if (form == 14 || form == 13)
			line += svarint(t, len, &j);
		else if (form >= 10 && form <= 12)
			line += form - 10;
		if (addr >= start && addr < end)
			return form == 15 ? 0 : line;
		start = end;
		for (i++; i < len && !(t[i] & 0x80); i++)
			;
	}
	return 0;
}

/* ---- maps (pure) -------------------------------------------------------- */

bool pystack_maps_python(const char *maps)
{
	for (const char *l = maps; l && *l;) {
		const char *end = strchr(l, '\n');
		size_t n = end ? (size_t)(end - l) : strlen(l);
		const char *path = memchr(l, '/', n);
		if (path) {
			const char *base = path;
			for (const char *p = path; p < l + n; p++)
				if (*p == '/')
					base = p + 1;
			size_t blen = (size_t)(l + n - base);
			if (!strncmp(base, "libpython3.", 11) || !strncmp(base, "python3.", 8) ||
			    (blen == 7 && !strncmp(base, "python3", 7)) || (blen == 6 && !strncmp(base, "python", 6)))
				return true;
		}
		l = end ? end + 1 : NULL;
	}
	return false;
}

/* ---- the walk ------------------------------------------------------------ */

struct code_info {
	uint64_t addr;               /* 0: free slot */
	char *name, *file;
	int firstlineno;
	uint8_t *linetable;
	size_t ltlen;
	uint64_t bytecode;           /* address of co_code_adaptive */
	uint64_t tlbc;               /* co_tlbc (3.14t), 0 */
	bool ok;                     /* a code object */
};

struct walk {
	const struct pystack_mem *m;
	const struct pyoffsets *o;
	uint64_t code_type;
	struct pystack *out;
	struct code_info *cache;     /* CODE_CACHE slots */
	size_t frame_hdr, tstate_hdr, code_hdr, str_hdr;
};

static __attribute__((format(printf, 2, 3))) void problem(struct pystack *ps, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* one line per problem, however many threads share it */
	for (size_t i = 0; i < ps->problems.nr; i++)
		if (!strcmp(ps->problems.v[i], line))
			return;
	strvec_push(&ps->problems, line);
}

static uint64_t get_u64(const uint8_t *buf, size_t off)
{
	uint64_t v;
	memcpy(&v, buf + off, sizeof(v));
	return v;
}

static int rd(const struct walk *w, uint64_t addr, void *buf, size_t len)
{
	if (!addr)
		return -EFAULT;
	return w->m->read(w->m, addr, buf, len);
}

static int rd_ptr(const struct walk *w, uint64_t addr, uint64_t *v)
{
	return rd(w, addr, v, sizeof(*v));
}

static void utf8_put(char *out, size_t cap, size_t *n, uint32_t c)
{
	char b[4];
	size_t k;
	if (c < 0x80) {
		b[0] = (char)c;
		k = 1;
	} else if (c < 0x800) {
		b[0] = (char)(0xc0 | (c >> 6));
		b[1] = (char)(0x80 | (c & 0x3f));
		k = 2;
	} else if (c < 0x10000) {
		b[0] = (char)(0xe0 | (c >> 12));
		b[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		b[2] = (char)(0x80 | (c & 0x3f));
		k = 3;
	} else {
		b[0] = (char)(0xf0 | ((c >> 18) & 7));
		b[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		b[3] = (char)(0x80 | (c & 0x3f));
		k = 4;
	}
	if (*n + k < cap) {
		memcpy(out + *n, b, k);
		*n += k;
	}
}

/* A str object (compact: every name and file of a code object is) as
 * UTF-8; NULL when it cannot be read. */
static char *read_str(const struct walk *w, uint64_t addr)
{
	const struct pyoffsets *o = w->o;
	uint8_t hdr[128];
	if (rd(w, addr, hdr, w->str_hdr))
		return NULL;
	int64_t length = (int64_t)get_u64(hdr, o->str_length);
	uint32_t state;
	memcpy(&state, hdr + o->str_state, sizeof(state));
	unsigned kind = (state >> o->str_kind_shift) & 7;
	bool compact = (state >> (o->str_kind_shift + 3)) & 1;
	bool ascii = (state >> (o->str_kind_shift + 4)) & 1;
	if (length < 0 || !compact || (kind != 1 && kind != 2 && kind != 4))
		return NULL;
	if (length > MAX_STRING)
		length = MAX_STRING;
	uint64_t data = addr + (ascii ? o->str_ascii_size : o->str_compact_size);
	size_t bytes = (size_t)length * kind;
	uint8_t *raw = xmalloc(bytes + 1);
	if (bytes && rd(w, data, raw, bytes)) {
		free(raw);
		return NULL;
	}
	size_t cap = (size_t)length * 4 + 1, n = 0;
	char *s = xmalloc(cap);
	for (int64_t i = 0; i < length; i++) {
		uint32_t c;
		if (kind == 1) {
			c = raw[i];
		} else if (kind == 2) {
			uint16_t c2;
			memcpy(&c2, raw + 2 * i, 2);
			c = c2;
		} else {
			memcpy(&c, raw + 4 * i, 4);
		}
		utf8_put(s, cap, &n, c);
	}
	s[n] = '\0';
	free(raw);
	return s;
}

/* A bytes object's contents (the line table), at most MAX_LINETABLE. */
static uint8_t *read_bytes(const struct walk *w, uint64_t addr, size_t *len)
{
	int64_t n;
	*len = 0;
	if (rd(w, addr + w->o->bytes_size, &n, sizeof(n)) || n < 0)
		return NULL;
	if (n > (int64_t)MAX_LINETABLE)
		n = MAX_LINETABLE;
	uint8_t *b = xmalloc((size_t)n + 1);
	if (n && rd(w, addr + w->o->bytes_sval, b, (size_t)n)) {
		free(b);
		return NULL;
	}
	*len = (size_t)n;
	return b;
}

static void code_fill(const struct walk *w, uint64_t addr, struct code_info *c)
{
	const struct pyoffsets *o = w->o;
	memset(c, 0, sizeof(*c));
	c->addr = addr;
	uint8_t hdr[512];
	if (rd(w, addr, hdr, w->code_hdr))
		return;
	if (w->code_type && get_u64(hdr, o->ob_type) != w->code_type)
		return;
	c->name = read_str(w, get_u64(hdr, o->code_name));
	c->file = read_str(w, get_u64(hdr, o->code_filename));
	int32_t first;
	memcpy(&first, hdr + o->code_firstlineno, sizeof(first));
	c->firstlineno = first;
	c->linetable = read_bytes(w, get_u64(hdr, o->code_linetable), &c->ltlen);
	c->bytecode = addr + o->code_adaptive;
	if (o->code_tlbc != PYOFF_NONE)
		c->tlbc = get_u64(hdr, o->code_tlbc);
	c->ok = c->name || c->file;
}

static void code_clear(struct code_info *c)
{
	free(c->name);
	free(c->file);
	free(c->linetable);
	memset(c, 0, sizeof(*c));
}

/* The code object at ADDR, from the cache or read into *tmp. */
static const struct code_info *code_get(struct walk *w, uint64_t addr, struct code_info *tmp)
{
	size_t h = (size_t)((addr >> 4) * 0x9E3779B97F4A7C15ull) & (CODE_CACHE - 1);
	for (size_t k = 0; k < 16; k++) {
		struct code_info *c = &w->cache[(h + k) & (CODE_CACHE - 1)];
		if (c->addr == addr)
			return c;
		if (!c->addr) {
			code_fill(w, addr, c);
			return c;
		}
	}
	code_fill(w, addr, tmp);
	return tmp;
}

/* The bytecode a 3.14t frame runs: its thread's copy (co_tlbc), or the code's own. */
static uint64_t bytecode_of(const struct walk *w, const struct code_info *c, const uint8_t *frame)
{
	if (w->o->frame_tlbc_index == PYOFF_NONE || !c->tlbc)
		return c->bytecode;
	int32_t idx;
	memcpy(&idx, frame + w->o->frame_tlbc_index, sizeof(idx));
	int64_t size;
	uint64_t entry;
	if (idx <= 0 || rd(w, c->tlbc, &size, sizeof(size)) || idx >= size ||
	    rd_ptr(w, c->tlbc + 8 + 8 * (uint64_t)idx, &entry) || !entry)
		return c->bytecode;
	return entry;
}

static void push_frame(struct pystack_thread *t, const struct code_info *c, int line, unsigned call)
{
	ALLOC_GROW(t->frames, t->nr + 1, t->alloc);
	struct pystack_frame *f = &t->frames[t->nr++];
	f->name = xstrdup(c && c->name ? c->name : "???");
	f->file = xstrdup(c && c->file ? c->file : "???");
	f->line = line;
	f->call = call;
}

static void walk_frames(struct walk *w, struct pystack_thread *t, uint64_t frame)
{
	const struct pyoffsets *o = w->o;
	unsigned call = 0;
	bool open = false;      /* frames of the current call were pushed */
	for (size_t n = 0; frame; n++) {
		if (n >= PYSTACK_MAX_FRAMES) {
			t->truncated = true;
			break;
		}
		uint8_t f[256];
		if (rd(w, frame, f, w->frame_hdr)) {
			problem(w->out, "thread %d: Python frame %zu at 0x%llx cannot be read (a frame push "
				"in progress?): its Python frames stop there", (int)t->tid, n,
				(unsigned long long)frame);
			break;
		}
		uint64_t previous = get_u64(f, o->frame_previous);
		uint8_t owner = f[o->frame_owner];
		if (o->owner_shim && owner >= o->owner_shim) {
			/* the eval loop's own entry frame: the end of one C call */
			call++;
			open = false;
			frame = previous;
			continue;
		}
		uint64_t code = get_u64(f, o->frame_code) & ~o->code_tag_mask;
		struct code_info tmp = { 0 };
		const struct code_info *c = code_get(w, code, &tmp);
		if (!c->ok) {
			problem(w->out, "thread %d: Python frame %zu at 0x%llx holds no code object (a frame "
				"push in progress?): its Python frames stop there", (int)t->tid, n,
				(unsigned long long)frame);
			code_clear(&tmp);
			break;
		}
		uint64_t instr = get_u64(f, o->frame_instr);
		int64_t addr = (int64_t)(instr - bytecode_of(w, c, f));
		int line = addr < -2 || addr > (1 << 28) ? 0
			   : pystack_line(c->linetable, c->ltlen, c->firstlineno, (int)(addr & ~1));
		push_frame(t, c, line, call);
		open = true;
		code_clear(&tmp);
		if (o->frame_is_entry != PYOFF_NONE && f[o->frame_is_entry]) {
			call++;
			open = false;
		}
		frame = previous;
	}
	t->ncalls = call + (open ? 1 : 0);
}

static size_t hdr_size(const uint32_t *offs, size_t n, size_t width)
{
	size_t max = 0;
	for (size_t i = 0; i < n; i++)
		if (offs[i] != PYOFF_NONE && offs[i] + width > max)
			max = offs[i] + width;
	return max;
}

int pystack_walk(const struct pystack_mem *m, const struct pyoffsets *o, uint64_t runtime,
		 uint64_t code_type, struct pystack *out)
{
	struct walk w = { .m = m, .o = o, .code_type = code_type, .out = out };
	const uint32_t frame_offs[] = { o->frame_code, o->frame_previous, o->frame_instr,
		o->frame_owner, o->frame_is_entry, o->frame_tlbc_index };
	const uint32_t tstate_offs[] = { o->tstate_next, o->tstate_native_thread_id,
		o->tstate_cframe == PYOFF_NONE ? o->current_frame : o->tstate_cframe };
	const uint32_t code_offs[] = { o->ob_type, o->code_filename, o->code_name,
		o->code_linetable, o->code_firstlineno, o->code_tlbc };
	const uint32_t str_offs[] = { o->str_length, o->str_state };
	w.frame_hdr = hdr_size(frame_offs, 6, 8);
	w.tstate_hdr = hdr_size(tstate_offs, 3, 8);
	w.code_hdr = hdr_size(code_offs, 6, 8);
	w.str_hdr = hdr_size(str_offs, 2, 8);
	if (w.frame_hdr > 256 || w.tstate_hdr > 4096 || w.code_hdr > 512 || w.str_hdr > 128) {
		problem(out, "Python layout with offsets beyond what jostle reads");
		return -EINVAL;
	}
	uint64_t fin;
	if (o->runtime_finalizing != PYOFF_NONE && !rd_ptr(&w, runtime + o->runtime_finalizing, &fin))
		out->finalizing = fin != 0;
	uint64_t interp;
	int rc = rd_ptr(&w, runtime + o->runtime_interpreters_head, &interp);
	if (rc) {
		problem(out, "cannot read _PyRuntime at 0x%llx", (unsigned long long)runtime);
		return rc;
	}
	if (!interp) {
		problem(out, "no interpreter in _PyRuntime (not initialized yet, or finalized)");
		return -ENOENT;
	}
	w.cache = xcalloc(CODE_CACHE, sizeof(*w.cache));
	uint8_t *ts = xmalloc(w.tstate_hdr);
	int threads = 0;
	for (int ni = 0; interp && ni < MAX_INTERPRETERS; ni++) {
		uint64_t tstate = 0;
		if (rd_ptr(&w, interp + o->interp_threads_head, &tstate)) {
			problem(out, "interpreter %d at 0x%llx cannot be read", ni, (unsigned long long)interp);
			break;
		}
		for (int nt = 0; tstate && nt < MAX_THREADS; nt++) {
			if (rd(&w, tstate, ts, w.tstate_hdr)) {
				problem(out, "thread state at 0x%llx cannot be read: the threads after it are "
					"missing", (unsigned long long)tstate);
				break;
			}
			uint64_t frame = 0;
			if (o->tstate_cframe == PYOFF_NONE)
				frame = get_u64(ts, o->current_frame);
			else if (rd_ptr(&w, get_u64(ts, o->tstate_cframe) + o->current_frame, &frame))
				frame = 0;
			ALLOC_GROW(out->threads, out->nthreads + 1, out->alloc);
			struct pystack_thread *t = &out->threads[out->nthreads++];
			memset(t, 0, sizeof(*t));
			t->tid = (pid_t)get_u64(ts, o->tstate_native_thread_id);
			walk_frames(&w, t, frame);
			threads++;
			tstate = get_u64(ts, o->tstate_next);
		}
		if (rd_ptr(&w, interp + o->interp_next, &interp))
			break;
	}
	free(ts);
	for (size_t i = 0; i < CODE_CACHE; i++)
		code_clear(&w.cache[i]);
	free(w.cache);
	return threads;
}

/* ---- the real process ----------------------------------------------------- */

static int proc_read(const struct pystack_mem *m, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(m->pid, &local, 1, &remote, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	return n >= 0 ? -EFAULT : -errno;
}

static char *debuginfo_path;

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

struct syms {
	char exe[512];
	uint64_t runtime, version, code_type;
	const char *module;          /* the module with _PyRuntime (borrowed from dwfl) */
	char candidate[256];         /* a python module without _PyRuntime */
	bool elf64;
	bool no_symtab;
};

static int module_cb(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start, void *arg)
{
	(void)userdata;
	(void)start;
	struct syms *s = arg;
	const char *base = frame_basename(name ? name : "");
	if (strncmp(base, "python", 6) && strncmp(base, "libpython", 9) && strcmp(name ? name : "", s->exe))
		return DWARF_CB_OK;
	int n = dwfl_module_getsymtab(mod);
	uint64_t rt = 0, ver = 0, code = 0;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf;
		Dwarf_Addr bias;
		const char *nm = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &elf, &bias);
		if (!nm || shndx == SHN_UNDEF || (nm[0] != '_' && nm[0] != 'P'))
			continue;
		if (!strcmp(nm, "_PyRuntime"))
			rt = addr;
		else if (!strcmp(nm, "Py_Version"))
			ver = addr;
		else if (!strcmp(nm, "PyCode_Type"))
			code = addr;
	}
	if (!rt) {
		/* the executable is looked at in case it embeds Python; only
		 * python-named modules make "stripped" worth saying */
		if (strncmp(base, "python", 6) == 0 || strncmp(base, "libpython", 9) == 0) {
			snprintf(s->candidate, sizeof(s->candidate), "%s", base);
			s->no_symtab |= n <= 0;
		}
		return DWARF_CB_OK;
	}
	s->runtime = rt;
	s->version = ver;
	s->code_type = code;
	s->module = name;
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	s->elf64 = elf && gelf_getclass(elf) == ELFCLASS64;
	return DWARF_CB_ABORT;
}

static int errno_problem(struct pystack *ps, int e, const char *what, pid_t pid)
{
	char buf[128];
	const char *msg = strerror_r(e, buf, sizeof(buf));
	problem(ps, "%s %d: %s", what, (int)pid, msg);
	return -e;
}

int pystack_read(pid_t pid, struct pystack *out)
{
	memset(out, 0, sizeof(*out));
	out->finalizing = -1;
	struct syms s = { .exe = "" };
	char link[64];
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(link, s.exe, sizeof(s.exe) - 1);
	s.exe[n > 0 ? n : 0] = '\0';

	Dwfl *dwfl = dwfl_begin(&callbacks);
	if (!dwfl) {
		problem(out, "dwfl_begin: %s", dwfl_errmsg(-1));
		return -ENOMEM;
	}
	int rc = dwfl_linux_proc_report(dwfl, pid);
	if (rc || dwfl_report_end(dwfl, NULL, NULL)) {
		dwfl_end(dwfl);
		return errno_problem(out, rc == ENOENT ? ESRCH : rc > 0 ? rc : EIO,
				     "cannot read the modules of process", pid);
	}
	(void)dwfl_getmodules(dwfl, module_cb, &s, 0);
	if (!s.runtime) {
		if (s.candidate[0])
			problem(out, "no _PyRuntime symbol in '%s'%s: Python frames cannot be read",
				s.candidate, s.no_symtab ? " (no symbol table: a stripped interpreter?)"
						       : " (a stripped or static interpreter?)");
		else
			problem(out, "no Python interpreter found in process %d", (int)pid);
		dwfl_end(dwfl);
		return -ENOENT;
	}
	snprintf(out->module, sizeof(out->module), "%s", s.module);
	dwfl_end(dwfl);
	if (!s.elf64) {
		problem(out, "'%s' is not a 64-bit interpreter: not supported", frame_basename(out->module));
		return -EPROTONOSUPPORT;
	}

	struct pystack_mem mem = { .read = proc_read, .pid = pid };
	uint64_t version = 0;
	if (s.version && (rc = proc_read(&mem, s.version, &version, sizeof(version))) < 0)
		return errno_problem(out, -rc, "cannot read the memory of process", pid);
	out->version = (unsigned)version;
	struct pyoffsets o;
	char why[256] = "";
	rc = version ? pyoffsets_for((unsigned)version, &o, why, sizeof(why)) : -ENOTSUP;
	if (rc == -ENOTSUP) {
		/* 3.13+, or no Py_Version (older than 3.11, or a build without it):
		 * the debug offsets say which */
		uint8_t dbg[PYOFFSETS_DEBUG_SIZE];
		int r = proc_read(&mem, s.runtime, dbg, sizeof(dbg));
		if (r < 0)
			return errno_problem(out, -r, "cannot read the memory of process", pid);
		rc = pyoffsets_from_debug(dbg, sizeof(dbg), (unsigned)version, &o, why, sizeof(why));
		if (rc == -EINVAL && !version) {
			snprintf(why, sizeof(why), "'%s' has no Py_Version and no _Py_DebugOffsets: Python "
				 "older than 3.11, not supported", frame_basename(out->module));
			rc = -EPROTONOSUPPORT;
		}
		if (!rc)
			out->version = o.version;
	}
	if (rc < 0) {
		problem(out, "%s", why);
		return rc;
	}
	out->free_threaded = o.free_threaded;
	return pystack_walk(&mem, &o, s.runtime, s.code_type, out);
}

/* ---- merging ------------------------------------------------------------- */

static void put_python(struct stack_frame *dst, const struct pystack_frame *f)
{
	memset(dst, 0, sizeof(*dst));
	dst->fn = xstrdup(f->name);
	dst->module = xstrdup(f->file);
	dst->line = f->line;
	dst->python = true;
	dst->key = xasprintf("%s:%s", frame_basename(f->file), f->name);
}

/* Append the frames of call k of p to v (at most cap). Returns how many. */
static size_t put_call(struct stack_frame *v, size_t *nr, size_t cap, const struct pystack_thread *p,
		       unsigned k, bool *cut)
{
	size_t added = 0;
	for (size_t i = 0; i < p->nr; i++) {
		if (p->frames[i].call != k)
			continue;
		if (*nr >= cap) {
			*cut = true;
			break;
		}
		put_python(&v[(*nr)++], &p->frames[i]);
		added++;
	}
	return added;
}

static bool is_eval(const struct stack_frame *f)
{
	return f->fn && !strcmp(f->fn, "_PyEval_EvalFrameDefault");
}

static void merge_thread(struct pystack *ps, struct stack_thread *t, const struct pystack_thread *p)
{
	struct stack_frame *v = xcalloc(STACK_MAX_MERGED, sizeof(*v));
	size_t nr = 0;
	unsigned k = 0;
	bool cut = false, any_eval = false;
	for (size_t i = 0; i < t->nr; i++) {
		struct stack_frame *f = &t->frames[i];
		if (is_eval(f))
			any_eval = true;
		if (is_eval(f) && k < p->ncalls) {
			if (put_call(v, &nr, STACK_MAX_MERGED, p, k++, &cut) > 0) {
				stack_frame_release(f);
				continue;
			}
		}
		if (nr >= STACK_MAX_MERGED) {
			cut = true;
			stack_frame_release(f);
			continue;
		}
		v[nr++] = *f;   /* moved: the strings change hands */
		memset(f, 0, sizeof(*f));
	}
	/* Calls the native stack did not reach (it was cut short, or its eval
	 * frames have no names): their frames go after it, outermost last. */
	if (k < p->ncalls && !any_eval && t->nr)
		problem(ps, "thread %d: no _PyEval_EvalFrameDefault in the native stack (no symbols?): "
			"its Python frames are shown after it", (int)t->tid);
	for (; k < p->ncalls; k++)
		put_call(v, &nr, STACK_MAX_MERGED, p, k, &cut);
	free(t->frames);
	t->frames = v;
	t->nr = nr;
	t->truncated |= cut || p->truncated;
}

int pystack_merge(struct pystack *ps, struct stack_set *s, pid_t pid)
{
	int merged = 0;
	bool any_native = false;
	for (size_t i = 0; i < s->nr; i++)
		any_native |= s->v[i].pid == pid;
	for (size_t j = 0; j < ps->nthreads; j++) {
		const struct pystack_thread *p = &ps->threads[j];
		if (!p->nr)
			continue;
		struct stack_thread *t = NULL;
		for (size_t i = 0; i < s->nr && p->tid; i++)
			if (s->v[i].pid == pid && s->v[i].tid == p->tid)
				t = &s->v[i];
		if (!t && any_native)
			continue;       /* a thread state whose thread is gone */
		if (!t)
			t = stack_set_add(s, pid, p->tid);
		merge_thread(ps, t, p);
		merged++;
	}
	return merged;
}

void pystack_release(struct pystack *ps)
{
	for (size_t i = 0; i < ps->nthreads; i++) {
		struct pystack_thread *t = &ps->threads[i];
		for (size_t j = 0; j < t->nr; j++) {
			free(t->frames[j].name);
			free(t->frames[j].file);
		}
		free(t->frames);
	}
	free(ps->threads);
	strvec_release(&ps->problems);
	memset(ps, 0, sizeof(*ps));
}
