/*
 * machine.c: host facts for the record (see machine.h).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "run/machine.h"
#include "util/jsonw.h"
#include "util/banned.h"

static unsigned online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

unsigned machine_cpus(void)
{
	cpu_set_t m;
	unsigned online = online_cpus();
	if (sched_getaffinity(0, sizeof(m), &m) < 0)
		return online;
	unsigned n = (unsigned)CPU_COUNT(&m);
	return n && n < online ? n : online;
}

void machine_json(struct dbuf *b)
{
	struct utsname u;
	char kernel[300] = "unknown", host[256] = "unknown";
	if (uname(&u) == 0) {
		snprintf(kernel, sizeof(kernel), "%s %s %s", u.sysname, u.release, u.machine);
		snprintf(host, sizeof(host), "%s", u.nodename);
	}
	double load[1] = { -1 };
	(void)!getloadavg(load, 1);
	struct sysinfo si;
	long mem_mb = sysinfo(&si) == 0 ? (long)((double)si.totalram * si.mem_unit / 1048576.0) : -1;
	dbuf_addc(b, '{');
	jsonw_kstr(b, "hostname", host);
	dbuf_addc(b, ',');
	jsonw_kstr(b, "kernel", kernel);
	dbuf_addc(b, ',');
	jsonw_kint(b, "cpus", online_cpus());
	dbuf_addc(b, ',');
	jsonw_kdbl(b, "loadavg", load[0]);
	dbuf_addc(b, ',');
	jsonw_kint(b, "mem_mb", mem_mb);
	dbuf_addc(b, '}');
}
