/*
 * sansym.h: sanitizer reports symbolized by jostle, not by the sanitizer.
 *
 * A sanitizer that symbolizes its own report starts llvm-symbolizer (or
 * reads DWARF itself) in the dying process: about 0.2 s per report for a
 * small program, twenty times the run itself (bench/RESULTS.md). A series
 * that makes a use-after-free fail on most runs spends nearly all its time
 * there. So jostle asks the sanitizers not to (symbolize=0 in ASAN_OPTIONS,
 * TSAN_OPTIONS, UBSAN_OPTIONS, MSAN_OPTIONS and LSAN_OPTIONS, unless the
 * user set symbolize in one of them) and names the frames afterwards from the
 * "(module+0xoffset)" the report prints, through the series' cache of
 * opened files (crashlog.h). The log and the signature then read as if the
 * sanitizer had symbolized them: "#0 0x55d0 in fn file.c:12 (module+0x6997)".
 */
#ifndef JOSTLE_SANSYM_H
#define JOSTLE_SANSYM_H

#include <stdbool.h>
#include <stddef.h>

struct strvec;
struct dbuf;
struct crashlog_symbols;

/* Add symbolize=0 to each sanitizer's options in env (an environ-style
 * vector), keeping what the user set; nothing when the user's options
 * already say symbolize= in any of them (the runtimes of a combined build
 * read each other's). */
void sansym_env(struct strvec *env);

/* Whether TEXT holds a frame line a sanitizer left unsymbolized. */
bool sansym_wanted(const char *text, size_t len);

/*
 * Copy TEXT to out with every unsymbolized frame line of a sanitizer
 * report ("    #3 0x7f12 (/path/module+0x6997)", optionally followed by
 * " (BuildId: ...)") named through cache where the module can be read.
 * Returns the number of frames named.
 */
size_t sansym_rewrite(struct crashlog_symbols *cache, const char *text, size_t len, struct dbuf *out);

#endif
