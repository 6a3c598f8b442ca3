/*
 * preload.h: jostle's preload libraries (preload/NAME.c ->
 * libjostle-NAME.so): where they are installed, and how a run's
 * environment loads one.
 *
 * Used by chaos.c (libjostle-chaos.so, `--chaos sync`) and rundiag.c
 * (libjostle-crash.so, the crash handler of every run).
 */
#ifndef JOSTLE_PRELOAD_H
#define JOSTLE_PRELOAD_H

#include "util/strvec.h"

/*
 * Where library NAME ("libjostle-crash.so") is: $ENV_VAR when set (NULL
 * when that file is not readable), else next to the jostle binary, else
 * ../lib/jostle/ relative to it (`make install`). Returns a new string or
 * NULL.
 */
char *preload_find(const char *name, const char *env_var);

/*
 * Put LIB first in env's LD_PRELOAD, keeping what the user had (nothing
 * when LIB is already in it), and let an ASan-built program accept a
 * preload ahead of its runtime (ASAN_OPTIONS verify_asan_link_order=0:
 * our libraries interpose nothing ASan needs first).
 */
void preload_env_add(struct strvec *env, const char *lib);

#endif
