/*
 * cli_run.c: `jostle run`: parse and check every option (runopt.h, shared
 * with `jostle bisect`), then hand a complete struct run_opts to the engine
 * (series.c). Every malformed value is one line naming the option and what
 * is expected, exit 2, before anything runs.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/runopt.h"
#include "run/plan.h"
#include "run/runtests.h"
#include "run/series.h"
#include "util/dbuf.h"
#include "util/banned.h"

static const char usage_text[] =
"usage: jostle run [options] -- COMMAND [ARG...]\n"
"\n"
"Run COMMAND many times, concurrently, and record every run in DIR/runs.jsonl.\n"
"\n"
"How many:\n"
"  -n, --runs N           total runs (default: until --time or Ctrl-C)\n"
"      --time DUR         time budget: 90s, 10m, 1h\n"
"      --until RULE       stop early: first-failure | failures:K | confident:RATE\n"
"                         (with --reproducer, confident alone: half its rate)\n"
"                         (confident: stop when 0 failures bound the rate below\n"
"                         RATE with 95% confidence, e.g. 0.01 or 1%, or at a failure)\n"
"  -j, --jobs N           concurrent runs (default: the CPUs jostle may use)\n"
"      --timeout DUR      per-run limit (default 10m); a run past it is a hang (stuck,\n"
"                         busy-wait, timeout), slow only if jostle's chaos delay,\n"
"                         load or a Python exit cleanup explains it\n"
"      --timeout-strict   a run past --timeout is a hang, progressing or not\n"
"      --no-stall-check   wait for --timeout even when no thread of a run can run\n"
"                         again (default: such a deadlock is a hang at once)\n"
"      --grace DUR        SIGTERM to SIGKILL delay when ending a run (default 1s)\n"
"What counts as failure:\n"
"      --fail-on REGEX    a run whose output matches fails even if it exits 0\n"
"      --ignore REGEX     a failure whose output matches is counted as ignored\n"
"      --signature REGEX  the signature key is the first capture group of REGEX\n"
"Where and how:\n"
"  -o, --out DIR          results directory (default jostle-out/<UTC time>/)\n"
"      --seed S           master seed (decimal or 0x hex); each run gets a derived seed\n"
"      --head SIZE        output bytes kept from the start of each run (default 64K)\n"
"      --tail SIZE        output bytes kept from the end of each run (default 256K)\n"
"      --matrix NAME=V1,V2,...\n"
"                         repeatable: run over the cross product of the values of\n"
"                         environment variables and of cpus=N (CPUs a run may use);\n"
"                         runs interleaved evenly over the cells, JOSTLE_CELL set\n"
"      --no-report        no report.md and report.html in DIR at the end\n"
"      --shard K/N        run only the runs i with i mod N == K of the series of\n"
"                         --seed (needed): shards on many machines, merged by\n"
"                         'jostle merge'; -n, --time, --until count per shard.\n"
"                         auto or auto/N: from JOSTLE_SHARD, SLURM_ARRAY_TASK_ID\n"
"                         or JOB_COMPLETION_INDEX (JOSTLE_SHARD=K/N: as --shard)\n"
"      --tests SRC        per-test results of a test suite: auto (pytest, ctest and\n"
"                         Google Test are pointed at $JOSTLE_JUNIT), junit (the\n"
"                         command writes JUnit XML to $JOSTLE_JUNIT) or junit:PATTERN\n"
"                         (files it writes; {run} is the run's index)\n"
"  -q, --quiet            no progress line\n"
"  -h, --help             this help\n"
"Pressure and chaos (each applies just its condition; --chaos auto varies them):\n"
"      --cpus N|LIST      runs may use only these CPUs: a count (2) or a list\n"
"                         (0, 0-1, 0,2-3; CPU 1 alone is 1-1); cgroup cpuset,\n"
"                         else affinity\n"
"      --cpu-quota F      CPU time per run, in CPUs (0.5 = half of one); needs\n"
"                         a writable cgroup\n"
"      --noise SPEC       background hogs on the same CPUs: cpu:N,mem:SIZE,cache:N,\n"
"                         jitter:N (short random preemptions)\n"
"      --chaos MODE       none | threads (priorities and CPUs of the run's threads,\n"
"                         from outside) | sync (preload library: delays at pthread\n"
"                         calls) | all | auto (a portfolio that favours what fails)\n"
"      --chaos-level L    0, 1 (default) or 2: how hard threads/sync perturb\n"
"      --replay DIR:RUN   repeat run RUN of DIR/runs.jsonl: its configuration, seed\n"
"                         and JOSTLE_RUN (-n repetitions, default 10)\n"
"      --reproducer FILE  every run under the condition 'jostle reproduce' wrote to\n"
"                         FILE, each with its own seed (-n default 20); its call\n"
"                         sites matched by function and line in this build\n"
"Diagnosis (hangs: DIR/stacks/RUN.txt and the record's \"diag\"; crashes: the\n"
"sanitizer/Python report in the output, else the crashing thread's stack from\n"
"jostle's crash handler in DIR/stacks/RUN.txt):\n"
"      --diag-window MS   sampling window of the hang diagnosis (default 200)\n"
"      --no-diag          no hang diagnosis: kill at the timeout at once\n"
"      --core             let children dump cores (RLIMIT_CORE); read the crashing\n"
"                         thread's stack from the core, then delete it\n"
"      --keep-cores       like --core, and keep the cores in DIR/cores/RUN.core\n"
"      --no-crash-handler do not preload libjostle-crash.so (it records the stack\n"
"                         of a crash in DIR/crashes/); for a program that checks\n"
"                         its own signal handlers or environment\n"
"      --all-crash-records  a crash record for every run; by default, once a quarter\n"
"                         of the runs crash the same way, one in eight keeps one\n"
"                         and the others take its signature\n"
"      --sanitizer-symbolize  let sanitizers name their report's frames (~0.2 s\n"
"                         a report); by default they print module+offset and\n"
"                         jostle names them, cached across runs\n"
"\n"
"Children get JOSTLE_RUN (0-based index), JOSTLE_SEED and JOSTLE_OUT, stdin\n"
"from /dev/null; COMMAND is executed directly, never through a shell.\n"
"Exit status: 0 no failure, 1 failures, 2 usage or start error, 3 internal\n"
"error, 130 interrupted.\n";

/* --tests, run's own option (runtests.h); ctx is the struct runopt. */
static int tests_opt(void *ctx, const char *name, const char *arg)
{
	struct runopt *p = ctx;
	char why[256];
	(void)name;
	if (runtests_option(&p->o.tests, arg, why, sizeof(why)) < 0)
		return cli_usage_error(NULL, "%s", why);
	return 0;
}

/* Checked with -j resolved, before anything is created (issue 19). */
static int tests_check(void *ctx, struct runopt *p)
{
	(void)ctx;
	char why[768];
	if (runtests_check(&p->o.tests, p->o.argv, p->o.jobs, why, sizeof(why)) < 0)
		return cli_usage_error(NULL, "%s", why);
	return 0;
}

int cmd_run(int argc, char **argv)
{
	enum { OPT_TESTS = RUNOPT_CODE_END };   /* runtests.h: run's alone */
	static const struct option own[] = {
		{ "tests", required_argument, NULL, OPT_TESTS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct runopt p;
	const struct runopt_cmd cmd = {
		.name = "run", .synopsis = "jostle run [options] -- COMMAND [ARG...]",
		.usage = usage_text, .own = own, .shard_env = true,
		.own_opt = tests_opt, .final_check = tests_check, .ctx = &p,
	};
	bool done;
	int rc = runopt_args(&p, &cmd, argc, argv, &done);
	if (done)
		return rc;
	const struct plan_shard *sh = &p.o.shard;
	if (!p.o.quiet && sh->count)
		fprintf(stderr, "jostle: shard %" PRIu64 "/%" PRIu64 " (%s): runs %" PRIu64 ", %" PRIu64
			", %" PRIu64 ", ... of the series\n", sh->index, sh->count, sh->from,
			plan_run_index(sh, 0), plan_run_index(sh, 1), plan_run_index(sh, 2));
	if (!p.o.quiet) {
		struct dbuf note;
		fprintf(stderr, "jostle: results in %s (seed 0x%016" PRIx64 ")\n", p.o.out_dir, p.o.seed);
		dbuf_init(&note, 4096);
		runtests_describe(&p.o.tests, p.o.out_dir, &note);
		fputs(dbuf_str(&note), stderr);
		dbuf_release(&note);
	}
	int status = series_run(&p.o);
	runopt_release(&p);
	return status;
}
