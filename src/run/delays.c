/*
 * delays.c: the series' account of injected delays (see delays.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "run/delays.h"
#include "util/strvec.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define SLOT_WORDS 8   /* 64 bytes: the library's slot (preload/chaos.c) */

int delays_open(struct delays *d, const char *out_dir, size_t slots)
{
	memset(d, 0, sizeof(*d));
	if (!slots)
		return 0;
	char *path = xasprintf("%s/.chaos-delays", out_dir);
	size_t len = slots * SLOT_WORDS * sizeof(uint64_t);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)len) < 0) {
		int e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		free(path);
		return -e;
	}
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int e = errno;
	close(fd);
	if (m == MAP_FAILED) {
		unlink(path);
		free(path);
		return -e;
	}
	d->map = m;
	d->slots = slots;
	d->path = path;
	return 0;
}

void delays_env(const struct delays *d, struct strvec *env)
{
	if (d->map)
		strvec_setenv(env, "JOSTLE_DELAY_FILE", d->path);
}

void delays_reset(struct delays *d, size_t slot)
{
	if (d->map && slot < d->slots)
		for (int i = 0; i < SLOT_WORDS; i++)
			__atomic_store_n(&d->map[slot * SLOT_WORDS + i], 0, __ATOMIC_RELAXED);
}

void delays_read(const struct delays *d, size_t slot, struct delay_acct *a)
{
	memset(a, 0, sizeof(*a));
	if (!d->map || slot >= d->slots)
		return;
	const uint64_t *w = &d->map[slot * SLOT_WORDS];
	a->delay_s = (double)__atomic_load_n(&w[0], __ATOMIC_RELAXED) / 1e9;
	a->spin_s = (double)__atomic_load_n(&w[1], __ATOMIC_RELAXED) / 1e9;
	a->steps = __atomic_load_n(&w[2], __ATOMIC_RELAXED);
}

void delays_close(struct delays *d)
{
	if (d->map) {
		munmap(d->map, d->slots * SLOT_WORDS * sizeof(uint64_t));
		unlink(d->path);
	}
	free(d->path);
	memset(d, 0, sizeof(*d));
}
