/*
 * stack_libdw.c: the libdw stack backend (elfutils libdwfl).
 *
 * dwfl_linux_proc_report() maps the process's modules from
 * /proc/PID/maps, dwfl_linux_proc_attach() prepares ptrace access, and
 * dwfl_getthreads() visits each thread: libdwfl attaches to that thread
 * alone, unwinds it with the CFI of each module (.eh_frame needs no debug
 * info) and detaches, so at any moment at most one thread is stopped.
 * Names come from the symbol tables (dwname.h: .symtab, a debug file by
 * build-id, .gnu_debugdata, .dynsym, else module+offset of the function's
 * start), which costs one binary search per frame and is why 100 threads
 * take milliseconds.
 *
 * A frame whose pc is a return address is looked up at pc - 1, so a call
 * that is the last instruction of a function is not blamed on the next one.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>

#include "diagnose/dwname.h"
#include "diagnose/stack.h"
#include "util/banned.h"

struct walk {
	Dwfl *dwfl;
	pid_t pid;
	struct stack_set *out;
	struct stack_thread *cur;
	int threads;
	char why[128];     /* the first thread that could not be unwound: why */
};


static int frame_cb(Dwfl_Frame *frame, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool activation = false;
	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	Dwarf_Addr lookup = activation || pc == 0 ? pc : pc - 1;
	Dwfl_Module *mod = dwfl_addrmodule(w->dwfl, lookup);
	const char *modname = mod ? dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL) : NULL;
	char name[512];
	if (dwname_lookup(mod, lookup, name, sizeof(name)))
		stack_thread_push(w->cur, name, modname, pc);
	else
		stack_thread_push_label(w->cur, name, modname, pc);
	return w->cur->nr >= STACK_MAX_FRAMES ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static int thread_cb(Dwfl_Thread *thread, void *arg)
{
	struct walk *w = arg;
	w->cur = stack_set_add(w->out, w->pid, dwfl_thread_tid(thread));
	w->threads++;
	/* A failed unwind keeps the frames found so far (often all of them: the
	 * outermost frame has no CFI to step past). */
	if (dwfl_thread_getframes(thread, frame_cb, w) != 0 && !w->cur->nr)
		snprintf(w->why, sizeof(w->why), "%s", dwfl_errmsg(-1));
	return DWARF_CB_OK;
}

static const char *libdw_unavailable(void)
{
	return NULL;
}

static int libdw_capture(pid_t pid, struct stack_set *out, char *err, size_t errlen)
{
	Dwfl_Callbacks cb;
	Dwfl *dwfl = dwfl_begin(dwname_callbacks(&cb, dwfl_linux_proc_find_elf));
	if (!dwfl) {
		snprintf(err, errlen, "dwfl_begin: %s", dwfl_errmsg(-1));
		return -ENOMEM;
	}
	int rc = dwfl_linux_proc_report(dwfl, pid);
	if (rc) {
		snprintf(err, errlen, "reading /proc/%d/maps: %s", (int)pid,
			 rc > 0 ? strerror(rc) : dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return rc == ENOENT ? -ESRCH : -(rc > 0 ? rc : EIO);
	}
	if (dwfl_report_end(dwfl, NULL, NULL)) {
		snprintf(err, errlen, "dwfl_report_end: %s", dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return -EIO;
	}
	rc = dwfl_linux_proc_attach(dwfl, pid, false);
	if (rc) {
		snprintf(err, errlen, "attaching to %d: %s", (int)pid,
			 rc > 0 ? strerror(rc) : dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return rc == ESRCH || rc == ENOENT ? -ESRCH : -(rc > 0 ? rc : EIO);
	}
	struct walk w = { .dwfl = dwfl, .pid = pid, .out = out };
	size_t first = out->nr;
	rc = dwfl_getthreads(dwfl, thread_cb, &w);
	if (rc < 0 && !w.threads)
		snprintf(err, errlen, "dwfl_getthreads: %s", dwfl_errmsg(-1));
	dwfl_end(dwfl);
	size_t frames = 0;
	for (size_t i = first; i < out->nr; i++)
		frames += out->v[i].nr;
	if (w.threads && !frames) {
		snprintf(err, errlen, "no thread of %d could be unwound (%s)", (int)pid,
			 w.why[0] ? w.why : "no frame");
		return -EIO;
	}
	return w.threads ? w.threads : -EIO;
}


int stack_from_core(const char *core, const char *exe, struct stack_set *out, pid_t *pid,
		    char *err, size_t errlen)
{
	elf_version(EV_CURRENT);
	int fd = open(core, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot open core '%s': %s", core, strerror(e));
		return -e;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Dwfl_Callbacks cb;
	Dwfl *dwfl = elf ? dwfl_begin(dwname_callbacks(&cb, dwfl_build_id_find_elf)) : NULL;
	int rc = -EIO;
	if (!elf || !dwfl) {
		snprintf(err, errlen, "'%s' is not an ELF file: %s", core, elf_errmsg(-1));
		goto out;
	}
	if (dwfl_core_file_report(dwfl, elf, exe) < 0 || dwfl_report_end(dwfl, NULL, NULL)) {
		snprintf(err, errlen, "'%s' is not a core file: %s", core, dwfl_errmsg(-1));
		goto out;
	}
	int p = dwfl_core_file_attach(dwfl, elf);
	if (p < 0) {
		snprintf(err, errlen, "no threads in core '%s': %s", core, dwfl_errmsg(-1));
		goto out;
	}
	*pid = p;
	struct walk w = { .dwfl = dwfl, .pid = p, .out = out };
	(void)dwfl_getthreads(dwfl, thread_cb, &w);
	rc = w.threads ? w.threads : -EIO;
	if (!w.threads)
		snprintf(err, errlen, "no thread of core '%s' could be unwound", core);
out:
	if (dwfl)
		dwfl_end(dwfl);
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

const struct stack_backend stack_backend_libdw = {
	.name = "libdw",
	.unavailable = libdw_unavailable,
	.capture = libdw_capture,
};
