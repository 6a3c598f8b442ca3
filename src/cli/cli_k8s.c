/*
 * cli_k8s.c: `jostle k8s --completions N --image IMAGE [options] [run
 * options] -- COMMAND`: a series as a Kubernetes Indexed Job of N shards
 * and a merge Job (deploy/deploy.h). --dry-run prints the manifest;
 * without it the manifest is written to a file and given to
 * `kubectl apply -f`.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "deploy/deploy.h"
#include "util/fileio.h"
#include "util/parse.h"
#include "util/spawn.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define KUBECTL_TIMEOUT_MS 120000

static const char usage_text[] =
"usage: jostle k8s --completions N --image IMAGE [options] [run options] -- COMMAND [ARG...]\n"
"\n"
"Print (--dry-run) or apply a Kubernetes manifest that runs one series as N\n"
"shards: an Indexed Job (completionMode: Indexed; pod K runs\n"
"'jostle run --shard K/N'), and a merge Job created suspended, to resume\n"
"once the shards are done. Results on a volume claim every pod mounts.\n"
"\n"
"  --completions N    number of shards (completion indexes 0 to N-1)\n"
"  --parallelism P    pods at once (default N)\n"
"  --image IMAGE      a container image with jostle, sh and the command\n"
"  --name NAME        Job name (default jostle-<seed>); results in MOUNT/NAME/\n"
"  --claim PVC        PersistentVolumeClaim of the results, ReadWriteMany\n"
"                     (default jostle-results)\n"
"  --mount PATH       where the claim is mounted (default /results)\n"
"  --jostle PATH      jostle in the image (default jostle, on its PATH)\n"
"  --dry-run          print the manifest; apply nothing\n"
"  -h, --help         this help\n"
"\n"
"Run options are those of 'jostle run' (-n, --time, --until count per shard);\n"
"without --seed one is drawn, so that every shard has the same master seed.\n"
"A pod exits 0 when jostle found failures: they are in the merged report.\n";

enum { O_COMPLETIONS, O_PARALLELISM, O_IMAGE, O_NAME, O_CLAIM, O_MOUNT, O_JOSTLE, O_DRY,
       O_HELP, O__N };
static const struct cli_own_opt opts[] = {
	[O_COMPLETIONS] = { "completions", 0, true },
	[O_PARALLELISM] = { "parallelism", 0, true },
	[O_IMAGE] = { "image", 0, true },
	[O_NAME] = { "name", 0, true },
	[O_CLAIM] = { "claim", 0, true },
	[O_MOUNT] = { "mount", 0, true },
	[O_JOSTLE] = { "jostle", 0, true },
	[O_DRY] = { "dry-run", 0, false },
	[O_HELP] = { "help", 'h', false },
	{ NULL, 0, false },
};

static const char *last(const struct strvec *v, const char *dflt)
{
	return v->nr ? v->v[v->nr - 1] : dflt;
}

/* kubectl apply -f FILE, its words to stdout; an exit status. */
static int apply(const struct dbuf *manifest, const char *name)
{
	char path[] = "/tmp/jostle-k8s-XXXXXX.yaml";
	int fd = mkstemps(path, 5);
	if (fd < 0 || fileio_write_all(fd, dbuf_str(manifest), manifest->len) < 0) {
		fprintf(stderr, "jostle: k8s: cannot write the manifest to '%s': %s\n", path,
			strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return EXIT_INTERNAL;
	}
	close(fd);
	char *argv[] = { (char *)"kubectl", (char *)"apply", (char *)"-f", path, NULL };
	struct dbuf out;
	dbuf_init(&out, 1 << 16);
	int status = 0, st = EXIT_OK;
	int rc = spawn_capture(argv, &out, KUBECTL_TIMEOUT_MS, &status);
	unlink(path);
	fputs(dbuf_str(&out), stdout);
	if (rc < 0) {
		fprintf(stderr, "jostle: k8s: cannot run kubectl: %s%s\n", strerror(-rc),
			rc == -ENOENT ? " (not on PATH; print the manifest with --dry-run)" : "");
		st = EXIT_USAGE;
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "jostle: k8s: kubectl apply failed; see its words above\n");
		st = EXIT_USAGE;
	} else {
		printf("jostle: when job/%s is done: kubectl patch job %s-merge -p "
		       "'{\"spec\":{\"suspend\":false}}'\n", name, name);
	}
	dbuf_release(&out);
	return st;
}

int cmd_k8s(int argc, char **argv)
{
	struct strvec v[O__N];
	struct cli_deploy d;
	struct deploy_plan p;
	memset(&p, 0, sizeof(p));
	char *root = NULL;
	uint64_t n = 0, par = 0;
	int rc = cli_deploy_parse(argc, argv, "k8s", opts, v, &d);
	if (rc == 0 && d.help) {
		fputs(usage_text, stdout);
		goto out;
	}
	if (rc == 0 && !v[O_COMPLETIONS].nr)
		rc = cli_usage_error("k8s", "jostle k8s needs --completions N, the number of shards");
	if (rc == 0 && parse_u64(last(&v[O_COMPLETIONS], ""), 1, 100000, &n) < 0)
		rc = cli_usage_error(NULL, "--completions '%s' is not a number of shards; expected "
				     "an integer from 1 to 100000", last(&v[O_COMPLETIONS], ""));
	par = n;
	if (rc == 0 && v[O_PARALLELISM].nr &&
	    parse_u64(last(&v[O_PARALLELISM], ""), 1, n, &par) < 0)
		rc = cli_usage_error(NULL, "--parallelism '%s' is not a number of pods; expected "
				     "an integer from 1 to %" PRIu64, last(&v[O_PARALLELISM], ""), n);
	if (rc == 0 && !v[O_IMAGE].nr)
		rc = cli_usage_error("k8s", "jostle k8s needs --image IMAGE, a container image "
				     "with jostle and the command");
	const char *bad, *name = d.name;
	const char *mount = last(&v[O_MOUNT], "/results");
	if (rc == 0 && (mount[0] != '/' || strpbrk(mount, "\n")))
		rc = cli_usage_error(NULL, "--mount '%s' is not an absolute path", mount);
	const char *claim = last(&v[O_CLAIM], "jostle-results");
	if (rc == 0 && (bad = deploy_name_check(claim)))
		rc = cli_usage_error(NULL, "--claim '%s' is not a claim name: %s", claim, bad);
	if (rc)
		goto out;
	root = xasprintf("%s%s%s", mount, mount[strlen(mount) - 1] == '/' ? "" : "/", name);
	p.name = name;
	p.root = root;
	p.shards = n;
	p.run_args = d.run_args;
	p.command = d.command;
	p.jostle = last(&v[O_JOSTLE], "jostle");
	struct deploy_k8s k = {
		.image = last(&v[O_IMAGE], ""),
		.claim = claim,
		.mount = mount,
		.parallelism = par,
	};
	struct dbuf m;
	dbuf_init(&m, 1 << 20);
	deploy_k8s_manifest(&m, &p, &k);
	if (v[O_DRY].nr)
		fputs(dbuf_str(&m), stdout);
	else
		rc = apply(&m, name);
	dbuf_release(&m);
out:
	cli_deploy_release(&d, opts, v);
	free(root);
	return rc;
}
