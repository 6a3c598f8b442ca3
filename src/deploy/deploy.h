/*
 * deploy.h: a sharded series for a cluster engine (issue 17). Pure text
 * generation: `jostle slurm` and `jostle k8s` (src/cli) check the options,
 * fill a struct deploy_plan, get the scripts or the manifest from here and
 * submit or print them.
 *
 * Every engine runs the same shard script: shard K of N of the series of
 * the master seed, results in ROOT/shard-K (emptied first, so a task the
 * engine retries starts its shard again), and exits 0 when jostle exits 0
 * or 1 (failures found: the merged report says so), so that a failed task
 * means an error of jostle or the node, not a failing test. The merge step
 * runs `jostle merge ROOT/shard-* -o ROOT/merged`; a shard that never
 * started has no directory and is reported missing.
 */
#ifndef JOSTLE_DEPLOY_H
#define JOSTLE_DEPLOY_H

#include <stddef.h>
#include <stdint.h>

#include "util/dbuf.h"
#include "util/strvec.h"

struct deploy_plan {
	const char *name;            /* job name (deploy_name_check) */
	const char *jostle;          /* jostle where the shards run: a path or a name on PATH */
	const char *root;            /* results root, absolute, on storage every shard sees */
	uint64_t shards;             /* N >= 1 */
	struct strvec run_args;      /* `jostle run` options for every shard, the --seed
					included, not --shard or -o */
	char *const *command;        /* the command and its arguments (NULL-terminated, borrowed) */
};

/* Slurm: extra sbatch options for both jobs (e.g. --partition=gpu), one
 * #SBATCH line each. */
struct deploy_slurm {
	const struct strvec *sbatch;
};

/* Kubernetes: the Indexed Job and its suspended merge Job. */
struct deploy_k8s {
	const char *image;           /* holds jostle and the command */
	const char *claim;           /* PersistentVolumeClaim of the results (ReadWriteMany) */
	const char *mount;           /* where the claim is mounted; root lies under it */
	uint64_t parallelism;        /* pods at once, 1..shards */
};

/* A name both engines accept: 1 to 52 of [a-z0-9-], starting and ending
 * with a letter or digit (a Kubernetes name with room for "-merge" and the
 * pod suffix). NULL, or what is wrong. */
const char *deploy_name_check(const char *name);

/* The body of one shard as POSIX shell lines: index_var holds K
 * (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX). */
void deploy_shard_sh(struct dbuf *b, const struct deploy_plan *p, const char *index_var);
/* The merge step as one shell line. */
void deploy_merge_sh(struct dbuf *b, const struct deploy_plan *p);

/* The sbatch script of the job array (one shard per task, tasks 0..N-1,
 * logs in ROOT/slurm/) and the script of the merge job (submitted with
 * --dependency=afterany on the array). */
void deploy_slurm_shards(struct dbuf *b, const struct deploy_plan *p, const struct deploy_slurm *s);
void deploy_slurm_merge(struct dbuf *b, const struct deploy_plan *p, const struct deploy_slurm *s);

/* The manifest: a comment saying how to apply it, the Indexed Job
 * (completionMode: Indexed, completions N, parallelism, the claim mounted,
 * JOB_COMPLETION_INDEX from the completion-index annotation), then the
 * merge Job, created suspended: resume it when the shards are done. */
void deploy_k8s_manifest(struct dbuf *b, const struct deploy_plan *p, const struct deploy_k8s *k);

#endif
