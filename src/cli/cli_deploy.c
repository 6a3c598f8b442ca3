/*
 * cli_deploy.c: what `jostle slurm` and `jostle k8s` share (see cli.h):
 * their own options are taken out of the arguments, everything else up to
 * "--" is `jostle run`'s, checked here by runopt.h's parser exactly as every
 * shard will parse it, so a typo fails now and not in N tasks an hour from
 * now. The command itself is not looked up: it may exist only on the nodes.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/runopt.h"
#include "deploy/deploy.h"
#include "run/series.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Index of a's option in opts: "--name", "--name=V" or "-c"/"-cV"; -1. */
static int own_index(const struct cli_own_opt *opts, const char *a, const char **inline_val)
{
	*inline_val = NULL;
	for (int i = 0; opts[i].name; i++) {
		size_t n = strlen(opts[i].name);
		if (a[0] == '-' && a[1] == '-' && !strncmp(a + 2, opts[i].name, n) &&
		    (a[2 + n] == '\0' || (a[2 + n] == '=' && opts[i].has_arg))) {
			*inline_val = a[2 + n] == '=' ? a + 3 + n : NULL;
			return i;
		}
		if (opts[i].short_name && a[0] == '-' && a[1] == opts[i].short_name &&
		    (a[2] == '\0' || opts[i].has_arg)) {
			*inline_val = a[2] ? a + 2 : NULL;
			return i;
		}
	}
	return -1;
}

/*
 * `jostle run`'s options in argv ("run", options, "--", command) parsed and
 * checked as `jostle run` does, but for the command's lookup; -o, --shard
 * and --replay refused (the job gives every shard its own). *help: -h was
 * given (nothing else checked). p is set up here; runopt_release() it.
 */
static int run_options(struct runopt *p, int argc, char **argv, const char *cmd, bool *help)
{
	static const struct option own[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option *opts = runopt_table(own);
	int rc;

	runopt_init(p);
	rc = runopt_getopt(p, cmd, opts, argc, argv, NULL, help);
	free(opts);
	if (rc || *help)
		return rc;
	if (p->out)
		return cli_usage_error(cmd, "jostle %s gives every shard its -o (ROOT/shard-K): "
				       "leave -o out of the run options", cmd);
	if (p->shard)
		return cli_usage_error(NULL, "jostle %s gives every shard its --shard: leave it out", cmd);
	if (p->replay)
		return cli_usage_error(NULL, "--replay cannot run as shards; replay a run with jostle run");
	char synopsis[96];
	snprintf(synopsis, sizeof(synopsis), "jostle %s [options] -- COMMAND [ARG...]", cmd);
	rc = runopt_command(p, cmd, synopsis, argc, argv);
	if (rc == 0)
		rc = runopt_finish(p);
	return rc;
}

int cli_deploy_parse(int argc, char **argv, const char *cmd, const struct cli_own_opt *opts,
		     struct strvec *values, struct cli_deploy *out)
{
	memset(out, 0, sizeof(*out));
	int name_opt = -1;
	for (int k = 0; opts[k].name; k++) {
		values[k] = (struct strvec)STRVEC_INIT;
		if (!strcmp(opts[k].name, "name"))
			name_opt = k;
	}
	struct strvec rargv = STRVEC_INIT;
	strvec_push(&rargv, "run");
	int i, dashdash = -1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val;
		if (!strcmp(a, "--")) {
			dashdash = i;
			break;
		}
		int k = own_index(opts, a, &val);
		if (k < 0) {
			strvec_push(&rargv, a);   /* a run option, or its value */
			continue;
		}
		if (opts[k].has_arg && !val) {
			if (i + 1 >= argc || !strcmp(argv[i + 1], "--")) {
				strvec_release(&rargv);
				return cli_usage_error(cmd, "option '%s' needs a value", a);
			}
			val = argv[++i];
		}
		strvec_push(&values[k], val ? val : "");
		if (!strcmp(opts[k].name, "help")) {
			strvec_release(&rargv);
			out->help = true;
			return 0;
		}
	}
	if (dashdash < 0) {
		strvec_release(&rargv);
		return cli_usage_error(NULL, "missing '--' before the command: jostle %s [options] "
				       "-- COMMAND [ARG...]", cmd);
	}
	size_t nopts = rargv.nr - 1;
	for (int j = dashdash; j < argc; j++)
		strvec_push(&rargv, argv[j]);
	struct runopt p;
	int rc = run_options(&p, (int)rargv.nr, rargv.v, cmd, &out->help);
	if (rc == 0 && !out->help) {
		for (size_t j = 1; j <= nopts; j++)
			strvec_push(&out->run_args, rargv.v[j]);
		/* every shard must have the same master seed: fix one now */
		if (!p.seed_set)
			strvec_pushf(&out->run_args, "--seed=0x%016" PRIx64, p.o.seed);
		out->seed = p.o.seed;
		out->command = argv + dashdash + 1;
		snprintf(out->name, sizeof(out->name), "jostle-%08" PRIx64, p.o.seed & 0xffffffffu);
		const char *given = name_opt >= 0 && values[name_opt].nr ?
				    values[name_opt].v[values[name_opt].nr - 1] : NULL;
		const char *bad = deploy_name_check(given ? given : out->name);
		if (bad)
			rc = cli_usage_error(NULL, "--name '%s' is not a job name: %s", given, bad);
		else if (given)
			snprintf(out->name, sizeof(out->name), "%s", given);
	}
	runopt_release(&p);
	strvec_release(&rargv);
	return rc;
}

void cli_deploy_release(struct cli_deploy *d, const struct cli_own_opt *opts, struct strvec *values)
{
	for (int k = 0; opts[k].name; k++)
		strvec_release(&values[k]);
	strvec_release(&d->run_args);
}
