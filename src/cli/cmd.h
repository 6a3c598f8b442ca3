/*
 * cmd.h: the subcommands. Each takes the arguments after its own name
 * (argv[0] is the subcommand) and returns the process exit status:
 * 0 success, 1 failures found, 2 usage or start error, 3 internal error,
 * 130 interrupted.
 */
#ifndef JOSTLE_CMD_H
#define JOSTLE_CMD_H

enum {
	EXIT_OK = 0,
	EXIT_FAILURES = 1,
	EXIT_USAGE = 2,
	EXIT_INTERNAL = 3,
	EXIT_INTERRUPTED = 130,
};

int cmd_run(int argc, char **argv);
int cmd_stacks(int argc, char **argv);
int cmd_survey(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_slurm(int argc, char **argv);
int cmd_k8s(int argc, char **argv);
int cmd_localize(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);

#endif
