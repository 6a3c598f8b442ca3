/* Unit tests of crash report parsing (crash.c) on recorded and canned reports in tests/data/. */
#include <stdlib.h>
#include <string.h>

#include "signature/crash.h"
#include "slurp.h"
#include "tap.h"

static struct crash_report r;

static bool parse(const char *name)
{
	size_t len;
	char *t = slurp(name, &len);
	bool ok = crash_parse(t, len, &r);
	free(t);
	return ok;
}

static const char *frames(void)
{
	static char buf[512];
	buf[0] = '\0';
	for (size_t i = 0; i < r.ev.nframes; i++) {
		if (i)
			strncat(buf, ",", sizeof(buf) - strlen(buf) - 1);
		strncat(buf, r.ev.frames[i], sizeof(buf) - strlen(buf) - 1);
	}
	return buf;
}

static const struct crash_stack *stack(const char *title)
{
	for (size_t i = 0; i < r.nstacks; i++)
		if (!strcmp(r.stacks[i].title, title))
			return &r.stacks[i];
	return NULL;
}

int main(void)
{
	/* A real ASan report (build-asan/fixtures/crash uaf). */
	CHECK(parse("asan_uaf.txt"));
	CHECK_STR(r.ev.kind, "asan-heap-use-after-free");
	CHECK_STR(r.tool, "AddressSanitizer");
	CHECK(!strncmp(r.ev.key_line, "ERROR: AddressSanitizer: heap-use-after-free on address", 55));
	CHECK_STR(r.access, "READ of size 4");
	CHECK_STR(frames(), "read_freed_block,crash,main");
	CHECK(stack("access") && stack("access")->nframes == 6);
	CHECK(stack("freed") && !strcmp(stack("freed")->fn[1], "release_block"));
	CHECK(stack("freed")->runtime[0]);  /* __interceptor_free */
	CHECK(stack("allocated") && !strcmp(stack("allocated")->fn[0], "__interceptor_malloc"));
	CHECK(stack("access")->runtime[3] && stack("access")->runtime[5]);

	CHECK(parse("asan_double_free.txt"));
	CHECK_STR(r.ev.kind, "asan-double-free");
	CHECK_STR(frames(), "free_twice,crash,main");

	CHECK(parse("lsan_leak.txt"));
	CHECK_STR(r.ev.kind, "lsan");
	CHECK_STR(frames(), "make_slot,enqueue_cleanup");
	CHECK(stack("indirect leak") != NULL);

	/* TSan (canned: we do not build with TSan here); both orders of one race agree. */
	CHECK(parse("tsan_race.txt"));
	CHECK_STR(r.ev.kind, "tsan-data-race");
	CHECK_STR(r.access, "Write of size 4");
	CHECK_STR(frames(), "registry_insert,registry_lookup");
	CHECK(stack("current") && !strcmp(stack("current")->fn[1], "worker"));
	CHECK(stack("previous") && !strcmp(stack("previous")->fn[0], "registry_lookup"));
	CHECK(parse("tsan_race_swapped.txt"));
	CHECK_STR(frames(), "registry_insert,registry_lookup");
	CHECK_STR(r.access, "Read of size 4");

	CHECK(parse("ubsan_overflow.txt"));
	CHECK_STR(r.ev.kind, "ubsan");
	CHECK(strstr(r.ev.key_line, "runtime error: signed integer overflow") != NULL);
	CHECK_STR(frames(), "add_overflow,crash,main");

	CHECK(parse("glibc_double_free.txt"));
	CHECK_STR(r.ev.kind, "heap-corruption");   /* whichever malloc check caught it */
	CHECK_STR(r.ev.key_line, "free(): double free detected in tcache 2");
	CHECK(r.ev.nframes == 0);

	CHECK(parse("assert.txt"));
	CHECK_STR(r.ev.kind, "assert");
	CHECK_STR(frames(), "check_invariant");

	/* Python faulthandler: the current thread decides; stdlib frames are runtime. */
	CHECK(parse("python_segv.txt"));
	CHECK_STR(r.ev.kind, "python-fatal");
	CHECK_STR(r.ev.key_line, "Fatal Python error: Segmentation fault");
	CHECK_STR(frames(), "worker.py:crash_in_run,worker.py:<module>");
	CHECK(r.nstacks == 2);
	CHECK(stack("thread") && !strcmp(stack("thread")->fn[0], "worker.py:worker_loop"));
	CHECK(stack("current thread") && stack("current thread")->runtime[0]);
	/* issue 43: a native thread of an extension aborts (std::terminate):
	 * no "Current thread", and the threads listed are others (a forked
	 * child's copy of pytest's): no frames from them; the crash record's
	 * stack of the aborting thread is the signature's (rundiag.c) */
	CHECK(parse("python_abort_native.txt"));
	CHECK_STR(r.ev.key_line, "Fatal Python error: Aborted");
	CHECK(r.nstacks == 2 && r.ev.nframes == 0);
	CHECK(parse("python_abort.txt"));
	CHECK_STR(frames(), "py_hang.py:wait_for_never,py_hang.py:main,py_hang.py:<module>");
	struct evidence ev;
	size_t len;
	char *t = slurp("python_abort.txt", &len);
	CHECK(crash_python_frames(t, len, &ev) == 2);
	CHECK_STR(ev.frames[0], "py_hang.py:wait_for_never");
	CHECK_STR(ev.frames[1], "py_hang.py:worker_blocked");
	free(t);

	/* compute-sanitizer, old and new frame formats give the same frames. */
	CHECK(parse("cs_memcheck.txt"));
	CHECK_STR(r.ev.kind, "compute-sanitizer-memcheck");
	CHECK_STR(r.ev.key_line, "Invalid __global__ read of size 4 bytes");
	CHECK_STR(frames(), "scale_kernel,launch_scale,main");
	CHECK(parse("cs_memcheck_new.txt"));
	CHECK_STR(frames(), "scale_kernel,launch_scale,main");
	CHECK(parse("cs_racecheck.txt"));
	CHECK_STR(r.ev.kind, "compute-sanitizer-racecheck");
	CHECK_STR(frames(), "reduce_kernel");

	/* Real reports of compute-sanitizer 2025.3.1 on an H200 (driver
	 * 580.159.04), zoo/cuda/kernel_bugs: the kernel, then host frames. */
	CHECK(parse("cs_racecheck_h200.txt"));
	CHECK_STR(r.ev.kind, "compute-sanitizer-racecheck");
	CHECK_STR(r.ev.key_line, "Error: Race reported between Write access at neighbour_sum(const int *, int *, int)+0x140 in kernel_bugs.cu:34");
	CHECK_STR(frames(), "neighbour_sum");
	CHECK(stack("device") && stack("device")->nframes == 2);
	CHECK(parse("cs_memcheck_h200.txt"));
	CHECK_STR(r.ev.kind, "compute-sanitizer-memcheck");   /* the first record, not the API error after it */
	CHECK_STR(r.ev.key_line, "Invalid __global__ write of size 4 bytes");
	CHECK_STR(frames(), "scale,run_oob,main");

	/* A sanitizer's report fails a run whatever its exit status; a clean
	 * compute-sanitizer run, a racecheck warning and other tools' reports do not. */
	static const char *const failing[] = { "cs_racecheck_h200.txt", "cs_memcheck_h200.txt", "cs_memcheck.txt",
		"asan_uaf.txt", "tsan_race.txt", "ubsan_overflow.txt", "lsan_leak.txt" };
	for (size_t i = 0; i < sizeof(failing) / sizeof(failing[0]); i++) {
		size_t n;
		char *text = slurp(failing[i], &n);
		CHECK(crash_sanitizer_failed(text, n));
		free(text);
	}
	static const char *const clean[] = {
		"========= COMPUTE-SANITIZER\nok\n========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n",
		"========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n",
		"========= Warning: Race reported between Read access at k(int *)+0x10 in k.cu:3\n"
		"=========     and Write access at k(int *)+0x20 in k.cu:4 [2 hazards]\n",
		"============================= test session starts ==============================\n",
		"free(): double free detected in tcache 2\n",
	};
	for (size_t i = 0; i < sizeof(clean) / sizeof(clean[0]); i++)
		CHECK(!crash_sanitizer_failed(clean[i], strlen(clean[i])));

	/* Lines of a report, as the extractors see them one at a time. */
#define LINE(kind, s) crash_report_line(kind, s, strlen(s))
	CHECK(LINE("compute-sanitizer", "========= Program hit cudaErrorLaunchFailure (error 719)") == CRASH_LINE_IN);
	CHECK(LINE("compute-sanitizer", "=========     at scale(int *, int, int)+0xf0 in kernel_bugs.cu:45") == CRASH_LINE_IN);
	CHECK(LINE("compute-sanitizer", "========= ERROR SUMMARY: 2 errors") == CRASH_LINE_END);
	CHECK(LINE("compute-sanitizer", "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)") == CRASH_LINE_END);
	CHECK(LINE("compute-sanitizer", "kernel_bugs: cudaDeviceSynchronize: unspecified launch failure") == CRASH_LINE_OTHER);
	CHECK(LINE("asan", "SUMMARY: AddressSanitizer: heap-use-after-free x.c:3 in f") == CRASH_LINE_END);
	CHECK(LINE("asan", "==4242==ABORTING") == CRASH_LINE_END);
	CHECK(LINE("asan", "=================================================================") == CRASH_LINE_OTHER);
	CHECK(LINE(NULL, "    #0 0x1 in f x.c:3") == CRASH_LINE_OTHER);

	/* Nothing to find; NULs and a cut report do not crash the parser. */
	CHECK(!crash_parse("all good\nbye\n", 13, &r));
	CHECK_STR(r.ev.kind, "");
	CHECK(!crash_parse("", 0, &r));
	const char cut[] = "x\0y\n==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000 (pc 0x1 T0)\n    #0 0x1 in f";
	CHECK(crash_parse(cut, sizeof(cut) - 1, &r));
	CHECK_STR(r.ev.kind, "asan-segv");
	CHECK_STR(frames(), "f");
	return tap_done();
}
