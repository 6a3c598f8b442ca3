/*
 * fuzz_crashlog.c: crash records (crashlog.c), the files
 * libjostle-crash.so writes from inside a dying process, in either format
 * (1: pcs; 2: registers and a raw stack copy), possibly cut short by a
 * second fatal signal. Only the parser runs here: unwinding opens the
 * files a record's maps name, which an input must not choose.
 */
#include "fuzz.h"

#include "diagnose/crashlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct crashlog c = CRASHLOG_INIT;
	char why[256];
	crashlog_parse((const char *)data, size, &c, why, sizeof(why));
	crashlog_release(&c);
	return 0;
}
