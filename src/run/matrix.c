/*
 * matrix.c: matrix axes, cells and run allocation (see matrix.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/matrix.h"
#include "util/xalloc.h"
#include "util/banned.h"

static bool env_name(const char *s, size_t n)
{
	if (!n || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

static bool positive_int(const char *s)
{
	if (!*s || *s == '0')
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

int matrix_add(struct matrix *m, const char *spec, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '=');
	if (!eq || !env_name(spec, (size_t)(eq - spec))) {
		snprintf(err, errlen, "--matrix '%s' is not an axis; expected NAME=v1,v2,... "
			 "with NAME a variable name or cpus", spec);
		return -EINVAL;
	}
	size_t nlen = (size_t)(eq - spec);
	char *name = xstrndup(spec, nlen);
	if (!strcmp(name, "chaos") || !strcmp(name, "jobs")) {
		snprintf(err, errlen, "--matrix '%s': the %s axis is not supported by this jostle "
			 "yet; use an environment variable or cpus=", spec, name);
		free(name);
		return -EINVAL;
	}
	for (size_t i = 0; i < m->nr; i++)
		if (!strcmp(m->axes[i].name, name)) {
			snprintf(err, errlen, "--matrix '%s': axis '%s' is given twice", spec, name);
			free(name);
			return -EINVAL;
		}
	struct strvec values = STRVEC_INIT;
	const char *v = eq + 1;
	for (;;) {
		const char *comma = strchr(v, ',');
		size_t len = comma ? (size_t)(comma - v) : strlen(v);
		char *val = xstrndup(v, len);
		bool dup = false;
		for (size_t i = 0; i < values.nr; i++)
			dup |= !strcmp(values.v[i], val);
		if (!len || dup || (!strcmp(name, "cpus") && !positive_int(val))) {
			snprintf(err, errlen, "--matrix '%s': value '%s' %s", spec, val,
				 !len ? "is empty" : dup ? "is given twice" :
				 "is not a CPU count; expected a positive integer");
			free(val);
			free(name);
			strvec_release(&values);
			return -EINVAL;
		}
		strvec_push_nodup(&values, val);
		if (!comma)
			break;
		v = comma + 1;
	}
	if (m->cells * values.nr > MATRIX_MAX_CELLS) {
		snprintf(err, errlen, "--matrix '%s': %zu cells in all; at most %d", spec,
			 m->cells * values.nr, MATRIX_MAX_CELLS);
		free(name);
		strvec_release(&values);
		return -EINVAL;
	}
	ALLOC_GROW(m->axes, m->nr + 1, m->alloc);
	m->axes[m->nr].name = name;
	m->axes[m->nr].values = values;
	m->nr++;
	m->cells *= values.nr;
	return 0;
}

size_t matrix_cell(const struct matrix *m, uint64_t run)
{
	return (size_t)(run % m->cells);
}

const char *matrix_value(const struct matrix *m, size_t cell, size_t axis)
{
	/* the last axis varies fastest */
	size_t stride = 1;
	for (size_t a = axis + 1; a < m->nr; a++)
		stride *= m->axes[a].values.nr;
	const struct strvec *vals = &m->axes[axis].values;
	return vals->v[(cell / stride) % vals->nr];
}

void matrix_label(const struct matrix *m, size_t cell, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (size_t a = 0; a < m->nr && off < len; a++) {
		int w = snprintf(buf + off, len - off, "%s%s=%s", a ? "," : "", m->axes[a].name,
				 matrix_value(m, cell, a));
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

void matrix_env(const struct matrix *m, size_t cell, struct strvec *env)
{
	char label[4096];
	for (size_t a = 0; a < m->nr; a++)
		if (strcmp(m->axes[a].name, "cpus"))
			strvec_setenv(env, m->axes[a].name, matrix_value(m, cell, a));
	matrix_label(m, cell, label, sizeof(label));
	strvec_setenv(env, "JOSTLE_CELL", label);
}

unsigned matrix_cpus(const struct matrix *m, size_t cell)
{
	for (size_t a = 0; a < m->nr; a++)
		if (!strcmp(m->axes[a].name, "cpus"))
			return (unsigned)strtoul(matrix_value(m, cell, a), NULL, 10);
	return 0;
}

void matrix_release(struct matrix *m)
{
	for (size_t i = 0; i < m->nr; i++) {
		free(m->axes[i].name);
		strvec_release(&m->axes[i].values);
	}
	free(m->axes);
	m->axes = NULL;
	m->nr = m->alloc = 0;
	m->cells = 1;
}
