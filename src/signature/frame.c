/*
 * frame.c: normalizing function names and telling runtime frames from
 * program frames (see frame.h).
 *
 * The demangler handles the shapes that dominate real stacks (plain and
 * nested names, constructors, destructors, std::) and gives up on the rest
 * by keeping the mangled name, which is still stable across runs. The
 * runtime test looks at the module first (reliable when known) and falls
 * back to name prefixes for reports that give only a file:line.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "signature/frame.h"
#include "util/banned.h"

const char *frame_basename(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

struct out {
	char *buf;
	size_t len, used;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->used >= o->len)
		return;
	size_t room = o->len - 1 - o->used;
	if (n > room)
		n = room;
	memcpy(o->buf + o->used, s, n);
	o->used += n;
	o->buf[o->used] = '\0';
}

/* <length><identifier> at *p; 0 and the identifier, or -1. */
static int source_name(const char **p, const char **id, size_t *idlen)
{
	const char *s = *p;
	if (!isdigit((unsigned char)*s))
		return -1;
	size_t n = 0;
	while (isdigit((unsigned char)*s)) {
		n = n * 10 + (size_t)(*s - '0');
		if (n > 4096)
			return -1;
		s++;
	}
	if (strnlen(s, n) < n)
		return -1;
	*id = s;
	*idlen = n;
	*p = s + n;
	return 0;
}

/* Demangle the simple Itanium shapes; 0 on success, -1 to keep the input. */
static int demangle(const char *m, struct out *o)
{
	const char *p = m + 2;
	const char *id = NULL, *last = NULL;
	size_t idlen = 0, lastlen = 0;
	if (*p == 'L')
		p++;
	if (*p != 'N') {
		if (!strncmp(p, "St", 2)) {
			put(o, "std::", 5);
			p += 2;
		}
		if (source_name(&p, &id, &idlen))
			return -1;
		put(o, id, idlen);
		return 0;
	}
	p++;
	while (*p == 'r' || *p == 'V' || *p == 'K' || *p == 'R' || *p == 'O')
		p++;
	int parts = 0;
	while (*p && *p != 'E') {
		if (parts)
			put(o, "::", 2);
		if (!strncmp(p, "St", 2)) {
			put(o, "std", 3);
			p += 2;
		} else if (p[0] == 'C' && (p[1] >= '1' && p[1] <= '5') && last) {
			put(o, last, lastlen);
			p += 2;
		} else if (p[0] == 'D' && (p[1] >= '0' && p[1] <= '5') && last) {
			put(o, "~", 1);
			put(o, last, lastlen);
			p += 2;
		} else if (!source_name(&p, &id, &idlen)) {
			put(o, id, idlen);
			last = id;
			lastlen = idlen;
		} else if (*p == 'I' && parts) {
			/* Template arguments: keep what we have, mark it. */
			o->used -= 2;
			o->buf[o->used] = '\0';
			put(o, "<>", 2);
			return 0;
		} else {
			return -1;
		}
		parts++;
	}
	return parts ? 0 : -1;
}

const char *frame_normalize(const char *name, char *buf, size_t len)
{
	if (!len)
		return buf;
	buf[0] = '\0';
	if (!name)
		return buf;
	while (*name == ' ' || *name == '\t')
		name++;
	if (!*name || !strcmp(name, "??") || !strncmp(name, "?? ", 3))
		return buf;
	struct out o = { buf, len, 0 };
	if (!strncmp(name, "_Z", 2)) {
		/* Cut the mangled name at a clone suffix first: _Z3foov.isra.0 */
		char tmp[512];
		size_t n = strcspn(name, ". @");
		if (n >= sizeof(tmp))
			n = sizeof(tmp) - 1;
		memcpy(tmp, name, n);
		tmp[n] = '\0';
		if (!demangle(tmp, &o))
			return buf;
		o.used = 0;
		buf[0] = '\0';
	}
	/* Copy up to the parameter list, a clone suffix or a version (@GLIBC). */
	const char *s = name;
	const char *anon = "(anonymous namespace)";
	size_t anonlen = strlen(anon);
	while (*s) {
		if (!strncmp(s, anon, anonlen)) {
			put(&o, s, anonlen);
			s += anonlen;
			continue;
		}
		if (*s == '(' || *s == '.' || *s == '@' || !strncmp(s, " [clone", 7) ||
		    (*s == ' ' && s[1] == '('))
			break;
		/* "operator()" keeps its parentheses. */
		if (*s == 'o' && !strncmp(s, "operator()", 10)) {
			put(&o, s, 10);
			s += 10;
			continue;
		}
		put(&o, s, 1);
		s++;
	}
	while (o.used && buf[o.used - 1] == ' ')
		buf[--o.used] = '\0';
	return buf;
}

static bool has_prefix(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strncmp(s, *list, strlen(*list)))
			return true;
	return false;
}

static bool is_one_of(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

/* Objects that are never the program (matched on the basename's start). */
static const char *const runtime_modules[] = {
	"libc.so", "libc-", "libpthread", "ld-linux", "ld64.so", "ld-2.", "libdl.",
	"librt.", "libm.so", "libasan", "libtsan", "libubsan", "liblsan", "libhwasan",
	"libmsan", "libgcc_s", "libstdc++", "libpython", "python2", "python3", "[vdso", "linux-vdso",
	"libjostle-chaos", "libjostle-crash", "libffi.", "libcuda.", "libcudart", "libnvrtc", "libcupti", "libnvidia", NULL,
};

/* Source paths (in sanitizer reports) that are runtime code. */
static const char *const runtime_paths[] = {
	"/sysdeps/", "/nptl/", "/glibc", "glibc-", "/libio/", "/malloc/", "/stdlib/",
	"/csu/", "/compiler-rt/", "/libsanitizer/", "/sanitizer_common/", "/asan/",
	"/tsan/", "/ubsan/", "/lsan/", "/include/c++/", "/Python/", "/Objects/",
	"/Modules/", "/Include/", "/lib/python2.", "/lib/python3.", "<frozen ",
	/* jostle's own preload libraries, as a sanitizer report names their
	 * frames (by source file): the sync chaos thread trampoline is the
	 * third frame of every thread of a --chaos sync run */
	"preload/chaos.c", "preload/crash.c", NULL,
};

static const char *const runtime_prefixes[] = {
	"__asan", "__interceptor_", "___interceptor_", "__sanitizer", "__tsan",
	"__ubsan", "__lsan", "__msan", "__hwasan", "__libc_", "__GI_", "_dl_",
	"__pthread_", "__lll_", "__futex", "futex_", "__nptl", "__sched", "__nanosleep",
	"__clock_nanosleep", "__sleep", "__poll", "__select", "__read", "__write",
	"__cxa_", "__gxx_", "_Unwind_", "__restore_rt", "__assert_fail",
	"_Py", "Py", "_PyEval", "method_vectorcall", "cfunction_", "slot_tp_",
	"vectorcall_", "function_code_fastcall", "pymain_", "thread_run", "t_bootstrap",
	"lock_PyThread", "acquire_timed", "pysleep", "time_sleep", "faulthandler_",
	"std::", "__gnu_cxx::", "execute_native_thread_routine", "cuLaunch", "cudaLaunch",
	"__device_stub", "__cudart", "__vdso_", "[vdso", NULL,
};

static const char *const runtime_names[] = {
	"_start", "start_thread", "clone", "clone3", "__clone", "__clone3", "abort",
	"raise", "gsignal", "malloc", "free", "calloc", "realloc", "cfree",
	"posix_memalign", "aligned_alloc", "memalign", "valloc", "malloc_printerr",
	"_int_free", "_int_malloc", "_int_realloc", "operator new", "operator delete",
	"operator new[]", "operator delete[]", "pthread_kill", "pthread_mutex_lock",
	"pthread_mutex_unlock", "pthread_cond_wait", "pthread_cond_timedwait",
	"pthread_join", "pthread_barrier_wait", "pthread_create", "pthread_rwlock_rdlock",
	"pthread_rwlock_wrlock", "pthread_spin_lock", "sem_wait", "sem_timedwait",
	"sched_yield", "nanosleep", "clock_nanosleep", "usleep", "sleep", "pause",
	"poll", "ppoll", "select", "epoll_wait", "syscall", "memcpy", "memmove",
	"memset", "strlen", "strcmp", "exit", "_exit",
	"call_init", "__do_global_dtors_aux", "killpg", "kill", "tgkill", "wait4",
	"waitpid", "futex_wait", NULL,
};

static const char *const allocator_names[] = {
	"malloc", "free", "calloc", "realloc", "reallocarray", "cfree", "memalign", "valloc",
	"pvalloc", "aligned_alloc", "posix_memalign", "malloc_printerr", "malloc_consolidate",
	"unlink_chunk", "munmap_chunk", "operator new", "operator delete", "operator new[]",
	"operator delete[]", "sysmalloc", "tcache_init", "tcache_get", "tcache_put",
	"tcache_thread_shutdown", NULL,
};
static const char *const allocator_prefixes[] = {
	"__libc_malloc", "__libc_free", "__libc_calloc", "__libc_realloc", "__libc_memalign",
	"_int_", "_mid_memalign", "__malloc_", "tcache_", NULL,
};

bool frame_is_allocator(const char *fn)
{
	return fn && *fn && (is_one_of(fn, allocator_names) || has_prefix(fn, allocator_prefixes));
}

bool frame_is_runtime(const char *fn, const char *module)
{
	if (module && *module) {
		const char *base = frame_basename(module);
		if (has_prefix(base, runtime_modules))
			return true;
		for (const char *const *p = runtime_paths; *p; p++)
			if (strstr(module, *p))
				return true;
	}
	if (!fn || !*fn)
		return true;  /* an unknown frame is an address: never stable */
	return has_prefix(fn, runtime_prefixes) || is_one_of(fn, runtime_names);
}

bool frame_python_stdlib(const char *path)
{
	if (!path || !*path)
		return false;
	if (!strncmp(path, "<frozen ", 8))
		return true;
	if (strstr(path, "/site-packages/") || strstr(path, "/dist-packages/"))
		return false;
	/* .../lib/python3.11/x.py, .../lib64/python3.12/x.py */
	for (const char *p = strstr(path, "python"); p; p = strstr(p + 1, "python")) {
		bool lib = (p - path >= 4 && !strncmp(p - 4, "lib/", 4)) ||
			   (p - path >= 6 && !strncmp(p - 6, "lib64/", 6));
		if (!lib)
			continue;
		const char *q = p + 6;
		if (!isdigit((unsigned char)*q))
			continue;
		while (isdigit((unsigned char)*q) || *q == '.')
			q++;
		if (*q == 't')   /* free-threaded: lib/python3.13t/ */
			q++;
		if (*q == '/')
			return true;
	}
	return false;
}
