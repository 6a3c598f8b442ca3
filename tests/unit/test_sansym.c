/*
 * Unit tests of sansym.c: the sanitizer options jostle sets, which lines
 * count as unsymbolized frames, and naming them from this very test
 * binary (a static function at its own address) and leaving unreadable
 * modules as they were.
 */
#include <inttypes.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "diagnose/crashlog.h"
#include "diagnose/sansym.h"
#include "util/dbuf.h"
#include "util/strvec.h"
#include "tap.h"

__attribute__((noinline)) static int sansym_known_function(int x)
{
	return x * 3 + 1;
}

static int first_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uintptr_t *)arg = (uintptr_t)info->dlpi_addr;
	return 1;   /* the first entry is the program */
}

static const char *rewrite(struct crashlog_symbols *k, const char *in, struct dbuf *out, size_t *named)
{
	dbuf_reset(out);
	*named = sansym_rewrite(k, in, strlen(in), out);
	return dbuf_str(out);
}

int main(void)
{
	/* options: symbolize=0 added, the user's kept, the user's choice wins */
	{
		struct strvec env = STRVEC_INIT;
		strvec_push(&env, "PATH=/bin");
		strvec_push(&env, "ASAN_OPTIONS=detect_leaks=0");
		strvec_push(&env, "UBSAN_OPTIONS=");
		sansym_env(&env);
		CHECK_STR(strvec_getenv(&env, "ASAN_OPTIONS"), "detect_leaks=0:symbolize=0");
		CHECK_STR(strvec_getenv(&env, "UBSAN_OPTIONS"), "symbolize=0");
		CHECK_STR(strvec_getenv(&env, "TSAN_OPTIONS"), "symbolize=0");
		CHECK_STR(strvec_getenv(&env, "MSAN_OPTIONS"), "symbolize=0");
		CHECK_STR(strvec_getenv(&env, "LSAN_OPTIONS"), "symbolize=0");
		CHECK_STR(strvec_getenv(&env, "PATH"), "/bin");
		strvec_release(&env);
		/* symbolize= in any of them: the user decided for all */
		strvec_push(&env, "ASAN_OPTIONS=symbolize=1");
		strvec_push(&env, "UBSAN_OPTIONS=halt_on_error=1");
		sansym_env(&env);
		CHECK_STR(strvec_getenv(&env, "ASAN_OPTIONS"), "symbolize=1");
		CHECK_STR(strvec_getenv(&env, "UBSAN_OPTIONS"), "halt_on_error=1");
		CHECK(strvec_getenv(&env, "TSAN_OPTIONS") == NULL);
		strvec_release(&env);
	}

	/* which lines are unsymbolized frames */
	static const char bare[] = "    #0 0x55f4 (/opt/x/prog+0x6997)\n";
	CHECK(sansym_wanted(bare, sizeof(bare) - 1));
	static const char bid[] = "#12 0x7f00  (/lib/libc.so.6+0x891f4) (BuildId: 4a2b)";
	CHECK(sansym_wanted(bid, sizeof(bid) - 1));
	static const char named[] = "    #0 0x55f4 in f /src/a.c:4:2 (/opt/x/prog+0x6997)\n";
	CHECK(!sansym_wanted(named, sizeof(named) - 1));
	static const char prose[] = "see (/opt/x/prog+0x10) for details\n#1 is a heading\n";
	CHECK(!sansym_wanted(prose, sizeof(prose) - 1));
	static const char trailing[] = "    #0 0x55f4 (/opt/x/prog+0x6997) and more\n";
	CHECK(!sansym_wanted(trailing, sizeof(trailing) - 1));

	/* naming: a frame of this binary at the address of a static function */
	struct crashlog_symbols *k = crashlog_symbols_new();
	struct dbuf out;
	dbuf_init(&out, 1 << 20);
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	CHECK(n > 0);
	self[n > 0 ? n : 0] = '\0';
	uintptr_t bias = 0;
	dl_iterate_phdr(first_bias, &bias);
	uintptr_t vaddr = (uintptr_t)&sansym_known_function - bias + 4;
	CHECK(sansym_known_function(2) == 7);
	char in[8192];
	snprintf(in, sizeof(in),
		 "==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x6030\n"
		 "READ of size 8 at 0x6030 thread T2\n"
		 "    #0 0x55f46572c997  (%s+0x%" PRIxPTR ")\n"
		 "    #1 0x7f00 (/nonexistent/libgone.so+0x1234) (BuildId: 99)\n"
		 "\n"
		 "SUMMARY: AddressSanitizer: heap-use-after-free\n", self, vaddr);
	size_t nn;
	const char *r = rewrite(k, in, &out, &nn);
	CHECK(nn == 1);
	CHECK(strstr(r, "    #0 0x55f46572c997 in sansym_known_function ") != NULL);
	CHECK(strstr(r, "test_sansym.c:") != NULL);
	CHECK(strstr(r, "+0x") != NULL && strstr(r, self) != NULL);
	/* an unreadable module: its line as it was; everything else verbatim */
	CHECK(strstr(r, "    #1 0x7f00 (/nonexistent/libgone.so+0x1234) (BuildId: 99)\n") != NULL);
	CHECK(strstr(r, "READ of size 8 at 0x6030 thread T2\n\nSUMMARY") == NULL);
	CHECK(strstr(r, "\n\nSUMMARY: AddressSanitizer: heap-use-after-free\n") != NULL);
	static const char head[] = "==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x6030\n";
	CHECK(!strncmp(r, head, sizeof(head) - 1));
	/* the same file again comes from the cache, same answer */
	char first[8192];
	snprintf(first, sizeof(first), "%s", r);
	CHECK_STR(rewrite(k, in, &out, &nn), first);
	/* text without frames: unchanged, nothing named */
	CHECK_STR(rewrite(k, "plain text\nno frames", &out, &nn), "plain text\nno frames");
	CHECK(nn == 0);
	dbuf_release(&out);
	crashlog_symbols_free(k);
	return tap_done();
}
