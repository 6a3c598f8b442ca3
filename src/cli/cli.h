/*
 * cli.h: what the subcommands' option parsers share.
 *
 * Only the CLI layer prints usage errors and picks exit statuses (STYLE.md);
 * every such error is one line on stderr in the same shape:
 *
 *   jostle: unknown option '--frob' for report; see 'jostle report --help'
 *   jostle: --runs 'abc' is not a number of runs; expected a positive integer
 */
#ifndef JOSTLE_CLI_H
#define JOSTLE_CLI_H

/* Print "jostle: MESSAGE\n" to stderr; with cmd, the message ends with
 * "; see 'jostle CMD --help'". Returns EXIT_USAGE (cmd.h), so that a
 * parser can `return cli_usage_error(...)`. */
__attribute__((format(printf, 2, 3)))
int cli_usage_error(const char *cmd, const char *fmt, ...);

#endif
