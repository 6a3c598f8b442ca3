/*
 * fuzz_core.c: the core-file reader (stack_libdw.c's stack_from_core: ELF
 * notes, the threads' registers, the mapped files through libdwfl) and the
 * expansion of kernel.core_pattern (core.c). A core is written by the
 * kernel for a program that crashed; a core cut short by a full disk or a
 * size limit, or one left over from another program, must be refused with
 * a reason, never crash jostle.
 *
 * The input is the core file itself. Its first bytes, up to a NUL, are
 * also used as a core_pattern.
 */
#include "fuzz.h"

#include <sys/types.h>

#include "diagnose/core.h"
#include "diagnose/stack.h"

/* libdw has no frame pointers: the slow unwinder gives a leak inside it its
 * whole stack, so that lsan.supp can name the one leak it suppresses
 * (dwfl_getthreads) instead of the whole library. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "fast_unwind_on_malloc=0";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *rest;
	size_t rest_size;
	char *pattern = fuzz_split(data, size < 256 ? size : 256, &rest, &rest_size);
	char out[4096];
	core_expand(pattern, size & 1, "/tmp/run", 4242, "prog", 11, 0, 0, "host", out,
		    sizeof(out));
	free(pattern);

	const char *path = fuzz_file("core", data, size);
	struct stack_set s = STACK_SET_INIT;
	pid_t pid = 0;
	char err[512];
	stack_from_core(path, NULL, &s, &pid, err, sizeof(err));
	stack_set_release(&s);
	return 0;
}
