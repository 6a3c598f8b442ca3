/*
 * pyoffsets.h: where CPython keeps what a stack reader needs, per version.
 *
 * Reading another process's Python stacks means following pointers through
 * CPython's private structs (_PyRuntime -> interpreters -> thread states ->
 * frames -> code objects -> strings), whose layouts change with every
 * minor version. This module is the table of those layouts:
 *
 *   - 3.11 and 3.12 are hardcoded per minor version (pyoffsets_for());
 *     tests/tools/pyoffsets_check.c compares them with offsetof() over the
 *     interpreter's own headers where those are installed;
 *   - 3.13 and later publish _Py_DebugOffsets at the start of _PyRuntime
 *     for tools like this one; pyoffsets_from_debug() reads them. The
 *     layout of _Py_DebugOffsets itself changes between minor versions, so
 *     which of its slots holds which offset is also a per-version table
 *     (3.13 and 3.14; later versions are refused until added).
 *
 * Everything here is pure: no I/O, no state.
 */
#ifndef JOSTLE_PYOFFSETS_H
#define JOSTLE_PYOFFSETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PYOFF_NONE UINT32_MAX

struct pyoffsets {
	unsigned version;               /* PY_VERSION_HEX of the interpreter */
	bool free_threaded;
	/* _PyRuntimeState; _finalizing: the thread state running
	 * Py_FinalizeEx once it is past the program's threads and atexit
	 * handlers, NULL before (PYOFF_NONE: not known) */
	uint32_t runtime_interpreters_head, runtime_finalizing;
	/* PyInterpreterState */
	uint32_t interp_next, interp_threads_head;
	/* PyThreadState; current_frame is in the _PyCFrame that tstate_cframe
	 * points to (3.11, 3.12) or, when tstate_cframe is PYOFF_NONE, in the
	 * thread state itself (3.13+) */
	uint32_t tstate_next, tstate_native_thread_id, tstate_cframe, current_frame;
	/* _PyInterpreterFrame */
	uint32_t frame_code;            /* f_code, or f_executable (3.13+) */
	uint32_t frame_previous;
	uint32_t frame_instr;           /* prev_instr (3.11, 3.12) or instr_ptr */
	uint32_t frame_owner;
	uint32_t frame_is_entry;        /* 3.11 only, else PYOFF_NONE */
	uint32_t frame_tlbc_index;      /* 3.14 free-threaded only, else PYOFF_NONE */
	uint8_t owner_shim;             /* owner values >= this are the entry
					 * frames of a C call of the eval loop
					 * (3.12+), 0 when there are none */
	uint64_t code_tag_mask;         /* bits cleared from f_executable (3.14 stack refs) */
	/* PyCodeObject */
	uint32_t code_filename, code_name, code_linetable, code_firstlineno;
	uint32_t code_adaptive;         /* co_code_adaptive: the bytecode */
	uint32_t code_tlbc;             /* co_tlbc (3.14 free-threaded), else PYOFF_NONE */
	/* PyObject, PyBytesObject, PyUnicodeObject */
	uint32_t ob_type;
	uint32_t bytes_size, bytes_sval;
	uint32_t str_length, str_state, str_ascii_size, str_compact_size;
	unsigned str_kind_shift;        /* bit of state.kind: 2, or 8 (3.14t) */
};

/* The largest offset pyoffsets_from_debug() reads: callers read this many
 * bytes of _PyRuntime. */
#define PYOFFSETS_DEBUG_SIZE 1024

/* "3.11.2", "3.13.0rc1", "3.14.0a7" from PY_VERSION_HEX, into buf. */
const char *pyoffsets_version_str(unsigned version, char *buf, size_t len);

/*
 * The layout of VERSION (PY_VERSION_HEX) when it is hardcoded: 0, or
 * -ENOTSUP for versions that publish debug offsets (3.13+: use
 * pyoffsets_from_debug), or -EPROTONOSUPPORT (older than 3.11), with a
 * reason in why.
 */
int pyoffsets_for(unsigned version, struct pyoffsets *out, char *why, size_t whylen);

/*
 * The layout from the first LEN bytes of _PyRuntime (its _Py_DebugOffsets)
 * of an interpreter whose Py_Version is VERSION (0 when unknown: the
 * version in the debug offsets is taken). 0, or -EINVAL (no cookie, or
 * offsets that do not make sense), -EPROTONOSUPPORT (a version whose
 * debug offsets layout jostle does not know), with a reason in why.
 */
int pyoffsets_from_debug(const uint8_t *buf, size_t len, unsigned version, struct pyoffsets *out,
			 char *why, size_t whylen);

/*
 * Which u64 slot of _Py_DebugOffsets holds each offset jostle reads, for
 * one minor version (exposed for tests/tools/pyoffsets_check.c).
 */
struct pyoffsets_slots {
	unsigned minor;
	unsigned free_threaded, runtime_interpreters_head, runtime_finalizing;
	unsigned interp_size, interp_next, interp_threads_head;
	unsigned tstate_size, tstate_next, tstate_current_frame, tstate_native_thread_id;
	unsigned frame_size, frame_previous, frame_executable, frame_instr_ptr, frame_owner;
	unsigned frame_tlbc_index;      /* 0: none */
	unsigned code_size, code_filename, code_name, code_linetable, code_firstlineno;
	unsigned code_adaptive, code_tlbc;   /* code_tlbc 0: none */
	unsigned ob_type;
	unsigned bytes_size, bytes_ob_size, bytes_sval;
	unsigned str_size, str_state, str_length, str_ascii_size;
	unsigned nslots;                /* slots in the struct */
};

/* The slots of minor version MINOR (3.MINOR), or NULL. */
const struct pyoffsets_slots *pyoffsets_debug_slots(unsigned minor);

#endif
