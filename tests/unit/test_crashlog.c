/*
 * Unit tests of crashlog.c: parsing synthetic records (version 1, pcs;
 * version 2, registers and raw stack bytes), finding a run's record,
 * symbolizing offline (a record made from this very process's maps, with
 * the pcs of a static function of this test binary and of libc), and
 * unwinding the records libjostle-crash.so writes in a child of this test
 * that crashes in known static functions.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "diagnose/crashdir.h"
#include "diagnose/crashlog.h"
#include "diagnose/stack.h"
#include "util/dbuf.h"
#include "tap.h"

static const char record[] =
	"jostle-crash 1\n"
	"signal 11 SIGSEGV\n"
	"code 1\n"
	"addr 0x10\n"
	"pid 4242\n"
	"tid 4243\n"
	"pc 0x55d0c3a0114d\n"
	"pc 0x55d0c3a01190\n"
	"future-member ignored\n"
	"maps\n"
	"55d0c3a00000-55d0c3a01000 r--p 00000000 08:01 1234                       /opt/x/prog\n"
	"55d0c3a01000-55d0c3a02000 r-xp 00001000 08:01 1234                       /opt/x/prog\n"
	"55d0c4000000-55d0c4021000 rw-p 00000000 00:00 0                          [heap]\n"
	"7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
	"7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                          [vdso]\n"
	"7ffd00003000-7ffd0";   /* cut short by a second fatal signal */

__attribute__((noinline)) static int static_function_in_test(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

static void test_parse(void)
{
	struct crashlog c = CRASHLOG_INIT;
	char why[256] = "";
	CHECK(crashlog_parse(record, sizeof(record) - 1, &c, why, sizeof(why)) == 0);
	CHECK(c.signo == 11);
	CHECK_STR(c.signame, "SIGSEGV");
	CHECK(c.code == 1 && c.addr == 0x10);
	CHECK(c.pid == 4242 && c.tid == 4243);
	CHECK(c.npc == 2 && c.pc[0] == 0x55d0c3a0114dULL && c.pc[1] == 0x55d0c3a01190ULL);
	CHECK(c.nmaps == 5);   /* the cut-short last line is dropped */
	CHECK(c.maps[1].start == 0x55d0c3a01000ULL && c.maps[1].end == 0x55d0c3a02000ULL);
	CHECK(c.maps[1].offset == 0x1000 && c.maps[1].inode == 1234);
	CHECK_STR(c.maps[1].perms, "r-xp");
	CHECK_STR(c.maps[1].path, "/opt/x/prog");
	CHECK_STR(c.maps[2].path, "[heap]");
	CHECK_STR(c.maps[3].path, "");
	crashlog_release(&c);

	struct crashlog d = CRASHLOG_INIT;
	CHECK(crashlog_parse("hello\n", 6, &d, why, sizeof(why)) == -EINVAL);
	CHECK(crashlog_parse("jostle-crash 1\nsig", 18, &d, why, sizeof(why)) == -EINVAL);
	CHECK(crashlog_parse("", 0, &d, why, sizeof(why)) == -ENODATA && strstr(why, "empty"));
	crashlog_release(&d);
}

/* Version 2: registers, and stack copies whose raw bytes hold newlines
 * and words of the format; the second copy is cut short. */
static void test_parse_v2(void)
{
	static const char head[] =
		"jostle-crash 2\nsignal 6 SIGABRT\ncode -6\naddr 0x1e\npid 77\ntid 78\n"
		"arch x86_64\npc 0x401000\nreg 0 0x1\nreg 7 0x7ffd00001000\nreg 16 0x401000\n"
		"reg 99 0x5\nstack 0x7ffd00001000 16\n";
	static const char bytes[16] = "ab\nmaps\npc 0x9\n";
	static const char mid[] = "\nstack 0x7ffd00009000 4096\n";
	struct dbuf b;
	dbuf_init(&b, 1u << 16);
	dbuf_adds(&b, head);
	dbuf_add(&b, bytes, sizeof(bytes));
	dbuf_adds(&b, "\nmaps\n400000-402000 r-xp 00000000 08:01 55 /opt/x/prog\n");
	struct crashlog c = CRASHLOG_INIT;
	char why[256] = "";
	CHECK(crashlog_parse(dbuf_str(&b), b.len, &c, why, sizeof(why)) == 0);
	CHECK(c.version == 2 && c.signo == 6 && c.code == -6 && c.pid == 77 && c.tid == 78);
	CHECK_STR(c.arch, "x86_64");
	CHECK(c.npc == 1 && c.pc[0] == 0x401000 && c.exact[0]);
	CHECK(c.regmask == (1ULL << 0 | 1ULL << 7 | 1ULL << 16));   /* 99: out of range */
	CHECK(c.reg[7] == 0x7ffd00001000ULL && c.reg[16] == 0x401000);
	CHECK(c.nstack == 1 && c.stack[0].addr == 0x7ffd00001000ULL && c.stack[0].len == 16);
	CHECK(c.nstack == 1 && !memcmp(c.stack[0].bytes, bytes, 16));
	CHECK(c.nmaps == 1 && c.maps[0].inode == 55);   /* "maps" in the bytes is not the maps */
	crashlog_release(&c);

	/* cut short inside a second copy: what is there */
	dbuf_reset(&b);
	dbuf_adds(&b, head);
	dbuf_add(&b, bytes, sizeof(bytes));
	dbuf_adds(&b, mid);
	dbuf_add(&b, "\0\1\2", 3);
	struct crashlog d = CRASHLOG_INIT;
	CHECK(crashlog_parse(dbuf_str(&b), b.len, &d, why, sizeof(why)) == 0);
	CHECK(d.nstack == 2 && d.stack[1].addr == 0x7ffd00009000ULL && d.stack[1].len == 3);
	CHECK(d.nmaps == 0);
	crashlog_release(&d);
	dbuf_release(&b);
}

static void touch(const char *dir, const char *name)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
}

static void test_find(void)
{
	char dir[] = "/tmp/jostle-crashlog.XXXXXX";
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	touch(dir, "5.100.txt");
	touch(dir, "5.200.txt");
	touch(dir, "50.300.txt");
	touch(dir, "5.x.txt");
	char path[512], want[512], got[4][CRASHLOG_PATH_LEN];
	/* listed at every find, and indexed once then watched: the same answers */
	for (int watch = 0; watch < 2; watch++) {
		struct crashdir *d = crashdir_open(dir, watch);
		CHECK(crashdir_watching(d) == (bool)watch);
		CHECK(crashdir_find(d, 5, 200, 0, got, 4) == 2);
		snprintf(want, sizeof(want), "%s/5.200.txt", dir);
		CHECK_STR(got[0], want);   /* the main process's record first */
		snprintf(want, sizeof(want), "%s/5.100.txt", dir);
		CHECK_STR(got[1], want);   /* then a child's */
		CHECK(crashdir_find(d, 5, 200, 0, got, 1) == 1);   /* at most max */
		CHECK(crashdir_find(d, 50, 1, 0, got, 4) == 1);
		snprintf(want, sizeof(want), "%s/50.300.txt", dir);
		CHECK_STR(got[0], want);   /* else a child's */
		CHECK(crashdir_find(d, 6, 1, 0, got, 4) == 0);
		CHECK(crashdir_find(d, 5, 200, INT64_MAX, got, 4) == 0);
		/* a record written after the folder was opened (4096 runs on: the same head) */
		touch(dir, "4102.7.txt");
		CHECK(crashdir_find(d, 4102, 7, 0, got, 4) == 1);
		snprintf(want, sizeof(want), "%s/4102.7.txt", dir);
		CHECK_STR(got[0], want);
		CHECK(crashdir_find(d, 6, 1, 0, got, 4) == 0);
		/* written again (a replay unlinks, then links): still one */
		snprintf(path, sizeof(path), "%s/4102.7.txt", dir);
		unlink(path);
		touch(dir, "4102.7.txt");
		CHECK(crashdir_find(d, 4102, 7, 0, got, 4) == 1);
		unlink(path);   /* gone: not found */
		CHECK(crashdir_find(d, 4102, 7, 0, got, 4) == 0);
		crashdir_close(d);
	}
	struct crashdir *none = crashdir_open("/nonexistent/dir", true);
	CHECK(!crashdir_watching(none) && crashdir_find(none, 5, 200, 0, got, 4) == 0);
	crashdir_close(none);
	/* the folder removed under a watch: listed (nothing) from then on */
	char gone[] = "/tmp/jostle-crashdir.XXXXXX";
	if (mkdtemp(gone)) {
		struct crashdir *d = crashdir_open(gone, true);
		touch(gone, "1.2.txt");
		CHECK(crashdir_find(d, 1, 2, 0, got, 4) == 1);
		snprintf(path, sizeof(path), "%s/1.2.txt", gone);
		unlink(path);
		rmdir(gone);
		CHECK(crashdir_find(d, 1, 2, 0, got, 4) == 0 && !crashdir_watching(d));
		crashdir_close(d);
	}
	const char *names[] = { "5.100.txt", "5.200.txt", "50.300.txt", "5.x.txt" };
	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

/* A record of this process: its maps and the given pcs. */
static void self_record(struct dbuf *b, const uint64_t *pcs, size_t n)
{
	dbuf_addf(b, "jostle-crash 1\nsignal 11 SIGSEGV\ncode 1\naddr 0x0\npid %d\ntid %d\n",
		  (int)getpid(), (int)getpid());
	for (size_t i = 0; i < n; i++)
		dbuf_addf(b, "pc 0x%llx\n", (unsigned long long)pcs[i]);
	dbuf_adds(b, "maps\n");
	int fd = open("/proc/self/maps", O_RDONLY);
	char chunk[4096];
	ssize_t r;
	while (fd >= 0 && (r = read(fd, chunk, sizeof(chunk))) > 0)
		dbuf_add(b, chunk, (size_t)r);
	if (fd >= 0)
		close(fd);
}

static void test_symbolize(void)
{
	uint64_t fn = (uint64_t)(uintptr_t)&static_function_in_test;
	uint64_t libc = (uint64_t)(uintptr_t)&getpid;
	/* frame 0 as it is, then return addresses (looked up at pc - 1) */
	uint64_t pcs[] = { fn + 2, libc + 1, fn + 1, 8 };
	struct dbuf b;
	dbuf_init(&b, 1u << 24);
	self_record(&b, pcs, 4);
	struct crashlog c = CRASHLOG_INIT;
	char why[512] = "";
	CHECK(crashlog_parse(dbuf_str(&b), b.len, &c, why, sizeof(why)) == 0);
	CHECK(c.npc == 4);
	CHECK(crashlog_unwind(NULL, &c, why, sizeof(why)) == 4 && c.npc == 4);   /* version 1: as it is */
	CHECK(c.exact[0] && !c.exact[1] && !c.exact[3]);
	struct stack_set s = STACK_SET_INIT;
	struct dbuf text;
	dbuf_init(&text, 1u << 20);
	int named = crashlog_symbolize(NULL, &c, &s, &text, why, sizeof(why));
	CHECK(named == 3);
	CHECK(s.nr == 1 && s.v[0].nr == 4);
	if (s.nr == 1 && s.v[0].nr == 4) {
		CHECK(s.v[0].pid == getpid());
		CHECK_STR(s.v[0].frames[0].fn, "static_function_in_test");
		CHECK(s.v[0].frames[0].module && strstr(s.v[0].frames[0].module, "test_crashlog"));
		CHECK(strstr(s.v[0].frames[1].fn, "getpid") != NULL);
		CHECK(s.v[0].frames[1].module && strstr(s.v[0].frames[1].module, "libc"));
		CHECK_STR(s.v[0].frames[2].fn, "static_function_in_test");
		CHECK_STR(s.v[0].frames[3].fn, "");    /* pc 8: mapped nowhere */
		CHECK(s.v[0].frames[0].pc == fn + 2);
		CHECK_STR(stack_program_frame(&s.v[0], 0), "static_function_in_test");
	}
	CHECK(strstr(dbuf_str(&text), "  #0 static_function_in_test in test_crashlog") == dbuf_str(&text));
	CHECK(strstr(dbuf_str(&text), "test_crashlog.c:") != NULL);   /* a line from DWARF */
	CHECK(strstr(dbuf_str(&text), "  #3 ??\n") != NULL);
	stack_set_release(&s);

	/* through a cache kept across records: the same names, also for a
	 * record whose files were loaded elsewhere (ASLR: every address moved) */
	struct crashlog_symbols *cache = crashlog_symbols_new();
	for (int round = 0; round < 3; round++) {
		if (round == 2) {
			const uint64_t d = 0x10000000;
			for (size_t i = 0; i < c.nmaps; i++) {
				c.maps[i].start += d;
				c.maps[i].end += d;
			}
			for (size_t i = 0; i < c.npc; i++)
				c.pc[i] += c.pc[i] > 8 ? d : 0;
		}
		dbuf_reset(&text);
		CHECK(crashlog_symbolize(cache, &c, &s, &text, why, sizeof(why)) == 3);
		if (s.nr == 1 && s.v[0].nr == 4) {
			CHECK_STR(s.v[0].frames[0].fn, "static_function_in_test");
			CHECK(strstr(s.v[0].frames[1].fn, "getpid") != NULL);
			CHECK_STR(s.v[0].frames[2].fn, "static_function_in_test");
			CHECK_STR(s.v[0].frames[3].fn, "");
		}
		CHECK(strstr(dbuf_str(&text), "test_crashlog.c:") != NULL);
		stack_set_release(&s);
	}
	crashlog_symbols_free(cache);
	crashlog_symbols_free(NULL);
	crashlog_release(&c);

	/* the executable replaced since the crash (another inode): unnamed */
	char inode[32];
	struct stat st;
	CHECK(stat("/proc/self/exe", &st) == 0);
	snprintf(inode, sizeof(inode), " %llu ", (unsigned long long)st.st_ino);
	struct dbuf b2;
	dbuf_init(&b2, 1u << 24);
	uint64_t one[] = { fn + 2 };
	self_record(&b2, one, 1);
	char *t = b2.buf;
	for (char *p = strstr(t, inode); p; p = strstr(p + 1, inode))
		p[1] = p[1] == '9' ? '8' : '9';   /* a different inode number */
	struct crashlog c2 = CRASHLOG_INIT;
	CHECK(crashlog_parse(dbuf_str(&b2), b2.len, &c2, why, sizeof(why)) == 0);
	why[0] = '\0';
	CHECK(crashlog_symbolize(NULL, &c2, &s, NULL, why, sizeof(why)) == 0);
	CHECK(strstr(why, "changed since the crash") != NULL);
	/* unnamed, but not nameless: the module and the pc's offset in it */
	CHECK(s.nr == 1 && s.v[0].nr == 1 && !strncmp(s.v[0].frames[0].fn, "test_crashlog+0x", 16));
	stack_set_release(&s);
	crashlog_release(&c2);

	/* no pcs at all */
	struct crashlog e = CRASHLOG_INIT;
	static const char bare[] = "jostle-crash 1\nsignal 6 SIGABRT\npid 1\nmaps\n";
	CHECK(crashlog_parse(bare, sizeof(bare) - 1, &e, why, sizeof(why)) == 0);
	CHECK(crashlog_symbolize(NULL, &e, &s, NULL, why, sizeof(why)) == -ENODATA);
	CHECK(s.nr == 0);
	crashlog_release(&e);
	dbuf_release(&b);
	dbuf_release(&b2);
	dbuf_release(&text);
	CHECK(static_function_in_test(1) == 4);
}

/* ---- records of a crashing child ---- */

static volatile int *volatile null_pointer;

__attribute__((noinline)) static void child_leaf(int how)
{
	if (how == SIGABRT)
		abort();
	*null_pointer = 1;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void child_caller(int how)
{
	child_leaf(how);
	__asm__ volatile("" ::: "memory");   /* no tail call: child_caller keeps its frame */
}

/* libjostle-crash.so of this build: BUILD/tests/test_crashlog -> BUILD/ */
static bool crash_library(char *path, size_t len)
{
	char exe[1024];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(path, len, "%s/libjostle-crash.so", exe);
	return access(path, R_OK) == 0;
}

/* A child that loads the handler and dies of SIG in child_leaf(); its
 * record, parsed, and (raw not NULL) its bytes. */
static bool crash_child_raw(const char *lib, const char *dir, int sig, struct crashlog *c, struct dbuf *raw);

static bool crash_child(const char *lib, const char *dir, int sig, struct crashlog *c)
{
	return crash_child_raw(lib, dir, sig, c, NULL);
}

static bool crash_child_raw(const char *lib, const char *dir, int sig, struct crashlog *c, struct dbuf *raw)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		setenv("JOSTLE_CRASH_DIR", dir, 1);
		setenv("JOSTLE_RUN", "7", 1);
		if (!dlopen(lib, RTLD_NOW))   /* its constructor installs the handler */
			_exit(3);
		child_caller(sig);
		_exit(4);
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return false;
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == sig);   /* dies as it would have */
	/* the record's writer outlives the crashed child; as a subreaper we
	 * inherit it, and wait for it as jostle does */
	while (waitpid(-1, NULL, __WALL) > 0)
		;
	char path[1024], why[512] = "";
	snprintf(path, sizeof(path), "%s/7.%d.txt", dir, (int)pid);
	int rc = crashlog_read(path, c, why, sizeof(why));
	if (raw && rc == 0) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		char chunk[8192];
		ssize_t n;
		while (fd >= 0 && (n = read(fd, chunk, sizeof(chunk))) > 0)
			dbuf_add(raw, chunk, (size_t)n);
		if (fd >= 0)
			close(fd);
	}
	unlink(path);
	if (rc < 0)
		printf("# %s\n", why);
	return rc == 0;
}

/* The index of frame FN in s's first thread, -1 if none. */
static int frame_index(const struct stack_set *s, const char *fn)
{
	for (size_t i = 0; s->nr && i < s->v[0].nr; i++)
		if (!strcmp(s->v[0].frames[i].fn, fn))
			return (int)i;
	return -1;
}

static void test_unwind_child(int sig)
{
	char lib[1100], dir[] = "/tmp/jostle-unwind.XXXXXX", why[512] = "";
	if (!crash_library(lib, sizeof(lib)) || !mkdtemp(dir)) {
		printf("ok - # SKIP no libjostle-crash.so beside the test\n");
		return;
	}
	struct crashlog c = CRASHLOG_INIT;
	bool read = crash_child(lib, dir, sig, &c);
	rmdir(dir);
	CHECK(read);
	if (!read)
		return;
	CHECK(c.version == 3 && c.complete && c.signo == sig && c.npc == 1 && c.nstack >= 1 && c.regmask);
	/* with the cache, twice (the second from its open files): as without */
	struct crashlog_symbols *cache = crashlog_symbols_new();
	struct crashlog e = c, f = c;
	int n = crashlog_unwind(NULL, &c, why, sizeof(why));
	CHECK(n >= 4 && (size_t)n == c.npc);
	CHECK(c.exact[0] && (c.npc < 2 || !c.exact[1]));
	for (int round = 0; round < 2; round++) {
		struct crashlog *x = round ? &f : &e;
		CHECK(crashlog_unwind(cache, x, why, sizeof(why)) == n);
		CHECK(x->npc == c.npc && !memcmp(x->pc, c.pc, c.npc * sizeof(c.pc[0])));
	}
	struct stack_set s = STACK_SET_INIT;
	CHECK(crashlog_symbolize(NULL, &c, &s, NULL, why, sizeof(why)) > 0);
	/* the cache's remembered names are the names */
	for (int round = 0; round < 2; round++) {
		struct stack_set t = STACK_SET_INIT;
		CHECK(crashlog_symbolize(cache, &c, &t, NULL, why, sizeof(why)) > 0);
		bool same = t.nr == 1 && s.nr == 1 && t.v[0].nr == s.v[0].nr;
		for (size_t i = 0; same && i < t.v[0].nr; i++)
			same = !strcmp(t.v[0].frames[i].fn, s.v[0].frames[i].fn);
		CHECK(same);
		stack_set_release(&t);
	}
	int leaf = frame_index(&s, "child_leaf");
	CHECK(leaf >= 0 && frame_index(&s, "child_caller") == leaf + 1);
	CHECK(frame_index(&s, "test_unwind_child") > leaf);
	CHECK(frame_index(&s, "main") > leaf);
	if (sig == SIGSEGV)
		CHECK(leaf == 0);   /* the faulting pc itself */
	else
		CHECK(frame_index(&s, "abort") >= 0 && frame_index(&s, "abort") < leaf);   /* through libc */
	stack_set_release(&s);

	/* another architecture's record: only its pc */
	struct crashlog d = c;
	snprintf(d.arch, sizeof(d.arch), "riscv64");
	d.npc = 1;
	CHECK(crashlog_unwind(NULL, &d, why, sizeof(why)) == -ENOTSUP && d.npc == 1);
	/* every file replaced since the crash (other inodes): nothing to unwind by */
	for (size_t i = 0; i < d.nmaps; i++)
		d.maps[i].inode ^= 1;
	snprintf(d.arch, sizeof(d.arch), "%s", c.arch);
	/* (an ELF of this machine gives libdwfl its architecture: the pc still comes back) */
	CHECK(crashlog_unwind(NULL, &d, why, sizeof(why)) >= 1 && d.pc[0] == c.pc[0]);
	/* the cache holds those files open, yet refuses them under other inodes too */
	d.npc = 1;
	CHECK(crashlog_unwind(cache, &d, why, sizeof(why)) == 1 && d.pc[0] == c.pc[0]);
	for (size_t i = 0; i < d.nmaps; i++)
		d.maps[i].inode ^= 1;
	crashlog_symbols_free(cache);
	crashlog_release(&c);
}

/*
 * A record cut at any byte (its writer killed there) still parses as far
 * as it goes, says it was cut short, and unwinds and symbolizes what is
 * there without reading past it: complete only whole, and frame 0 named
 * once the maps copy and the stack line are in.
 */
static void test_cut_record(void)
{
	char lib[1100], dir[] = "/tmp/jostle-cut.XXXXXX", why[512];
	if (!crash_library(lib, sizeof(lib)) || !mkdtemp(dir)) {
		printf("ok - # SKIP no libjostle-crash.so beside the test\n");
		return;
	}
	struct crashlog c = CRASHLOG_INIT;
	struct dbuf raw;
	dbuf_init(&raw, 1u << 24);
	bool read = crash_child_raw(lib, dir, SIGABRT, &c, &raw);
	rmdir(dir);
	CHECK(read && raw.len > 100);
	if (!read) {
		dbuf_release(&raw);
		return;
	}
	CHECK(c.complete && !crashlog_truncation(&c, why, sizeof(why)) && !why[0]);
	crashlog_release(&c);
	const char *stackline = memmem(raw.buf, raw.len, "\nstack ", 7);
	size_t named_from = stackline ? (size_t)(stackline - raw.buf) + 1 : raw.len;
	named_from += strcspn(raw.buf + named_from, "\n") + 1;   /* past the stack line */
	const char *pidline = memmem(raw.buf, raw.len, "\npid ", 5);
	size_t head_end = pidline ? (size_t)(pidline - raw.buf) + 1 : raw.len;
	head_end += strcspn(raw.buf + head_end, "\n") + 1;        /* signal, code, addr, pid */
	struct crashlog_symbols *cache = crashlog_symbols_new();
	size_t bad_parse = 0, bad_cut = 0, bad_name = 0, cuts = 0;
	for (size_t len = 0; len < raw.len; len += len < 2048 ? 1 : 61) {
		struct crashlog d = CRASHLOG_INIT;
		int rc = crashlog_parse(raw.buf, len, &d, why, sizeof(why));
		bool head = len >= head_end;
		cuts++;
		if ((rc == 0) != head)
			bad_parse++;
		if (rc == 0 && (d.complete || !crashlog_truncation(&d, why, sizeof(why)) || !strstr(why, "cut short")))
			bad_cut++;
		if (rc == 0) {
			(void)crashlog_unwind(cache, &d, why, sizeof(why));
			struct stack_set s = STACK_SET_INIT;
			int n = crashlog_symbolize(cache, &d, &s, NULL, why, sizeof(why));
			if (len >= named_from && (n <= 0 || !s.nr || !s.v[0].nr || !s.v[0].frames[0].fn[0]))
				bad_name++;
			stack_set_release(&s);
		}
		crashlog_release(&d);
	}
	crashlog_symbols_free(cache);
	printf("# %zu cuts of a %zu-byte record\n", cuts, raw.len);
	CHECK(bad_parse == 0);   /* parses exactly when its first lines are in */
	CHECK(bad_cut == 0);     /* and then says it was cut short */
	CHECK(bad_name == 0);    /* frame 0 named once maps and stack are in */
	dbuf_release(&raw);
}

int main(void)
{
	test_parse();
	test_parse_v2();
	test_find();
	test_symbolize();
	prctl(PR_SET_CHILD_SUBREAPER, 1);   /* crash_child() waits for the record's writer */
	test_unwind_child(SIGABRT);
	test_cut_record();
#ifndef __SANITIZE_ADDRESS__   /* ASan's own SIGSEGV handler comes first */
	test_unwind_child(SIGSEGV);
#endif
	return tap_done();
}
