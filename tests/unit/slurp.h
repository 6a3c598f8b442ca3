/* slurp.h: read a fixture file from tests/data/ whole (tests run from the repo root). */
#ifndef JOSTLE_TEST_SLURP_H
#define JOSTLE_TEST_SLURP_H

#include <stdio.h>
#include <stdlib.h>

static char *slurp(const char *name, size_t *len)
{
	char path[512];
	snprintf(path, sizeof(path), "tests/data/%s", name);
	FILE *f = fopen(path, "rb");
	if (!f) {
		printf("# cannot open %s\n", path);
		exit(1);
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1);
	size_t r;
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
		}
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

#endif
