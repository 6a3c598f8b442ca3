/*
 * fuzz_procfs.c: the parsers of /proc text (procfs.c: stat, status, wchan,
 * syscall, children, pid names, environ) and of gdb's backtraces
 * (stack_gdb.c), the text a process that exits mid-read or a foreign
 * kernel may leave half written. The first byte picks the parser; the rest
 * is the file.
 */
#include "fuzz.h"

#include <sys/types.h>

#include "diagnose/procfs.h"
#include "diagnose/stack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned which = data[0];
	char *text = fuzz_cstr(data + 1, size - 1);
	switch (which % 8) {
	case 0: {
		struct procfs_stat st;
		procfs_parse_stat(text, &st);
		break;
	}
	case 1: {
		struct procfs_status st;
		procfs_parse_status(text, &st);
		break;
	}
	case 2: {
		char buf[64];
		procfs_parse_wchan(text, buf, sizeof(buf));
		break;
	}
	case 3:
		procfs_parse_syscall(text);
		break;
	case 4: {
		pid_t *v = NULL;
		size_t nr = 0, alloc = 0;
		procfs_parse_pids(text, &v, &nr, &alloc);
		free(v);
		break;
	}
	case 5:
		procfs_parse_pid_name(text);
		break;
	case 6: {
		/* environ: NUL-separated; the name asked for is its first entry's */
		char *eq = strchr(text, '=');
		if (eq)
			*eq = '\0';
		size_t vlen = 0;
		const char *v = procfs_environ_get((const char *)data + 1, size - 1, text, &vlen);
		if (v && (v < (const char *)data + 1 || v + vlen > (const char *)data + size))
			abort();
		break;
	}
	case 7: {
		struct stack_set s = STACK_SET_INIT;
		stack_gdb_parse(text, 1234, &s);
		struct stack_fold *f = NULL;
		size_t n = stack_fold(&s, 8, &f);
		stack_fold_free(f, n);
		stack_set_release(&s);
		break;
	}
	}
	free(text);
	return 0;
}
