/*
 * slurm.c: the sbatch scripts of a sharded series (see deploy.h).
 *
 * A job array with one task per shard (--array=0-(N-1)), and a merge job
 * that `jostle slurm` submits with --dependency=afterany:ARRAY, so the
 * merge runs once every task has ended, however it ended. Logs of both go
 * to ROOT/slurm/. The user's sbatch options come as #SBATCH lines after
 * ours, so they win (sbatch takes the last of a repeated option).
 */
#include <inttypes.h>

#include "deploy/deploy.h"
#include "util/escape.h"
#include "util/banned.h"

static void sbatch_lines(struct dbuf *b, const struct deploy_slurm *s)
{
	for (size_t i = 0; s->sbatch && i < s->sbatch->nr; i++)
		dbuf_addf(b, "#SBATCH %s\n", s->sbatch->v[i]);
}

void deploy_slurm_shards(struct dbuf *b, const struct deploy_plan *p, const struct deploy_slurm *s)
{
	dbuf_addf(b, "#!/bin/bash\n"
		     "# jostle: %" PRIu64 " shards of one series, one per task of this job array;\n"
		     "# merged by the job of %s-merge.sbatch (sbatch --dependency=afterany:JOBID).\n"
		     "# Written by 'jostle slurm'; see docs/clusters.md.\n",
		  p->shards, p->name);
	dbuf_addf(b, "#SBATCH --job-name=%s\n", p->name);
	dbuf_addf(b, "#SBATCH --array=0-%" PRIu64 "\n", p->shards - 1);
	dbuf_addf(b, "#SBATCH --output=%s/slurm/%%A_%%a.out\n", p->root);
	sbatch_lines(b, s);
	dbuf_adds(b, "set -u\n");
	deploy_shard_sh(b, p, "SLURM_ARRAY_TASK_ID");
}

void deploy_slurm_merge(struct dbuf *b, const struct deploy_plan *p, const struct deploy_slurm *s)
{
	dbuf_addf(b, "#!/bin/bash\n"
		     "# jostle: merge the %" PRIu64 " shards of %s-shards.sbatch into %s/merged.\n"
		     "# Written by 'jostle slurm'.\n", p->shards, p->name, p->root);
	dbuf_addf(b, "#SBATCH --job-name=%s-merge\n", p->name);
	dbuf_addf(b, "#SBATCH --output=%s/slurm/merge-%%j.out\n", p->root);
	sbatch_lines(b, s);
	dbuf_adds(b, "set -u\n");
	deploy_merge_sh(b, p);
}
