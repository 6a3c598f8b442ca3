/*
 * sitetable.h: the call-site table of one process under `jostle localize`,
 * as the sync chaos library (preload/chaos.c) keeps it and jostle reads it
 * back (localize/catalog.c). Header-only: the layout is the interface.
 *
 * The library maps DIR/sites/RUN.PID[.N].tab (one per process; .N when an
 * exec'd image of the same pid finds the name taken) MAP_SHARED and counts
 * in it directly, so the table is in the file however the process ends: a
 * crash, a kill at a hang's timeout or _exit lose nothing. The file is
 * sparse: only the pages of slots in use take room (a process with twenty
 * sites, about twenty pages).
 *
 * A slot is claimed by compare-and-swap on ra and is valid once ready is
 * 1; readers skip the rest. Offsets are return addresses minus the
 * module's load bias (what the ELF program headers call the address), so
 * they are the same in every run.
 */
#ifndef JOSTLE_SITETABLE_H
#define JOSTLE_SITETABLE_H

#include <stdint.h>

#define SITETABLE_MAGIC "jostle-sites\n\0\0"   /* 16 bytes with the NULs */
#define SITETABLE_VERSION 1
#define SITETABLE_SLOTS 4096                   /* a power of 2 */
#define SITETABLE_MODS 64
#define SITETABLE_PATH 512

/* The interposed calls, in the library's numbering (new ones at the end). */
#define SITETABLE_CALLS \
	X(MUTEX_LOCK, "pthread_mutex_lock") X(MUTEX_TRYLOCK, "pthread_mutex_trylock") \
	X(MUTEX_UNLOCK, "pthread_mutex_unlock") X(RWLOCK_RDLOCK, "pthread_rwlock_rdlock") \
	X(RWLOCK_WRLOCK, "pthread_rwlock_wrlock") X(RWLOCK_UNLOCK, "pthread_rwlock_unlock") \
	X(SPIN_LOCK, "pthread_spin_lock") X(COND_WAIT, "pthread_cond_wait") \
	X(COND_TIMEDWAIT, "pthread_cond_timedwait") X(COND_SIGNAL, "pthread_cond_signal") \
	X(COND_BROADCAST, "pthread_cond_broadcast") X(SEM_WAIT, "sem_wait") \
	X(SEM_POST, "sem_post") X(CREATE, "pthread_create") X(SCHED_YIELD, "sched_yield") \
	X(NANOSLEEP, "nanosleep") X(USLEEP, "usleep") X(CLOCK_NANOSLEEP, "clock_nanosleep") \
	X(PAUSE, "pause") X(SIGSUSPEND, "sigsuspend") X(SIGWAIT, "sigwait") \
	X(SIGWAITINFO, "sigwaitinfo") X(SIGTIMEDWAIT, "sigtimedwait")

enum sitetable_call {
#define X(id, name) CALL_##id,
	SITETABLE_CALLS
#undef X
	CALL__COUNT
};

static const char *const sitetable_call_name[] = {
#define X(id, name) name,
	SITETABLE_CALLS
#undef X
};

struct sitetable_slot {
	uint64_t ra;          /* the return address in this process; 0: free */
	uint64_t off;         /* its offset in module mod */
	uint64_t calls;       /* calls counted (atomic) */
	uint64_t delays;      /* delays injected (atomic) */
	uint64_t thr;         /* mask mode: delay when the draw is below; 0 never */
	uint64_t start_off;   /* pthread_create: the start routine's offset */
	int32_t mod;          /* index into mods, -1: in no module */
	int32_t start_mod;    /* pthread_create: the start routine's module, -1: none */
	int32_t call;         /* enum sitetable_call */
	int32_t bit;          /* plan bit, -1: not in the plan */
	uint32_t ready;       /* the fields above are set (release / acquire) */
	uint32_t pad;
};

struct sitetable {
	char magic[16];
	uint32_t version;
	uint32_t slots;       /* SITETABLE_SLOTS */
	uint32_t nmods;       /* modules named (atomic) */
	uint32_t mode;        /* 1 record, 2 mask */
	uint64_t pid;
	uint64_t overflow;    /* calls at sites the table had no room for */
	uint64_t lock;        /* naming a module (the library's spin lock) */
	char mods[SITETABLE_MODS][SITETABLE_PATH];
	struct sitetable_slot slot[SITETABLE_SLOTS];
};

#endif
