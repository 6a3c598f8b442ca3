/*
 * cli.c: the one-line usage error every subcommand prints (see cli.h), in
 * one place so that the wording and the exit status cannot drift apart.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "util/banned.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	/* one fprintf, so that the line reaches stderr in one write */
	fprintf(stderr, "jostle: %s%s%s%s\n", n >= 0 ? msg : fmt, cmd ? "; see 'jostle " : "",
		cmd ? cmd : "", cmd ? " --help'" : "");
	if (n >= 0)
		free(msg);
	return EXIT_USAGE;
}
