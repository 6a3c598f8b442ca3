/* Unit tests of the verdict on a run past its deadline (src/run/late.h). */
#include "run/late.h"
#include "tap.h"

static struct late_out judge(struct late_in in)
{
	struct late_out out;
	late_judge(&in, &out);
	return out;
}

int main(void)
{
	struct late_ref ref = { 0 };
	CHECK(late_ref_cpu(&ref) == 0);
	late_ref_add(&ref, 0.05, 0.1);
	late_ref_add(&ref, 0.01, 0.3);
	late_ref_add(&ref, 0.03, 0.2);
	CHECK_NEAR(late_ref_cpu(&ref), 0.03, 1e-12);
	CHECK_NEAR(late_ref_wall(&ref), 0.2, 1e-12);
	/* a running record: the oldest go */
	for (int i = 0; i < LATE_REF_RUNS; i++)
		late_ref_add(&ref, 1.0, 1.0);
	CHECK(ref.n == LATE_REF_RUNS);
	CHECK_NEAR(late_ref_cpu(&ref), 1.0, 1e-12);

	/* the oversubscribed spin barrier: 0.42 s of CPU against 0.057 */
	struct late_in spin = { .cpu_s = 0.42, .wall_s = 12, .cpus = 2, .seen = LATE_SEEN_LIVELOCK,
				.ref_cpu_s = 0.057, .ref_wall_s = 1.6 };
	struct late_out o = judge(spin);
	CHECK(o.verdict == LATE_SPINNING);
	CHECK_STR(o.late, "spinning");
	CHECK_NEAR(o.cpu_factor, 0.42 / 0.057, 1e-9);
	/* under every arm: load does not explain it, nor a moving diagnosis */
	spin.loaded = true;
	spin.seen = LATE_SEEN_PROGRESSING;
	CHECK(judge(spin).verdict == LATE_SPINNING);
	/* ... nor a little injected delay */
	spin.delay_s = 1;
	CHECK(judge(spin).verdict == LATE_SPINNING);
	/* the floor: 3 ms programs are not spinning for 50 ms of CPU */
	struct late_in tiny = { .cpu_s = 0.05, .wall_s = 2, .cpus = 2, .seen = LATE_SEEN_PROGRESSING,
				.ref_cpu_s = 0.003, .ref_wall_s = 0.01 };
	o = judge(tiny);
	CHECK(o.verdict == LATE_TIMEOUT);
	CHECK_NEAR(o.cpu_factor, 2.5, 1e-9);
	/* a deadlock burned its CPU before: stuck, not spinning */
	struct late_in dead = { .cpu_s = 5, .wall_s = 3, .seen = LATE_SEEN_STUCK, .ref_cpu_s = 0.01 };
	o = judge(dead);
	CHECK(o.verdict == LATE_STUCK);
	CHECK_STR(o.late, "stuck");

	/* sync chaos held it up: slow, chaos delay; not without the delay */
	struct late_in held = { .cpu_s = 0.02, .wall_s = 2.5, .cpus = 2, .delay_s = 2.2,
				.seen = LATE_SEEN_LIVELOCK };
	o = judge(held);
	CHECK(o.verdict == LATE_SLOW);
	CHECK_STR(o.slow_why, "chaos delay");
	CHECK_STR(o.late, "progressing");
	held.delay_s = 0.5;
	CHECK(judge(held).verdict == LATE_STUCK);   /* a livelock, then */
	held.seen = LATE_SEEN_PROGRESSING;
	CHECK(judge(held).verdict == LATE_TIMEOUT);
	/* the delay is weighed against the time beyond a typical run */
	held.delay_s = 0.8;
	held.ref_cpu_s = 0.02;
	held.ref_wall_s = 1.0;
	CHECK(judge(held).verdict == LATE_SLOW);

	/* load: a run that got its CPU more slowly than a passing run */
	struct late_in starved = { .cpu_s = 0.1, .wall_s = 2, .cpus = 2, .loaded = true,
				   .seen = LATE_SEEN_PROGRESSING, .ref_cpu_s = 0.1, .ref_wall_s = 0.5,
				   .ref_rate = 0.2 };
	o = judge(starved);
	CHECK(o.verdict == LATE_SLOW);
	CHECK_STR(o.slow_why, "load");
	starved.loaded = false;   /* the plain arm: the user's timeout */
	o = judge(starved);
	CHECK(o.verdict == LATE_TIMEOUT);
	CHECK_STR(o.late, "progressing");
	CHECK(o.slow_why == NULL);
	/* loaded, but it got all the CPU a passing run gets: not the load */
	struct late_in full = { .cpu_s = 0.25, .wall_s = 1.2, .cpus = 2, .loaded = true,
				.seen = LATE_SEEN_PROGRESSING, .ref_cpu_s = 0.1, .ref_wall_s = 0.5,
				.ref_rate = 0.2 };
	CHECK(judge(full).verdict == LATE_TIMEOUT);
	/* passes of loaded arms only are no yardstick: then starved means
	 * under half the CPUs of its set */
	full.ref_rate = full.ref_cpu_s = full.ref_wall_s = 0;
	full.cpu_s = 0.5;
	CHECK(judge(full).verdict == LATE_SLOW);
	full.cpu_s = 2.3;
	CHECK(judge(full).verdict == LATE_TIMEOUT);
	/* a livelock is not explained by load */
	full.cpu_s = 0.1;
	full.seen = LATE_SEEN_LIVELOCK;
	CHECK(judge(full).verdict == LATE_STUCK);

	/* it ended on its own with status 0: moved, whatever a look saw */
	struct late_in ended = { .cpu_s = 0.1, .wall_s = 1.1, .cpus = 2, .ended_ok = true,
				 .seen = LATE_SEEN_LIVELOCK, .ref_cpu_s = 0.1, .ref_wall_s = 0.9 };
	o = judge(ended);
	CHECK(o.verdict == LATE_TIMEOUT);
	CHECK_STR(o.late, "progressing");
	/* an interpreter's exit cleanup is slow, even with a busy tree */
	ended.exit_cleanup = true;
	ended.cpu_s = 5;
	o = judge(ended);
	CHECK(o.verdict == LATE_SLOW);
	CHECK_STR(o.slow_why, "exit cleanup");
	/* not diagnosed and killed: stuck */
	struct late_in none = { .cpu_s = 0.01, .wall_s = 1, .seen = LATE_SEEN_NONE };
	CHECK(judge(none).verdict == LATE_STUCK);
	return tap_done();
}
