/*
 * cli_run.c: `jostle run`: parse and check every option, then hand a
 * complete struct run_opts to the engine (series.c). Every malformed value
 * is one line naming the option and what is expected, exit 2, before
 * anything runs.
 */
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
#include "results/finish.h"
#include "run/machine.h"
#include "run/matrix.h"
#include "run/replay.h"
#include "run/series.h"
#include "util/clock.h"
#include "util/parse.h"
#include "util/regex.h"
#include "util/spawn.h"
#include "util/xalloc.h"
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
"                         (confident: stop when 0 failures bound the rate below\n"
"                         RATE with 95% confidence, e.g. 0.01 or 1%, or at a failure)\n"
"  -j, --jobs N           concurrent runs (default: online CPUs)\n"
"      --timeout DUR      per-run limit; a run past it is a hang (default 10m)\n"
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
"  -q, --quiet            no progress line\n"
"  -h, --help             this help\n"
"Pressure and chaos (any of them without --chaos means --chaos auto):\n"
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
"      --sanitizer-symbolize  let sanitizers name their report's frames (~0.2 s\n"
"                         a report); by default they print module+offset and\n"
"                         jostle names them, cached across runs\n"
"\n"
"Children get JOSTLE_RUN (0-based index), JOSTLE_SEED and JOSTLE_OUT, stdin\n"
"from /dev/null; COMMAND is executed directly, never through a shell.\n"
"Exit status: 0 no failure, 1 failures, 2 usage or start error, 3 internal\n"
"error, 130 interrupted.\n";

enum {
	OPT_TIME = 256, OPT_UNTIL, OPT_TIMEOUT, OPT_GRACE, OPT_FAIL_ON, OPT_IGNORE,
	OPT_SIGNATURE, OPT_SEED, OPT_HEAD, OPT_TAIL,
	OPT_PRESSURE, OPT_REPLAY,   /* pressure.h options, by name */
	OPT_MATRIX, OPT_NO_REPORT,   /* issue 6 */
	OPT_DIAG,                   /* rundiag.h options, by name */
};

static const struct option long_opts[] = {
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
	{ "diag-window", required_argument, NULL, OPT_DIAG },
	{ "no-diag", no_argument, NULL, OPT_DIAG },
	{ "core", no_argument, NULL, OPT_DIAG },
	{ "keep-cores", no_argument, NULL, OPT_DIAG },
	{ "no-crash-handler", no_argument, NULL, OPT_DIAG },
	{ "sanitizer-symbolize", no_argument, NULL, OPT_DIAG },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

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

static int mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	int rc = 0;
	for (char *s = p + 1; ; s++) {
		if (*s == '/' || !*s) {
			char c = *s;
			*s = '\0';
			if (mkdir(p, 0755) < 0 && errno != EEXIST) {
				rc = -errno;
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return rc;
}

/* Make the results directory; returns 0 or an exit status. */
static int prepare_out(struct run_opts *o, const char *given)
{
	char *dir;
	if (given) {
		dir = xstrdup(given);
	} else {
		char stamp[32];
		clock_stamp(clock_real_ns(), stamp, sizeof(stamp));
		dir = xasprintf("jostle-out/%s", stamp);
		for (int k = 2; access(dir, F_OK) == 0 && k < 1000; k++) {
			free(dir);
			dir = xasprintf("jostle-out/%s-%d", stamp, k);
		}
	}
	int rc = mkdir_p(dir);
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
	int exists = stat(runs, &st) == 0 && st.st_size > 0;
	free(runs);
	if (exists) {
		int s = cli_usage_error(NULL, "--out '%s' already holds results; choose another "
					"directory or remove it", dir);
		free(dir);
		return s;
	}
	o->out_dir = realpath(dir, NULL);
	free(dir);
	if (!o->out_dir)
		return cli_usage_error(NULL, "--out: cannot resolve the results directory: %s", strerror(errno));
	return 0;
}

static void opts_release(struct run_opts *o)
{
	free(o->path);
	free(o->until_text);
	free(o->out_dir);
	regex_free(o->fail_on);
	regex_free(o->ignore);
	regex_free(o->sig_re);
	if (o->matrix) {
		matrix_release(o->matrix);
		free(o->matrix);
	}
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o;
	memset(&o, 0, sizeof(o));
	o.jobs = machine_cpus();
	o.timeout_ns = 600 * NS_PER_S;
	o.grace_ns = 1 * NS_PER_S;
	o.head_cap = 64 * 1024;
	o.tail_cap = 256 * 1024;
	o.until_text = xstrdup("");
	const char *out = NULL;
	bool seed_set = false, jobs_set = false;
	const char *replay = NULL;
	int li = -1;
	pressure_opts_init(&o.pressure);
	o.diag = (struct rundiag_opts)RUNDIAG_OPTS_INIT;
	int rc = 0, c;
	uint64_t u;
	optind = 1;
	opterr = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, "+:n:j:o:qh", long_opts, &li)) != -1) {
		switch (c) {
		case 'n':
			if (parse_u64(optarg, 1, UINT64_MAX, &o.runs) < 0)
				rc = cli_usage_error(NULL, "--runs '%s' is not a number of runs; "
						     "expected a positive integer", optarg);
			break;
		case 'j':
			if (parse_u64(optarg, 1, 4096, &u) < 0)
				rc = cli_usage_error(NULL, "--jobs '%s' is not a job count; "
						     "expected an integer from 1 to 4096", optarg);
			o.jobs = (unsigned)u;
			jobs_set = true;
			break;
		case OPT_PRESSURE: {
			char why[512];
			if (pressure_option(&o.pressure, long_opts[li].name, optarg, why, sizeof(why)) < 0)
				rc = cli_usage_error(NULL, "%s", why);
			break;
		}
		case OPT_REPLAY:
			replay = optarg;
			break;
		case OPT_DIAG: {
			char why[256];
			if (rundiag_option(&o.diag, long_opts[li].name, optarg, why, sizeof(why)) < 0)
				rc = cli_usage_error(NULL, "%s", why);
			break;
		}
		case OPT_TIME:
			if (parse_duration_ns(optarg, &o.time_ns) < 0 || o.time_ns == 0)
				rc = cli_usage_error(NULL, "--time '%s' is not a duration; expected e.g. 90s, 10m, 1h", optarg);
			break;
		case OPT_TIMEOUT:
			if (parse_duration_ns(optarg, &o.timeout_ns) < 0 || o.timeout_ns == 0)
				rc = cli_usage_error(NULL, "--timeout '%s' is not a duration; expected e.g. 30s, 10m", optarg);
			break;
		case OPT_GRACE:
			if (parse_duration_ns(optarg, &o.grace_ns) < 0)
				rc = cli_usage_error(NULL, "--grace '%s' is not a duration; expected e.g. 500ms, 2s", optarg);
			break;
		case OPT_UNTIL:
			rc = parse_until(&o, optarg);
			break;
		case OPT_FAIL_ON:
			regex_free(o.fail_on);
			o.fail_on = compile_opt("--fail-on", optarg, &rc);
			break;
		case OPT_IGNORE:
			regex_free(o.ignore);
			o.ignore = compile_opt("--ignore", optarg, &rc);
			break;
		case OPT_SIGNATURE:
			regex_free(o.sig_re);
			o.sig_re = compile_opt("--signature", optarg, &rc);
			break;
		case 'o':
			out = optarg;
			break;
		case OPT_SEED:
			if (parse_seed(optarg, &o.seed) < 0)
				rc = cli_usage_error(NULL, "--seed '%s' is not a seed; "
						     "expected a decimal or 0x hex integer", optarg);
			seed_set = true;
			break;
		case OPT_HEAD:
		case OPT_TAIL:
			if (parse_size(optarg, &u) < 0 || u > (1u << 30))
				rc = cli_usage_error(NULL, "--%s '%s' is not a size; expected "
						     "e.g. 64K, 1M (at most 1G)",
						     c == OPT_HEAD ? "head" : "tail", optarg);
			else if (c == OPT_HEAD)
				o.head_cap = (size_t)u;
			else
				o.tail_cap = (size_t)u;
			break;
		case OPT_MATRIX: {
			char err[512];
			if (!o.matrix) {
				o.matrix = xmalloc(sizeof(*o.matrix));
				*o.matrix = (struct matrix)MATRIX_INIT;
			}
			if (matrix_add(o.matrix, optarg, err, sizeof(err)) < 0)
				rc = cli_usage_error(NULL, "%s", err);
			break;
		}
		case OPT_NO_REPORT:
			o.no_report = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			opts_release(&o);
			return EXIT_OK;
		case ':':
			rc = cli_usage_error("run", "option '%s' needs a value", argv[optind - 1]);
			break;
		default:
			rc = cli_usage_error("run", "unknown option '%s'", argv[optind - 1]);
			break;
		}
	}
	if (rc == 0 && (optind < 2 || strcmp(argv[optind - 1], "--") != 0))
		rc = cli_usage_error(NULL, "missing '--' before the command: "
				     "jostle run [options] -- COMMAND [ARG...]");
	if (rc == 0 && optind >= argc)
		rc = cli_usage_error("run", "no command given after '--'");
	if (rc == 0) {
		o.argv = argv + optind;
		o.path = spawn_resolve(o.argv[0]);
		if (!o.path)
			rc = cli_usage_error(NULL, errno == EACCES ? "command '%s' is not executable" :
					     "command '%s' not found (checked PATH)", o.argv[0]);
	}
	if (rc == 0 && replay) {
		/* pressure.h / replay.h: the recorded configuration, seed and jobs */
		char why[768];
		unsigned rjobs = 0;
		if (replay_load(&o.pressure, replay, &rjobs, why, sizeof(why)) < 0)
			rc = cli_usage_error(NULL, "%s", why);
		if (!jobs_set && rjobs)
			o.jobs = rjobs;
		if (!o.runs && !o.time_ns)
			o.runs = 10;
	}
	if (rc == 0)
		o.jobs = pressure_jobs(&o.pressure, o.jobs, jobs_set);
	if (rc == 0 && !seed_set && getrandom(&o.seed, sizeof(o.seed), 0) != (ssize_t)sizeof(o.seed))
		o.seed = (uint64_t)clock_real_ns() ^ (uint64_t)getpid();
	if (rc == 0 && o.matrix && matrix_cpus(o.matrix, 0) && (o.pressure.any || replay))
		rc = cli_usage_error(NULL, "--matrix cpus=... cannot be combined with --cpus, "
				     "--cpu-quota, --noise, --chaos or --replay yet; use an "
				     "environment axis, or --cpus for the series");
	if (rc == 0 && o.until == UNTIL_CONFIDENT) {
		/* Zero failures bound the rate by 1 - 0.05^(1/n), a function of n
		 * alone: plan exactly the runs that reach RATE (README, "Stopping
		 * when confident"). */
		uint64_t need = finish_confident_runs(o.confident_rate);
		if (!o.runs || o.runs > need)
			o.runs = need;
		else
			fprintf(stderr, "jostle: warning: --runs %" PRIu64 " is fewer than the %" PRIu64
				" clean runs --until %s needs\n", o.runs, need, o.until_text);
	}
	if (rc == 0)
		rc = prepare_out(&o, out);
	if (rc) {
		opts_release(&o);
		return rc;
	}
	if (!o.quiet)
		fprintf(stderr, "jostle: results in %s (seed 0x%016" PRIx64 ")\n", o.out_dir, o.seed);
	int status = series_run(&o);
	opts_release(&o);
	return status;
}
