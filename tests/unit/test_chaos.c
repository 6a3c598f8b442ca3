/* Unit tests of chaos modes, the preload environment and --noise parsing. */
#include <errno.h>
#include "tap.h"
#include "chaos.h"
#include "noise.h"

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
	CHECK(chaos_mode_parse("bogus", &m) == -EINVAL);
	CHECK_STR(chaos_mode_name(CHAOS_THREADS), "threads");

	strvec_setenv(&env, "LD_PRELOAD", "/usr/lib/libuser.so");
	strvec_setenv(&env, "ASAN_OPTIONS", "detect_leaks=0");
	chaos_sync_env(&env, "/x/libjostle-chaos.so", 0.05, 200);
	CHECK_STR(strvec_getenv(&env, "LD_PRELOAD"), "/x/libjostle-chaos.so:/usr/lib/libuser.so");
	CHECK_STR(strvec_getenv(&env, "ASAN_OPTIONS"), "detect_leaks=0:verify_asan_link_order=0");
	CHECK_STR(strvec_getenv(&env, "JOSTLE_CHAOS_PROB"), "0.05");
	CHECK_STR(strvec_getenv(&env, "JOSTLE_CHAOS_MAX_US"), "200");
	strvec_release(&env);
	chaos_sync_env(&env, "/x/lib.so", 0.2, 1000);
	CHECK_STR(strvec_getenv(&env, "LD_PRELOAD"), "/x/lib.so");
	CHECK_STR(strvec_getenv(&env, "ASAN_OPTIONS"), "verify_asan_link_order=0");
	strvec_release(&env);
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
	CHECK_STR(why, "unknown noise 'gpu' (expected cpu:N, mem:SIZE, cache:N)");
	CHECK(noise_parse("cpu:99", &ns, why, sizeof(why)) == -EINVAL);
	CHECK(noise_parse("cpu", &ns, why, sizeof(why)) == -EINVAL);
	CHECK(noise_parse("mem:lots", &ns, why, sizeof(why)) == -EINVAL);
	CHECK(noise_parse("", &ns, why, sizeof(why)) == -EINVAL);
	CHECK(noise_parse("cpu:0", &ns, why, sizeof(why)) == 0 && noise_empty(&ns));
	return tap_done();
}
