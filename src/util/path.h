/*
 * path.h: file names inside a results directory.
 *
 * Records name their files (logs, stacks) relative to their directory, and
 * a record is untrusted input: such a path is followed only when it stays
 * inside the directory. The caller still opens with O_NOFOLLOW so that a
 * symbolic link at the end cannot lead out either.
 */
#ifndef JOSTLE_PATH_H
#define JOSTLE_PATH_H

#include <stdbool.h>

/* "DIR/REL" in a fresh allocation (caller frees). */
__attribute__((malloc, returns_nonnull, nonnull))
char *path_join(const char *dir, const char *rel);
/* True when rel is relative, not empty, and has no ".." component. */
bool path_is_inside(const char *rel);
/* path_join() for a rel read from a record: NULL unless path_is_inside(rel). */
char *path_join_inside(const char *dir, const char *rel);
/* mkdir -p: path and every missing parent, mode 0755. 0, or -errno. */
int path_mkdirs(const char *path);

#endif
