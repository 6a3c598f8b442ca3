/* Unit tests of crash record sampling (src/run/recsample.h): outcomes and keys in, decisions out. */
#include <stdlib.h>

#include "run/recsample.h"
#include "util/xalloc.h"
#include "tap.h"

/* A signature "killed by SEGV" with one frame FN. */
static void sig_of(struct signature *s, const char *fn)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->kind, sizeof(s->kind), "crash");
	s->key = xstrdup("killed by SEGV");
	s->key_line = xstrdup("killed by SEGV");
	char **f = xcalloc(1, sizeof(*f));
	f[0] = xstrdup(fn);
	signature_set_frames(s, f, 1);
}

/* N runs, each started (its record asked for) and ended crashing the way FN says. */
static unsigned crashes(struct recsample *r, int n, const char *bare, const char *fn, uint64_t *run)
{
	unsigned without = 0;
	for (int i = 0; i < n; i++) {
		struct signature s;
		bool rec = recsample_record(r);
		if (rec) {
			sig_of(&s, fn);
			recsample_learn(r, bare, &s, (*run)++);
		} else {
			memset(&s, 0, sizeof(s));
			s.key = xstrdup("killed by SEGV");
			uint64_t from;
			if (recsample_apply(r, bare, &s, &from))
				without += !strcmp(s.frames[0], fn);
			(*run)++;
		}
		signature_release(&s);
		recsample_ended(r, true);
	}
	return without;
}

int main(void)
{
	struct recsample r = RECSAMPLE_INIT;
	uint64_t run = 0;

	/* nothing known: every run keeps its record */
	CHECK(recsample_record(&r));
	/* thirty-two crashes of one site: the first 32 keep their records */
	CHECK(crashes(&r, 32, "crash\x1fkilled by SEGV", "use_after_free", &run) == 0);
	CHECK(r.without == 0);
	/* then one run in eight keeps its record, the others take the signature */
	unsigned took = crashes(&r, 80, "crash\x1fkilled by SEGV", "use_after_free", &run);
	CHECK(r.without == 70 && took == 70 && r.taken == 70);

	/* a second site with the same bare key: ambiguous, every run records again */
	struct signature other;
	sig_of(&other, "double_free");
	recsample_learn(&r, "crash\x1fkilled by SEGV", &other, run++);
	signature_release(&other);
	uint64_t before = r.without;
	for (int i = 0; i < 20; i++)
		CHECK(recsample_record(&r));
	CHECK(r.without == before);
	struct signature s = { 0 };
	uint64_t from = 99;
	CHECK(!recsample_apply(&r, "crash\x1fkilled by SEGV", &s, &from) && from == 99 && !s.nframes);
	recsample_release(&r);
	/* released, it is as new: rundiag keeps one for the process and the
	 * next series (bisect runs one per batch) counts from zero */
	CHECK(r.without == 0 && r.taken == 0 && r.nr == 0 && r.nrecent == 0 && !r.off);
	CHECK(crashes(&r, 32, "crash\x1fkilled by SEGV", "use_after_free", &run) == 0 && r.without == 0);
	recsample_release(&r);

	/* runs that pass: never sampled however many crashes were recorded */
	r = (struct recsample)RECSAMPLE_INIT;
	run = 0;
	crashes(&r, 40, "crash\x1fkilled by SEGV", "f", &run);
	for (int i = 0; i < 25; i++)
		recsample_ended(&r, false);   /* 7 of the last 32 crashed */
	CHECK(recsample_record(&r));
	CHECK(recsample_record(&r) && recsample_record(&r));
	for (int i = 0; i < 7; i++)
		recsample_ended(&r, true);    /* still 7: the older crashes leave the window */
	CHECK(recsample_record(&r));
	recsample_ended(&r, true);        /* a pass is out of it: 8, a quarter */
	CHECK(!recsample_record(&r));
	for (int i = 0; i < 32; i++)
		recsample_ended(&r, i % 5 == 0);   /* 7 of 32 again */
	CHECK(recsample_record(&r));

	/* a crash without a record whose bare key had none: records on for every run */
	CHECK(!recsample_apply(&r, "crash\x1fkilled by BUS", &s, &from));
	for (int i = 0; i < 10; i++)
		CHECK(recsample_record(&r));
	recsample_release(&r);

	/* off (--all-crash-records, --replay): always a record */
	r = (struct recsample)RECSAMPLE_INIT;
	run = 0;
	crashes(&r, 40, "crash\x1fkilled by SEGV", "f", &run);
	r.off = true;
	for (int i = 0; i < 10; i++)
		CHECK(recsample_record(&r));
	recsample_release(&r);
	return tap_done();
}
