/*
 * dwname.h: the name of a frame in a module libdwfl has loaded, the same
 * way for live stacks and cores (stack_libdw.c) and crash records
 * (crashlog.c).
 *
 * The function's symbol comes from the first of: the file's .symtab; a
 * separate debug file found by build-id (DIR/.build-id/xx/rest.debug) or
 * debuglink under the debuginfo path; the file's .gnu_debugdata
 * (MiniDebugInfo, the xz-compressed symbol table Fedora-style release
 * builds keep); its .dynsym (libdwfl tries them in that order). When no
 * symbol covers the address (a static function of a stripped release
 * build), the name is "MODULE+0xADDR": the module's basename and the file
 * address (what addr2line -e MODULE takes) where the function starts
 * according to its CFI, which is the same for every pc in the function,
 * so a frame caught at two instructions keeps one name; without CFI, the
 * file address of the pc itself.
 *
 * The debuginfo path is $JOSTLE_DEBUG_PATH (colon-separated folders, tried
 * first) and then libdwfl's default, ":.debug:/usr/lib/debug". Read once
 * (thread-safe); everything else here keeps no state.
 */
#ifndef JOSTLE_DWNAME_H
#define JOSTLE_DWNAME_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>

/* The debuginfo path for Dwfl_Callbacks.debuginfo_path (never freed). */
char **dwname_debuginfo_path(void);

/* cb set for a Dwfl: FIND_ELF, the standard debuginfo search over the path
 * above, nothing else. Returns cb (it must outlive the Dwfl). */
typedef int dwname_find_elf_fn(Dwfl_Module *, void **, const char *, Dwarf_Addr, char **, Elf **);
const Dwfl_Callbacks *dwname_callbacks(Dwfl_Callbacks *cb, dwname_find_elf_fn *find_elf);

/*
 * The name of the frame at LOOKUP (an address in MOD as loaded: a return
 * address already moved back into its call) into buf: the symbol (as the
 * table has it, mangled), or "MODULE+0xADDR" as above. Returns true when
 * a symbol named it, false for the module+offset form (buf "" when mod is
 * NULL).
 */
bool dwname_lookup(Dwfl_Module *mod, Dwarf_Addr lookup, char *buf, size_t len);

/* The file address of LOOKUP in MOD (for "MODULE+0xADDR" of a pc). */
Dwarf_Addr dwname_file_addr(Dwfl_Module *mod, Dwarf_Addr lookup);

#endif
