/*
 * recsample.h: which runs get a crash record once a crash repeats.
 *
 * The crash handler's record (rundiag.h) is what names the frames of a
 * plain SIGSEGV, but it is not free: writing it costs the crashing process
 * about 0.7 ms of CPU (a writer process, /proc/self/maps, the stack copy)
 * and jostle about 0.2 ms to unwind and symbolize it. Where every run
 * crashes the same way, a program of a millisecond ran 1.4x slower with
 * the handler than without (bench/RESULTS.md, session 36), and the
 * thousandth record of one crash says nothing the first did not. Not only
 * there: where a third of the runs crash, 16 at once, keeping every
 * record cost a sixth of the runs that sampling keeps (docs/diagnosis.md);
 * so from a quarter of the runs on.
 *
 * So the records are sampled once a crash repeats: when at least
 * RECSAMPLE_CRASHED of the last RECSAMPLE_WINDOW runs crashed, and every
 * crash seen so far is known by its bare key (kind, key and output frames:
 * what a run without a record shows) and had RECSAMPLE_KEEP runs with a
 * record that all came out as one signature, only one run in
 * RECSAMPLE_EVERY keeps its record. A run without one takes the frames
 * (and the whole signature) of the records of its bare key. A crash whose
 * bare key had no records, or whose records came out as two signatures
 * (two crash sites both "killed by SEGV"), turns the sampling off until
 * it has RECSAMPLE_KEEP consistent records: such runs keep their bare
 * signature, which is never wrong, only less exact.
 *
 * Pure: keys and signatures in, decisions out; no I/O.
 */
#ifndef JOSTLE_RECSAMPLE_H
#define JOSTLE_RECSAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "signature/signature.h"

#define RECSAMPLE_WINDOW 32   /* runs looked back at */
#define RECSAMPLE_CRASHED 8   /* of them crashed: a quarter */
#define RECSAMPLE_KEEP 16     /* records of a bare key before its runs go without */
#define RECSAMPLE_EVERY 8     /* then one run in this many keeps its record */

struct recsample_key {
	char *bare;                 /* owned */
	struct signature sig;       /* owned: what its records came out as */
	uint64_t run;               /* the run of the first record */
	unsigned records;           /* runs with a record that had this bare key */
	bool ambiguous;             /* they came out as two signatures or more */
};

struct recsample {
	bool off;                   /* every run keeps its record */
	uint32_t recent;            /* bit i: the i-th last finished run crashed */
	unsigned nrecent;           /* finished runs, up to RECSAMPLE_WINDOW */
	unsigned since;             /* runs started without a record since the last with one */
	uint64_t without;           /* runs started without a record */
	uint64_t taken;             /* of their crashes, those that took a known signature */
	struct recsample_key *v;    /* owned */
	size_t nr, alloc;
};

#define RECSAMPLE_INIT { false, 0, 0, 0, 0, 0, NULL, 0, 0 }

/* Whether the next run starts with the crash handler's record on. */
bool recsample_record(struct recsample *s);

/* A run finished (any outcome): it crashed or not. */
void recsample_ended(struct recsample *s, bool crashed);

/* A crash run that had a record on, with bare key BARE and final signature SIG. */
void recsample_learn(struct recsample *s, const char *bare, const struct signature *sig, uint64_t run);

/*
 * A crash run that had no record, with bare key BARE: SIG becomes the
 * signature its bare key's records came out as, and *run the run of the
 * first of them; true. False when the key is not known that well (SIG
 * untouched; the sampling is off until it is).
 */
bool recsample_apply(struct recsample *s, const char *bare, struct signature *sig, uint64_t *run);

void recsample_release(struct recsample *s);

#endif
