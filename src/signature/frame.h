/*
 * frame.h: one stack frame's function name, as a signature wants it.
 *
 * Stacks come from many places (libdw, gdb, ASan/TSan/UBSan reports,
 * compute-sanitizer, Python tracebacks, cores) and name the same function
 * in different spellings: mangled or demangled, with parameter lists,
 * with compiler clone suffixes (".isra.0", ".constprop.1", ".cold"), with
 * "[clone ...]". frame_normalize() maps all of them to one stable name,
 * and frame_is_runtime() says whether a frame belongs to the C library,
 * the threading library, the dynamic loader, a sanitizer runtime or the
 * Python interpreter, i.e. is not "the program" and must not decide a
 * signature.
 */
#ifndef JOSTLE_FRAME_H
#define JOSTLE_FRAME_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Normalize a function name into buf (always NUL-terminated): demangle
 * simple Itanium names (_ZN3foo3barEv -> foo::bar), drop parameter lists,
 * clone suffixes and a leading "(anonymous namespace)::" is kept. Returns
 * buf; "" when name is NULL, empty or "??".
 */
const char *frame_normalize(const char *name, char *buf, size_t len);

/*
 * True when the frame is runtime, not program: FN is a normalized name (may
 * be "" for unknown), MODULE the object or file it came from (may be NULL):
 * a path, a basename or "libc.so.6+0x1234".
 */
bool frame_is_runtime(const char *fn, const char *module);

/*
 * True when the Python source file PATH belongs to the standard library:
 * under lib/pythonX.Y/ (not in its site-packages or dist-packages) or a
 * frozen module ("<frozen threading>"). Third-party packages are not: a
 * hang inside them is theirs, not the interpreter's.
 */
bool frame_python_stdlib(const char *path);

/*
 * True when FN (normalized) is the C library's or C++ runtime's allocator:
 * malloc, free and their internals (_int_free, tcache_get, ...), operator
 * new and delete. A crash that stops there is a corrupted heap, whatever
 * the signal (a SEGV following a bad pointer, or glibc's own abort).
 */
bool frame_is_allocator(const char *fn);

/* Basename of a path (borrowed from path). */
const char *frame_basename(const char *path);

#endif
