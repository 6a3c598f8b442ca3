/*
 * delays.h: what jostle's chaos library did to each run, counted by the
 * library itself (preload/chaos.c, JOSTLE_DELAY_FILE and JOSTLE_DELAY_SLOT)
 * in a small shared file of the series: one 64-byte slot per engine slot
 * (a run holds its slot from launch to record, so no two live runs share
 * one), three counters: the time its threads were held up, how much of it
 * spinning (CPU the run burned for us), and instructions stepped.
 *
 *   delays_open(&d, out_dir, slots);   with a chaos library in the series
 *   delays_env(&d, env);               JOSTLE_DELAY_FILE for every run
 *   delays_reset(&d, slot);            before a run starts in the slot
 *   delays_read(&d, slot, &acct);      once nothing of it is alive
 *   delays_close(&d);                  the file removed
 *
 * Without delays_open every call is a no-op and reads zeros. The file is
 * written with atomic adds through MAP_SHARED mappings, so a run killed at
 * its deadline has counted every delay up to its end.
 */
#ifndef JOSTLE_DELAYS_H
#define JOSTLE_DELAYS_H

#include <stddef.h>
#include <stdint.h>

struct strvec;

struct delays {
	uint64_t *map;      /* owned mapping, slots * 8 counters; NULL: off */
	size_t slots;
	char *path;         /* owned */
};

struct delay_acct {
	double delay_s;     /* held up, all threads and processes together */
	double spin_s;      /* of it, spinning */
	uint64_t steps;     /* instructions stepped (--chaos step) */
};

/* 0, or -errno (then off: runs get no account, say so once). */
int delays_open(struct delays *d, const char *out_dir, size_t slots);
void delays_env(const struct delays *d, struct strvec *env);
void delays_reset(struct delays *d, size_t slot);
void delays_read(const struct delays *d, size_t slot, struct delay_acct *a);
void delays_close(struct delays *d);

#endif
