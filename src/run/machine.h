/*
 * machine.h: a description of the machine a series ran on (for the
 * record and the reports): host, kernel, online CPUs, load, memory.
 */
#ifndef JOSTLE_MACHINE_H
#define JOSTLE_MACHINE_H

#include "util/dbuf.h"

/* Append the JSON object {"hostname":...,"kernel":...,"cpus":N,...}. */
void machine_json(struct dbuf *b);
/* The CPUs jostle may run on: online and in its affinity mask, as nproc(1)
 * counts them (a container's or taskset's share, not the host's); at least 1. */
unsigned machine_cpus(void);

#endif
