/*
 * logscan.h: read log files, plain or gzip-compressed, of any size, in large
 * blocks of whole lines, and walk folders of them.
 *
 * Memory is one buffer of LOGSCAN_BLOCK bytes (plus a carried partial line),
 * owned by a struct logscan and reused for every file: a 10 GB log costs the
 * same memory as a 10 KB one. Each block handed to the callback ends just
 * after a '\n', except the file's last block and a line longer than
 * LOGSCAN_BLOCK, which is cut (the rest continues in the next block).
 *
 *   struct logscan ls; logscan_init(&ls);
 *   rc = logscan_file(&ls, path, on_block, ctx, &info);   0 or -errno
 *   logscan_release(&ls);
 *
 * Errors: -errno from open/read; -EILSEQ for a corrupt or truncated gzip
 * stream (blocks already delivered stay delivered: the caller discards its
 * partial result); -EISDIR / -EINVAL (not a regular file) from logscan_file.
 */
#ifndef JOSTLE_LOGSCAN_H
#define JOSTLE_LOGSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LOGSCAN_BLOCK (4u << 20)

struct logscan {
	char *buf;       /* owned, LOGSCAN_BLOCK + 1 bytes */
	char err[160];   /* why the last call failed, for the message */
};

struct logscan_info {
	uint64_t bytes;       /* uncompressed bytes read */
	int64_t mtime;        /* seconds since the epoch */
	bool gzip;
	bool stopped;         /* the callback asked to stop */
};

/*
 * Called for each block; first is true for the file's first block. A
 * nonzero return stops reading the file (logscan_file then returns 0 and
 * sets info->stopped).
 */
typedef int (*logscan_fn)(void *ctx, const char *block, size_t len, bool first);

void logscan_init(struct logscan *ls);
int logscan_file(struct logscan *ls, const char *path, logscan_fn fn, void *ctx,
		 struct logscan_info *info);
void logscan_release(struct logscan *ls);

/*
 * Call file_fn for every log under PATH: PATH itself when it is not a
 * folder, else every regular file below it, recursively, in byte order of
 * names (deterministic). Symbolic links to files are followed; links to
 * folders are not descended (no cycles). Entries that cannot be read are
 * passed to err_fn with -errno (a dangling link, a folder that cannot be
 * opened); the walk goes on.
 */
typedef void (*logscan_walk_fn)(void *ctx, const char *path);
typedef void (*logscan_err_fn)(void *ctx, const char *path, int err);
void logscan_walk(const char *path, logscan_walk_fn file_fn, logscan_err_fn err_fn, void *ctx);

#endif
