/*
 * deploy.c: what every engine shares (see deploy.h): the job name and the
 * shell lines of a shard and of the merge step.
 *
 * Everything the user gave (paths, options, the command) is quoted for the
 * shell word by word (escape_shell), so a generated script runs exactly the
 * argv that `jostle slurm` or `jostle k8s` was given.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "deploy/deploy.h"
#include "util/escape.h"
#include "util/banned.h"

const char *deploy_name_check(const char *name)
{
	size_t n = strlen(name);
	if (n < 1 || n > 52)
		return "it must be 1 to 52 characters long";
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
		if (!alnum && c != '-')
			return "only lower-case letters, digits and '-' are allowed";
		if (!alnum && (i == 0 || i == n - 1))
			return "it must start and end with a letter or a digit";
	}
	return NULL;
}

/* ROOT/NAME as one shell word: ROOT quoted, then /NAME (safe characters). */
static void root_path(struct dbuf *b, const struct deploy_plan *p, const char *leaf)
{
	escape_shell(b, p->root);
	dbuf_addf(b, "/%s", leaf);
}

void deploy_shard_sh(struct dbuf *b, const struct deploy_plan *p, const char *index_var)
{
	dbuf_adds(b, "d=");
	root_path(b, p, "shard-");
	dbuf_addf(b, "\"$%s\"\n", index_var);
	dbuf_adds(b, "rm -rf \"$d\"   # a retried or requeued task starts its shard again\n");
	escape_shell(b, p->jostle);
	dbuf_addf(b, " run --shard auto/%" PRIu64 " -o \"$d\"", p->shards);
	for (size_t i = 0; i < p->run_args.nr; i++) {
		dbuf_addc(b, ' ');
		escape_shell(b, p->run_args.v[i]);
	}
	dbuf_adds(b, " --");
	for (char *const *a = p->command; *a; a++) {
		dbuf_addc(b, ' ');
		escape_shell(b, *a);
	}
	dbuf_adds(b, "\nrc=$?\n"
		     "# 0: no failure, 1: failures found (the merged report has them); else an error\n"
		     "[ \"$rc\" -le 1 ] || exit \"$rc\"\n");
}

void deploy_merge_sh(struct dbuf *b, const struct deploy_plan *p)
{
	dbuf_adds(b, "rm -rf ");
	root_path(b, p, "merged");
	dbuf_adds(b, " && exec ");
	escape_shell(b, p->jostle);
	dbuf_adds(b, " merge ");
	root_path(b, p, "shard-*");
	dbuf_adds(b, " -o ");
	root_path(b, p, "merged");
	dbuf_addc(b, '\n');
}
