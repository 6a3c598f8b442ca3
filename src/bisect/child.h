/*
 * child.h: run one helper process to its end: git, or the user's --build
 * command. Its output goes to a buffer or a file; stdin is /dev/null.
 *
 * The child is in its own process group (spawn.h), so the terminal's
 * Ctrl-C reaches only jostle: when *stop becomes true while the child
 * runs (a signal handler sets it), the group gets SIGTERM, then SIGKILL
 * after a second, and child_run() returns once it is reaped.
 */
#ifndef JOSTLE_CHILD_H
#define JOSTLE_CHILD_H

#include <signal.h>

#include "util/dbuf.h"

struct child_req {
	char *const *argv;        /* argv[0] looked up on PATH (borrowed) */
	const char *cwd;          /* NULL: ours */
	struct dbuf *out;         /* stdout and stderr into this buffer, or NULL */
	int out_fd;               /* else into this fd (borrowed); -1: /dev/null */
	volatile sig_atomic_t *stop;  /* may be NULL */
};

/*
 * Returns the wait status (>= 0, as waitpid gives it), or -errno when the
 * child could not be started (-ENOENT: argv[0] not found). Output past the
 * buffer's cap is dropped.
 */
int child_run(const struct child_req *req);

#endif
