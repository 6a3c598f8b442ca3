/* The shared extractor table and the block scanner. */
#include <stdlib.h>
#include <string.h>

#include "signature/extractor.h"
#include "util/dbuf.h"
#include "tap.h"

static struct extractor_set *set;
static struct extractor_scan sc;

/* Scan text, cut into blocks of at most `block` bytes at line ends (0 = one block). */
static void scan(const char *text, size_t block)
{
	size_t len = strlen(text), pos = 0;
	extractor_scan_reset(&sc);
	while (pos < len) {
		size_t n = len - pos;
		if (block && n > block) {
			n = block;
			while (n > 1 && text[pos + n - 1] != '\n')
				n--;
		}
		extractor_scan_block(&sc, text + pos, n);
		pos += n;
	}
	extractor_scan_end(&sc);
}

static const char *primary_key(void)
{
	const struct extractor_hit *h = extractor_scan_primary(&sc);
	return h ? h->key : NULL;
}

static const char *first_frame(void)
{
	const struct extractor_hit *h = extractor_scan_primary(&sc);
	return h && h->frames.nr ? h->frames.v[0] : NULL;
}

static size_t counted(void)
{
	size_t n = 0;
	for (size_t i = 0; i < sc.nhits; i++)
		n += extractor_hit_counts(&sc, &sc.hits[i]);
	return n;
}

static const struct extractor_hit *hit_by_key(const char *key)
{
	for (size_t i = 0; i < sc.nhits; i++)
		if (!strcmp(sc.hits[i].key, key))
			return &sc.hits[i];
	return NULL;
}

#define GH "2026-07-15T21:26:01.1234567Z "

int main(void)
{
	char err[200];
	set = extractor_set_new();
	extractor_scan_init(&sc, set);

	/* pytest short summary, with GitHub Actions prefixes and ANSI colours */
	scan(GH "tests/x.py::test_a PASSED [ 50%]\n"
	     GH "\x1b[31mFAILED\x1b[0m tests/graph/test_g.py::\x1b[1mtest_kernel\x1b[0m - AssertionError: condition not satisfied within 5.0s\n"
	     GH "FAILED tests/graph/test_g.py::test_slots - AssertionError: condition not satisfied within 5.0s\n"
	     GH "##[error]Process completed with exit code 1.\n", 0);
	CHECK_STR(primary_key(), "AssertionError: condition not satisfied within Ns");
	CHECK(counted() == 1);
	CHECK(sc.nhits == 2); /* the exit code was seen, but tier 3 does not count */
	CHECK(sc.hits[0].tests.nr == 2);
	CHECK_STR(sc.hits[0].tests.v[0], "tests/graph/test_g.py::test_kernel");
	CHECK_STR(sc.hits[0].kind, "fail");
	CHECK(sc.hits[0].count == 2);

	/* pytest without a message: the test id is the key; setup errors */
	scan("FAILED tests/a.py::test_b[x-1]\nERROR tests/c.py::test_d - fixture 'gpu' not found\n", 0);
	CHECK(hit_by_key("tests/a.py::test_b[x-N]") != NULL);
	CHECK(hit_by_key("fixture 'gpu' not found") != NULL);
	CHECK(counted() == 2);

	/* Python traceback, chained: each exception line; the last is primary */
	scan(GH "Traceback (most recent call last):\n"
	     GH "  File \"/home/runner/x.py\", line 3, in <module>\n"
	     GH "    main()\n"
	     GH "KeyError: 'slot 17'\n"
	     GH "\n"
	     GH "During handling of the above exception, another exception occurred:\n"
	     GH "\n"
	     GH "Traceback (most recent call last):\n"
	     GH "  File \"/home/runner/x.py\", line 9, in <module>\n"
	     GH "RuntimeError: GraphDefinition is no longer valid\n", 0);
	CHECK_STR(primary_key(), "RuntimeError: GraphDefinition is no longer valid");
	CHECK(hit_by_key("KeyError: 'slot N'") != NULL);
	CHECK(counted() == 2);

	/* Fatal Python error: the current thread's first frame */
	scan("Fatal Python error: Segmentation fault\n\n"
	     "Thread 0x00007f0000000001 (most recent call first):\n"
	     "  File \"/usr/lib/python3.10/threading.py\", line 320 in wait\n\n"
	     "Current thread 0x00007f0000000002 (most recent call first):\n"
	     "  File \"/opt/venv/site-packages/simpler/worker.py\", line 2369 in run\n"
	     "  File \"/src/test_dynamic_register.py\", line 234 in test_register\n"
	     "Segmentation fault (core dumped)\n", 0);
	CHECK_STR(primary_key(), "Fatal Python error: Segmentation fault");
	CHECK_STR(first_frame(), "worker.py:run");
	CHECK_STR(extractor_scan_primary(&sc)->kind, "python-fatal");
	CHECK(counted() == 1); /* the shell's segfault line is tier 2 */

	/* ASan: first own frame, even when a block boundary cuts the report */
	const char *asan =
		"==4242==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010 at pc 0x55d1c bp 0x7ffd sp 0x7ffc\n"
		"READ of size 4 at 0x602000000010 thread T1\n"
		"    #0 0x7f01 in __interceptor_memcpy ../../../../src/libsanitizer/sanitizer_common/x.inc:827\n"
		"    #1 0x55d1c0 in Orchestrator::on_task_complete(TaskSlot*) /src/orch.cpp:120:5\n"
		"    #2 0x55d1d0 in scheduler_loop /src/sched.c:40:3\n"
		"SUMMARY: AddressSanitizer: heap-use-after-free /src/orch.cpp:120:5 in on_task_complete\n";
	for (size_t block = 0; block <= 150; block += 150) {
		scan(asan, block);
		CHECK_STR(primary_key(), "AddressSanitizer: heap-use-after-free");
		CHECK_STR(first_frame(), "Orchestrator::on_task_complete");
		CHECK_STR(extractor_scan_primary(&sc)->kind, "asan-heap-use-after-free");
		CHECK(counted() == 1);
	}

	/* TSan frames have no address */
	scan("WARNING: ThreadSanitizer: data race (pid=9001)\n"
	     "  Write of size 4 at 0x7b0400000000 by thread T2:\n"
	     "    #0 pthread_mutex_unlock <null> (libtsan.so.2+0x1)\n"
	     "    #1 pool_drain /src/pool.c:77 (prog+0x1234)\n", 0);
	CHECK_STR(primary_key(), "ThreadSanitizer: data race");
	CHECK_STR(first_frame(), "pool_drain");
	CHECK_STR(extractor_scan_primary(&sc)->kind, "tsan-data-race");

	/* UBSan: the location is the frame */
	scan("/src/ring.c:88:12: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'\n", 0);
	CHECK_STR(primary_key(), "runtime error: signed integer overflow: <hex> + N cannot be represented in type 'int'");
	CHECK_STR(first_frame(), "ring.c:88");

	/* LeakSanitizer, glibc, assert, sanitizer beats pytest */
	scan("=================================================================\n"
	     "==7==ERROR: LeakSanitizer: detected memory leaks\n\n"
	     "Direct leak of 40 byte(s) in 1 object(s) allocated from:\n"
	     "    #0 0x7f in malloc ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:69\n"
	     "    #1 0x55 in make_slot /src/slot.c:12\n"
	     "FAILED tests/t.py::test_x - Failed: leak\n", 0);
	CHECK_STR(primary_key(), "LeakSanitizer: detected memory leaks");
	CHECK_STR(first_frame(), "make_slot");
	CHECK(counted() == 2);
	scan("free(): double free detected in tcache 2\nAborted (core dumped)\n", 0);
	CHECK_STR(primary_key(), "heap corruption");   /* the message is the key line */
	scan("malloc(): unaligned tcache chunk detected\nAborted (core dumped)\n", 0);
	CHECK_STR(primary_key(), "heap corruption");
	CHECK(counted() == 1);
	scan("zoo: drain.c:88: drain: Assertion `slot->state == 1' failed.\n", 0);
	CHECK_STR(primary_key(), "drain.c: Assertion `slot->state == N' failed.");   /* its file, not its line */
	CHECK_STR(first_frame(), "drain");

	/* Google Test: the same test twice (result line and summary) is one hit */
	scan("[ RUN      ] PoolTest.Drain\npool_test.cc:42: Failure\n[  FAILED  ] PoolTest.Drain (12 ms)\n"
	     "[==========] 3 tests ran.\n[  FAILED  ] 1 test, listed below:\n[  FAILED  ] PoolTest.Drain\n", 0);
	CHECK_STR(primary_key(), "[ FAILED ] PoolTest.Drain");
	CHECK(counted() == 1);
	CHECK(sc.hits[0].count == 2);

	/* CTest */
	scan("3/5 Test #3: drain_test .......................***Failed    0.05 sec\n"
	     "4/5 Test #4: pool_test ........................***Exception: SegFault  0.12 sec\n"
	     "5/5 Test #5: ring_test ........................   Passed    0.01 sec\n", 0);
	CHECK(counted() == 2);
	CHECK(hit_by_key("ctest drain_test ***Failed") != NULL);
	CHECK(hit_by_key("ctest pool_test ***Exception: SegFault") != NULL);

	/* Go: --- FAIL and panic with its first own frame */
	scan("=== RUN   TestDrain\n    pool_test.go:12: got 1 want 2\n--- FAIL: TestDrain (0.00s)\nFAIL\n", 0);
	CHECK_STR(primary_key(), "--- FAIL: TestDrain");
	scan("panic: runtime error: invalid memory address or nil pointer dereference\n"
	     "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1b2c]\n\n"
	     "goroutine 7 [running]:\n"
	     "example.com/pool.(*Pool).drain(0xc000010000)\n\t/src/pool.go:42 +0x1d\n", 0);
	CHECK_STR(primary_key(), "panic: runtime error: invalid memory address or nil pointer dereference");
	CHECK_STR(first_frame(), "pool.(*Pool).drain");
	CHECK(counted() == 1);

	/* timeouts, exit codes, segfaults, CUDA names */
	scan("[pytest] TIMEOUT: session exceeded 600s (10min) limit\nProcess completed with exit code 124.\n", 0);
	CHECK_STR(primary_key(), "TIMEOUT: session exceeded Ns (Nmin) limit");
	CHECK_STR(extractor_scan_primary(&sc)->kind, "hang");
	CHECK(counted() == 1);
	scan("make: *** [Makefile:3: test] Error 2\n##[error]Process completed with exit code 124.\n", 0);
	CHECK_STR(primary_key(), "exit code 124");
	CHECK_STR(extractor_scan_primary(&sc)->kind, "exit");
	scan("./run.sh: line 3: 4242 Segmentation fault (core dumped) ./prog\nexit code 139\n", 0);
	CHECK_STR(primary_key(), "Segmentation fault");
	CHECK(counted() == 1);
	scan("  HANDLE_RETURN failed: CUDA_ERROR_INVALID_VALUE (1)\n", 0);
	CHECK_STR(primary_key(), "CUDA_ERROR_INVALID_VALUE");

	/* unittest: its summary is not a pytest line; the traceback speaks */
	scan("FAIL: test_drain (tests.test_pool.PoolTest)\n"
	     "Traceback (most recent call last):\n  File \"t.py\", line 9, in test_drain\n"
	     "AssertionError: 3 != 4\n\nFAILED (failures=1)\n", 0);
	CHECK_STR(primary_key(), "AssertionError: N != N");
	CHECK(counted() == 1);
	scan("bash: line 1: 4242 Aborted                 (core dumped) ./prog\n", 0);
	CHECK_STR(primary_key(), "Aborted");
	scan("./prog\nAborted\n", 0);
	CHECK_STR(primary_key(), "Aborted");
	scan("./run.sh: line 3: 4242 Killed                  ./prog --big\n", 0);
	CHECK_STR(primary_key(), "Killed");
	scan("[12345.678] Out of memory: Killed process 4242 (prog) total-vm:1kB\n", 0);
	CHECK_STR(primary_key(), "Out of memory: Killed process");
	scan("Killed the stale runner before the job\n", 0);
	CHECK(sc.nhits == 0);

	/* nothing: passing output, lookalikes */
	scan("tests/test_error_handling.py::test_errors PASSED\nexit status 0\nTIMEOUT=600\n-Werror=format\n"
	     "[       OK ] FailedTest.Passes (1 ms)\n"
	     GH "  TIMEOUT: 600\n" GH "TIMEOUT: 600\n"
	     "Aborted connection 42 to db\n", 0);
	CHECK(sc.nhits == 0);
	CHECK(extractor_scan_primary(&sc) == NULL);

	/* a line longer than the scratch buffer, NULs and invalid UTF-8 */
	{
		size_t n = 200000;
		char *big = malloc(n + 64);
		memset(big, 'x', n);
		big[10] = '\0';
		big[11] = (char)0xff;
		memcpy(big + n, " FAILED tests/a.py::t\nFAILED tests/b.py::t - E\n", 48);
		big[n + 48] = '\0';
		extractor_scan_reset(&sc);
		extractor_scan_block(&sc, big, n + 47);
		extractor_scan_end(&sc);
		CHECK_STR(primary_key(), "E");
		free(big);
	}

	/* user rules: before built-ins; named captures in the key */
	struct extractor_set *uset = extractor_set_new();
	CHECK(extractor_set_add_rule(uset, "oom", "Killed process \\d+ \\((?<proc>[^)]+)\\)", err, sizeof(err)) == 0);
	CHECK(extractor_set_add_rule(uset, "bad", "(unclosed", err, sizeof(err)) != 0);
	CHECK(strstr(err, "offset") != NULL);
	struct extractor_scan us;
	extractor_scan_init(&us, uset);
	const char *o = GH "Out of memory: Killed process 4242 (python3.14t) total-vm:1kB\nFAILED tests/a.py::t - E\n";
	extractor_scan_block(&us, o, strlen(o));
	extractor_scan_end(&us);
	CHECK_STR(extractor_scan_primary(&us)->key, "oom proc=python3.Nt");
	CHECK_STR(extractor_scan_primary(&us)->kind, "rule");
	CHECK(us.nhits == 2);
	extractor_scan_release(&us);
	/* an anchored rule finds its line behind a CI timestamp prefix */
	CHECK(extractor_set_add_rule(uset, "anchored", "^Segfault in (?<where>\\w+)", err, sizeof(err)) == 0);
	extractor_scan_init(&us, uset);
	o = GH "Segfault in drain\n";
	extractor_scan_block(&us, o, strlen(o));
	extractor_scan_end(&us);
	CHECK(extractor_scan_primary(&us) && !strcmp(extractor_scan_primary(&us)->key, "anchored where=drain"));
	extractor_scan_release(&us);
	extractor_set_free(uset);

	/* line cleaning */
	struct dbuf d;
	dbuf_init(&d, 1 << 20);
	const char *raw = GH "##[error]\x1b[1;31mboom\x1b[0m\r";
	extractor_clean_line(raw, strlen(raw), &d);
	CHECK_STR(dbuf_str(&d), "boom");
	dbuf_release(&d);

	/* pytest's detail of `assert x, "msg"`: the message is the key, not the
	 * condition pytest explains below it (issue 45); a bare assert keys on
	 * its condition */
	scan("    def test_flaky_handshake():\n"
	     ">       assert RUN % 5 != 3, \"handshake lost on run %d\" % RUN\n"
	     "E       AssertionError: handshake lost on run 3: ack 0x1003 never came\n"
	     "E       assert (3 % 5) != 3\n"
	     "\n"
	     "tests/test_suite.py:24: AssertionError\n", 0);
	CHECK_STR(primary_key(), "AssertionError: handshake lost on run N: ack 0x<hex> never came");
	scan(">       assert total == 3\n"
	     "E       assert 2 == 3\n"
	     "\n"
	     "tests/test_suite.py:30: AssertionError\n", 0);
	CHECK_STR(primary_key(), "assert N == N");

	/* the table: names, tiers and anchors are consistent */
	int bad = 0;
	for (size_t i = 0; i < extractor_count; i++) {
		const struct extractor *e = &extractor_table[i];
		bad += !e->name || !e->outcome || !e->pattern || !e->key;
		bad += (e->tier == EXTRACTOR_TIER_RUN_ONLY) != (e->anchor == NULL);
		bad += i > 0 && e->tier < extractor_table[i - 1].tier;
	}
	CHECK(bad == 0);

	extractor_scan_release(&sc);
	extractor_set_free(set);
	return tap_done();
}
