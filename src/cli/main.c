/*
 * main.c: dispatch to a subcommand from a table (as git's builtins do).
 * Nothing else lives here.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "diagnose/stack.h"
#include "run/guardian.h"
#include "util/banned.h"

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct subcommand commands[] = {
	{ .name = "run", .fn = cmd_run, .summary = "run a command many times under pressure and record every run" },
	{ .name = "localize", .fn = cmd_localize, .summary = "find the call sites where timing decides: delays at chosen sites, effect per site" },
	{ .name = "reproduce", .fn = cmd_reproduce, .summary = "find the condition under which a command fails most runs; prove a fix under it" },
	{ .name = "explain", .fn = cmd_explain, .summary = "find the crash report in a log: kind, key line, frames, signature" },
	{ .name = "stacks", .fn = cmd_stacks, .summary = "diagnose a live process tree: thread states, hang class, folded stacks" },
	{ .name = "survey", .fn = cmd_survey, .summary = "classify a folder of CI logs by failure signature" },
	{ .name = "report", .fn = cmd_report, .summary = "summarize results as text, Markdown, HTML, JUnit XML or JSON" },
	{ .name = "compare", .fn = cmd_compare, .summary = "compare results before and after a fix (exit 0 when proven better)" },
	{ .name = "merge", .fn = cmd_merge, .summary = "merge results directories from many machines into one" },
	{ .name = "bisect", .fn = cmd_bisect, .summary = "find the commit that made a command flaky, with a stated confidence" },
	{ .name = "slurm", .fn = cmd_slurm, .summary = "run a series as shards of a Slurm job array, then merge them" },
	{ .name = "k8s", .fn = cmd_k8s, .summary = "print a Kubernetes Indexed Job that runs a series as shards" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: jostle <command> [options]\n\n"
		   "jostle makes timing-dependent failures happen on demand, explains them,\n"
		   "and proves a fix.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'jostle <command> --help' shows the options of a command.\n"
		   "jostle --version prints the version.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], STACK_HELPER_ARG))   /* a diagnosis's unwinder (stack.h) */
		return stack_helper_main(argc, argv);
	if (!strcmp(argv[1], GUARDIAN_ARG))   /* ends our runs if we are killed (guardian.h) */
		return guardian_main(argc, argv);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("jostle %s\n", JOSTLE_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	return cli_usage_error(NULL, "'%s' is not a command; see 'jostle --help'", argv[1]);
}
