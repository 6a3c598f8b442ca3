/*
 * cli_localize.c: `jostle localize`: `jostle run`'s options (parsed by
 * runopt.h, the parser `run` and `bisect` share) plus its own, checked
 * before anything runs, then one call into the localize stage.
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
#include "localize/localize.h"
#include "run/series.h"
#include "util/clock.h"
#include "util/parse.h"
#include "util/sitemask.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char usage_text[] =
"usage: jostle localize [options] -- COMMAND [ARG...]\n"
"\n"
"Find the call sites where timing decides whether COMMAND fails: discovery\n"
"runs under sync chaos record every pthread call site the program reaches,\n"
"then rounds of runs delay at a random half of the sites each (seeded and\n"
"recorded per run), and each site's effect on the failure rate is estimated\n"
"with its interval; weaker sites are dropped round by round. Prints the\n"
"sites ranked by effect (the call, the function, file:line), the pair of\n"
"sites whose joint delay matters beyond each alone, and writes\n"
"DIR/localize.json, DIR/report.md and DIR/report.html; the runs are in\n"
"DIR/discover/ and DIR/round-K/ (replay one with jostle run --replay\n"
"DIR/round-K:RUN, which repeats its delayed sites).\n"
"\n"
"Localize options:\n"
"      --discover N       discovery runs under sync chaos (default 20)\n"
"      --round-runs N     runs per round (default 40)\n"
"      --density P        share of the candidate sites a run delays at, 0..1\n"
"                         exclusive (default 0.5)\n"
"      --delays N         delays per site and run aimed at (default 8): a site\n"
"                         called C times per run is delayed at each call with\n"
"                         probability N/C\n"
"      --max-sites N      candidate sites at most (default 256; the program's own\n"
"                         first, then the most called)\n"
"  -h, --help             this help\n"
"The budget is -n (all runs, default 300) or --time; it stops earlier when the\n"
"leading site is separated from every other. Without --timeout, runs get 60 s\n"
"in discovery and ten times the slowest passing run after. --chaos is sync\n"
"(the default here) or all.\n"
"\n"
"Run options: every option of 'jostle run' (see 'jostle run --help'), except\n"
"--until, --replay and --matrix. -n/--runs and --time are the budget of the whole\n"
"localization; -o DIR is its results directory; -j, --fail-on, --ignore,\n"
"--signature, --cpus, --noise ... apply to every run.\n"
"\n"
"Exit status: 0 no run failed, 1 sites ranked, 2 usage error or nothing to\n"
"interpose (a static binary), 3 internal error, 130 interrupted.\n";

enum { OPT_LOCALIZE = RUNOPT_CODE_END };

static const struct option own[] = {
	{ "discover", required_argument, NULL, OPT_LOCALIZE },
	{ "round-runs", required_argument, NULL, OPT_LOCALIZE },
	{ "density", required_argument, NULL, OPT_LOCALIZE },
	{ "delays", required_argument, NULL, OPT_LOCALIZE },
	{ "max-sites", required_argument, NULL, OPT_LOCALIZE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_fraction(const char *v, double *out)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (end == v || *end || errno || !(d > 0) || !(d < 1))
		return -EINVAL;
	*out = d;
	return 0;
}

static int option(void *ctx, const char *name, const char *val)
{
	struct localize_opts *lo = ctx;
	uint64_t u;

	if (!strcmp(name, "discover")) {
		if (parse_u64(val, 1, 1000000, &lo->discover) < 0)
			return cli_usage_error(NULL, "--discover '%s' is not a number of runs; expected "
					       "an integer from 1 to 1000000", val);
	} else if (!strcmp(name, "round-runs")) {
		if (parse_u64(val, 2, 1000000, &lo->round_runs) < 0)
			return cli_usage_error(NULL, "--round-runs '%s' is not a number of runs; expected "
					       "an integer from 2 to 1000000", val);
	} else if (!strcmp(name, "density")) {
		if (parse_fraction(val, &lo->density) < 0)
			return cli_usage_error(NULL, "--density '%s' is not a share; expected a number "
					       "between 0 and 1, e.g. 0.5", val);
	} else if (!strcmp(name, "delays")) {
		if (parse_u64(val, 1, 1000000, &u) < 0)
			return cli_usage_error(NULL, "--delays '%s' is not a number of delays; expected "
					       "an integer from 1 to 1000000", val);
		lo->delays = (double)u;
	} else if (!strcmp(name, "max-sites")) {
		if (parse_u64(val, 1, SITEMASK_MAX, &u) < 0)
			return cli_usage_error(NULL, "--max-sites '%s' is not a number of sites; expected "
					       "an integer from 1 to %d", val, SITEMASK_MAX);
		lo->max_sites = (size_t)u;
	}
	return 0;
}

/* Before --replay and the job count are settled: localize's limits on
 * jostle run's options, chaos sync by default, a dynamic binary. */
static int check(void *ctx, struct runopt *p)
{
	struct localize_opts *lo = ctx;
	struct run_opts *o = &p->o;
	char why[256];

	if (p->replay)
		return cli_usage_error(NULL, "--replay repeats one run: use 'jostle run --replay "
				       "DIR/round-K:RUN -- COMMAND' for a run of a localize series");
	if (o->matrix)
		return cli_usage_error(NULL, "--matrix is not supported by localize; localize one "
				       "cell at a time (set its variables in the environment)");
	if (o->until != UNTIL_NONE)
		return cli_usage_error(NULL, "--until does not apply to localize: it stops when the "
				       "leading site is separated, or at -n / --time");
	if (!o->pressure.chaos_set) {
		if (pressure_option(&o->pressure, "chaos", "sync", why, sizeof(why)) < 0)
			return cli_usage_error(NULL, "%s", why);
	} else if (!(o->pressure.chaos == CHAOS_SYNC || o->pressure.chaos == CHAOS_ALL)) {
		return cli_usage_error(NULL, "--chaos %s: localize injects delays through the sync "
				       "chaos library; use --chaos sync (the default) or all",
				       chaos_mode_name(o->pressure.chaos));
	}
	lo->timeout_set = o->timeout_ns != 600 * NS_PER_S;
	int rc = localize_check_dynamic(o->path);
	if (rc == -ENOEXEC)
		return cli_usage_error(NULL, "'%s' is statically linked: the sync chaos library cannot "
				       "interpose its calls, so there is nothing to localize (build it "
				       "dynamically linked, or use jostle run --chaos threads)", o->argv[0]);
	if (rc < 0)
		return cli_usage_error(NULL, "cannot read '%s': %s", o->path, strerror(-rc));
	return 0;
}

int cmd_localize(int argc, char **argv)
{
	struct localize_opts lo = LOCALIZE_OPTS_INIT;
	const struct runopt_cmd cmd = {
		.name = "localize", .synopsis = "jostle localize [options] -- COMMAND [ARG...]",
		.usage = usage_text, .own = own, .own_opt = option, .check = check, .ctx = &lo,
	};
	struct runopt p;
	bool done;
	int rc = runopt_args(&p, &cmd, argc, argv, &done);
	if (done)
		return rc;
	char *prev = xasprintf("%s/discover", p.o.out_dir);
	bool used = access(prev, F_OK) == 0;
	free(prev);
	if (used) {
		rc = cli_usage_error(NULL, "--out '%s' already holds a localization; choose another "
				     "directory or remove it", p.o.out_dir);
		runopt_release(&p);
		return rc;
	}
	lo.run = &p.o;
	if (!p.o.quiet)
		fprintf(stderr, "jostle: localize: results in %s (seed 0x%016" PRIx64 ")\n", p.o.out_dir, p.o.seed);
	int status = localize_run(&lo);
	runopt_release(&p);
	return status;
}
