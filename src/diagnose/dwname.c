/*
 * dwname.c: frame names from libdwfl, with module+offset for what no
 * symbol covers (see dwname.h).
 *
 * The function's start comes from its FDE: dwarf_cfi_addrframe() finds the
 * FDE that covers the address in .eh_frame (present in nearly every
 * stripped build, because unwinding needs it) or .debug_frame, and
 * dwarf_frame_info() gives the start of the range it covers, which is the
 * function's entry for every compiler we know (one FDE per function;
 * a .cold part has its own).
 */
#include <elfutils/libdw.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose/dwname.h"
#include "signature/frame.h"
#include "util/xalloc.h"
#include "util/banned.h"

static char *debuginfo_path;
static pthread_once_t debuginfo_once = PTHREAD_ONCE_INIT;

static void debuginfo_init(void)
{
	const char *user = getenv("JOSTLE_DEBUG_PATH");
	if (user && *user)
		debuginfo_path = xasprintf("%s:.debug:/usr/lib/debug", user);
}

char **dwname_debuginfo_path(void)
{
	pthread_once(&debuginfo_once, debuginfo_init);
	return &debuginfo_path;
}

const Dwfl_Callbacks *dwname_callbacks(Dwfl_Callbacks *cb, dwname_find_elf_fn *find_elf)
{
	memset(cb, 0, sizeof(*cb));
	cb->find_elf = find_elf;
	cb->find_debuginfo = dwfl_standard_find_debuginfo;
	cb->debuginfo_path = dwname_debuginfo_path();
	return cb;
}

Dwarf_Addr dwname_file_addr(Dwfl_Module *mod, Dwarf_Addr lookup)
{
	Dwarf_Addr bias = 0;
	if (!dwfl_module_getelf(mod, &bias))
		dwfl_module_info(mod, NULL, &bias, NULL, NULL, NULL, NULL, NULL);
	return lookup - bias;
}

/* The file address where the function holding ADDR (a file address) starts, from CFI. */
static bool cfi_start(Dwfl_Module *mod, Dwarf_Addr lookup, Dwarf_Addr *start)
{
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	for (int pass = 0; pass < 2; pass++) {
		if (cfi) {
			Dwarf_Frame *frame = NULL;
			if (dwarf_cfi_addrframe(cfi, lookup - bias, &frame) == 0) {
				Dwarf_Addr s = 0, e = 0;
				bool ok = dwarf_frame_info(frame, &s, &e, NULL) >= 0;
				free(frame);
				if (ok) {
					/* CFI addresses are the file's, moved by bias like the module */
					*start = dwname_file_addr(mod, s + bias);
					return true;
				}
			}
		}
		cfi = pass == 0 ? dwfl_module_dwarf_cfi(mod, &bias) : NULL;
	}
	return false;
}

bool dwname_lookup(Dwfl_Module *mod, Dwarf_Addr lookup, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (!mod)
		return false;
	const char *name = dwfl_module_addrname(mod, lookup);
	if (name && *name) {
		snprintf(buf, len, "%s", name);
		return true;
	}
	const char *modname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	Dwarf_Addr at;
	if (!cfi_start(mod, lookup, &at))
		at = dwname_file_addr(mod, lookup);
	snprintf(buf, len, "%s+0x%" PRIx64, modname ? frame_basename(modname) : "??", (uint64_t)at);
	return false;
}
