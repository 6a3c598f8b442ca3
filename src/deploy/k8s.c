/*
 * k8s.c: the Kubernetes manifest of a sharded series (see deploy.h).
 *
 * YAML written by hand: every string is a double-quoted scalar written by
 * the JSON writer (JSON strings are YAML double-quoted scalars), so a
 * command line, a path or an image name cannot change the structure.
 * JOB_COMPLETION_INDEX is declared from the completion-index annotation
 * although the Job controller also injects it: so that the $(...)
 * reference in the command expands on every version with Indexed Jobs
 * (the controller leaves a declared variable alone).
 */
#include <inttypes.h>
#include <string.h>

#include "deploy/deploy.h"
#include "util/jsonw.h"
#include "util/banned.h"

static void q(struct dbuf *b, const char *s)
{
	jsonw_string(b, s, strlen(s));
}

/* `command: ["sh", "-c", SCRIPT]` at the indentation of a container's members */
static void sh_command(struct dbuf *b, const struct dbuf *script)
{
	dbuf_adds(b, "        command: [\"sh\", \"-c\", ");
	jsonw_string(b, dbuf_str(script), script->len);
	dbuf_adds(b, "]\n");
}

static void volume(struct dbuf *b, const struct deploy_k8s *k)
{
	dbuf_adds(b, "        volumeMounts:\n"
		     "        - name: results\n"
		     "          mountPath: ");
	q(b, k->mount);
	dbuf_adds(b, "\n      volumes:\n"
		     "      - name: results\n"
		     "        persistentVolumeClaim:\n"
		     "          claimName: ");
	q(b, k->claim);
	dbuf_addc(b, '\n');
}

static void labels(struct dbuf *b, const char *indent, const struct deploy_plan *p)
{
	dbuf_addf(b, "%slabels:\n%s  app.kubernetes.io/name: jostle\n%s  jostle/series: ",
		  indent, indent, indent);
	q(b, p->name);
	dbuf_addc(b, '\n');
}

void deploy_k8s_manifest(struct dbuf *b, const struct deploy_plan *p, const struct deploy_k8s *k)
{
	struct dbuf script;
	dbuf_init(&script, 1 << 20);
	dbuf_addf(b, "# jostle: %" PRIu64 " shards of one series as an Indexed Job, and the Job that\n"
		     "# merges them, created suspended. Written by 'jostle k8s'. Apply, wait, merge:\n"
		     "#   kubectl apply -f THIS_FILE\n"
		     "#   kubectl wait --for=condition=complete --timeout=24h job/%s   # or =failed\n"
		     "#   kubectl patch job %s-merge -p '{\"spec\":{\"suspend\":false}}'\n"
		     "#   kubectl wait --for=condition=complete --timeout=1h job/%s-merge\n"
		     "# Results on the claim %s (ReadWriteMany), mounted at %s: %s/shard-K\n"
		     "# and the merged series %s/merged (report.md, report.html, summary.json).\n",
		  p->shards, p->name, p->name, p->name, k->claim, k->mount, p->root, p->root);
	dbuf_adds(b, "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ");
	q(b, p->name);
	dbuf_addc(b, '\n');
	labels(b, "  ", p);
	dbuf_addf(b, "spec:\n"
		     "  completionMode: Indexed\n"
		     "  completions: %" PRIu64 "\n"
		     "  parallelism: %" PRIu64 "\n"
		     "  backoffLimit: %" PRIu64 "\n"
		     "  template:\n"
		     "    metadata:\n", p->shards, k->parallelism, p->shards < 3 ? 3 : p->shards);
	labels(b, "      ", p);
	dbuf_adds(b, "    spec:\n"
		     "      restartPolicy: Never\n"
		     "      containers:\n"
		     "      - name: shard\n"
		     "        image: ");
	q(b, k->image);
	dbuf_adds(b, "\n        env:\n"
		     "        - name: JOB_COMPLETION_INDEX\n"
		     "          valueFrom:\n"
		     "            fieldRef:\n"
		     "              fieldPath: \"metadata.annotations['batch.kubernetes.io/job-completion-index']\"\n");
	deploy_shard_sh(&script, p, "JOB_COMPLETION_INDEX");
	sh_command(b, &script);
	volume(b, k);

	dbuf_adds(b, "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ");
	dbuf_addf(b, "\"%s-merge\"\n", p->name);
	labels(b, "  ", p);
	dbuf_adds(b, "spec:\n"
		     "  suspend: true\n"
		     "  backoffLimit: 0\n"
		     "  template:\n"
		     "    spec:\n"
		     "      restartPolicy: Never\n"
		     "      containers:\n"
		     "      - name: merge\n"
		     "        image: ");
	q(b, k->image);
	dbuf_addc(b, '\n');
	dbuf_reset(&script);
	deploy_merge_sh(&script, p);
	sh_command(b, &script);
	volume(b, k);
	dbuf_release(&script);
}
