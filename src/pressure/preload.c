/*
 * preload.c: finding jostle's preload libraries and adding one to a run's
 * environment (see preload.h).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pressure/preload.h"
#include "util/xalloc.h"
#include "util/banned.h"

static char *try_lib(const char *dir, const char *rel)
{
	char *p = xasprintf("%s/%s", dir, rel);

	if (access(p, R_OK) == 0)
		return p;
	free(p);
	return NULL;
}

char *preload_find(const char *name, const char *env_var)
{
	const char *env = getenv(env_var);
	char exe[PATH_MAX], *slash, *p;
	ssize_t n;

	if (env && *env)
		return access(env, R_OK) == 0 ? xstrdup(env) : NULL;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = 0;
	if ((p = try_lib(exe, name)))
		return p;
	char *rel = xasprintf("../lib/jostle/%s", name);
	p = try_lib(exe, rel);
	free(rel);
	return p;
}

/* LIB is one of the colon- or space-separated entries of LIST. */
static bool listed(const char *list, const char *lib)
{
	size_t n = strlen(lib);
	for (const char *p = list; (p = strstr(p, lib)); p += n)
		if ((p == list || p[-1] == ':' || p[-1] == ' ') && (!p[n] || p[n] == ':' || p[n] == ' '))
			return true;
	return false;
}

void preload_env_add(struct strvec *env, const char *lib)
{
	const char *old = strvec_getenv(env, "LD_PRELOAD");
	const char *asan = strvec_getenv(env, "ASAN_OPTIONS");

	if (old && *old) {
		if (!listed(old, lib)) {
			char *v = xasprintf("%s:%s", lib, old);
			strvec_setenv(env, "LD_PRELOAD", v);
			free(v);
		}
	} else {
		strvec_setenv(env, "LD_PRELOAD", lib);
	}
	/* ASan insists on coming first in the library list; our libraries only
	 * forward to whatever comes next, so the order is safe to relax. */
	if (!asan || !strstr(asan, "verify_asan_link_order")) {
		char *v = asan && *asan ? xasprintf("%s:verify_asan_link_order=0", asan)
					: xstrdup("verify_asan_link_order=0");
		strvec_setenv(env, "ASAN_OPTIONS", v);
		free(v);
	}
}
