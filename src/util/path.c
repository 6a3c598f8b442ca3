/*
 * path.c: joining file names and keeping record paths inside their
 * directory (see path.h). A ".." is refused only as a whole component, so
 * "logs/a..b" is fine; nothing is resolved on disk.
 */
#include <stdlib.h>
#include <string.h>

#include "util/path.h"
#include "util/xalloc.h"
#include "util/banned.h"

char *path_join(const char *dir, const char *rel)
{
	return xasprintf("%s/%s", dir, rel);
}

bool path_is_inside(const char *p)
{
	if (!p || !*p || p[0] == '/')
		return false;
	for (const char *s = p; (s = strstr(s, "..")); s += 2)
		if ((s == p || s[-1] == '/') && (s[2] == '/' || s[2] == '\0'))
			return false;
	return true;
}

char *path_join_inside(const char *dir, const char *rel)
{
	return path_is_inside(rel) ? path_join(dir, rel) : NULL;
}
