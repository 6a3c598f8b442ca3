/* Shards (issue 17): indices, shares, --shard values and the environment. */
#include <stdint.h>
#include <string.h>

#include "run/plan.h"
#include "util/rng.h"
#include "tap.h"

/* A fake environment: NAME=VALUE pairs, NULL-terminated. */
static const char *const *fake_env;

static char *fake_getenv(const char *name)
{
	size_t n = strlen(name);
	for (const char *const *e = fake_env; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return (char *)*e + n + 1;
	return NULL;
}

static int from(const char *spec, const char *const *env, struct plan_shard *s, char *why)
{
	fake_env = env;
	memset(s, 0, sizeof(*s));
	return plan_shard_from(spec, fake_getenv, s, why, 256);
}

int main(void)
{
	struct plan_shard s = { 0 }, none = { 0 };
	char why[256];

	/* indices: shard K of N takes i mod N == K, in order */
	CHECK(plan_run_index(&none, 0) == 0 && plan_run_index(&none, 7) == 7);
	s = (struct plan_shard){ .index = 1, .count = 4 };
	CHECK(plan_run_index(&s, 0) == 1 && plan_run_index(&s, 1) == 5 && plan_run_index(&s, 9) == 37);

	/* the union of N shards of M runs each is 0 .. N*M-1, each once, with
	 * the seeds one series gives them */
	{
		enum { N = 4, M = 250 };
		static unsigned char seen[N * M];
		int dup = 0, out = 0, seed_ok = 1;
		for (uint64_t k = 0; k < N; k++) {
			struct plan_shard t = { .index = k, .count = N };
			for (uint64_t m = 0; m < M; m++) {
				uint64_t i = plan_run_index(&t, m);
				if (i >= N * M) {
					out++;
					continue;
				}
				dup += seen[i]++;
				seed_ok &= rng_run_seed(7, i) == rng_run_seed(7, plan_run_index(&none, i));
			}
		}
		int missing = 0;
		for (int i = 0; i < N * M; i++)
			missing += !seen[i];
		CHECK(dup == 0 && out == 0 && missing == 0 && seed_ok);
	}

	/* shares of a total */
	s = (struct plan_shard){ .index = 0, .count = 4 };
	CHECK(plan_shard_share(&s, 10) == 3);
	s.index = 1;
	CHECK(plan_shard_share(&s, 10) == 3);
	s.index = 2;
	CHECK(plan_shard_share(&s, 10) == 2);
	s.index = 3;
	CHECK(plan_shard_share(&s, 10) == 2 && plan_shard_share(&s, 3) == 0);
	CHECK(plan_shard_share(&none, 299) == 299);
	{
		uint64_t sum = 0;
		for (uint64_t k = 0; k < 7; k++) {
			struct plan_shard t = { .index = k, .count = 7 };
			sum += plan_shard_share(&t, 2995);
		}
		CHECK(sum == 2995);
	}

	/* --shard K/N */
	CHECK(plan_shard_parse("2/4", &s, why, sizeof(why)) == 0 && s.index == 2 && s.count == 4);
	CHECK_STR(s.from, "option");
	CHECK(plan_shard_parse("0/1", &s, why, sizeof(why)) == 0 && s.count == 1);
	CHECK(plan_shard_parse("4/4", &s, why, sizeof(why)) < 0 && strstr(why, "does not exist"));
	CHECK(plan_shard_parse("1/0", &s, why, sizeof(why)) < 0);
	CHECK(plan_shard_parse("3", &s, why, sizeof(why)) < 0 && strstr(why, "expected K/N"));
	CHECK(plan_shard_parse("a/4", &s, why, sizeof(why)) < 0);
	CHECK(plan_shard_parse("1/4x", &s, why, sizeof(why)) < 0);
	CHECK(plan_shard_parse("/4", &s, why, sizeof(why)) < 0);
	CHECK(plan_shard_parse("-1/4", &s, why, sizeof(why)) < 0);

	/* auto: JOSTLE_SHARD first */
	{
		const char *const env[] = { "JOSTLE_SHARD=3/8", "SLURM_ARRAY_TASK_ID=1", NULL };
		CHECK(from("auto", env, &s, why) == 0 && s.index == 3 && s.count == 8);
		CHECK_STR(s.from, "JOSTLE_SHARD");
		CHECK(from("auto/8", env, &s, why) == 0 && s.index == 3);
		CHECK(from("auto/4", env, &s, why) < 0 && strstr(why, "says 8 shards"));
	}
	{
		const char *const env[] = { "JOSTLE_SHARD=3", NULL };
		CHECK(from("auto", env, &s, why) < 0);
		CHECK(from("auto/5", env, &s, why) == 0 && s.index == 3 && s.count == 5);
	}
	/* Slurm: the index counted from the array's first task */
	{
		const char *const env[] = { "SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_MIN=0",
					    "SLURM_ARRAY_TASK_MAX=3", "SLURM_ARRAY_TASK_STEP=1",
					    "SLURM_ARRAY_TASK_COUNT=4", NULL };
		CHECK(from("auto", env, &s, why) == 0 && s.index == 2 && s.count == 4);
		CHECK_STR(s.from, "SLURM_ARRAY_TASK_ID");
		CHECK(from("auto/4", env, &s, why) == 0 && s.index == 2);
		CHECK(from("auto/5", env, &s, why) < 0 && strstr(why, "has 4 tasks"));
	}
	{
		const char *const env[] = { "SLURM_ARRAY_TASK_ID=7", "SLURM_ARRAY_TASK_MIN=1",
					    "SLURM_ARRAY_TASK_STEP=2", "SLURM_ARRAY_TASK_COUNT=5", NULL };
		CHECK(from("auto", env, &s, why) == 0 && s.index == 3 && s.count == 5);
	}
	{
		const char *const env[] = { "SLURM_ARRAY_TASK_ID=4", "SLURM_ARRAY_TASK_MIN=1",
					    "SLURM_ARRAY_TASK_STEP=2", "SLURM_ARRAY_TASK_COUNT=5", NULL };
		CHECK(from("auto", env, &s, why) < 0 && strstr(why, "consecutive"));
	}
	{
		const char *const env[] = { "SLURM_ARRAY_TASK_ID=1", NULL };
		CHECK(from("auto", env, &s, why) < 0 && strstr(why, "auto/N"));
		CHECK(from("auto/2", env, &s, why) == 0 && s.index == 1 && s.count == 2);
	}
	/* Kubernetes: the index, and N from auto/N only */
	{
		const char *const env[] = { "JOB_COMPLETION_INDEX=5", NULL };
		CHECK(from("auto", env, &s, why) < 0 && strstr(why, "auto/N"));
		CHECK(from("auto/6", env, &s, why) == 0 && s.index == 5 && s.count == 6);
		CHECK_STR(s.from, "JOB_COMPLETION_INDEX");
		CHECK(from("auto/5", env, &s, why) < 0 && strstr(why, "does not exist"));
	}
	{
		const char *const env[] = { NULL };
		CHECK(from("auto", env, &s, why) < 0 && strstr(why, "no shard in the environment"));
		CHECK(from("auto/x", env, &s, why) < 0);
		CHECK(from("autox", env, &s, why) < 0);
		CHECK(from("1/3", env, &s, why) == 0 && s.index == 1 && s.count == 3);
	}
	return tap_done();
}
