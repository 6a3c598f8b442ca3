/*
 * pyoffsets_check.c: jostle's CPython layouts (src/diagnose/pyoffsets.c)
 * against offsetof() over an interpreter's own internal headers.
 *
 *   cc -DPy_BUILD_CORE -I/usr/include/python3.11 -iquote src \
 *      tests/tools/pyoffsets_check.c src/diagnose/pyoffsets.c -o check && ./check
 *
 * For 3.11 and 3.12 it compares the hardcoded table; for 3.13+ it checks
 * which slot of _Py_DebugOffsets jostle reads each offset from, then fills
 * a _Py_DebugOffsets with the real offsets and checks what
 * pyoffsets_from_debug() makes of it. TAP output (tests/e2e/t540).
 */
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "internal/pycore_frame.h"
#include "internal/pycore_interp.h"
#include "internal/pycore_runtime.h"

#include "diagnose/pyoffsets.h"

static int n, failed;

static void eq(const char *what, unsigned long long got, unsigned long long want)
{
	n++;
	if (got != want)
		failed++;
	printf("%sok %d - %s: jostle %llu, headers %llu\n", got == want ? "" : "not ", n, what, got, want);
}

#define EQ(field, want) eq(#field, (unsigned long long)o.field, (unsigned long long)(want))

int main(void)
{
	struct pyoffsets o;
	char why[256] = "";
#if PY_VERSION_HEX < 0x030d0000
	int rc = pyoffsets_for(PY_VERSION_HEX, &o, why, sizeof(why));
	eq("pyoffsets_for() knows this version", rc, 0);
	if (rc)
		printf("# %s\n", why);
	EQ(tstate_cframe, offsetof(PyThreadState, cframe));
	EQ(current_frame, offsetof(_PyCFrame, current_frame));
	EQ(frame_code, offsetof(_PyInterpreterFrame, f_code));
	EQ(frame_instr, offsetof(_PyInterpreterFrame, prev_instr));
#if PY_VERSION_HEX < 0x030c0000
	EQ(frame_is_entry, offsetof(_PyInterpreterFrame, is_entry));
#endif
	EQ(str_compact_size, sizeof(PyCompactUnicodeObject));
#else
	const struct pyoffsets_slots *s = pyoffsets_debug_slots((PY_VERSION_HEX >> 16) & 0xff);
	eq("pyoffsets_debug_slots() knows this version", s != NULL, 1);
	if (!s)
		return 1;
#define SLOT(field, member) eq("slot " #field, 8ull * s->field, offsetof(_Py_DebugOffsets, member))
	SLOT(free_threaded, free_threaded);
	SLOT(runtime_interpreters_head, runtime_state.interpreters_head);
	SLOT(interp_size, interpreter_state.size);
	SLOT(interp_next, interpreter_state.next);
	SLOT(interp_threads_head, interpreter_state.threads_head);
	SLOT(tstate_size, thread_state.size);
	SLOT(tstate_next, thread_state.next);
	SLOT(tstate_current_frame, thread_state.current_frame);
	SLOT(tstate_native_thread_id, thread_state.native_thread_id);
	SLOT(frame_size, interpreter_frame.size);
	SLOT(frame_previous, interpreter_frame.previous);
	SLOT(frame_executable, interpreter_frame.executable);
	SLOT(frame_instr_ptr, interpreter_frame.instr_ptr);
	SLOT(frame_owner, interpreter_frame.owner);
	SLOT(code_size, code_object.size);
	SLOT(code_filename, code_object.filename);
	SLOT(code_name, code_object.name);
	SLOT(code_linetable, code_object.linetable);
	SLOT(code_firstlineno, code_object.firstlineno);
	SLOT(code_adaptive, code_object.co_code_adaptive);
	SLOT(ob_type, pyobject.ob_type);
	SLOT(bytes_size, bytes_object.size);
	SLOT(bytes_ob_size, bytes_object.ob_size);
	SLOT(bytes_sval, bytes_object.ob_sval);
	SLOT(str_size, unicode_object.size);
	SLOT(str_state, unicode_object.state);
	SLOT(str_length, unicode_object.length);
	SLOT(str_ascii_size, unicode_object.asciiobject_size);
	eq("slots in _Py_DebugOffsets", 8ull * s->nslots, sizeof(_Py_DebugOffsets));

	/* What the interpreter would publish, read back. */
	_Py_DebugOffsets d;
	memset(&d, 0, sizeof(d));
	memcpy(d.cookie, "xdebugpy", 8);
	d.version = PY_VERSION_HEX;
	d.runtime_state.size = sizeof(_PyRuntimeState);
	d.runtime_state.interpreters_head = offsetof(_PyRuntimeState, interpreters.head);
	d.interpreter_state.size = sizeof(PyInterpreterState);
	d.interpreter_state.next = offsetof(PyInterpreterState, next);
	d.interpreter_state.threads_head = offsetof(PyInterpreterState, threads.head);
	d.thread_state.size = sizeof(PyThreadState);
	d.thread_state.next = offsetof(PyThreadState, next);
	d.thread_state.current_frame = offsetof(PyThreadState, current_frame);
	d.thread_state.native_thread_id = offsetof(PyThreadState, native_thread_id);
	d.interpreter_frame.size = sizeof(_PyInterpreterFrame);
	d.interpreter_frame.previous = offsetof(_PyInterpreterFrame, previous);
	d.interpreter_frame.executable = offsetof(_PyInterpreterFrame, f_executable);
	d.interpreter_frame.instr_ptr = offsetof(_PyInterpreterFrame, instr_ptr);
	d.interpreter_frame.owner = offsetof(_PyInterpreterFrame, owner);
	d.code_object.size = sizeof(PyCodeObject);
	d.code_object.filename = offsetof(PyCodeObject, co_filename);
	d.code_object.name = offsetof(PyCodeObject, co_name);
	d.code_object.linetable = offsetof(PyCodeObject, co_linetable);
	d.code_object.firstlineno = offsetof(PyCodeObject, co_firstlineno);
	d.code_object.co_code_adaptive = offsetof(PyCodeObject, co_code_adaptive);
	d.pyobject.ob_type = offsetof(PyObject, ob_type);
	d.bytes_object.size = sizeof(PyBytesObject);
	d.bytes_object.ob_size = offsetof(PyBytesObject, ob_base.ob_size);
	d.bytes_object.ob_sval = offsetof(PyBytesObject, ob_sval);
	d.unicode_object.size = sizeof(PyUnicodeObject);
	d.unicode_object.state = offsetof(PyASCIIObject, state);
	d.unicode_object.length = offsetof(PyASCIIObject, length);
	d.unicode_object.asciiobject_size = sizeof(PyASCIIObject);
	uint8_t buf[PYOFFSETS_DEBUG_SIZE] = { 0 };
	memcpy(buf, &d, sizeof(d) < sizeof(buf) ? sizeof(d) : sizeof(buf));
	int rc = pyoffsets_from_debug(buf, sizeof(buf), PY_VERSION_HEX, &o, why, sizeof(why));
	eq("pyoffsets_from_debug() reads them", rc, 0);
	if (rc)
		printf("# %s\n", why);
	EQ(tstate_cframe, PYOFF_NONE);
	EQ(current_frame, offsetof(PyThreadState, current_frame));
	EQ(frame_code, offsetof(_PyInterpreterFrame, f_executable));
	EQ(frame_instr, offsetof(_PyInterpreterFrame, instr_ptr));
	EQ(str_compact_size, sizeof(PyCompactUnicodeObject));
#endif
	EQ(version >> 16, PY_VERSION_HEX >> 16);
	EQ(runtime_interpreters_head, offsetof(_PyRuntimeState, interpreters.head));
	EQ(interp_next, offsetof(PyInterpreterState, next));
	EQ(interp_threads_head, offsetof(PyInterpreterState, threads.head));
	EQ(tstate_next, offsetof(PyThreadState, next));
	EQ(tstate_native_thread_id, offsetof(PyThreadState, native_thread_id));
	EQ(frame_previous, offsetof(_PyInterpreterFrame, previous));
	EQ(frame_owner, offsetof(_PyInterpreterFrame, owner));
	EQ(code_filename, offsetof(PyCodeObject, co_filename));
	EQ(code_name, offsetof(PyCodeObject, co_name));
	EQ(code_linetable, offsetof(PyCodeObject, co_linetable));
	EQ(code_firstlineno, offsetof(PyCodeObject, co_firstlineno));
	EQ(code_adaptive, offsetof(PyCodeObject, co_code_adaptive));
	EQ(ob_type, offsetof(PyObject, ob_type));
	EQ(bytes_size, offsetof(PyBytesObject, ob_base.ob_size));
	EQ(bytes_sval, offsetof(PyBytesObject, ob_sval));
	EQ(str_length, offsetof(PyASCIIObject, length));
	EQ(str_state, offsetof(PyASCIIObject, state));
	EQ(str_ascii_size, sizeof(PyASCIIObject));
	printf("# %d checked, %d failed\n", n, failed);
	return failed != 0;
}
