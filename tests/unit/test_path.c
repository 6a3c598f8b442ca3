/* path.c: a path from a record is followed only inside its directory. */
#include <stdlib.h>

#include "util/path.h"
#include "tap.h"

static int joined(const char *dir, const char *rel, const char *want)
{
	char *p = path_join_inside(dir, rel);
	int ok = want ? p && !strcmp(p, want) : !p;
	free(p);
	return ok;
}

int main(void)
{
	char *p = path_join("out", "logs/3.log");
	CHECK_STR(p, "out/logs/3.log");
	free(p);
	CHECK(path_is_inside("logs/3.log"));
	CHECK(path_is_inside("stacks/3.txt"));
	/* ".." only as a whole component */
	CHECK(path_is_inside("logs/a..b"));
	CHECK(path_is_inside("..logs/x"));
	CHECK(path_is_inside("logs/x.."));
	CHECK(!path_is_inside(".."));
	CHECK(!path_is_inside("../x"));
	CHECK(!path_is_inside("logs/../../etc/passwd"));
	CHECK(!path_is_inside("logs/.."));
	/* absolute, empty, missing */
	CHECK(!path_is_inside("/etc/passwd"));
	CHECK(!path_is_inside(""));
	CHECK(!path_is_inside(NULL));
	CHECK(joined("d", "logs/1.log", "d/logs/1.log"));
	CHECK(joined("d", "../1.log", NULL));
	CHECK(joined("d", "/1.log", NULL));
	return tap_done();
}
