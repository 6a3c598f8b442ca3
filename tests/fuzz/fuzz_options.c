/*
 * fuzz_options.c: the parsers of option values (util/parse.c: durations,
 * sizes, counts, seeds; pressure/cpuset.c: --cpus lists and counts;
 * pressure/noise.c: --noise specs; pressure/chaos.c: --chaos modes;
 * run/matrix.c: --matrix axes and the cells they make). The first byte
 * picks the parser; the rest, up to a NUL, is the value (for --matrix,
 * each NUL-separated piece is one more axis).
 */
#include "fuzz.h"

#include "pressure/chaos.h"
#include "pressure/cpuset.h"
#include "pressure/noise.h"
#include "run/matrix.h"
#include "util/parse.h"
#include "util/strvec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned which = data[0];
	const uint8_t *rest;
	size_t rest_size;
	char *s = fuzz_split(data + 1, size - 1, &rest, &rest_size);
	char why[256];
	switch (which % 8) {
	case 0: {
		int64_t ns;
		parse_duration_ns(s, &ns);
		break;
	}
	case 1: {
		uint64_t v;
		parse_size(s, &v);
		parse_seed(s, &v);
		parse_u64(s, 1, UINT64_MAX, &v);
		break;
	}
	case 2: {
		static struct cpuset set, back;
		if (cpuset_parse_list(s, &set) == 0) {
			char buf[8192];
			cpuset_format(&set, buf, sizeof(buf));
			if (set.n && (cpuset_parse_list(buf, &back) || !cpuset_equal(&set, &back)))
				abort();   /* the canonical form does not read back */
		}
		break;
	}
	case 3: {
		static struct cpuset avail, out;
		avail.n = 0;
		for (int i = 0; i < 1 + (int)(which >> 3); i++)
			avail.cpu[avail.n++] = (unsigned short)(i * 2);
		if (cpuset_resolve(s, &avail, &out, why, sizeof(why)) == 0) {
			cpu_set_t mask;
			cpuset_to_mask(&out, &mask);
		}
		break;
	}
	case 4: {
		struct noise_spec spec;
		if (noise_parse(s, &spec, why, sizeof(why)) == 0) {
			char buf[256];
			noise_format(&spec, buf, sizeof(buf));
		}
		break;
	}
	case 5: {
		enum chaos_mode m;
		if (chaos_mode_parse(s, &m) == 0 && strcmp(chaos_mode_name(m), s))
			abort();
		break;
	}
	default: {
		struct matrix m = MATRIX_INIT;
		char err[512];
		int rc = matrix_add(&m, s, err, sizeof(err));
		while (rc == 0 && rest_size) {
			const uint8_t *next;
			size_t next_size;
			char *axis = fuzz_split(rest, rest_size, &next, &next_size);
			rc = matrix_add(&m, axis, err, sizeof(err));
			free(axis);
			rest = next;
			rest_size = next_size;
		}
		if (m.cells > MATRIX_MAX_CELLS)
			abort();
		for (uint64_t run = 0; run < 3 * (uint64_t)m.cells && run < 64; run++) {
			size_t cell = matrix_cell(&m, run);
			char label[1024];
			matrix_label(&m, cell, label, sizeof(label));
			struct strvec env = STRVEC_INIT;
			matrix_env(&m, cell, &env);
			strvec_release(&env);
			matrix_cpus(&m, cell);
		}
		matrix_release(&m);
		break;
	}
	}
	free(s);
	return 0;
}
