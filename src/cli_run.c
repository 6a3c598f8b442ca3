/*
 * cli_run.c: `jostle run` (being written; the engine lands next).
 */
#include <stdio.h>

#include "cmd.h"
#include "banned.h"

int cmd_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "jostle: 'run' is not built yet\n");
	return EXIT_INTERNAL;
}
