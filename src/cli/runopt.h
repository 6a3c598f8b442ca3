/*
 * runopt.h: the options of `jostle run` (how many runs, what counts as a
 * failure, pressure and chaos, diagnosis), parsed into a struct run_opts by
 * one parser that every subcommand running a series shares (`run`,
 * `bisect`, `localize`, and `slurm`/`k8s`, which check the options every
 * shard will parse).
 *
 * The caller's protocol:
 *
 *   struct runopt p;
 *   runopt_init(&p);
 *   table = runopt_table(own): runopt_long[] plus the command's own
 *          options, whose codes are >= RUNOPT_CODE_END (or short ones
 *          other than RUNOPT_SHORT's)
 *   rc = runopt_getopt(&p, "run", table, argc, argv, &hooks, &help);
 *   rc = runopt_command(&p, "run", synopsis, argc, argv);  after the loop
 *   rc = runopt_resolve(&p);        COMMAND found on PATH (or as a path);
 *                                   slurm/k8s skip it (it may exist only on the nodes)
 *   rc = runopt_finish(&p);         replay, jobs, shard, seed, the checks across options
 *   ... p.o is complete but for out_dir ...
 *   runopt_release(&p);
 *
 * Every function returns 0 or an exit status (EXIT_USAGE), the one-line
 * message already printed (cli.h). p.o owns what run_opts says it owns;
 * runopt_release() frees it.
 */
#ifndef JOSTLE_RUNOPT_H
#define JOSTLE_RUNOPT_H

#include <getopt.h>
#include <stdbool.h>

#include "run/series.h"

struct reproducer;

/* The short options of run_opts (getopt's syntax, no leading '+' or ':'). */
#define RUNOPT_SHORT "n:j:o:q"

/* Codes of the long options without a short one: 256 up to RUNOPT_CODE_END. */
enum { RUNOPT_CODE_END = 300 };

/* The long options, ending in an all-zero entry (no --help: each command has its own). */
extern const struct option runopt_long[];

/* runopt_long followed by extra (ending in an all-zero entry) in one new
 * table for getopt_long; the caller frees it. */
struct option *runopt_table(const struct option *extra);

struct runopt {
	struct run_opts o;
	const char *out;     /* -o, --out as given (borrowed from argv), or NULL */
	const char *replay;  /* --replay DIR:RUN (borrowed), or NULL */
	const char *shard;   /* --shard K/N|auto|auto/N (borrowed), or NULL (issue 17) */
	bool shard_env;      /* set by the caller: JOSTLE_SHARD without --shard
				means --shard auto (`jostle run`; not bisect) */
	bool seed_set, jobs_set;
	const char *reproducer_path;  /* --reproducer FILE (borrowed), or NULL (issue 44) */
	struct reproducer *repro;     /* owned: its condition, read in runopt_finish() and
				       * attached to this build in runopt_prepare_out() */
};

/* The defaults of `jostle run` (jobs: the CPUs jostle may use, --timeout 10m, ...). */
void runopt_init(struct runopt *p);

/* Is getopt's code c one of runopt_long's (or RUNOPT_SHORT's)? */
bool runopt_is_ours(int c);

/* One option: its getopt code, long name (NULL for a short one) and value. */
int runopt_parse(struct runopt *p, int c, const char *name, const char *arg);

/* What a command adds to run's options in runopt_getopt(). */
struct runopt_hooks {
	/* one of the command's own options: its code, long name (NULL for a
	 * short one) and value; NULL: the command has none */
	int (*own)(void *ctx, int code, const char *name, const char *arg);
	/* a run option the command does not take, by its long name (-n as
	 * "runs"): an exit status (the message printed), or 0 to take it;
	 * NULL: it takes them all */
	int (*refuse)(void *ctx, const char *name);
	void *ctx;
};

/* The getopt pass over argv (argv[0] the subcommand; stops at "--"): run's
 * options to runopt_parse(), the command's own to hooks->own; -h sets *help
 * and stops. cmd names the subcommand in the messages for an unknown
 * option, a missing value, or a value given to a flag. */
int runopt_getopt(struct runopt *p, const char *cmd, const struct option *opts, int argc, char **argv,
		  const struct runopt_hooks *hooks, bool *help);

/* The command after "--" at argv[optind - 1]; sets p->o.argv (borrowed).
 * cmd names the subcommand in messages, synopsis is its usage line. */
int runopt_command(struct runopt *p, const char *cmd, const char *synopsis, int argc, char **argv);

/* Resolve the command as execvp would (in the current directory for a
 * relative path); sets p->o.path. */
int runopt_resolve(struct runopt *p);

/* Apply --replay, settle the job count, the shard (p->o.shard, run/plan.h:
 * needs --seed, not with --replay) and the seed, and check the options
 * against each other (--matrix cpus=, --until confident: a shard plans its
 * share of the runs). */
int runopt_finish(struct runopt *p);

/* Make the results directory: the given --out, or jostle-out/<UTC time>/;
 * refuses one that holds runs.jsonl. Sets p->o.out_dir (absolute). */
int runopt_prepare_out(struct runopt *p);

void runopt_release(struct runopt *p);

/*
 * A command whose options are run's and a few of its own (`run`,
 * `localize`): everything above in one call. own lists its options (codes
 * >= RUNOPT_CODE_END, handed to own_opt; 'h' is --help, printing usage);
 * check, when not NULL, sees the options after the command is resolved and
 * before runopt_finish() (--replay, jobs, seed); final_check after it (-j
 * as it will be), before the results folder is made. Returns 0 with *done false
 * when p->o is complete (out_dir made); otherwise *done is true, p is
 * released and the return value is the exit status (EXIT_OK after --help).
 */
struct runopt_cmd {
	const char *name;      /* "localize", for messages */
	const char *synopsis;  /* its usage line */
	const char *usage;     /* its --help */
	const struct option *own;
	int (*own_opt)(void *ctx, const char *name, const char *arg);
	int (*check)(void *ctx, struct runopt *p);
	/* after the options are resolved (-j as it will be), before the
	 * results folder exists: checks that need the final values */
	int (*final_check)(void *ctx, struct runopt *p);
	void *ctx;
	bool shard_env;        /* runopt.shard_env: JOSTLE_SHARD without --shard */
};

int runopt_args(struct runopt *p, const struct runopt_cmd *cmd, int argc, char **argv, bool *done);

#endif
