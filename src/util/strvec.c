/*
 * strvec.c: growable string vectors (see strvec.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strvec.h"
#include "util/xalloc.h"
#include "util/banned.h"

void strvec_push_nodup(struct strvec *sv, char *s)
{
	ALLOC_GROW(sv->v, sv->nr + 2, sv->alloc);
	sv->v[sv->nr++] = s;
	sv->v[sv->nr] = NULL;
}

void strvec_push(struct strvec *sv, const char *s)
{
	strvec_push_nodup(sv, xstrdup(s));
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = xmalloc(n > 0 ? (size_t)n + 1 : 1);
	va_start(ap, fmt);
	vsnprintf(p, n > 0 ? (size_t)n + 1 : 1, fmt, ap);
	va_end(ap);
	strvec_push_nodup(sv, p);
}

ptrdiff_t strvec_env_index(const struct strvec *sv, const char *name)
{
	size_t len = strlen(name);
	for (size_t i = 0; i < sv->nr; i++)
		if (!strncmp(sv->v[i], name, len) && sv->v[i][len] == '=')
			return (ptrdiff_t)i;
	return -1;
}

void strvec_setenv(struct strvec *sv, const char *name, const char *value)
{
	ptrdiff_t i = strvec_env_index(sv, name);
	char *kv = xasprintf("%s=%s", name, value);
	if (i < 0) {
		strvec_push_nodup(sv, kv);
		return;
	}
	free(sv->v[i]);
	sv->v[i] = kv;
}

const char *strvec_getenv(const struct strvec *sv, const char *name)
{
	ptrdiff_t i = strvec_env_index(sv, name);
	return i < 0 ? NULL : sv->v[i] + strlen(name) + 1;
}

void strvec_release(struct strvec *sv)
{
	for (size_t i = 0; i < sv->nr; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->nr = sv->alloc = 0;
}
