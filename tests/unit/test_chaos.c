/* Unit tests of chaos modes, the preload environment and --noise parsing. */
#include <errno.h>
#include "pressure/chaos.h"
#include "pressure/noise.h"
#include "tap.h"

int main(void)
{
	enum chaos_mode m;
	struct strvec env = STRVEC_INIT;
	struct noise_spec ns;
	char why[256], buf[128];
	double prob;
	int max_us;

	CHECK(chaos_mode_parse("sync", &m) == 0 && m == CHAOS_SYNC);
	CHECK(chaos_mode_parse("auto", &m) == 0 && m == CHAOS_AUTO);
	CHECK(chaos_mode_parse("all", &m) == 0 && m == (CHAOS_THREADS | CHAOS_SYNC));
	CHECK(chaos_mode_parse("step", &m) == 0 && m == CHAOS_STEP && (m & CHAOS_SYNC));
	CHECK_STR(chaos_mode_name(CHAOS_STEP), "step");
	CHECK_STR(chaos_mode_name((enum chaos_mode)7), "?");
	CHECK(chaos_mode_parse("bogus", &m) == -EINVAL);
	CHECK_STR(chaos_mode_name(CHAOS_THREADS), "threads");

	strvec_setenv(&env, "LD_PRELOAD", "/usr/lib/libuser.so");
	strvec_setenv(&env, "ASAN_OPTIONS", "detect_leaks=0");
	chaos_sync_env(&env, "/x/libjostle-chaos.so", 0.05, 200, 0, 0, 0);
	CHECK_STR(strvec_getenv(&env, "LD_PRELOAD"), "/x/libjostle-chaos.so:/usr/lib/libuser.so");
	CHECK_STR(strvec_getenv(&env, "ASAN_OPTIONS"), "detect_leaks=0:verify_asan_link_order=0");
	CHECK_STR(strvec_getenv(&env, "JOSTLE_CHAOS_PROB"), "0.05");
	CHECK_STR(strvec_getenv(&env, "JOSTLE_CHAOS_MAX_US"), "200");
	CHECK_STR(strvec_getenv(&env, "JOSTLE_CHAOS_BUDGET_US"), "0");
	CHECK(strvec_getenv(&env, "JOSTLE_CHAOS_STEP") == NULL);
	CHECK(strvec_getenv(&env, "JOSTLE_CHAOS_STEPS") == NULL);
	CHECK(strvec_getenv(&env, "JOSTLE_CHAOS_STEP_THREADS") == NULL);
	strvec_release(&env);
	chaos_sync_env(&env, "/x/lib.so", 0.2, 1000, 20000, 25000, 2);
	CHECK_STR(strvec_getenv(&env, "JOSTLE_CHAOS_STEP_THREADS"), "2");
	CHECK_STR(strvec_getenv(&env, "JOSTLE_CHAOS_BUDGET_US"), "20000");
	CHECK_STR(strvec_getenv(&env, "JOSTLE_CHAOS_STEP"), "1");
	CHECK_STR(strvec_getenv(&env, "JOSTLE_CHAOS_STEPS"), "25000");
	CHECK_STR(strvec_getenv(&env, "LD_PRELOAD"), "/x/lib.so");
	CHECK_STR(strvec_getenv(&env, "ASAN_OPTIONS"), "verify_asan_link_order=0");
	strvec_release(&env);
	/* which threads a step run steps: every one but the first, every
	 * one, or one alone of the first four, each drawn (of 4000 seeds) */
	{
		unsigned seen[256] = { 0 };
		for (uint64_t s = 0; s < 4000; s++)
			seen[chaos_step_threads_draw(s * 0x9e3779b97f4a7c15ULL)]++;
		CHECK(seen[0xff] > 800 && seen[0xff] < 1200 && seen[0xfe] > 800 && seen[0xfe] < 1200);
		CHECK(seen[1] > 350 && seen[1] < 650 && seen[2] > 350 && seen[8] > 350 && seen[8] < 650);
		CHECK(seen[0xff] + seen[0xfe] + seen[1] + seen[2] + seen[4] + seen[8] == 4000);
	}
	chaos_sync_level(0, &prob, &max_us);
	CHECK(prob > 0 && prob < 0.05 && max_us > 0);
	chaos_sync_level(9, &prob, &max_us);
	CHECK(prob == 0.1 && max_us == 1000);

	CHECK(noise_parse("cpu:2", &ns, why, sizeof(why)) == 0 && ns.cpu == 2 && !ns.mem && !ns.cache);
	CHECK(noise_parse("cache:1,mem:64M,cpu:1", &ns, why, sizeof(why)) == 0 &&
	      ns.cpu == 1 && ns.cache == 1 && ns.mem == 64ULL << 20);
	noise_format(&ns, buf, sizeof(buf));
	CHECK_STR(buf, "cpu:1,mem:67108864,cache:1");
	CHECK(noise_parse("gpu:1", &ns, why, sizeof(why)) == -EINVAL);
	CHECK_STR(why, "unknown noise 'gpu' (expected cpu:N, mem:SIZE, cache:N, jitter:N)");
	CHECK(noise_parse("jitter:2,cpu:1", &ns, why, sizeof(why)) == 0 && ns.jitter == 2 && ns.cpu == 1 &&
	      !noise_empty(&ns));
	noise_format(&ns, buf, sizeof(buf));
	CHECK_STR(buf, "cpu:1,jitter:2");
	CHECK(noise_parse("jitter:33", &ns, why, sizeof(why)) == -EINVAL);
	CHECK(noise_parse("cpu:99", &ns, why, sizeof(why)) == -EINVAL);
	CHECK(noise_parse("cpu", &ns, why, sizeof(why)) == -EINVAL);
	CHECK(noise_parse("mem:lots", &ns, why, sizeof(why)) == -EINVAL);
	CHECK(noise_parse("", &ns, why, sizeof(why)) == -EINVAL);
	CHECK(noise_parse("cpu:0", &ns, why, sizeof(why)) == 0 && noise_empty(&ns));

	/* thread chaos schedules: a span spreads sorted points over 1.25 spans
	 * with windows of a share of it; without one the gaps grow */
	{
		struct chaos_run c;
		struct cpuset one = { .n = 1, .cpu = { 0 } };
		int64_t span = 800 * 1000000LL, t0 = 1000;
		chaos_start(&c, 1, 42, &one, 1, span, t0);
		CHECK(c.changes_left == 4 && c.window_ns == span / 8);
		bool sorted = true, inside = true;
		for (int i = 0; i < 4; i++) {
			inside &= c.at_ns[i] >= 0 && c.at_ns[i] <= span + span / 4;
			if (i)
				sorted &= c.at_ns[i - 1] <= c.at_ns[i];
		}
		CHECK(sorted && inside);
		CHECK(c.next_ns == t0 + c.at_ns[0]);
		struct chaos_run d;
		chaos_start(&d, 1, 42, &one, 1, span, t0);
		CHECK(memcmp(c.at_ns, d.at_ns, sizeof(c.at_ns)) == 0);   /* seeded */
		chaos_start(&c, 1, 42, &one, 2, 20 * 1000000LL, t0);
		CHECK(c.changes_left == 8 && c.window_ns == 10 * 1000000LL);  /* floor */
		chaos_start(&c, 1, 42, &one, 0, 60 * 1000000000LL, t0);
		CHECK(c.changes_left == 2 && c.window_ns == 250 * 1000000LL);  /* cap */
		chaos_start(&c, 1, 42, &one, 1, 0, t0);
		CHECK(c.changes_left == 6 + CHAOS_LATE_CHANGES && c.window_ns == 20 * 1000000LL && c.next_ns <= t0 + 7500000);
	}
	return tap_done();
}
