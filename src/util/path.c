/*
 * path.c: joining file names and keeping record paths inside their
 * directory (see path.h). A ".." is refused only as a whole component, so
 * "logs/a..b" is fine; nothing is resolved on disk.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

int path_mkdirs(const char *path)
{
	char *p = xstrdup(path);
	int rc = 0;
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			rc = -errno;
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return rc;
}
