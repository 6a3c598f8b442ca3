/* Unit tests of frame names (frame.c), gdb transcripts and folding (stack.c, stack_gdb.c). */
#include <stdlib.h>

#include "diagnose/stack.h"
#include "signature/frame.h"
#include "slurp.h"
#include "tap.h"

static const char *norm(const char *in)
{
	static char buf[256];
	return frame_normalize(in, buf, sizeof(buf));
}

int main(void)
{
	CHECK_STR(norm("spin_wait"), "spin_wait");
	CHECK_STR(norm("spin_wait.isra.0"), "spin_wait");
	CHECK_STR(norm("drain.constprop.3"), "drain");
	CHECK_STR(norm("drain.part.0.cold"), "drain");
	CHECK_STR(norm("memcpy@GLIBC_2.14"), "memcpy");
	CHECK_STR(norm("ns::Sched::handshake_all_cores(int, char*)"), "ns::Sched::handshake_all_cores");
	CHECK_STR(norm("foo (x=1) at a.c:3"), "foo");
	CHECK_STR(norm("(anonymous namespace)::worker(void*)"), "(anonymous namespace)::worker");
	CHECK_STR(norm("Foo::operator()(int) const"), "Foo::operator()");
	CHECK_STR(norm("bar(int) [clone .isra.0]"), "bar");
	CHECK_STR(norm("_ZN16SchedulerContext19handshake_all_coresEv"), "SchedulerContext::handshake_all_cores");
	CHECK_STR(norm("_ZN16SchedulerContext19handshake_all_coresEv.isra.0"), "SchedulerContext::handshake_all_cores");
	CHECK_STR(norm("_Z14aicore_executePv"), "aicore_execute");
	CHECK_STR(norm("_ZN4RingC2Ev"), "Ring::Ring");
	CHECK_STR(norm("_ZN4RingD1Ev"), "Ring::~Ring");
	CHECK_STR(norm("_ZNSt6thread11_State_implE"), "std::thread::_State_impl");
	CHECK_STR(norm("_ZNK3foo3barEv"), "foo::bar");
	CHECK_STR(norm("_ZN3foo3barIiEEvT_"), "foo::bar<>");
	CHECK_STR(norm("_Zjunk"), "_Zjunk");
	CHECK_STR(norm("??"), "");
	CHECK_STR(norm(NULL), "");
	CHECK_STR(norm(""), "");

	CHECK(frame_is_runtime("start_thread", NULL));
	CHECK(frame_is_runtime("__GI___lll_lock_wait", NULL));
	CHECK(frame_is_runtime("__interceptor_free", NULL));
	CHECK(frame_is_runtime("free", "/usr/lib/x86_64-linux-gnu/libasan.so.8"));
	/* an ASan report names our chaos library's trampoline by its source */
	CHECK(frame_is_runtime("thread_start", "preload/chaos.c"));
	CHECK(frame_is_runtime("thread_start", "/usr/local/lib/jostle/libjostle-chaos.so"));
	CHECK(!frame_is_runtime("thread_start", "zoo/drain_uaf.c"));
	CHECK(frame_is_runtime("anything", "/lib/x86_64-linux-gnu/libc.so.6"));
	CHECK(frame_is_runtime("foo", "../sysdeps/unix/sysv/linux/clone3.S"));
	CHECK(frame_is_runtime("_PyEval_EvalFrameDefault", NULL));
	CHECK(frame_is_runtime("x", "/usr/bin/python3.11"));
	CHECK(frame_is_runtime("wait", "/usr/lib/python3.11/threading.py"));
	CHECK(frame_is_runtime("", "/tmp/prog"));
	CHECK(!frame_is_runtime("spin_wait", "/tmp/prog"));
	CHECK(!frame_is_runtime("drain_worker", "/src/zoo/drain_uaf.c"));
	CHECK(!frame_is_runtime("run", "/src/simpler/worker.py"));
	CHECK(!frame_is_runtime("main", NULL));
	CHECK_STR(frame_basename("/a/b/c.so"), "c.so");
	CHECK_STR(frame_basename("c.so"), "c.so");

	/* gdb transcript: 3 threads, frames with and without pc, ?? and from LIB. */
	char *text = slurp("gdb_bt.txt", NULL);
	struct stack_set s = STACK_SET_INIT;
	CHECK(stack_gdb_parse(text, 7873, &s) == 3);
	free(text);
	CHECK(s.nr == 3);
	CHECK(s.v[0].tid == 7876 && s.v[1].tid == 7875 && s.v[2].tid == 7873);
	CHECK(s.v[0].pid == 7873);
	CHECK(s.v[0].nr == 4);
	CHECK_STR(s.v[0].frames[0].fn, "spin_wait");
	CHECK_STR(s.v[0].frames[1].fn, "w");
	CHECK_STR(s.v[0].frames[3].fn, "clone3");
	CHECK(s.v[0].frames[0].pc == 0x55e14d3ee14fULL);
	CHECK_STR(s.v[1].frames[0].fn, "spin_wait");
	CHECK(s.v[2].nr == 6);
	CHECK_STR(s.v[2].frames[3].fn, "ns::Sched::handshake_all_cores");
	CHECK_STR(s.v[2].frames[4].fn, "");
	CHECK_STR(s.v[2].frames[5].module, "/lib/x86_64-linux-gnu/libc.so.6");
	CHECK_STR(stack_program_frame(&s.v[0], 0), "spin_wait");
	CHECK_STR(stack_program_frame(&s.v[0], 1), "w");
	CHECK(stack_program_frame(&s.v[0], 2) == NULL);
	CHECK_STR(stack_program_frame(&s.v[2], 0), "ns::Sched::handshake_all_cores");
	CHECK(stack_set_find(&s, 7875) == &s.v[1]);
	CHECK(stack_set_find(&s, 1) == NULL);

	struct stack_fold *f;
	size_t nf = stack_fold(&s, 16, &f);
	CHECK(nf == 2);
	CHECK(f[0].count == 2);
	CHECK_STR(f[0].line, "spin_wait <- w <- start_thread <- clone3");
	CHECK(f[1].count == 1);
	CHECK_STR(f[1].line, "__GI___clock_nanosleep <- __GI___nanosleep <- __sleep <- "
			     "ns::Sched::handshake_all_cores <- ?? <- __libc_start_call_main");
	stack_fold_free(f, nf);
	nf = stack_fold(&s, 2, &f);
	CHECK(nf == 2);
	CHECK_STR(f[0].line, "spin_wait <- w <- ...");
	stack_fold_free(f, nf);
	stack_set_release(&s);
	CHECK(stack_fold(&s, 4, &f) == 0);
	return tap_done();
}
