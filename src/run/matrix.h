/*
 * matrix.h: `jostle run --matrix NAME=v1,v2,...` (repeatable): the cross
 * product of environment values and of jostle's own axes, and which cell
 * each run belongs to.
 *
 *   struct matrix m = MATRIX_INIT;
 *   if (matrix_add(&m, "PYTHON_GIL=0,1", err, sizeof(err)) < 0) ...
 *   matrix_cell(&m, run_index)             the run's cell, in [0, cells)
 *   matrix_label(&m, cell, buf, len)       "PYTHON_GIL=0,cpus=2"
 *   matrix_env(&m, cell, &envvec)          set its environment variables
 *   matrix_cpus(&m, cell)                  its cpus= value, or 0
 *   matrix_release(&m);
 *
 * Allocation: run i goes to cell i mod cells, cells enumerated with the
 * last axis varying fastest. Over any n runs every cell gets floor(n/cells)
 * or one more, and the cells are interleaved run by run, so a load change
 * during the series (another job on the machine, thermal throttling) hits
 * every cell alike instead of looking like a difference between cells.
 *
 * Axes named `cpus` restrict the run to that many CPUs (affinity); other
 * names are environment variables. `chaos` and `jobs` are jostle's own axes
 * too but are refused until the engine supports them per run.
 */
#ifndef JOSTLE_MATRIX_H
#define JOSTLE_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "util/strvec.h"

#define MATRIX_MAX_CELLS 4096

struct matrix_axis {
	char *name;              /* owned */
	struct strvec values;    /* owned, at least one */
};

struct matrix {
	struct matrix_axis *axes;
	size_t nr, alloc;
	size_t cells;            /* product of the axis sizes (1 without axes) */
};

#define MATRIX_INIT { NULL, 0, 0, 1 }

/* Parse one NAME=v1,v2,... and add it as an axis. 0, or -EINVAL with a
 * message for the user in err ("--matrix 'X': ..."). */
int matrix_add(struct matrix *m, const char *spec, char *err, size_t errlen);
size_t matrix_cell(const struct matrix *m, uint64_t run);
/* Value of axis a in cell c. */
const char *matrix_value(const struct matrix *m, size_t cell, size_t axis);
void matrix_label(const struct matrix *m, size_t cell, char *buf, size_t len);
/* Set the cell's environment variables (and JOSTLE_CELL) in env. */
void matrix_env(const struct matrix *m, size_t cell, struct strvec *env);
/* The cell's cpus= value, 0 when there is no cpus axis. */
unsigned matrix_cpus(const struct matrix *m, size_t cell);
void matrix_release(struct matrix *m);

#endif
