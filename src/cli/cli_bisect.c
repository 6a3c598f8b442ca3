/*
 * cli_bisect.c: `jostle bisect --good REV --bad REV [options] -- COMMAND`:
 * parse the bisection's own options and every option of `jostle run`
 * (runopt.h), check them, and hand them to bisect/bisect.c.
 *
 * --resume DIR reads the arguments the bisection was started with from
 * DIR/bisect.json and parses them again, with the budget options given
 * now placed after them (so they win) and the seed and the two revisions'
 * hashes as recorded. The combined arguments are what the resumed
 * bisection records, so a second resume sees the latest budget.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect/bisect.h"
#include "bisect/state.h"
#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/runopt.h"
#include "util/parse.h"
#include "util/strvec.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char usage_text[] =
"usage: jostle bisect --good REV --bad REV [options] [run options] -- COMMAND [ARG...]\n"
"       jostle bisect --resume DIR [--runs N] [--time DUR] [--confidence P] [-q]\n"
"\n"
"Find the commit between REV (good) and REV (bad) from which COMMAND fails now and\n"
"then. Each commit tested gets a temporary git worktree (your checkout and index\n"
"are not touched), is built there with --build, and runs COMMAND there in batches\n"
"(COMMAND's relative paths are relative to the worktree). A probability over the\n"
"commits is updated after every batch, with failure rates before and from the\n"
"culprit estimated from the runs; the next batch goes where it tells most. Stops\n"
"when one commit holds --confidence, or says that the budget was not enough.\n"
"\n"
"Bisection:\n"
"      --good REV         a revision without the failure (older)\n"
"      --bad REV          a revision with it; --good must be its ancestor\n"
"      --build CMD        run CMD through /bin/sh in each worktree before testing\n"
"                         (e.g. 'make -j4'); a commit whose build fails is skipped\n"
"      --confidence P     stop when a commit is the culprit with probability P\n"
"                         (default 0.95)\n"
"      --any-failure      count every failure; by default only failures with the\n"
"                         bad revision's signature count\n"
"      --batch N          runs per step (default max(20, 2 x jobs))\n"
"      --learn N          with --chaos auto: runs on the bad revision that choose the\n"
"                         configuration every commit is then tested under (default 300)\n"
"      --resume DIR       go on with the bisection in DIR (after Ctrl-C, or with a\n"
"                         larger budget)\n"
"  -h, --help             this help\n"
"Run options: every option of 'jostle run' (see 'jostle run --help'), except\n"
"--until, --replay, --matrix and --shard. -n/--runs and --time are the budget of\n"
"the whole bisection; -o DIR is its results directory; -j, --timeout, --fail-on,\n"
"--ignore, --signature, --cpus, --noise, --chaos ... apply to every run.\n"
"\n"
"DIR holds bisect.json (the state, after every batch), report.md, and a 'jostle\n"
"run' results directory per commit tested (commits/HASH/: runs.jsonl, logs,\n"
"build.log), so 'jostle report' and 'jostle compare' work on them. COMMAND sees\n"
"JOSTLE_BISECT_COMMIT (the commit's hash) besides jostle run's variables.\n"
"Exit status: 0 culprit found, 1 not decisive, 2 usage error or a commit where\n"
"COMMAND cannot start, 3 internal error, 130 interrupted.\n";

enum {
	OPT_GOOD = RUNOPT_CODE_END, OPT_BAD, OPT_BUILD, OPT_CONFIDENCE, OPT_ANY_FAILURE,
	OPT_BATCH, OPT_LEARN, OPT_RESUME,
};

static const struct option own[] = {
	{ "good", required_argument, NULL, OPT_GOOD },
	{ "bad", required_argument, NULL, OPT_BAD },
	{ "build", required_argument, NULL, OPT_BUILD },
	{ "confidence", required_argument, NULL, OPT_CONFIDENCE },
	{ "any-failure", no_argument, NULL, OPT_ANY_FAILURE },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "learn", required_argument, NULL, OPT_LEARN },
	{ "resume", required_argument, NULL, OPT_RESUME },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};


struct bisect_cli {
	struct runopt p;
	struct bisect_opts bo;
	const char *good, *bad;   /* revisions as given, or the hashes on resume */
	const char *repo_dir;     /* NULL: the current directory */
	const char *resume;
	bool help;
};

static int parse_confidence(const char *v, double *out)
{
	char *end;
	errno = 0;
	double c = strtod(v, &end);
	if (end != v && *end == '%' && end[1] == '\0') {
		c /= 100;
		end++;
	}
	if (end == v || *end || errno || !(c > 0.5 && c < 1))
		return cli_usage_error(NULL, "--confidence '%s' is not a probability; expected a number "
				       "between 0.5 and 1, e.g. 0.95 or 99%%", v);
	*out = c;
	return 0;
}

/* run's options that bisect does not take */
static int refuse_option(void *ctx, const char *name)
{
	(void)ctx;
	if (!strcmp(name, "until") || !strcmp(name, "replay") || !strcmp(name, "matrix") ||
	    !strcmp(name, "shard"))
		return cli_usage_error("bisect", "--%s is not a bisection option (every commit is "
				       "tested under the same conditions)", name);
	return 0;
}

/* One of bisect's own options. */
static int own_option(void *ctx, int code, const char *name, const char *arg)
{
	struct bisect_cli *c = ctx;
	uint64_t u;

	switch (code) {
	case OPT_GOOD:
		c->good = arg;
		return 0;
	case OPT_BAD:
		c->bad = arg;
		return 0;
	case OPT_BUILD:
		c->bo.build = arg;
		return 0;
	case OPT_CONFIDENCE:
		return parse_confidence(arg, &c->bo.confidence);
	case OPT_ANY_FAILURE:
		c->bo.any_failure = true;
		return 0;
	case OPT_BATCH:
		if (parse_u64(arg, 1, 1000000, &u) < 0)
			return cli_usage_error(NULL, "--batch '%s' is not a number of runs; expected "
					       "an integer from 1 to 1000000", arg);
		c->bo.batch = (unsigned)u;
		return 0;
	case OPT_LEARN:
		if (parse_u64(arg, 1, UINT64_MAX, &c->bo.learn) < 0)
			return cli_usage_error(NULL, "--learn '%s' is not a number of runs; expected "
					       "a positive integer", arg);
		return 0;
	case OPT_RESUME:
		c->resume = arg;
		return 0;
	default:
		return cli_usage_error("bisect", "unknown option '--%s'", name ? name : "?");
	}
}

/* One pass of getopt over argv (argv[0] is the subcommand). */
static int parse(struct bisect_cli *c, struct option *opts, int argc, char **argv)
{
	const struct runopt_hooks hooks = { .own = own_option, .refuse = refuse_option, .ctx = c };

	return runopt_getopt(&c->p, "bisect", opts, argc, argv, &hooks, &c->help);
}

/* On --resume, what may change: the budget and how much is said. */
static int resume_refuse(void *ctx, const char *name)
{
	(void)ctx;
	if (!strcmp(name, "runs") || !strcmp(name, "time") || !strcmp(name, "quiet"))
		return 0;
	return cli_usage_error("bisect", "--%s cannot be changed when resuming; --resume takes "
			       "--runs, --time, --confidence, --batch and -q", name);
}

static int resume_own(void *ctx, int code, const char *name, const char *arg)
{
	(void)ctx;
	(void)arg;
	if (code == OPT_RESUME || code == OPT_CONFIDENCE || code == OPT_BATCH)
		return 0;
	return cli_usage_error("bisect", "--%s cannot be changed when resuming; --resume takes "
			       "--runs, --time, --confidence, --batch and -q", name ? name : "?");
}

/*
 * --resume DIR: the recorded arguments with the budget options given now
 * before their "--" (they win), into args (argv form, args.v[0] "bisect").
 */
static int resume_args(struct bisect_cli *c, struct option *opts, int argc, char **argv,
		       struct bstate_saved *sv, struct strvec *args)
{
	const struct runopt_hooks hooks = { .own = resume_own, .refuse = resume_refuse };
	struct runopt scratch;   /* the options are parsed again from args */
	char why[768];
	bool help;
	int rc;

	runopt_init(&scratch);
	rc = runopt_getopt(&scratch, "bisect", opts, argc, argv, &hooks, &help);
	runopt_release(&scratch);
	if (rc)
		return rc;
	if (optind < argc)
		return cli_usage_error("bisect", "--resume runs the recorded command; remove '%s'",
				       argv[optind]);
	if (bstate_read(sv, c->resume, why, sizeof(why)) < 0)
		return cli_usage_error(NULL, "%s", why);
	strvec_push(args, "bisect");
	size_t dashes = sv->args.nr;
	for (size_t i = 0; i < sv->args.nr; i++)
		if (!strcmp(sv->args.v[i], "--")) {
			dashes = i;
			break;
		}
	for (size_t i = 0; i < dashes; i++)
		strvec_push(args, sv->args.v[i]);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--resume")) {
			i++;
			continue;
		}
		if (!strncmp(argv[i], "--resume=", 9))
			continue;
		strvec_push(args, argv[i]);
	}
	for (size_t i = dashes; i < sv->args.nr; i++)
		strvec_push(args, sv->args.v[i]);
	return rc;
}

int cmd_bisect(int argc, char **argv)
{
	static const char synopsis[] = "jostle bisect --good REV --bad REV [options] -- COMMAND [ARG...]";
	struct option *opts = runopt_table(own);
	struct bisect_cli c;
	struct bstate_saved sv;
	struct strvec args = STRVEC_INIT;
	struct repo repo;
	char why[1024];
	char **av = argv;
	int ac = argc, rc;

	memset(&c, 0, sizeof(c));
	memset(&sv, 0, sizeof(sv));
	memset(&repo, 0, sizeof(repo));
	runopt_init(&c.p);
	c.bo.confidence = 0.95;
	c.bo.learn = 300;
	c.bo.config_run = -1;
	rc = parse(&c, opts, argc, argv);
	if (rc == 0 && c.help) {
		fputs(usage_text, stdout);
		goto out;
	}
	if (rc == 0 && c.resume) {
		/* start again from the recorded arguments */
		const char *dir = c.resume;
		runopt_release(&c.p);
		memset(&c, 0, sizeof(c));
		runopt_init(&c.p);
		c.bo.confidence = 0.95;
		c.bo.learn = 300;
		c.bo.config_run = -1;
		c.resume = dir;
		rc = resume_args(&c, opts, argc, argv, &sv, &args);
		if (rc == 0) {
			av = args.v;
			ac = (int)args.nr;
			rc = parse(&c, opts, ac, av);
			c.resume = dir;
		}
		if (rc == 0) {
			c.bo.resume = true;
			c.good = sv.good;
			c.bad = sv.bad;
			c.repo_dir = sv.repo;
			c.bo.skipped = sv.skipped.v;
			c.bo.nskipped = sv.skipped.nr;
			c.bo.config_run = sv.config_run;
			c.bo.elapsed_s = sv.elapsed_s;
			c.p.o.seed = sv.seed;
			c.p.seed_set = true;
		}
	}
	if (rc == 0 && !c.good)
		rc = cli_usage_error("bisect", "--good REV is missing: a revision without the failure");
	if (rc == 0 && !c.bad)
		rc = cli_usage_error("bisect", "--bad REV is missing: a revision with the failure");
	if (rc == 0)
		rc = runopt_command(&c.p, "bisect", synopsis, ac, av);
	if (rc == 0)
		rc = runopt_finish(&c.p);
	if (rc == 0 && repo_open(&repo, c.repo_dir ? c.repo_dir : ".", c.good, c.bad, why, sizeof(why)) < 0)
		rc = cli_usage_error(NULL, "%s", why);
	if (rc == 0 && c.bo.resume) {
		c.p.o.out_dir = realpath(c.resume, NULL);
		if (!c.p.o.out_dir)
			rc = cli_usage_error(NULL, "--resume '%s': %s", c.resume, strerror(errno));
	} else if (rc == 0) {
		/* before runopt_prepare_out, which refuses any folder that is not empty */
		char *state = c.p.out ? xasprintf("%s/bisect.json", c.p.out) : NULL;
		if (state && access(state, F_OK) == 0)
			rc = cli_usage_error(NULL, "--out '%s' already holds a bisection; resume it with "
					     "'jostle bisect --resume %s', or choose another directory",
					     c.p.out, c.p.out);
		free(state);
		if (rc == 0)
			rc = runopt_prepare_out(&c.p);
	}
	if (rc == 0) {
		c.bo.run = &c.p.o;
		c.bo.repo = &repo;
		c.bo.jobs_set = c.p.jobs_set;
		c.bo.args = av + 1;
		c.bo.nargs = (size_t)ac - 1;
		rc = bisect_run(&c.bo);
	}
out:
	free(opts);
	repo_release(&repo);
	runopt_release(&c.p);
	bstate_saved_release(&sv);
	strvec_release(&args);
	return rc;
}
