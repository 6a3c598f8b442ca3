/*
 * crashdir.h: the crash handler's records in one folder (DIR/RUN.PID.txt,
 * preload/crash.c), found by run.
 *
 * A series that crashes in every run writes thousands of records, and a
 * listing of the folder per run costs more than the run. So the folder is
 * listed once, when opened, and then watched (inotify): each new record's
 * name is indexed as it is linked in. Where inotify cannot be had (no
 * instance left, or its queue overflowed), the folder is listed again, as
 * before.
 *
 *   struct crashdir *d = crashdir_open("out/crashes", true);
 *   n = crashdir_find(d, run, pid, 0, paths, 8); ... crashdir_close(d);
 */
#ifndef JOSTLE_CRASHDIR_H
#define JOSTLE_CRASHDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CRASHLOG_PATH_LEN 1024

struct crashdir;

/* Never NULL; a folder that does not exist (yet) holds no record. watch
 * false: list the folder at every find (tests, one-off readers). */
struct crashdir *crashdir_open(const char *dir, bool watch);
void crashdir_close(struct crashdir *d);

/*
 * Every record of run RUN (written at or after SINCE_NS, realtime, 0 for
 * any: replays share their RUN), MAIN_PID's first, then the others oldest
 * first (a child's, a grandchild's): into paths (at most max, each
 * CRASHLOG_PATH_LEN bytes). Returns how many were found (those past max
 * are not counted).
 */
size_t crashdir_find(struct crashdir *d, uint64_t run, pid_t main_pid, int64_t since_ns,
		     char (*paths)[CRASHLOG_PATH_LEN], size_t max);

/* Whether d is watching its folder (false: it lists it at every find). */
bool crashdir_watching(const struct crashdir *d);

#endif
