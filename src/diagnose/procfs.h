/*
 * procfs.h: reading /proc. Two layers:
 *
 *  - pure parsers of /proc text (procfs_parse_*): they take the text of one
 *    file and fill a struct; no I/O, so they are tested on fixture files in
 *    tests/data/.
 *  - readers that open /proc/PID once (procfs_open) and read files relative
 *    to that directory fd with openat(), so that every file read belongs to
 *    the same process even if its pid is reused meanwhile.
 *
 * A process or thread that vanished while we read it is a normal result:
 * readers return -ESRCH (or -ENOENT), never print.
 */
#ifndef JOSTLE_PROCFS_H
#define JOSTLE_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The fields of /proc/PID/stat (or task/TID/stat) that jostle uses. */
struct procfs_stat {
	pid_t pid;
	char comm[64];          /* without the parentheses; may hold spaces */
	char state;             /* R S D T t Z X I ... */
	pid_t ppid;
	pid_t pgrp;
	uint64_t minflt, majflt;  /* page faults (of the whole process in /proc/PID/stat) */
	uint64_t utime;         /* clock ticks */
	uint64_t stime;         /* clock ticks */
	uint64_t cutime, cstime;   /* clock ticks of its children it waited for */
	long num_threads;
	uint64_t starttime;     /* clock ticks after boot */
	uint64_t rss_pages;     /* resident set, in pages (0 when the line is cut short) */
	int processor;          /* last CPU */
};

/* The fields of /proc/PID/status that jostle uses (-1 when absent). */
struct procfs_status {
	char name[64];
	char state;
	pid_t tgid;
	pid_t ppid;
	pid_t tracer;           /* TracerPid */
	long threads;
	long vm_rss_kb;
	uint64_t sig_caught;    /* SigCgt mask, bit n-1 for signal n */
};

/* Parse the text of a stat file. 0, or -EINVAL when it is malformed. */
int procfs_parse_stat(const char *text, struct procfs_stat *out);
/* Parse the text of a status file. 0, or -EINVAL without a Name line. */
int procfs_parse_status(const char *text, struct procfs_status *out);
/*
 * Parse a wchan file into buf ("" when the thread is not waiting: the
 * kernel prints "0" for that). Returns buf.
 */
const char *procfs_parse_wchan(const char *text, char *buf, size_t len);
/*
 * Parse a syscall file: the syscall number the thread is blocked in, -1
 * when it is running in user space ("running"), -2 when it is unknown
 * (empty, "-1 ..." for a thread not in a syscall but blocked in the kernel).
 */
long procfs_parse_syscall(const char *text);
/*
 * Parse a syscall file with its arguments: 1 when the thread is running,
 * 0 with *nr (-1: blocked outside a system call) and args[0..5] (zero for
 * -1), -EINVAL when it is malformed.
 */
int procfs_parse_syscall_args(const char *text, long *nr, uint64_t args[6]);
/* Parse a schedstat file: the CPU time of the thread in ns (its first
 * field). 0, or -EINVAL when it does not start with a number. */
int procfs_parse_schedstat(const char *text, uint64_t *ns);
/*
 * Parse whitespace-separated pids (a children file) into *out (grown with
 * ALLOC_GROW; caller frees). Returns the number appended, or -EINVAL at the
 * first token that is not a positive decimal pid.
 */
int procfs_parse_pids(const char *text, pid_t **out, size_t *nr, size_t *alloc);
/* A decimal pid from a directory entry name, or 0 when it is not one. */
pid_t procfs_parse_pid_name(const char *name);
/*
 * Value of NAME in NUL-separated environ text of LEN bytes, or NULL. The
 * result points into text and runs to the next NUL (or LEN).
 */
const char *procfs_environ_get(const char *text, size_t len, const char *name, size_t *vlen);

/* Open /proc/PID as a directory fd (O_PATH-free, O_CLOEXEC). fd, or -errno. */
int procfs_open(pid_t pid);
/* Open /proc/PID/task/TID relative to a process dir fd. fd, or -errno. */
int procfs_open_task(int pid_dirfd, pid_t tid);
/*
 * Read the file NAME relative to dirfd into buf (at most len-1 bytes,
 * NUL-terminated). Returns the byte count, or -errno (-ESRCH when the
 * process is gone).
 */
long procfs_read(int dirfd, const char *name, char *buf, size_t len);
/*
 * The thread ids of the process open as pid_dirfd, sorted ascending, into
 * *out (caller frees). Returns the count, or -errno.
 */
int procfs_tasks(int pid_dirfd, pid_t **out);
/* Every pid in /proc, sorted ascending (caller frees). Count or -errno. */
int procfs_all_pids(pid_t **out);

#endif
