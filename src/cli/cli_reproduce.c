/*
 * cli_reproduce.c: `jostle reproduce`: `jostle run`'s options (runopt.h)
 * plus --gdb, checked before anything runs, then one call into the
 * reproduce stage (the search), and with --gdb a series under the
 * reproducer until a failure leaves a core.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/runopt.h"
#include "reproduce/gdb.h"
#include "reproduce/reproduce.h"
#include "reproduce/reproducer.h"
#include "run/series.h"
#include "util/clock.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char usage_text[] =
"usage: jostle reproduce [options] -- COMMAND [ARG...]\n"
"\n"
"Search for the condition under which COMMAND fails most often per minute of\n"
"machine time, and state it with an interval: the natural rate (a plain\n"
"loop), the best arm of --chaos auto, then sync delays narrowed to the call\n"
"sites that jostle localize finds decisive (at two intensities), then -j and\n"
"step depth; a change is kept when it raises the rate (measured, 95% Wilson\n"
"intervals), and every run has a fresh seed. The winner is confirmed on fresh\n"
"runs and written to DIR/reproducer.json; the command that applies it is\n"
"printed:\n"
"  jostle run --reproducer DIR/reproducer.json -- COMMAND\n"
"\n"
"Reproduce options:\n"
"      --gdb              then run the reproducer until a run fails with a core\n"
"                         (--core) and print the gdb command that opens it\n"
"      --reproducer FILE  with --gdb: skip the search, use FILE\n"
"  -h, --help             this help\n"
"The budget is --time (default 2m) or -n (all runs of the search).\n"
"\n"
"Run options: every option of 'jostle run' (see 'jostle run --help'), except\n"
"--until, --replay, --matrix, --shard and --chaos (the search chooses it). -j is\n"
"the concurrency of the plain loop and the start of the search; -o DIR is the\n"
"results directory (natural/, auto/, localize/, try-K/, confirm/ hold the runs).\n"
"\n"
"Exit status: 1 a reproducer was written (COMMAND fails under it), 0 no run\n"
"failed within the budget, 2 usage error, 3 internal error, 130 interrupted.\n";

enum { OPT_GDB = RUNOPT_CODE_END };

struct ctx {
	struct reproduce_opts ro;
};

static const struct option own[] = {
	{ "gdb", no_argument, NULL, OPT_GDB },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int option(void *vctx, const char *name, const char *val)
{
	struct ctx *c = vctx;
	(void)val;
	if (!strcmp(name, "gdb"))
		c->ro.gdb = true;
	return 0;
}

static int check(void *vctx, struct runopt *p)
{
	struct ctx *c = vctx;
	struct run_opts *o = &p->o;

	if (p->replay)
		return cli_usage_error(NULL, "--replay repeats one run; reproduce searches for a condition "
				       "(use jostle run --replay DIR:RUN to repeat a run)");
	if (o->matrix)
		return cli_usage_error(NULL, "--matrix is not supported by reproduce; reproduce one cell "
				       "at a time (set its variables in the environment)");
	if (o->until != UNTIL_NONE)
		return cli_usage_error(NULL, "--until does not apply to reproduce: it stops when the rate "
				       "is stated, or at -n / --time");
	if (p->shard)
		return cli_usage_error(NULL, "--shard does not apply to reproduce");
	if (o->pressure.chaos_set)
		return cli_usage_error(NULL, "--chaos does not apply to reproduce: the search chooses the "
				       "chaos (drop --chaos)");
	if (p->reproducer_path && !c->ro.gdb)
		return cli_usage_error(NULL, "--reproducer FILE goes with --gdb (reproduce --gdb "
				       "--reproducer FILE runs it until a core); to run it, use jostle run "
				       "--reproducer FILE -- COMMAND");
	return 0;
}

/* -j as it will be, before the results folder exists. */
static int final_check(void *vctx, struct runopt *p)
{
	struct ctx *c = vctx;
	c->ro.base_jobs = p->o.jobs;
	c->ro.jobs_set = p->jobs_set;
	return 0;
}

int cmd_reproduce(int argc, char **argv)
{
	struct ctx c;
	memset(&c, 0, sizeof(c));
	const struct runopt_cmd cmd = {
		.name = "reproduce", .synopsis = "jostle reproduce [options] -- COMMAND [ARG...]",
		.usage = usage_text, .own = own, .own_opt = option, .check = check,
		.final_check = final_check, .ctx = &c,
	};
	struct runopt p;
	bool done;
	int rc = runopt_args(&p, &cmd, argc, argv, &done);
	if (done)
		return rc;
	char *prev = xasprintf("%s/natural", p.o.out_dir);
	bool used = access(prev, F_OK) == 0;
	free(prev);
	if (used) {
		rc = cli_usage_error(NULL, "--out '%s' already holds a reproduce search; choose another "
				     "directory or remove it", p.o.out_dir);
		runopt_release(&p);
		return rc;
	}
	c.ro.run = &p.o;
	int status;
	char *file = NULL;
	if (p.repro) {
		/* --gdb --reproducer FILE: no search */
		file = xstrdup(p.reproducer_path);
		status = EXIT_FAILURES;
	} else {
		if (!p.o.quiet)
			fprintf(stderr, "jostle: reproduce: results in %s (seed 0x%016" PRIx64 ")\n", p.o.out_dir,
				p.o.seed);
		status = reproduce_run(&c.ro);
		file = xasprintf("%s/reproducer.json", p.o.out_dir);
	}
	if (c.ro.gdb && status == EXIT_FAILURES) {
		int g = reproduce_gdb(&p.o, file, p.jobs_set);
		if (g != EXIT_FAILURES)
			status = g;
	}
	free(file);
	runopt_release(&p);
	return status;
}
