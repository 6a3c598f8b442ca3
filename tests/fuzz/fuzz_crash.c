/*
 * fuzz_crash.c: the crash-report parser behind `jostle explain` and a
 * crashed run's diag (crash.c: ASan, LSan, TSan, UBSan, glibc aborts,
 * Python's faulthandler, compute-sanitizer), and its text and JSON
 * renderings, over the output of a crashing program.
 */
#include "fuzz.h"

#include "signature/crash.h"
#include "util/dbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct crash_report *r = calloc(1, sizeof(*r));
	if (!r)
		abort();
	struct dbuf out;
	dbuf_init(&out, 1 << 22);
	if (crash_parse(text, size, r)) {
		crash_write_text(r, &out);
		dbuf_reset(&out);
		crash_write_json(r, &out);
	}
	memset(&r->ev, 0, sizeof(r->ev));
	crash_python_frames(text, size, &r->ev);
	dbuf_release(&out);
	free(r);
	return 0;
}
