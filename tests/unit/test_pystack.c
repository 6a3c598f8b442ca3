/*
 * Unit tests of Python stacks read from outside (pystack.c, pyoffsets.c):
 * location tables recorded from CPython 3.11-3.13 (tests/data/
 * py_linetables.txt, made by py_linetables.py), the walk over a fabricated
 * address space laid out as 3.11 and 3.12 lay it out, its failure modes,
 * merging into native stacks, and reading _Py_DebugOffsets.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/pyoffsets.h"
#include "diagnose/pystack.h"
#include "signature/frame.h"
#include "slurp.h"
#include "tap.h"

/* ---- a fabricated address space ---- */

struct region {
	uint64_t addr;
	uint8_t *buf;
	size_t len;
};

struct fakemem {
	struct region r[256];
	size_t n;
	uint64_t next;
};

static uint64_t fm_alloc(struct fakemem *m, size_t len)
{
	struct region *r = &m->r[m->n++];
	r->addr = m->next;
	r->buf = calloc(1, len);
	r->len = len;
	m->next += (len + 0x1000) & ~(uint64_t)0xfff;
	return r->addr;
}

static uint8_t *fm_at(struct fakemem *m, uint64_t addr, size_t len)
{
	for (size_t i = 0; i < m->n; i++)
		if (addr >= m->r[i].addr && addr + len <= m->r[i].addr + m->r[i].len)
			return m->r[i].buf + (addr - m->r[i].addr);
	return NULL;
}

static void put64(struct fakemem *m, uint64_t addr, uint64_t v) { memcpy(fm_at(m, addr, 8), &v, 8); }
static void put32(struct fakemem *m, uint64_t addr, uint32_t v) { memcpy(fm_at(m, addr, 4), &v, 4); }
static void put8(struct fakemem *m, uint64_t addr, uint8_t v) { *fm_at(m, addr, 1) = v; }

static int fm_read(const struct pystack_mem *pm, uint64_t addr, void *buf, size_t len)
{
	uint8_t *p = fm_at(pm->ctx, addr, len);
	if (!p)
		return -EFAULT;
	memcpy(buf, p, len);
	return 0;
}

static void fm_free(struct fakemem *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->r[i].buf);
	m->n = 0;
}

/* CPython objects in the fabricated space, laid out as o says. */
struct py {
	struct fakemem *m;
	const struct pyoffsets *o;
	uint64_t code_type;
};

static uint64_t mk_str(struct py *p, const char *s)
{
	size_t n = strlen(s);
	uint64_t a = fm_alloc(p->m, p->o->str_ascii_size + n + 1);
	put64(p->m, a + p->o->str_length, n);
	put32(p->m, a + p->o->str_state, (1u << 2) | (1u << 5) | (1u << 6));  /* kind 1, compact, ascii */
	memcpy(fm_at(p->m, a + p->o->str_ascii_size, n), s, n);
	return a;
}

/* A compact non-ASCII str of UCS-2 characters. */
static uint64_t mk_str2(struct py *p, const uint16_t *s, size_t n)
{
	uint64_t a = fm_alloc(p->m, p->o->str_compact_size + 2 * n + 2);
	put64(p->m, a + p->o->str_length, n);
	put32(p->m, a + p->o->str_state, (2u << 2) | (1u << 5));
	memcpy(fm_at(p->m, a + p->o->str_compact_size, 2 * n), s, 2 * n);
	return a;
}

static uint64_t mk_bytes(struct py *p, const uint8_t *b, size_t n)
{
	uint64_t a = fm_alloc(p->m, p->o->bytes_sval + n + 1);
	put64(p->m, a + p->o->bytes_size, n);
	memcpy(fm_at(p->m, a + p->o->bytes_sval, n), b, n);
	return a;
}

/*
 * The line table of every code object below, first line 10: code unit 0
 * line 10 (form 13, +0); units 1-3 line 12 (form 13, +2); unit 4 no line
 * (form 15); units 5-6 line 13 (form 11: +1, two column bytes); unit 7
 * line 8 (form 14, -5, then end line, columns).
 */
static const uint8_t table[] = { 0xe8, 0x00, 0xea, 0x04, 0xf8, 0xd9, 0x01, 0x02,
				 0xf0, 0x0b, 0x00, 0x01, 0x01 };

static uint64_t mk_code_named(struct py *p, uint64_t name, const char *file)
{
	uint64_t a = fm_alloc(p->m, p->o->code_adaptive + 64);
	put64(p->m, a + p->o->ob_type, p->code_type);
	put64(p->m, a + p->o->code_name, name);
	put64(p->m, a + p->o->code_filename, mk_str(p, file));
	put64(p->m, a + p->o->code_linetable, mk_bytes(p, table, sizeof(table)));
	put32(p->m, a + p->o->code_firstlineno, 10);
	return a;
}

static uint64_t mk_code(struct py *p, const char *name, const char *file)
{
	return mk_code_named(p, mk_str(p, name), file);
}

/* A frame of CODE at byte offset AT of its bytecode. */
static uint64_t mk_frame(struct py *p, uint64_t code, int at, uint64_t previous, bool entry, uint8_t owner)
{
	uint64_t a = fm_alloc(p->m, 128);
	put64(p->m, a + p->o->frame_code, code);
	put64(p->m, a + p->o->frame_previous, previous);
	put64(p->m, a + p->o->frame_instr, code + p->o->code_adaptive + (uint64_t)(int64_t)at);
	put8(p->m, a + p->o->frame_owner, owner);
	if (p->o->frame_is_entry != PYOFF_NONE)
		put8(p->m, a + p->o->frame_is_entry, entry);
	return a;
}

static uint64_t mk_tstate(struct py *p, pid_t tid, uint64_t frame, uint64_t next)
{
	uint64_t a = fm_alloc(p->m, 512);
	put64(p->m, a + p->o->tstate_next, next);
	put64(p->m, a + p->o->tstate_native_thread_id, (uint64_t)tid);
	if (p->o->tstate_cframe == PYOFF_NONE) {
		put64(p->m, a + p->o->current_frame, frame);
	} else {
		uint64_t cf = fm_alloc(p->m, 32);
		put64(p->m, cf + p->o->current_frame, frame);
		put64(p->m, a + p->o->tstate_cframe, cf);
	}
	return a;
}

static uint64_t mk_runtime(struct py *p, uint64_t tstates)
{
	uint64_t interp = fm_alloc(p->m, 128);
	put64(p->m, interp + p->o->interp_threads_head, tstates);
	uint64_t rt = fm_alloc(p->m, 128);
	put64(p->m, rt + p->o->runtime_interpreters_head, interp);
	return rt;
}

static const char *frame_str(const struct pystack_thread *t, size_t i)
{
	static char buf[256];
	if (i >= t->nr)
		return "(none)";
	snprintf(buf, sizeof(buf), "%s %s:%d call %u", t->frames[i].name, t->frames[i].file,
		 t->frames[i].line, t->frames[i].call);
	return buf;
}

/* ---- tests ---- */

static void test_linetables(void)
{
	size_t len;
	char *text = slurp("py_linetables.txt", &len);
	int tables = 0, wrong = 0, points = 0;
	char *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (l[0] == '#')
			continue;
		char name[64], hex[4096];
		int first, used;
		if (sscanf(l, "%63s %d %4095s%n", name, &first, hex, &used) != 3)
			continue;
		uint8_t tab[2048];
		size_t n = strlen(hex) / 2;
		for (size_t i = 0; i < n; i++)
			tab[i] = (uint8_t)strtoul((char[]){ hex[2 * i], hex[2 * i + 1], 0 }, NULL, 16);
		tables++;
		for (char *p = l + used; *p;) {
			int off, line, k;
			if (sscanf(p, " %d:%d%n", &off, &line, &k) != 2)
				break;
			p += k;
			points++;
			int got = pystack_line(tab, n, first, off);
			if (got != line) {
				if (wrong++ < 5)
					printf("# %s at %d: got line %d, CPython says %d\n", name, off, got, line);
			}
		}
	}
	free(text);
	CHECK(tables >= 20);
	CHECK(points > 300);
	CHECK(wrong == 0);
	/* the hand-made table */
	CHECK(pystack_line(table, sizeof(table), 10, 0) == 10);
	CHECK(pystack_line(table, sizeof(table), 10, 2) == 12);
	CHECK(pystack_line(table, sizeof(table), 10, 6) == 12);
	CHECK(pystack_line(table, sizeof(table), 10, 8) == 0);
	CHECK(pystack_line(table, sizeof(table), 10, 12) == 13);
	CHECK(pystack_line(table, sizeof(table), 10, 14) == 8);
	CHECK(pystack_line(table, sizeof(table), 10, 16) == 0);   /* past the end */
	CHECK(pystack_line(table, sizeof(table), 10, -2) == 10);  /* not started: first line */
	CHECK(pystack_line(NULL, 0, 10, 0) == 0);
}

static void test_walk_311(void)
{
	struct fakemem m = { .next = 0x10000 };
	struct pyoffsets o;
	char why[128];
	CHECK(pyoffsets_for(0x030b02f0, &o, why, sizeof(why)) == 0);
	struct py p = { &m, &o, 0 };
	p.code_type = fm_alloc(&m, 64);
	/* thread 101: inner <- outer (entry) <- <module> (entry) */
	uint64_t f3 = mk_frame(&p, mk_code(&p, "<module>", "/srv/app.py"), 12, 0, true, 0);
	uint64_t f2 = mk_frame(&p, mk_code(&p, "outer", "/srv/app.py"), 0, f3, true, 0);
	uint64_t f1 = mk_frame(&p, mk_code(&p, "inner", "/usr/lib/python3.11/threading.py"), 4, f2, false, 0);
	/* thread 102: a frame whose code pointer is not a code object */
	uint64_t bad = mk_frame(&p, mk_str(&p, "not code"), 0, 0, true, 0);
	/* thread 103: no Python frame; thread 104: a non-ASCII name, a frame not started yet */
	const uint16_t wide[] = { 'f', 0x00e9, 0x4e2d };
	uint64_t f5 = mk_frame(&p, mk_code_named(&p, mk_str2(&p, wide, 3), "/srv/app.py"), -2, 0, true, 0);
	uint64_t t4 = mk_tstate(&p, 104, f5, 0);
	uint64_t t3 = mk_tstate(&p, 103, 0, t4);
	uint64_t t2 = mk_tstate(&p, 102, bad, t3);
	uint64_t t1 = mk_tstate(&p, 101, f1, t2);
	uint64_t rt = mk_runtime(&p, t1);

	struct pystack_mem mem = { .read = fm_read, .ctx = &m };
	struct pystack ps = PYSTACK_INIT;
	CHECK(pystack_walk(&mem, &o, rt, p.code_type, &ps) == 4);
	CHECK(ps.nthreads == 4);
	const struct pystack_thread *a = &ps.threads[0];
	CHECK(a->tid == 101 && a->nr == 3 && a->ncalls == 2 && !a->truncated);
	CHECK_STR(frame_str(a, 0), "inner /usr/lib/python3.11/threading.py:12 call 0");
	CHECK_STR(frame_str(a, 1), "outer /srv/app.py:10 call 0");
	CHECK_STR(frame_str(a, 2), "<module> /srv/app.py:13 call 1");
	CHECK(ps.threads[1].tid == 102 && ps.threads[1].nr == 0);
	CHECK(ps.threads[2].tid == 103 && ps.threads[2].nr == 0 && ps.threads[2].ncalls == 0);
	CHECK_STR(frame_str(&ps.threads[3], 0), "f\xc3\xa9\xe4\xb8\xad /srv/app.py:10 call 0");
	CHECK(ps.problems.nr == 1);
	CHECK(ps.problems.nr && strstr(ps.problems.v[0], "thread 102: Python frame 0") &&
	      strstr(ps.problems.v[0], "holds no code object (a frame push in progress?)"));

	/* merged into a native stack */
	struct stack_set s = STACK_SET_INIT;
	struct stack_thread *t = stack_set_add(&s, 7, 101);
	stack_thread_push(t, "__futex_abstimed_wait_common", "/lib/x86_64-linux-gnu/libc.so.6", 1);
	stack_thread_push(t, "PyObject_Vectorcall", "/usr/bin/python3.11", 2);
	stack_thread_push(t, "_PyEval_EvalFrameDefault", "/usr/bin/python3.11", 3);
	stack_thread_push(t, "_PyEval_Vector", "/usr/bin/python3.11", 4);
	stack_thread_push(t, "_PyEval_EvalFrameDefault", "/usr/bin/python3.11", 5);
	stack_thread_push(t, "Py_RunMain", "/usr/bin/python3.11", 6);
	struct stack_thread *u = stack_set_add(&s, 7, 999);   /* a thread without Python */
	stack_thread_push(u, "worker_loop", "/srv/libcore.so", 7);
	CHECK(pystack_merge(&ps, &s, 7) == 1);
	struct stack_fold *folds;
	size_t nf = stack_fold(&s, 16, &folds);
	CHECK(nf == 2);
	bool seen = false;
	for (size_t i = 0; i < nf; i++)
		seen |= !strcmp(folds[i].line, "__futex_abstimed_wait_common <- PyObject_Vectorcall <- "
				"inner (threading.py:12) <- outer (app.py:10) <- _PyEval_Vector <- "
				"<module> (app.py:13) <- Py_RunMain");
	CHECK(seen);
	stack_fold_free(folds, nf);
	/* the culprit: stdlib and runtime frames skipped, named as faulthandler names it */
	CHECK_STR(stack_program_frame(stack_set_find(&s, 101), 0), "app.py:outer");
	CHECK_STR(stack_program_frame(stack_set_find(&s, 101), 1), "app.py:<module>");
	CHECK_STR(stack_program_frame(stack_set_find(&s, 999), 0), "worker_loop");
	/* 104 has no native stack while others do: its thread is gone, skipped */
	CHECK(stack_set_find(&s, 104) == NULL);
	stack_set_release(&s);

	/* no native stacks at all: Python frames alone */
	struct stack_set s2 = STACK_SET_INIT;
	CHECK(pystack_merge(&ps, &s2, 7) == 2);
	CHECK(s2.nr == 2 && s2.v[0].nr == 3 && s2.v[0].frames[0].python && s2.v[0].frames[0].line == 12);
	stack_set_release(&s2);

	/* a native stack without _PyEval_EvalFrameDefault (no symbols): after it, said once */
	struct stack_set s3 = STACK_SET_INIT;
	t = stack_set_add(&s3, 7, 101);
	stack_thread_push(t, "", "/usr/bin/python3.11", 1);
	stack_thread_push(t, "start_thread", "/lib/x86_64-linux-gnu/libc.so.6", 2);
	size_t before = ps.problems.nr;
	CHECK(pystack_merge(&ps, &s3, 7) == 1);
	CHECK(s3.v[0].nr == 5 && !strcmp(s3.v[0].frames[1].fn, "start_thread") && s3.v[0].frames[2].python);
	CHECK(ps.problems.nr == before + 1 &&
	      strstr(ps.problems.v[before], "no _PyEval_EvalFrameDefault in the native stack"));
	stack_set_release(&s3);
	pystack_release(&ps);

	/* no interpreter yet */
	uint64_t empty = fm_alloc(&m, 128);
	struct pystack ps2 = PYSTACK_INIT;
	CHECK(pystack_walk(&mem, &o, empty, p.code_type, &ps2) == -ENOENT);
	CHECK(ps2.problems.nr == 1 && strstr(ps2.problems.v[0], "no interpreter"));
	pystack_release(&ps2);
	/* _PyRuntime not readable */
	struct pystack ps3 = PYSTACK_INIT;
	CHECK(pystack_walk(&mem, &o, 0x7fff0000, p.code_type, &ps3) == -EFAULT);
	CHECK(ps3.problems.nr == 1 && strstr(ps3.problems.v[0], "cannot read _PyRuntime"));
	pystack_release(&ps3);
	fm_free(&m);
}

static void test_walk_312(void)
{
	struct fakemem m = { .next = 0x10000 };
	struct pyoffsets o;
	char why[128];
	CHECK(pyoffsets_for(0x030c01f0, &o, why, sizeof(why)) == 0);
	struct py p = { &m, &o, 0 };
	p.code_type = fm_alloc(&m, 64);
	/* inner <- outer <- [shim] <- <module> <- [shim]; then a frame that cannot be read */
	uint64_t shim2 = mk_frame(&p, 0, 0, 0, false, 3);
	uint64_t f3 = mk_frame(&p, mk_code(&p, "<module>", "/srv/app.py"), 2, shim2, false, 0);
	uint64_t shim1 = mk_frame(&p, 0, 0, f3, false, 3);
	uint64_t f2 = mk_frame(&p, mk_code(&p, "outer", "/srv/app.py"), 0, shim1, false, 0);
	uint64_t f1 = mk_frame(&p, mk_code(&p, "inner", "/srv/app.py"), 10, f2, false, 0);
	uint64_t g1 = mk_frame(&p, mk_code(&p, "cut", "/srv/app.py"), 0, 0x7ff00000, false, 0);
	uint64_t t2 = mk_tstate(&p, 202, g1, 0);
	uint64_t t1 = mk_tstate(&p, 201, f1, t2);
	uint64_t rt = mk_runtime(&p, t1);
	struct pystack_mem mem = { .read = fm_read, .ctx = &m };
	struct pystack ps = PYSTACK_INIT;
	CHECK(pystack_walk(&mem, &o, rt, p.code_type, &ps) == 2);
	const struct pystack_thread *a = &ps.threads[0];
	CHECK(a->nr == 3 && a->ncalls == 2);
	CHECK_STR(frame_str(a, 0), "inner /srv/app.py:13 call 0");
	CHECK_STR(frame_str(a, 1), "outer /srv/app.py:10 call 0");
	CHECK_STR(frame_str(a, 2), "<module> /srv/app.py:12 call 1");
	CHECK(ps.threads[1].nr == 1 && ps.threads[1].ncalls == 1);
	CHECK(ps.problems.nr == 1 && strstr(ps.problems.v[0], "thread 202: Python frame 1") &&
	      strstr(ps.problems.v[0], "cannot be read"));
	pystack_release(&ps);
	fm_free(&m);
}

static void test_offsets(void)
{
	struct pyoffsets o;
	char why[256];
	CHECK(pyoffsets_for(0x030a0df0, &o, why, sizeof(why)) == -EPROTONOSUPPORT);
	CHECK_STR(why, "Python 3.10.13 is not supported (3.11 and later are)");
	CHECK(pyoffsets_for(0x030d00f0, &o, why, sizeof(why)) == -ENOTSUP);
	char v[32];
	CHECK_STR(pyoffsets_version_str(0x030e00a7, v, sizeof(v)), "3.14.0a7");
	CHECK_STR(pyoffsets_version_str(0x030d01c1, v, sizeof(v)), "3.13.1rc1");

	/* a 3.13 _Py_DebugOffsets, as the interpreter publishes it */
	const struct pyoffsets_slots *s = pyoffsets_debug_slots(13);
	CHECK(s != NULL);
	uint8_t buf[PYOFFSETS_DEBUG_SIZE] = { 0 };
	uint64_t u[PYOFFSETS_DEBUG_SIZE / 8] = { 0 };
	memcpy(u, "xdebugpy", 8);
	u[1] = 0x030d00f0;
	u[s->runtime_interpreters_head] = 632;
	u[s->interp_size] = 8000, u[s->interp_next] = 7264, u[s->interp_threads_head] = 7344;
	u[s->tstate_size] = 400, u[s->tstate_next] = 8, u[s->tstate_current_frame] = 72;
	u[s->tstate_native_thread_id] = 160;
	u[s->frame_size] = 80, u[s->frame_previous] = 8, u[s->frame_executable] = 0;
	u[s->frame_instr_ptr] = 56, u[s->frame_owner] = 70;
	u[s->code_size] = 216, u[s->code_filename] = 112, u[s->code_name] = 120;
	u[s->code_linetable] = 136, u[s->code_firstlineno] = 68, u[s->code_adaptive] = 200;
	u[s->ob_type] = 8;
	u[s->bytes_size] = 40, u[s->bytes_ob_size] = 16, u[s->bytes_sval] = 32;
	u[s->str_size] = 64, u[s->str_state] = 32, u[s->str_length] = 16, u[s->str_ascii_size] = 40;
	memcpy(buf, u, sizeof(u));
	CHECK(pyoffsets_from_debug(buf, sizeof(buf), 0x030d00f0, &o, why, sizeof(why)) == 0);
	CHECK(o.current_frame == 72 && o.tstate_cframe == PYOFF_NONE && o.interp_threads_head == 7344);
	CHECK(o.str_compact_size == 56 && o.owner_shim == 3 && o.code_tag_mask == 0 && !o.free_threaded);
	/* Py_Version unknown: the debug offsets' own version */
	CHECK(pyoffsets_from_debug(buf, sizeof(buf), 0, &o, why, sizeof(why)) == 0 && o.version == 0x030d00f0);
	/* the versions disagree */
	CHECK(pyoffsets_from_debug(buf, sizeof(buf), 0x030c01f0, &o, why, sizeof(why)) == -EINVAL);
	CHECK(strstr(why, "says Python 3.13.0 but Py_Version says 3.12.1") != NULL);
	/* an offset outside its struct */
	uint64_t keep = u[s->tstate_current_frame];
	u[s->tstate_current_frame] = 4000;
	memcpy(buf, u, sizeof(u));
	CHECK(pyoffsets_from_debug(buf, sizeof(buf), 0x030d00f0, &o, why, sizeof(why)) == -EINVAL);
	u[s->tstate_current_frame] = keep;
	/* a version whose debug offsets jostle does not know */
	u[1] = 0x030f00a1;
	memcpy(buf, u, sizeof(u));
	CHECK(pyoffsets_from_debug(buf, sizeof(buf), 0, &o, why, sizeof(why)) == -EPROTONOSUPPORT);
	CHECK(strstr(why, "3.15.0a1") != NULL);
	/* no cookie */
	buf[0] = 'y';
	CHECK(pyoffsets_from_debug(buf, sizeof(buf), 0x030d00f0, &o, why, sizeof(why)) == -EINVAL);
	CHECK(pyoffsets_debug_slots(14) != NULL && pyoffsets_debug_slots(12) == NULL);
}

static void test_maps_and_stdlib(void)
{
	CHECK(pystack_maps_python("00400000-00401000 r--p 00000000 fe:00 1 /usr/bin/python3.11\n"));
	CHECK(pystack_maps_python("7f00-7f10 r--p 0 fe:00 1 /usr/bin/bash\n"
				  "7f10-7f20 r-xp 0 fe:00 2 /usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0\n"));
	CHECK(!pystack_maps_python("7f00-7f10 r--p 0 fe:00 1 /usr/bin/bash\n7f20-7f30 rw-p 0 00:00 0 [heap]\n"));
	CHECK(!pystack_maps_python("7f00-7f10 r--p 0 fe:00 1 /opt/python3-tools/run.so\n"));
	CHECK(!pystack_maps_python(""));
	CHECK(frame_python_stdlib("/usr/lib/python3.11/threading.py"));
	CHECK(frame_python_stdlib("/root/.pyenv/versions/3.12.1/lib/python3.12/concurrent/futures/thread.py"));
	CHECK(frame_python_stdlib("/usr/lib64/python3.13t/queue.py"));
	CHECK(frame_python_stdlib("<frozen importlib._bootstrap>"));
	CHECK(!frame_python_stdlib("/usr/lib/python3/dist-packages/_pytest/python.py"));
	CHECK(!frame_python_stdlib("/venv/lib/python3.11/site-packages/torch/cuda/__init__.py"));
	CHECK(!frame_python_stdlib("/home/u/test_hang.py"));
	CHECK(!frame_python_stdlib("/home/u/mylib/python3x.py"));
	CHECK(!frame_python_stdlib("<string>"));
	CHECK(!frame_python_stdlib(NULL));
}

int main(void)
{
	test_linetables();
	test_walk_311();
	test_walk_312();
	test_offsets();
	test_maps_and_stdlib();
	return tap_done();
}
