/* Key-line selection, normalization and ids. */
#include <stdlib.h>
#include <string.h>

#include "signature/evidence.h"
#include "signature/key.h"
#include "signature/signature.h"
#include "util/dbuf.h"
#include "util/regex.h"
#include "slurp.h"
#include "tap.h"

static char *norm(const char *s)
{
	struct dbuf d;
	dbuf_init(&d, 4096);
	key_normalize(s, strlen(s), &d);
	return dbuf_detach(&d, NULL);
}

static char *key(const char *out)
{
	struct signature sig;
	signature_from_output(&sig, "fail", out, strlen(out), NULL);
	char *k = sig.key ? strdup(sig.key) : NULL;
	signature_release(&sig);
	return k;
}

#define CHECK_NORM(in, want) do { char *g_ = norm(in); CHECK_STR(g_, want); free(g_); } while (0)
#define CHECK_KEY(in, want) do { char *g_ = key(in); CHECK_STR(g_, want); free(g_); } while (0)

int main(void)
{
	CHECK_NORM("GraphDefinition handle=0x212b886b810 is invalid", "GraphDefinition handle=0x<hex> is invalid");
	CHECK_NORM("condition not satisfied within 5.0s", "condition not satisfied within Ns");
	CHECK_NORM("  thread 12345   exited  ", "thread N exited");
	CHECK_NORM("2026-07-15T16:55:01.1234567Z boom", "<time> boom");
	CHECK_NORM("id 123e4567-e89b-12d3-a456-426614174000 x", "id <uuid> x");
	CHECK_NORM("File \"/home/runner/work/x/tests/test_a.py\", line 42", "File \"test_a.py\", line N");
	CHECK_NORM("open /tmp/pytest-of-root/pytest-7/f.txt failed", "open <path> failed");
	CHECK_NORM("test_3d sm_80 kept", "test_3d sm_80 kept");
	CHECK_NORM("build-id deadbeefcafe1234 here", "build-id <hex> here");
	CHECK_NORM("rc=-11", "rc=-N");

	/* issue 13: tokens that vary from run to run, from real logs */
	/* a wrong-result check of a hash (the held-out trial): both sides, digits or not */
	CHECK_NORM("AssertionError: result mismatch (b09d8fdd != 702c6ec9)", "AssertionError: result mismatch (<hex> != <hex>)");
	CHECK_NORM("AssertionError: result mismatch (ffffffff != 4995d2b5)", "AssertionError: result mismatch (<hex> != <hex>)");
	CHECK_NORM("crc DEADBEEF != cafebabe", "crc <hex> != <hex>");
	/* words of a-f only: shorter than 8, mixed case or inside a word, they stay */
	CHECK_NORM("the effaced facade was defaced; AbCdEfAb; x_deadbeef", "the effaced facade was defaced; AbCdEfAb; x_deadbeef");
	/* pids and tids in brackets (syslog, pytest-xdist, our own runs) */
	CHECK_NORM("python3[48213]: worker [48230] died", "python3[N]: worker [N] died");
	/* thread names with numbers: Python's, Java's, a runtime's own */
	CHECK_NORM("Exception in thread Thread-12 (worker_loop):", "Exception in thread Thread-N (worker_loop):");
	CHECK_NORM("Exception in thread ThreadPoolExecutor-0_3:", "Exception in thread ThreadPoolExecutor-N_N:");
	CHECK_NORM("pool-1-thread-2 stuck", "pool-N-thread-N stuck");
	CHECK_NORM("aicore_7 spinning; worker3 waits; cpu#1 idle", "aicore_N spinning; workerN waits; cpu#N idle");
	CHECK_NORM("sm_80 x86_64 python3.11", "sm_80 x86_64 python3.N");
	/* durations */
	CHECK_NORM("TIMEOUT: session exceeded 57.8s", "TIMEOUT: session exceeded Ns");
	CHECK_NORM("timed out after 1m30s (budget 2h5m3.5s)", "timed out after NmNs (budget NhNmNs)");
	CHECK_NORM("took 12.5ms, 800us, 42ns", "took Nms, Nus, Nns");
	/* object reprs */
	CHECK_NORM("TypeError: <Foo object at 0x7f3a2b1c4d50> is not callable", "TypeError: <Foo object at 0x<hex>> is not callable");
	CHECK_NORM("Task was destroyed but it is pending! task: <Task pending name='Task-42' coro=<run() running at x.py:3>>",
		   "Task was destroyed but it is pending! task: <Task pending name='Task-N' coro=<run() running at x.py:N>>");

	CHECK_KEY("collected 3 items\nTraceback (most recent call last):\n  File \"x.py\", line 3, in f\nValueError: bad value 42\n",
		  "ValueError: bad value N");
	CHECK_KEY("noise\nFAILED tests/graph/test_g.py::test_destroy - CUDAError: CUDA_ERROR_INVALID_VALUE\nValueError: other\n",
		  "CUDAError: CUDA_ERROR_INVALID_VALUE"); /* pytest: the message; the test id is not part of the key */
	CHECK_KEY("Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f:\n", "Fatal Python error: Segmentation fault");
	CHECK_KEY("==123==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010 at pc 0x1\nFatal Python error: Aborted\n",
		  "AddressSanitizer: heap-use-after-free");
	CHECK_KEY("free(): double free detected in tcache 2\n", "heap corruption");
	/* pytest's "E   Error: message" gives the FAILED line's key, with or without that line */
	CHECK_KEY("    raise RuntimeError(detail)\nE           RuntimeError: GraphDefinition is no longer valid\n\nt.py:56: RuntimeError\n",
		  "RuntimeError: GraphDefinition is no longer valid");
	CHECK_KEY("E           RuntimeError: GraphDefinition is no longer valid\n"
		  "FAILED t.py::test_g - RuntimeError: GraphDefinition is no longer valid\n",
		  "RuntimeError: GraphDefinition is no longer valid");
	CHECK_KEY("E       assert 3 == 4\n", "assert N == N");
	CHECK_KEY("corrupted size vs. prev_size\n", "heap corruption");
	CHECK_KEY("zoo: drain.c:88: drain: Assertion `slot->state == 1' failed.\n", "drain.c: Assertion `slot->state == N' failed.");
	/* the same condition in another file is another assert; a path is cut to its file */
	CHECK_KEY("d2: /src/din_phil2_sat.c:33: thread1: Assertion `0' failed.\n", "din_phil2_sat.c: Assertion `N' failed.");
	CHECK_KEY("d3: /src/din_phil3_sat.c:33: thread1: Assertion `0' failed.\n", "din_phil3_sat.c: Assertion `N' failed.");
	CHECK_KEY("Assertion `x' failed.\n", "Assertion `x' failed.");
	CHECK_KEY("panic: runtime error: index out of range [5] with length 3\n\ngoroutine 1 [running]:\n",
		  "panic: runtime error: index out of range [N] with length N");
	CHECK_KEY("step 1\nstep 2\nsomething odd happened\n\n\n", "something odd happened");
	{ char *g_ = key(""); CHECK(g_ == NULL); free(g_); }

	/* The shared extractor table: the crash parser gives a finer kind and the frames. */
	{
		struct signature sg;
		const char *out = "==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x6020 at pc 0x1\n"
				  "READ of size 4 at 0x6020 thread T1\n"
				  "    #0 0x55d1c0 in __interceptor_free ../../libsanitizer/asan/asan_malloc_linux.cpp:52\n"
				  "    #1 0x55d1c0 in on_task_complete /src/orch.c:120:5\n";
		signature_from_output(&sg, "crash", out, strlen(out), NULL);
		CHECK_STR(sg.kind, "asan-heap-use-after-free");
		CHECK(sg.nframes == 1 && !strcmp(sg.frames[0], "on_task_complete"));
		char want[9];
		key_id("asan-heap-use-after-free", "AddressSanitizer: heap-use-after-free", sg.frames, 1, want);
		CHECK_STR(sg.id, want);
		signature_release(&sg);
	}

	/* One kind per report: a memcheck error and the API error it causes are
	 * one compute-sanitizer report, of the kind of its first record, and
	 * the signature has the crash parser's (jostle explain's) frames. */
	{
		struct signature sg;
		size_t n;
		char *t = slurp("cs_memcheck_h200.txt", &n);
		signature_from_output(&sg, "fail", t, n, NULL);
		CHECK_STR(sg.kind, "compute-sanitizer-memcheck");
		CHECK_STR(sg.key, "Invalid __global__ write of size N bytes");
		CHECK(sg.nframes == 3 && !strcmp(sg.frames[0], "scale") && !strcmp(sg.frames[2], "main"));
		signature_release(&sg);
		free(t);
		t = slurp("cs_racecheck_h200.txt", &n);
		signature_from_output(&sg, "fail", t, n, NULL);
		CHECK_STR(sg.kind, "compute-sanitizer-racecheck");
		CHECK(sg.nframes == 1 && !strcmp(sg.frames[0], "neighbour_sum"));
		signature_release(&sg);
		free(t);
	}

	/* User pattern: group 1 is the key line. */
	char err[128];
	struct regex *re = regex_new("state=(\\w+)", 0, err, sizeof(err));
	struct signature sig;
	const char *o = "x\nstate=corrupt\nValueError: y\n";
	signature_from_output(&sig, "fail", o, strlen(o), re);
	CHECK_STR(sig.key, "corrupt");
	signature_release(&sig);
	regex_free(re);

	/* Ids: stable, 8 hex digits, and sensitive to kind, key and frames. */
	char a[9], b[9], c[9], d[9];
	char f1[] = "drain", f2[] = "on_task_complete";
	char *fr[] = { f1, f2 };
	key_id("crash", "Segmentation fault", NULL, 0, a);
	key_id("crash", "Segmentation fault", NULL, 0, b);
	key_id("fail", "Segmentation fault", NULL, 0, c);
	key_id("crash", "Segmentation fault", fr, 2, d);
	CHECK(strlen(a) == 8);
	CHECK_STR(a, b);
	CHECK(strcmp(a, c) != 0);
	CHECK(strcmp(a, d) != 0);
	/* Known value: guards the documented definition (FNV-1a 64, top 32 bits). */
	key_id("", "", NULL, 0, a);
	CHECK_STR(a, "08547e07");
	key_id_scoped("", "", NULL, 0, "", b);
	CHECK_STR(b, "08547e07");

	/* Scope: a signature the output's report does not make alone is the
	 * program's; a recognized report's is the same in every program. */
	{
		struct signature s1, s2;
		const char *asan = "==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x6020 at pc 0x1\n"
				   "    #0 0x55d1c0 in on_task_complete /src/orch.c:120:5\n";
		signature_from_output(&s1, "crash", asan, strlen(asan), NULL);
		memcpy(a, s1.id, 9);
		CHECK(!signature_scope(&s1, "prog_a") && !s1.scope[0]);
		CHECK_STR(s1.id, a);
		/* ... unless its frames come from stacks */
		struct evidence ev;
		memset(&ev, 0, sizeof(ev));
		snprintf(ev.frames[0], sizeof(ev.frames[0]), "thread1");
		ev.nframes = 1;
		signature_release(&s1);
		const char *plain = "some output\nthe end\n";
		signature_from_output(&s1, "fail", plain, strlen(plain), NULL);   /* a guess */
		signature_from_output(&s2, "fail", plain, strlen(plain), NULL);
		CHECK(s1.weak_key && !s1.from_report);
		CHECK(signature_scope(&s1, "prog_a") && signature_scope(&s2, "prog_b"));
		CHECK(strcmp(s1.id, s2.id) != 0);            /* two programs, two ids */
		key_id_scoped("fail", "the end", NULL, 0, "prog_a", c);
		CHECK_STR(s1.id, c);
		signature_release(&s2);
		signature_from_output(&s2, "fail", plain, strlen(plain), NULL);
		CHECK(signature_scope(&s2, "prog_a"));
		CHECK_STR(s2.id, s1.id);                     /* one program, one id */
		signature_release(&s1);
		signature_release(&s2);
		/* a hang: jostle's key and frames from stacks, in two programs
		 * whose functions have the same names */
		snprintf(ev.kind, sizeof(ev.kind), "deadlock");
		snprintf(ev.key_line, sizeof(ev.key_line), "hang: deadlock");
		signature_from_output(&s1, "hang", plain, strlen(plain), NULL);
		signature_from_output(&s2, "hang", plain, strlen(plain), NULL);
		evidence_apply(&ev, &s1, true);
		evidence_apply(&ev, &s2, true);
		CHECK_STR(s1.id, s2.id);
		CHECK(s1.stack_frames && !s1.from_report);
		CHECK(signature_scope(&s1, "phase") && signature_scope(&s2, "sync"));
		CHECK(strcmp(s1.id, s2.id) != 0);
		signature_release(&s1);
		signature_release(&s2);
		/* a recognized report whose frames came from a crash record */
		const char *assert_out = "prog: a.c:12: main: Assertion `x' failed.\n";
		signature_from_output(&s1, "crash", assert_out, strlen(assert_out), NULL);
		CHECK(s1.from_report);
		memset(&ev, 0, sizeof(ev));
		snprintf(ev.frames[0], sizeof(ev.frames[0]), "worker");
		ev.nframes = 1;
		evidence_apply(&ev, &s1, false);
		CHECK(signature_scope(&s1, "prog_a"));
		signature_release(&s1);
	}
	return tap_done();
}
