/*
 * gdb.h: `jostle reproduce --gdb`: the reproducer run until a run fails,
 * with cores on (--core --keep-cores), and how to open what it left: the
 * gdb command for its core, or for a failure without one (an exit status,
 * a hang) the replay that repeats the run.
 */
#ifndef JOSTLE_GDB_H
#define JOSTLE_GDB_H

#include <stdbool.h>

struct run_opts;

/* Run under the reproducer FILE (already applied to o->pressure when
 * o->pressure.replay is set: `--reproducer FILE`) in DIR/gdb/ until the
 * first failure (at most -n runs or --time, default 200 runs). Returns 1
 * when a run failed (what to open printed to stdout), 0 when none did, 2
 * or 3 on errors, 130 interrupted. */
int reproduce_gdb(struct run_opts *o, const char *file, bool jobs_set);

#endif
