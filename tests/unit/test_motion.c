/* Unit tests of stuck-or-slow (src/diagnose/motion.h): counts in, verdict out. */
#include "diagnose/motion.h"
#include "diagnose/stack.h"
#include "tap.h"

/* One snapshot holding thread 7 with frames f0 <- f1 <- main. */
static void snap(struct stack_set *s, const char *f0, const char *f1)
{
	*s = (struct stack_set)STACK_SET_INIT;
	struct stack_thread *t = stack_set_add(s, 7, 7);
	stack_thread_push(t, f0, "/bin/prog", 0x1000);
	stack_thread_push(t, f1, "/bin/prog", 0x2000);
	stack_thread_push(t, "main", "/bin/prog", 0x3000);
}

static struct motion judged(unsigned runnable, unsigned busy, unsigned moving, unsigned born, unsigned ended,
			    int64_t work_ms, uint64_t faults, int64_t cpu_ms)
{
	struct motion m = { .runnable = runnable, .busy = busy, .moving = moving, .born = born,
			    .ended = ended, .work_ns = work_ms * 1000000, .faults = faults,
			    .cpu_ns = cpu_ms * 1000000, .span_ns = 500000000 };
	motion_judge(&m);
	return m;
}

int main(void)
{
	struct stack_set s[6];
	unsigned d;

	/* a spin loop: the same place every time */
	for (int i = 0; i < 6; i++)
		snap(&s[i], "spin_wait", "worker");
	CHECK(motion_distinct(s, 6, 7, &d) == 6 && d == 1);
	CHECK(motion_distinct(s, 6, 99, &d) == 0 && d == 0);   /* a thread not there */
	for (int i = 0; i < 6; i++)
		stack_set_release(&s[i]);
	/* two places in turn (try_lock, back_off): still only two */
	for (int i = 0; i < 6; i++)
		snap(&s[i], i % 2 ? "back_off" : "try_lock", "worker");
	CHECK(motion_distinct(s, 6, 7, &d) == 6 && d == 2);
	for (int i = 0; i < 6; i++)
		stack_set_release(&s[i]);
	/* a compiler: somewhere else every time; a caller change counts too */
	const char *fns[6] = { "parse_decl", "fold_const", "emit_insn", "parse_decl", "alloc_reg", "sched_insns" };
	for (int i = 0; i < 6; i++)
		snap(&s[i], fns[i], i == 3 ? "expand_expr" : "compile");
	CHECK(motion_distinct(s, 6, 7, &d) == 6 && d == 6);
	for (int i = 0; i < 6; i++)
		stack_set_release(&s[i]);

	struct motion m;
	m = judged(3, 3, 0, 0, 0, 0, 0, 300);
	CHECK(!m.progressing && !m.evidence[0]);                     /* a livelock */
	m = judged(1, 1, 1, 0, 0, 0, 0, 100);
	CHECK(m.progressing && m.code && strstr(m.evidence, "different code"));
	m = judged(2, 2, 1, 0, 0, 0, 0, 100);
	CHECK(!m.code);                                              /* one of two: no majority */
	m = judged(0, 0, 0, 5, 5, 0, 0, 5);
	CHECK(!m.progressing);                                       /* a shell polling with sleep */
	m = judged(0, 0, 0, 1, 1, 100, 0, 100);
	CHECK(m.progressing && m.tree && strstr(m.evidence, "1 process started, 1 ended"));
	m = (struct motion){ .born = 0, .ended = 1, .work_ns = 3000000000, .span_ns = 500000000 };
	motion_judge(&m);
	CHECK(m.progressing && m.tree);                              /* a worker there from the start ended */
	m = judged(0, 0, 0, 25, 25, 25, 0, 60);
	CHECK(!m.progressing);                                       /* one `sleep` of 25 polls charged 25 ms */
	m = judged(0, 0, 0, 3, 3, 60, 0, 70);
	CHECK(m.progressing && m.tree);                              /* two short workers of 30 ms */
	m = judged(1, 1, 0, 0, 0, 0, 2048, 15);
	CHECK(m.progressing && m.memory);                            /* a copy, on a loaded machine */
	m = judged(1, 1, 0, 0, 0, 0, 2048, 0);
	CHECK(m.memory);                                             /* less than a tick of CPU */
	m = judged(1, 1, 0, 0, 0, 0, 60, 0);
	CHECK(!m.memory);                                            /* a few faults: anything does that */
	m = judged(1, 1, 0, 0, 0, 0, 500, 2000);
	CHECK(!m.memory);                                            /* 250 a CPU second: a spin with a leak */
	m = judged(0, 0, 0, 0, 0, 0, 5000, 100);
	CHECK(!m.memory);                                            /* no busy thread */
	return tap_done();
}
