/*
 * plan.c: run indices and shards (see plan.h).
 *
 * A shard takes every Nth index rather than a block of consecutive ones so
 * that a shard needs to know nothing but K and N: no total is fixed in
 * advance, `--time` and `--until` work per shard, and shards that stop
 * early still leave an even sample of the series.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/plan.h"
#include "util/parse.h"
#include "util/banned.h"

#define SHARD_MAX 1000000u   /* more shards than any array or Job allows */

uint64_t plan_shard_share(const struct plan_shard *s, uint64_t total)
{
	if (!s->count)
		return total;
	return total / s->count + (s->index < total % s->count);
}

static int set(struct plan_shard *out, uint64_t k, uint64_t n, const char *from,
	       const char *text, char *why, size_t whylen)
{
	if (n < 1 || n > SHARD_MAX) {
		snprintf(why, whylen, "'%.80s': the number of shards must be from 1 to %u", text,
			 SHARD_MAX);
		return -EINVAL;
	}
	if (k >= n) {
		snprintf(why, whylen, "'%.80s': shard %" PRIu64 " of %" PRIu64 " does not exist "
			 "(shards are numbered 0 to %" PRIu64 ")", text, k, n, n - 1);
		return -EINVAL;
	}
	out->index = k;
	out->count = n;
	out->from = from;
	return 0;
}

/* "K/N" or, when n_given, "K" alone. */
static int parse_kn(const char *text, uint64_t n_given, const char *from,
		    struct plan_shard *out, char *why, size_t whylen)
{
	char kbuf[32];
	const char *slash = strchr(text, '/');
	size_t klen = slash ? (size_t)(slash - text) : strlen(text);
	uint64_t k, n = n_given;
	if (klen == 0 || klen >= sizeof(kbuf) || (!slash && !n_given))
		goto bad;
	memcpy(kbuf, text, klen);
	kbuf[klen] = '\0';
	if (parse_u64(kbuf, 0, UINT64_MAX, &k) < 0)
		goto bad;
	if (slash && parse_u64(slash + 1, 1, UINT64_MAX, &n) < 0)
		goto bad;
	if (slash && n_given && n != n_given) {
		snprintf(why, whylen, "%s '%.80s' says %" PRIu64 " shards, --shard auto/%" PRIu64
			 " says %" PRIu64, from, text, n, n_given, n_given);
		return -EINVAL;
	}
	return set(out, k, n, from, text, why, whylen);
bad:
	snprintf(why, whylen, "%s '%.80s' is not a shard; expected K/N, e.g. 0/4", from, text);
	return -EINVAL;
}

int plan_shard_parse(const char *text, struct plan_shard *out, char *why, size_t whylen)
{
	return parse_kn(text, 0, "option", out, why, whylen);
}

static int slurm_u64(char *(*get)(const char *), const char *name, uint64_t *v)
{
	const char *s = get(name);
	return s && parse_u64(s, 0, UINT64_MAX, v) == 0 ? 0 : -EINVAL;
}

static int from_slurm(char *(*get)(const char *), uint64_t n_given, struct plan_shard *out,
		      char *why, size_t whylen)
{
	uint64_t id, min = 0, step = 1, count = 0;
	if (slurm_u64(get, "SLURM_ARRAY_TASK_ID", &id) < 0) {
		snprintf(why, whylen, "SLURM_ARRAY_TASK_ID '%.40s' is not a task index",
			 get("SLURM_ARRAY_TASK_ID"));
		return -EINVAL;
	}
	if (get("SLURM_ARRAY_TASK_MIN"))
		(void)slurm_u64(get, "SLURM_ARRAY_TASK_MIN", &min);
	if (get("SLURM_ARRAY_TASK_STEP"))
		(void)slurm_u64(get, "SLURM_ARRAY_TASK_STEP", &step);
	(void)slurm_u64(get, "SLURM_ARRAY_TASK_COUNT", &count);
	if (step == 0 || id < min || (id - min) % step) {
		snprintf(why, whylen, "the Slurm array task %" PRIu64 " (from %" PRIu64 " in steps of %"
			 PRIu64 ") has no shard number; submit the array with consecutive "
			 "indices, e.g. --array=0-3 for 4 shards", id, min, step);
		return -EINVAL;
	}
	uint64_t k = (id - min) / step;
	uint64_t n = n_given ? n_given : count;
	if (!n) {
		snprintf(why, whylen, "SLURM_ARRAY_TASK_COUNT is not set; give the number of "
			 "shards as --shard auto/N");
		return -EINVAL;
	}
	if (n_given && count && count != n_given) {
		snprintf(why, whylen, "the Slurm array has %" PRIu64 " tasks but --shard auto/%" PRIu64
			 " says %" PRIu64 " shards", count, n_given, n_given);
		return -EINVAL;
	}
	char text[64];
	snprintf(text, sizeof(text), "%" PRIu64 "/%" PRIu64, k, n);
	return set(out, k, n, "SLURM_ARRAY_TASK_ID", text, why, whylen);
}

int plan_shard_from(const char *spec, char *(*get)(const char *), struct plan_shard *out,
		    char *why, size_t whylen)
{
	uint64_t n_given = 0;
	const char *v;
	if (strncmp(spec, "auto", 4) != 0 || (spec[4] && spec[4] != '/'))
		return plan_shard_parse(spec, out, why, whylen);
	if (spec[4] == '/' && parse_u64(spec + 5, 1, UINT64_MAX, &n_given) < 0) {
		snprintf(why, whylen, "'%.80s' is not a shard; expected K/N, auto or auto/N", spec);
		return -EINVAL;
	}
	if ((v = get("JOSTLE_SHARD")) && *v)
		return parse_kn(v, n_given, "JOSTLE_SHARD", out, why, whylen);
	if ((v = get("SLURM_ARRAY_TASK_ID")) && *v)
		return from_slurm(get, n_given, out, why, whylen);
	if ((v = get("JOB_COMPLETION_INDEX")) && *v) {
		if (!n_given) {
			snprintf(why, whylen, "JOB_COMPLETION_INDEX is set but not the number of "
				 "shards; use --shard auto/N with N the Job's completions");
			return -EINVAL;
		}
		return parse_kn(v, n_given, "JOB_COMPLETION_INDEX", out, why, whylen);
	}
	snprintf(why, whylen, "'%s': no shard in the environment (JOSTLE_SHARD, "
		 "SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX); use --shard K/N", spec);
	return -EINVAL;
}
