/*
 * runopt.c: the options of `jostle run`, shared by every subcommand that
 * runs a series (see runopt.h). Every malformed value is one line naming
 * the option and what is expected, exit 2, before anything runs.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/runopt.h"
#include "pressure/cpuset.h"
#include "reproduce/reproducer.h"
#include "results/finish.h"
#include "run/machine.h"
#include "run/matrix.h"
#include "run/plan.h"
#include "run/replay.h"
#include "run/runtests.h"
#include "util/clock.h"
#include "util/parse.h"
#include "util/path.h"
#include "util/regex.h"
#include "util/spawn.h"
#include "util/xalloc.h"
#include "util/banned.h"

enum {
	OPT_TIME = 256, OPT_UNTIL, OPT_TIMEOUT, OPT_GRACE, OPT_FAIL_ON, OPT_IGNORE,
	OPT_SIGNATURE, OPT_SEED, OPT_HEAD, OPT_TAIL,
	OPT_PRESSURE, OPT_REPLAY,   /* pressure.h options, by name */
	OPT_MATRIX, OPT_NO_REPORT,   /* issue 6 */
	OPT_TIMEOUT_STRICT,
	OPT_NO_STALL_CHECK,
	OPT_DIAG,                   /* rundiag.h options, by name */
	OPT_SHARD,                  /* issue 17 */
	OPT_REPRODUCER,             /* issue 44 */
	OPT__END
};

_Static_assert((int)OPT__END <= (int)RUNOPT_CODE_END, "runopt codes overlap the commands' own");

const struct option runopt_long[] = {
	{ "runs", required_argument, NULL, 'n' },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "jobs", required_argument, NULL, 'j' },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "grace", required_argument, NULL, OPT_GRACE },
	{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
	{ "ignore", required_argument, NULL, OPT_IGNORE },
	{ "signature", required_argument, NULL, OPT_SIGNATURE },
	{ "out", required_argument, NULL, 'o' },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "head", required_argument, NULL, OPT_HEAD },
	{ "tail", required_argument, NULL, OPT_TAIL },
	{ "cpus", required_argument, NULL, OPT_PRESSURE },
	{ "cpu-quota", required_argument, NULL, OPT_PRESSURE },
	{ "noise", required_argument, NULL, OPT_PRESSURE },
	{ "chaos", required_argument, NULL, OPT_PRESSURE },
	{ "chaos-level", required_argument, NULL, OPT_PRESSURE },
	{ "replay", required_argument, NULL, OPT_REPLAY },
	{ "matrix", required_argument, NULL, OPT_MATRIX },
	{ "no-report", no_argument, NULL, OPT_NO_REPORT },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "reproducer", required_argument, NULL, OPT_REPRODUCER },
	{ "timeout-strict", no_argument, NULL, OPT_TIMEOUT_STRICT },
	{ "no-stall-check", no_argument, NULL, OPT_NO_STALL_CHECK },
	{ "diag-window", required_argument, NULL, OPT_DIAG },
	{ "no-diag", no_argument, NULL, OPT_DIAG },
	{ "core", no_argument, NULL, OPT_DIAG },
	{ "keep-cores", no_argument, NULL, OPT_DIAG },
	{ "no-crash-handler", no_argument, NULL, OPT_DIAG },
	{ "all-crash-records", no_argument, NULL, OPT_DIAG },
	{ "sanitizer-symbolize", no_argument, NULL, OPT_DIAG },
	{ "quiet", no_argument, NULL, 'q' },
	{ NULL, 0, NULL, 0 },
};

struct option *runopt_table(const struct option *extra)
{
	size_t a = 0, b = 0;
	while (runopt_long[a].name)
		a++;
	while (extra[b].name)
		b++;
	struct option *t = xcalloc(a + b + 1, sizeof(*t));
	memcpy(t, runopt_long, a * sizeof(*t));
	memcpy(t + a, extra, b * sizeof(*t));
	return t;
}

void runopt_init(struct runopt *p)
{
	struct run_opts *o = &p->o;

	memset(p, 0, sizeof(*p));
	o->jobs = machine_cpus();
	o->timeout_ns = 600 * NS_PER_S;
	o->grace_ns = 1 * NS_PER_S;
	o->head_cap = 64 * 1024;
	o->tail_cap = 256 * 1024;
	o->until_text = xstrdup("");
	pressure_opts_init(&o->pressure);
	o->diag = (struct rundiag_opts)RUNDIAG_OPTS_INIT;
}

bool runopt_is_ours(int c)
{
	return c == 'n' || c == 'j' || c == 'o' || c == 'q' || (c >= OPT_TIME && c < OPT__END);
}

static struct regex *compile_opt(const char *opt, const char *pattern, int *rc)
{
	char err[160];
	struct regex *re = regex_new(pattern, REGEX_MULTILINE, err, sizeof(err));
	if (!re)
		*rc = cli_usage_error(NULL, "%s '%s' is not a valid regular expression: %s", opt, pattern, err);
	return re;
}

static int parse_until(struct run_opts *o, const char *v)
{
	free(o->until_text);
	o->until_text = xstrdup(v);
	if (!strcmp(v, "first-failure")) {
		o->until = UNTIL_FIRST_FAILURE;
		return 0;
	}
	if (!strncmp(v, "failures:", 9) && parse_u64(v + 9, 1, UINT64_MAX, &o->until_k) == 0) {
		o->until = UNTIL_FAILURES;
		return 0;
	}
	if (!strcmp(v, "confident")) {
		/* the rate comes from --reproducer (runopt_finish) */
		o->until = UNTIL_CONFIDENT;
		o->confident_rate = 0;
		return 0;
	}
	if (!strncmp(v, "confident:", 10)) {
		/* issue 6: a rate as 0.01 or 1% */
		char *end;
		errno = 0;
		double rate = strtod(v + 10, &end);
		if (end != v + 10 && *end == '%' && end[1] == '\0') {
			rate /= 100.0;
			end++;
		}
		if (end != v + 10 && !*end && !errno && rate > 0.0 && rate < 1.0) {
			o->until = UNTIL_CONFIDENT;
			o->confident_rate = rate;
			return 0;
		}
		return cli_usage_error(NULL, "--until '%s': the rate is not a fraction; expected "
				       "e.g. confident:0.01 or confident:1%%", v);
	}
	return cli_usage_error(NULL, "--until '%s' is not a stopping rule; expected "
			       "first-failure, failures:K or confident:RATE", v);
}

int runopt_parse(struct runopt *p, int c, const char *name, const char *arg)
{
	struct run_opts *o = &p->o;
	int rc = 0;
	uint64_t u;

	switch (c) {
	case 'n':
		if (parse_u64(arg, 1, UINT64_MAX, &o->runs) < 0)
			rc = cli_usage_error(NULL, "--runs '%s' is not a number of runs; "
					     "expected a positive integer", arg);
		break;
	case 'j':
		if (parse_u64(arg, 1, 4096, &u) < 0)
			rc = cli_usage_error(NULL, "--jobs '%s' is not a job count; "
					     "expected an integer from 1 to 4096", arg);
		o->jobs = (unsigned)u;
		p->jobs_set = true;
		break;
	case OPT_PRESSURE: {
		char why[512];
		if (pressure_option(&o->pressure, name, arg, why, sizeof(why)) < 0)
			rc = cli_usage_error(NULL, "%s", why);
		break;
	}
	case OPT_REPLAY:
		p->replay = arg;
		break;
	case OPT_SHARD:
		p->shard = arg;
		break;
	case OPT_REPRODUCER:
		p->reproducer_path = arg;
		break;
	case OPT_DIAG: {
		char why[256];
		if (rundiag_option(&o->diag, name, arg, why, sizeof(why)) < 0)
			rc = cli_usage_error(NULL, "%s", why);
		break;
	}
	case OPT_TIME:
		if (parse_duration_ns(arg, &o->time_ns) < 0 || o->time_ns == 0)
			rc = cli_usage_error(NULL, "--time '%s' is not a duration; expected e.g. 90s, 10m, 1h", arg);
		break;
	case OPT_TIMEOUT:
		if (parse_duration_ns(arg, &o->timeout_ns) < 0 || o->timeout_ns == 0)
			rc = cli_usage_error(NULL, "--timeout '%s' is not a duration; expected e.g. 30s, 10m", arg);
		break;
	case OPT_GRACE:
		if (parse_duration_ns(arg, &o->grace_ns) < 0)
			rc = cli_usage_error(NULL, "--grace '%s' is not a duration; expected e.g. 500ms, 2s", arg);
		break;
	case OPT_UNTIL:
		rc = parse_until(o, arg);
		break;
	case OPT_FAIL_ON:
		regex_free(o->fail_on);
		o->fail_on = compile_opt("--fail-on", arg, &rc);
		break;
	case OPT_IGNORE:
		regex_free(o->ignore);
		o->ignore = compile_opt("--ignore", arg, &rc);
		break;
	case OPT_SIGNATURE:
		regex_free(o->sig_re);
		o->sig_re = compile_opt("--signature", arg, &rc);
		break;
	case 'o':
		p->out = arg;
		break;
	case OPT_SEED:
		if (parse_seed(arg, &o->seed) < 0)
			rc = cli_usage_error(NULL, "--seed '%s' is not a seed; "
					     "expected a decimal or 0x hex integer", arg);
		p->seed_set = true;
		break;
	case OPT_HEAD:
	case OPT_TAIL:
		if (parse_size(arg, &u) < 0 || u > (1u << 30))
			rc = cli_usage_error(NULL, "--%s '%s' is not a size; expected "
					     "e.g. 64K, 1M (at most 1G)",
					     c == OPT_HEAD ? "head" : "tail", arg);
		else if (c == OPT_HEAD)
			o->head_cap = (size_t)u;
		else
			o->tail_cap = (size_t)u;
		break;
	case OPT_MATRIX: {
		char err[512];
		if (!o->matrix) {
			o->matrix = xmalloc(sizeof(*o->matrix));
			*o->matrix = (struct matrix)MATRIX_INIT;
		}
		if (matrix_add(o->matrix, arg, err, sizeof(err)) < 0)
			rc = cli_usage_error(NULL, "%s", err);
		break;
	}
	case OPT_TIMEOUT_STRICT:
		o->timeout_strict = true;
		break;
	case OPT_NO_STALL_CHECK:
		o->no_stall_check = true;
		break;
	case OPT_NO_REPORT:
		o->no_report = true;
		break;
	case 'q':
		o->quiet = true;
		break;
	default:
		rc = cli_usage_error(NULL, "internal error: option code %d is not one of run's", c);
		break;
	}
	return rc;
}

int runopt_command(struct runopt *p, const char *cmd, const char *synopsis, int argc, char **argv)
{
	if (optind < 2 || strcmp(argv[optind - 1], "--") != 0)
		return cli_usage_error(NULL, "missing '--' before the command: %s", synopsis);
	if (optind >= argc)
		return cli_usage_error(cmd, "no command given after '--'");
	p->o.argv = argv + optind;
	return 0;
}

int runopt_resolve(struct runopt *p)
{
	free(p->o.path);
	p->o.path = spawn_resolve(p->o.argv[0]);
	if (!p->o.path)
		return cli_usage_error(NULL, errno == EACCES ? "command '%s' is not executable" :
				       strchr(p->o.argv[0], '/') ? "command '%s' not found" :
				       "command '%s' not found (checked PATH)", p->o.argv[0]);
	return 0;
}

/* The shard of the series (issue 17, plan.h): --shard, else JOSTLE_SHARD. */
static int shard_resolve(struct runopt *p)
{
	char why[256];
	const char *spec = p->shard;
	const char *env = getenv("JOSTLE_SHARD");
	if (!spec && p->shard_env && env && *env)
		spec = "auto";   /* JOSTLE_SHARD=K/N: as --shard K/N */
	if (!spec)
		return 0;
	if (plan_shard_from(spec, getenv, &p->o.shard, why, sizeof(why)) < 0)
		return cli_usage_error(NULL, "--shard %s", why);
	if (!p->seed_set)
		return cli_usage_error(NULL, "--shard %" PRIu64 "/%" PRIu64 " needs --seed S: every "
				       "shard of a series must have the same master seed",
				       p->o.shard.index, p->o.shard.count);
	if (p->replay)
		return cli_usage_error(NULL, "--shard and --replay cannot be combined; "
				       "replay a run without --shard");
	return 0;
}

/* --reproducer FILE (issue 44, reproduce/reproducer.h): its condition for
 * every run, each with its own seed; the sites attached once the results
 * folder exists (runopt_prepare_out). `--until confident` without a rate
 * takes the reproducer's: 0 failures in that many runs put the rate below
 * half the lower bound of the rate it measured. */
static int reproducer_load(struct runopt *p)
{
	struct run_opts *o = &p->o;
	char why[768];

	if (o->until == UNTIL_CONFIDENT && o->confident_rate <= 0 && !p->reproducer_path)
		return cli_usage_error(NULL, "--until confident needs a rate (confident:RATE, e.g. "
				       "confident:1%%) unless --reproducer gives one");
	if (!p->reproducer_path)
		return 0;
	if (p->replay || o->pressure.chaos_set || o->matrix || p->shard)
		return cli_usage_error(NULL, "--reproducer sets the condition of every run: it cannot be "
				       "combined with %s", p->replay ? "--replay" : o->pressure.chaos_set ?
				       "--chaos" : o->matrix ? "--matrix" : "--shard");
	p->repro = xcalloc(1, sizeof(*p->repro));
	if (reproducer_read(p->repro, p->reproducer_path, why, sizeof(why)) < 0 ||
	    reproducer_apply(p->repro, &o->pressure, &o->jobs, p->jobs_set, why, sizeof(why)) < 0)
		return cli_usage_error(NULL, "%s", why);
	if (o->until == UNTIL_CONFIDENT && o->confident_rate <= 0) {
		if (!(p->repro->lo > 0))
			return cli_usage_error(NULL, "--until confident: the reproducer '%s' states no "
					       "failure rate; give one (confident:RATE)", p->reproducer_path);
		/* half the lower bound: the proof holds against a before
		 * series that fails less often than the reproducer measured */
		o->confident_rate = p->repro->lo / 2;
	}
	if (!o->runs && !o->time_ns && o->until == UNTIL_NONE)
		o->runs = 20;
	return 0;
}

int runopt_finish(struct runopt *p)
{
	struct run_opts *o = &p->o;
	int rc = 0;

	rc = reproducer_load(p);
	if (rc)
		return rc;
	if (p->replay) {
		/* pressure.h / replay.h: the recorded configuration, seed and jobs */
		char why[768];
		unsigned rjobs = 0;
		if (replay_load(&o->pressure, p->replay, &rjobs, why, sizeof(why)) < 0)
			return cli_usage_error(NULL, "%s", why);
		if (!p->jobs_set && rjobs)
			o->jobs = rjobs;
		if (!o->runs && !o->time_ns)
			o->runs = 10;
	}
	o->pressure.timeout_ns = o->timeout_ns;
	o->jobs = pressure_jobs(&o->pressure, o->jobs, p->jobs_set);
	rc = shard_resolve(p);
	if (rc)
		return rc;
	char fdwhy[256];
	if (fdlimit_fit(&o->fdlimit, &o->jobs, fdwhy, sizeof(fdwhy)) > 0)
		fprintf(stderr, "jostle: warning: %s\n", fdwhy);
	if (!p->seed_set && getrandom(&o->seed, sizeof(o->seed), 0) != (ssize_t)sizeof(o->seed))
		o->seed = (uint64_t)clock_real_ns() ^ (uint64_t)getpid();
	if (o->matrix) {
		/* a cell named cpus=4 that ran on 2 CPUs would compare nothing */
		unsigned most = 0;
		for (size_t cell = 0; cell < o->matrix->cells; cell++)
			if (matrix_cpus(o->matrix, cell) > most)
				most = matrix_cpus(o->matrix, cell);
		struct cpuset avail;
		if (most && cpuset_available(&avail) == 0 && most > (unsigned)avail.n)
			return cli_usage_error(NULL, "--matrix cpus=%u: only %d CPU%s available to "
					       "jostle; use at most cpus=%d", most, avail.n,
					       avail.n == 1 ? " is" : "s are", avail.n);
	}
	if (o->matrix && matrix_cpus(o->matrix, 0) && (o->pressure.any || p->replay))
		return cli_usage_error(NULL, "--matrix cpus=... cannot be combined with --cpus, "
				       "--cpu-quota, --noise, --chaos or --replay yet; use an "
				       "environment axis, or --cpus for the series");
	if (o->until == UNTIL_CONFIDENT) {
		/* Zero failures bound the rate by 1 - 0.05^(1/n), a function of n
		 * alone: plan exactly the runs that reach RATE (docs/reports.md,
		 * "Stopping when confident"); a shard plans its share of them, so
		 * that the merged shards are that series. */
		uint64_t need = finish_confident_runs(o->confident_rate);
		uint64_t share = plan_shard_share(&o->shard, need);
		if (!share)
			return cli_usage_error(NULL, "--until %s needs %" PRIu64 " runs in all: fewer "
					       "than the %" PRIu64 " shards; use fewer shards",
					       o->until_text, need, o->shard.count);
		if (!o->runs || o->runs > share)
			o->runs = share;
		else
			fprintf(stderr, "jostle: warning: --runs %" PRIu64 " is fewer than the %" PRIu64
				" clean runs --until %s needs%s\n", o->runs, share, o->until_text,
				o->shard.count ? " of this shard" : "");
	}
	if (rc == 0) {
		/* everything checked before anything is created (issue 19) */
		char why[768];
		if (pressure_check(&o->pressure, o->jobs, o->seed, why, sizeof(why)) < 0)
			rc = cli_usage_error(NULL, "%s", why);
	}
	return rc;
}

static bool dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return false;
	struct dirent *e;
	bool empty = true;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

int runopt_prepare_out(struct runopt *p)
{
	struct run_opts *o = &p->o;
	char *dir;
	if (p->out) {
		dir = xstrdup(p->out);
	} else {
		char stamp[32];
		clock_stamp(clock_real_ns(), stamp, sizeof(stamp));
		dir = xasprintf("jostle-out/%s", stamp);
		for (int k = 2; access(dir, F_OK) == 0 && k < 1000; k++) {
			free(dir);
			dir = xasprintf("jostle-out/%s-%d", stamp, k);
		}
	}
	int rc = path_mkdirs(dir);
	if (rc < 0) {
		int st = cli_usage_error(NULL, "--out '%s' cannot be created: %s", dir, strerror(-rc));
		free(dir);
		return st;
	}
	if (access(dir, W_OK) < 0) {
		int st = cli_usage_error(NULL, "--out '%s' is not writable: %s", dir, strerror(errno));
		free(dir);
		return st;
	}
	char *runs = xasprintf("%s/runs.jsonl", dir);
	struct stat st;
	int have_runs = stat(runs, &st) == 0;
	int exists = have_runs && st.st_size > 0;
	free(runs);
	if (exists) {
		int s = cli_usage_error(NULL, "--out '%s' already holds results; choose another "
					"directory or remove it", dir);
		free(dir);
		return s;
	}
	/* a folder of the user's own (notes, a report.md) is never written over */
	if (!have_runs && !dir_is_empty(dir)) {
		int s = cli_usage_error(NULL, "--out '%s' is not empty and holds no runs.jsonl; "
					"jostle would write report.md, summary.json and logs/ "
					"there: choose a new or empty directory", dir);
		free(dir);
		return s;
	}
	free(o->out_dir);
	o->out_dir = realpath(dir, NULL);
	free(dir);
	if (!o->out_dir)
		return cli_usage_error(NULL, "--out: cannot resolve the results directory: %s", strerror(errno));
	if (p->repro) {
		char why[768];
		long um = reproducer_attach(p->repro, o, why, sizeof(why));
		if (um < 0)
			return cli_usage_error(NULL, "%s", why);
	}
	return 0;
}

void runopt_release(struct runopt *p)
{
	struct run_opts *o = &p->o;

	free(o->path);
	free(o->until_text);
	free(o->out_dir);
	regex_free(o->fail_on);
	regex_free(o->ignore);
	regex_free(o->sig_re);
	runtests_opts_release(&o->tests);
	if (p->repro) {
		reproducer_release(p->repro);
		free(p->repro);
	}
	if (o->matrix) {
		matrix_release(o->matrix);
		free(o->matrix);
	}
	memset(p, 0, sizeof(*p));
}

/* Whether arg is "--NAME=VALUE" for an option NAME that takes no value
 * (getopt reports it as unknown). */
static bool takes_no_value(const struct option *opts, const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (strncmp(arg, "--", 2) != 0 || !eq)
		return false;
	for (; opts->name; opts++)
		if (opts->has_arg == no_argument && strlen(opts->name) == (size_t)(eq - arg - 2) &&
		    !strncmp(opts->name, arg + 2, (size_t)(eq - arg - 2)))
			return true;
	return false;
}

int runopt_getopt(struct runopt *p, const char *cmd, const struct option *opts, int argc, char **argv,
		  const struct runopt_hooks *hooks, bool *help)
{
	int rc = 0, c, li;

	*help = false;
	optind = 0;   /* glibc: start afresh (a command may parse twice) */
	opterr = 0;
	while (rc == 0 && (li = -1, c = getopt_long(argc, argv, "+:" RUNOPT_SHORT "h", opts, &li)) != -1) {
		const char *name = li >= 0 ? opts[li].name : NULL;
		if (runopt_is_ours(c)) {
			/* -n is --runs to the hook: it judges options, not spellings */
			const char *long_name = name;
			for (const struct option *o = opts; !long_name && o->name; o++)
				if (o->val == c)
					long_name = o->name;
			rc = hooks && hooks->refuse && long_name ? hooks->refuse(hooks->ctx, long_name) : 0;
			if (rc == 0)
				rc = runopt_parse(p, c, name, optarg);
		} else if (c == 'h') {
			*help = true;
			break;
		} else if (c == ':') {
			rc = cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		} else if (c != '?' && hooks && hooks->own) {
			rc = hooks->own(hooks->ctx, c, name, optarg);
		} else if (takes_no_value(opts, argv[optind - 1])) {
			rc = cli_usage_error(cmd, "option '%.*s' takes no value", (int)strcspn(argv[optind - 1], "="),
					     argv[optind - 1]);
		} else {
			rc = cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	return rc;
}

/* runopt_args' commands name their own options (runopt_cmd.own_opt). */
static int own_by_name(void *ctx, int code, const char *name, const char *arg)
{
	const struct runopt_cmd *cmd = ctx;

	if (code >= RUNOPT_CODE_END && name && cmd->own_opt)
		return cmd->own_opt(cmd->ctx, name, arg);
	return cli_usage_error(cmd->name, "unknown option '--%s'", name ? name : "?");
}

int runopt_args(struct runopt *p, const struct runopt_cmd *cmd, int argc, char **argv, bool *done)
{
	struct option *opts = runopt_table(cmd->own);
	const struct runopt_hooks hooks = { .own = own_by_name, .ctx = (void *)cmd };
	bool help;
	int rc;

	runopt_init(p);
	p->shard_env = cmd->shard_env;
	*done = true;
	rc = runopt_getopt(p, cmd->name, opts, argc, argv, &hooks, &help);
	if (rc == 0 && help) {
		fputs(cmd->usage, stdout);
		runopt_release(p);
		free(opts);
		return EXIT_OK;
	}
	free(opts);
	if (rc == 0)
		rc = runopt_command(p, cmd->name, cmd->synopsis, argc, argv);
	if (rc == 0)
		rc = runopt_resolve(p);
	if (rc == 0 && cmd->check)
		rc = cmd->check(cmd->ctx, p);
	if (rc == 0)
		rc = runopt_finish(p);
	if (rc == 0 && cmd->final_check)
		rc = cmd->final_check(cmd->ctx, p);
	if (rc == 0)
		rc = runopt_prepare_out(p);
	if (rc) {
		runopt_release(p);
		return rc;
	}
	*done = false;
	return 0;
}
