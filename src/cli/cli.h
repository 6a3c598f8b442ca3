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

/* ---- `jostle slurm` and `jostle k8s` (cli_deploy.c, issue 17) ---- */

#include <stdbool.h>
#include <stdint.h>

#include "util/strvec.h"

struct cli_own_opt {           /* one option of the subcommand itself */
	const char *name;       /* long name without "--"; "help" ends parsing */
	char short_name;        /* or 0 */
	bool has_arg;
};

struct cli_deploy {
	struct strvec run_args; /* owned: the run options for every shard, --seed included */
	uint64_t seed;          /* the master seed (given, or drawn now) */
	char *const *command;   /* borrowed from argv: the command after "--" */
	bool help;              /* --help was given: nothing else is filled */
	char name[64];          /* the job name: --name, or jostle-<hex of the seed> */
};

/*
 * Take the options of opts (an array ended by a NULL name; one of them
 * "name") out of argv (argv[0] is the subcommand): every value of option k
 * is pushed to values[k] ("" for a flag; values has one strvec per option,
 * set up here). The rest, up to "--", are `jostle run` options, checked by
 * its parser (runopt.h) as every shard will parse them, but for the
 * command, which is not looked up; -o, --shard and --replay are refused; without
 * --seed one is drawn and added. The job name is checked
 * (deploy_name_check). Returns 0 or an exit status (the error printed);
 * cli_deploy_release() in either case.
 */
int cli_deploy_parse(int argc, char **argv, const char *cmd, const struct cli_own_opt *opts,
		     struct strvec *values, struct cli_deploy *out);
void cli_deploy_release(struct cli_deploy *d, const struct cli_own_opt *opts, struct strvec *values);

#endif
