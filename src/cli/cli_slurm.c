/*
 * cli_slurm.c: `jostle slurm --array N [options] [run options] -- COMMAND`:
 * a series as N shards of a Slurm job array, merged by a dependent job
 * (scripts from deploy/deploy.h). Writes the two sbatch scripts into the
 * results root and submits them, or prints them with --dry-run.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "deploy/deploy.h"
#include "util/clock.h"
#include "util/fileio.h"
#include "util/parse.h"
#include "util/path.h"
#include "util/spawn.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define SBATCH_TIMEOUT_MS 60000

static const char usage_text[] =
"usage: jostle slurm --array N [options] [run options] -- COMMAND [ARG...]\n"
"\n"
"Run one series as N shards of a Slurm job array (task K runs\n"
"'jostle run --shard K/N'), then merge them in a job that depends on the\n"
"array (afterany): ROOT/merged holds the series' summary and reports.\n"
"\n"
"  --array N          number of shards: array tasks 0 to N-1\n"
"  -o, --out ROOT     results root, on storage every node sees (default\n"
"                     jostle-out/slurm-<UTC time>/); must not exist or be empty.\n"
"                     Shards in ROOT/shard-K, logs in ROOT/slurm/\n"
"  --name NAME        job name (default jostle-<seed>)\n"
"  --sbatch OPT       an sbatch option for both jobs, repeatable:\n"
"                     --sbatch=--partition=gpu --sbatch=--time=2:00:00\n"
"  --jostle PATH      jostle on the nodes (default: this jostle, by absolute path)\n"
"  --dry-run          print the scripts and the commands; submit nothing\n"
"  -h, --help         this help\n"
"\n"
"Run options are those of 'jostle run' (-n, --time, --until count per shard);\n"
"without --seed one is drawn, so that every shard has the same master seed.\n"
"A task exits 0 when jostle found failures: they are in the merged report.\n";

enum { O_ARRAY, O_OUT, O_NAME, O_SBATCH, O_JOSTLE, O_DRY, O_HELP, O__N };
static const struct cli_own_opt opts[] = {
	[O_ARRAY] = { "array", 0, true },
	[O_OUT] = { "out", 'o', true },
	[O_NAME] = { "name", 0, true },
	[O_SBATCH] = { "sbatch", 0, true },
	[O_JOSTLE] = { "jostle", 0, true },
	[O_DRY] = { "dry-run", 0, false },
	[O_HELP] = { "help", 'h', false },
	{ NULL, 0, false },
};

static const char *last(const struct strvec *v)
{
	return v->nr ? v->v[v->nr - 1] : NULL;
}

/* The results root, absolute: a path sbatch's #SBATCH lines carry as is. */
static char *root_of(const char *given)
{
	char cwd[PATH_MAX], stamp[32];
	char *rel;
	if (given) {
		rel = xstrdup(given);
	} else {
		clock_stamp(clock_real_ns(), stamp, sizeof(stamp));
		rel = xasprintf("jostle-out/slurm-%s", stamp);
	}
	if (rel[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return rel;
	char *abs = path_join(cwd, rel);
	free(rel);
	return abs;
}

static bool dir_in_use(const char *path)
{
	char *runs = path_join(path, "shard-0");
	char *merged = path_join(path, "merged");
	bool used = access(runs, F_OK) == 0 || access(merged, F_OK) == 0;
	free(runs);
	free(merged);
	return used;
}

/* sbatch --parsable ARGS...: the job id, or 0 with sbatch's words on stderr. */
static uint64_t sbatch(const char *dep, const char *script)
{
	char *argv[5];
	int n = 0, status = 0;
	argv[n++] = (char *)"sbatch";
	argv[n++] = (char *)"--parsable";
	if (dep)
		argv[n++] = (char *)dep;
	argv[n++] = (char *)script;
	argv[n] = NULL;
	struct dbuf out;
	dbuf_init(&out, 1 << 16);
	int rc = spawn_capture(argv, &out, SBATCH_TIMEOUT_MS, &status);
	uint64_t id = 0;
	char idtext[32] = "";
	sscanf(dbuf_str(&out), "%31[0-9]", idtext);
	if (rc < 0)
		fprintf(stderr, "jostle: slurm: cannot run sbatch: %s%s\n", strerror(-rc),
			rc == -ENOENT ? " (not on PATH: run on a Slurm login node, or use --dry-run)" : "");
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || parse_u64(idtext, 1, UINT64_MAX, &id) < 0)
		fprintf(stderr, "jostle: slurm: sbatch %s failed: %s\n", script, dbuf_str(&out));
	dbuf_release(&out);
	return rc < 0 ? 0 : id;
}

static int write_script(const char *path, const struct dbuf *b)
{
	int rc = fileio_write_file(path, dbuf_str(b), b->len);
	if (rc == 0 && chmod(path, 0755) < 0)
		rc = -errno;
	if (rc < 0)
		fprintf(stderr, "jostle: slurm: cannot write '%s': %s\n", path, strerror(-rc));
	return rc;
}

static int submit(const struct deploy_plan *p, const struct dbuf *shards, const struct dbuf *merge)
{
	char *logs = path_join(p->root, "slurm");
	char *sfile = xasprintf("%s/%s-shards.sbatch", p->root, p->name);
	char *mfile = xasprintf("%s/%s-merge.sbatch", p->root, p->name);
	int st = EXIT_USAGE;
	int rc = path_mkdirs(logs);
	if (rc < 0) {
		fprintf(stderr, "jostle: slurm: cannot create '%s': %s\n", logs, strerror(-rc));
		goto out;
	}
	if (write_script(sfile, shards) < 0 || write_script(mfile, merge) < 0)
		goto out;
	uint64_t jid = sbatch(NULL, sfile);
	if (!jid)
		goto out;
	char dep[64];
	snprintf(dep, sizeof(dep), "--dependency=afterany:%" PRIu64, jid);
	uint64_t mid = sbatch(dep, mfile);
	if (!mid) {
		fprintf(stderr, "jostle: slurm: the shards run as job %" PRIu64 " but the merge was not "
			"submitted; once they end: sbatch %s\n", jid, mfile);
		st = EXIT_INTERNAL;
		goto out;
	}
	printf("jostle: %" PRIu64 " shards submitted as job array %" PRIu64 ", the merge as job %"
	       PRIu64 " (after all of them)\n", p->shards, jid, mid);
	printf("jostle: results in %s/merged when job %" PRIu64 " has ended (squeue -j %" PRIu64
	       ",%" PRIu64 "; logs in %s)\n", p->root, mid, jid, mid, logs);
	st = EXIT_OK;
out:
	free(logs);
	free(sfile);
	free(mfile);
	return st;
}

int cmd_slurm(int argc, char **argv)
{
	struct strvec v[O__N];
	struct cli_deploy d;
	struct deploy_plan p;
	memset(&p, 0, sizeof(p));
	char *root = NULL, self[PATH_MAX];
	uint64_t n = 0;
	int rc = cli_deploy_parse(argc, argv, "slurm", opts, v, &d);
	if (rc == 0 && d.help) {
		fputs(usage_text, stdout);
		goto out;
	}
	if (rc == 0 && !v[O_ARRAY].nr)
		rc = cli_usage_error("slurm", "jostle slurm needs --array N, the number of shards");
	if (rc == 0 && parse_u64(last(&v[O_ARRAY]), 1, 1000000, &n) < 0)
		rc = cli_usage_error(NULL, "--array '%s' is not a number of shards; expected an "
				     "integer from 1 to 1000000 (tasks 0 to N-1)", last(&v[O_ARRAY]));
	if (rc == 0) {
		root = root_of(last(&v[O_OUT]));
		if (strpbrk(root, " \t\n%'\"\\"))
			rc = cli_usage_error(NULL, "--out '%s': a results root for Slurm must not hold "
					     "spaces, quotes, backslashes or '%%'", root);
		else if (dir_in_use(root))
			rc = cli_usage_error(NULL, "--out '%s' already holds shards or a merge; choose "
					     "a new results root", root);
	}
	for (size_t i = 0; rc == 0 && i < v[O_SBATCH].nr; i++) {
		const char *o = v[O_SBATCH].v[i];
		if (!strncmp(o, "--array", 7) || !strncmp(o, "-a", 2) || !strncmp(o, "--output", 8) ||
		    !strncmp(o, "--job-name", 10) || !strncmp(o, "-J", 2) || !strncmp(o, "-o", 2))
			rc = cli_usage_error(NULL, "--sbatch '%s': jostle slurm sets the array, the job "
					     "name and the output itself (--array, --name, --out)", o);
	}
	if (rc)
		goto out;
	const char *name = d.name;
	p.name = name;
	p.root = root;
	p.shards = n;
	p.run_args = d.run_args;
	p.command = d.command;
	p.jostle = last(&v[O_JOSTLE]);
	if (!p.jostle) {
		ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		self[len > 0 ? len : 0] = '\0';
		p.jostle = len > 0 ? self : "jostle";
	}
	struct deploy_slurm s = { .sbatch = &v[O_SBATCH] };
	struct dbuf shards, merge;
	dbuf_init(&shards, 1 << 20);
	dbuf_init(&merge, 1 << 20);
	deploy_slurm_shards(&shards, &p, &s);
	deploy_slurm_merge(&merge, &p, &s);
	if (v[O_DRY].nr) {
		printf("# %s/%s-shards.sbatch\n%s\n# %s/%s-merge.sbatch\n%s\n"
		       "# submit:\n#   mkdir -p %s/slurm\n"
		       "#   jid=$(sbatch --parsable %s/%s-shards.sbatch)\n"
		       "#   sbatch --dependency=afterany:$jid %s/%s-merge.sbatch\n",
		       root, name, dbuf_str(&shards), root, name, dbuf_str(&merge), root, root, name,
		       root, name);
	} else {
		rc = submit(&p, &shards, &merge);
	}
	dbuf_release(&shards);
	dbuf_release(&merge);
out:
	cli_deploy_release(&d, opts, v);
	free(root);
	return rc;
}
