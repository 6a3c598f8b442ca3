/*
 * Unit tests of crashlog.c: parsing a synthetic record, finding a run's
 * record, and symbolizing offline: a record made from this very process's
 * maps, with the pcs of a static function of this test binary and of libc.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tap.h"
#include "crashlog.h"
#include "dbuf.h"
#include "stack.h"

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
	CHECK(crashlog_parse("", 0, &d, why, sizeof(why)) == -EINVAL);
	crashlog_release(&d);
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
	char path[512], want[512];
	CHECK(crashlog_find(dir, 5, 200, 0, path, sizeof(path)) == 0);
	snprintf(want, sizeof(want), "%s/5.200.txt", dir);
	CHECK_STR(path, want);   /* the main process's record first */
	CHECK(crashlog_find(dir, 50, 1, 0, path, sizeof(path)) == 0);
	snprintf(want, sizeof(want), "%s/50.300.txt", dir);
	CHECK_STR(path, want);   /* else a child's */
	CHECK(crashlog_find(dir, 6, 1, 0, path, sizeof(path)) == -ENOENT);
	CHECK(crashlog_find(dir, 5, 200, INT64_MAX, path, sizeof(path)) == -ENOENT);
	CHECK(crashlog_find("/nonexistent/dir", 5, 200, 0, path, sizeof(path)) == -ENOENT);
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
	CHECK(s.nr == 1 && s.v[0].nr == 1 && !s.v[0].frames[0].fn[0]);
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

int main(void)
{
	test_parse();
	test_find();
	test_symbolize();
	return tap_done();
}
