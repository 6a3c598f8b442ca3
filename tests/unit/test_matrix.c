/* matrix.c: parsing, labels, and the allocation of runs to cells (exact
 * and interleaved). */
#include <stdlib.h>
#include <string.h>

#include "run/matrix.h"
#include "tap.h"

int main(void)
{
	struct matrix m = MATRIX_INIT;
	char err[256], label[256];
	CHECK(matrix_add(&m, "PYTHON_GIL=0,1", err, sizeof(err)) == 0);
	CHECK(matrix_add(&m, "cpus=1,2,4", err, sizeof(err)) == 0);
	CHECK(m.cells == 6);
	matrix_label(&m, 0, label, sizeof(label));
	CHECK_STR(label, "PYTHON_GIL=0,cpus=1");
	matrix_label(&m, 4, label, sizeof(label));
	CHECK_STR(label, "PYTHON_GIL=1,cpus=2");
	CHECK(matrix_cpus(&m, 5) == 4);

	/* exact: over n runs each cell gets floor(n/6) or one more, and any
	 * window of 6 consecutive runs visits every cell once (interleaved) */
	for (uint64_t n = 1; n <= 100; n++) {
		size_t count[6] = { 0 };
		for (uint64_t i = 0; i < n; i++)
			count[matrix_cell(&m, i)]++;
		int ok = 1;
		for (int c = 0; c < 6; c++)
			ok &= count[c] == n / 6 || count[c] == n / 6 + 1;
		if (!ok)
			CHECK(!"even allocation");
	}
	int interleaved = 1;
	for (uint64_t start = 0; start < 50; start++) {
		int seen = 0;
		for (uint64_t i = start; i < start + 6; i++)
			seen |= 1 << matrix_cell(&m, i);
		interleaved &= seen == 63;
	}
	CHECK(interleaved);
	CHECK(matrix_cell(&m, 0) == 0 && matrix_cell(&m, 5) == 5 && matrix_cell(&m, 6) == 0);

	struct strvec env = STRVEC_INIT;
	strvec_push(&env, "PATH=/bin");
	strvec_push(&env, "PYTHON_GIL=9");
	matrix_env(&m, 3, &env);
	CHECK_STR(strvec_getenv(&env, "PYTHON_GIL"), "1");
	CHECK_STR(strvec_getenv(&env, "JOSTLE_CELL"), "PYTHON_GIL=1,cpus=1");
	CHECK(strvec_getenv(&env, "cpus") == NULL);
	CHECK(env.nr == 3);
	strvec_release(&env);

	CHECK(matrix_add(&m, "cpus=8", err, sizeof(err)) < 0);
	CHECK_STR(err, "--matrix 'cpus=8': axis 'cpus' is given twice");
	CHECK(matrix_add(&m, "1X=a", err, sizeof(err)) < 0);
	CHECK(matrix_add(&m, "X", err, sizeof(err)) < 0);
	CHECK(matrix_add(&m, "X=a,,b", err, sizeof(err)) < 0);
	CHECK_STR(err, "--matrix 'X=a,,b': value '' is empty");
	CHECK(matrix_add(&m, "X=a,a", err, sizeof(err)) < 0);
	CHECK(matrix_add(&m, "cores=0", err, sizeof(err)) == 0);
	struct matrix m2 = MATRIX_INIT;
	CHECK(matrix_add(&m2, "cpus=0", err, sizeof(err)) < 0);
	CHECK_STR(err, "--matrix 'cpus=0': value '0' is not a CPU count; expected a positive integer");
	CHECK(matrix_add(&m2, "chaos=none,threads", err, sizeof(err)) < 0);
	CHECK(m.cells == 6);
	matrix_release(&m);
	matrix_release(&m2);
	return tap_done();
}
