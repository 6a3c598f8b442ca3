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
	CHECK_STR(r.ev.kind, "glibc-abort");
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
