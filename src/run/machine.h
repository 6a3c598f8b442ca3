/*
 * machine.h: a description of the machine a series ran on (for the
 * record and the reports): host, kernel, online CPUs, load, memory.
 */
#ifndef JOSTLE_MACHINE_H
#define JOSTLE_MACHINE_H

#include "util/dbuf.h"

/* Append the JSON object {"hostname":...,"kernel":...,"cpus":N,...}. */
void machine_json(struct dbuf *b);
/* Online CPUs (at least 1). */
unsigned machine_cpus(void);

#endif
