/*
 * pyoffsets.c: CPython struct layouts per version (see pyoffsets.h).
 *
 * The hardcoded layouts are those of 64-bit Linux builds (x86-64 and
 * aarch64 share them: LP64, natural alignment). They were taken with
 * offsetof() over each version's own internal headers (Py_BUILD_CORE) and
 * are checked the same way by tests/tools/pyoffsets_check.c; a Py_DEBUG
 * build (Debian's python3.11-dbg) has the same layout for these fields.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "diagnose/pyoffsets.h"
#include "util/banned.h"

#define MINOR(v) (((v) >> 16) & 0xff)
#define MAJOR(v) (((v) >> 24) & 0xff)

const char *pyoffsets_version_str(unsigned v, char *buf, size_t len)
{
	unsigned level = (v >> 4) & 0xf, serial = v & 0xf;
	const char *tag = level == 0xa ? "a" : level == 0xb ? "b" : level == 0xc ? "rc" : "";
	if (*tag)
		snprintf(buf, len, "%u.%u.%u%s%u", MAJOR(v), MINOR(v), (v >> 8) & 0xff, tag, serial);
	else
		snprintf(buf, len, "%u.%u.%u", MAJOR(v), MINOR(v), (v >> 8) & 0xff);
	return buf;
}

static const struct pyoffsets py311 = {
	.runtime_interpreters_head = 40, .runtime_finalizing = 24,
	.interp_next = 0, .interp_threads_head = 16,
	.tstate_next = 8, .tstate_native_thread_id = 160, .tstate_cframe = 56, .current_frame = 8,
	.frame_code = 32, .frame_previous = 48, .frame_instr = 56, .frame_owner = 69,
	.frame_is_entry = 68, .frame_tlbc_index = PYOFF_NONE, .owner_shim = 0, .code_tag_mask = 0,
	.code_filename = 112, .code_name = 120, .code_linetable = 136, .code_firstlineno = 72,
	.code_adaptive = 184, .code_tlbc = PYOFF_NONE,
	.ob_type = 8, .bytes_size = 16, .bytes_sval = 32,
	.str_length = 16, .str_state = 32, .str_ascii_size = 48, .str_compact_size = 72,
	.str_kind_shift = 2,
};

/* 3.12: f_code first; the eval loop links an entry frame owned by the C
 * stack (FRAME_OWNED_BY_CSTACK = 3) below the frames of each of its calls. */
static const struct pyoffsets py312 = {
	.runtime_interpreters_head = 40, .runtime_finalizing = 24,
	.interp_next = 0, .interp_threads_head = 72,
	.tstate_next = 8, .tstate_native_thread_id = 144, .tstate_cframe = 56, .current_frame = 0,
	.frame_code = 0, .frame_previous = 8, .frame_instr = 56, .frame_owner = 70,
	.frame_is_entry = PYOFF_NONE, .frame_tlbc_index = PYOFF_NONE, .owner_shim = 3, .code_tag_mask = 0,
	.code_filename = 112, .code_name = 120, .code_linetable = 136, .code_firstlineno = 68,
	.code_adaptive = 192, .code_tlbc = PYOFF_NONE,
	.ob_type = 8, .bytes_size = 16, .bytes_sval = 32,
	.str_length = 16, .str_state = 32, .str_ascii_size = 40, .str_compact_size = 56,
	.str_kind_shift = 2,
};

int pyoffsets_for(unsigned version, struct pyoffsets *out, char *why, size_t whylen)
{
	char v[32];
	pyoffsets_version_str(version, v, sizeof(v));
	if (MAJOR(version) != 3 || MINOR(version) < 11) {
		snprintf(why, whylen, "Python %s is not supported (3.11 and later are)", v);
		return -EPROTONOSUPPORT;
	}
	if (MINOR(version) >= 13) {
		snprintf(why, whylen, "Python %s publishes its layout in _Py_DebugOffsets", v);
		return -ENOTSUP;
	}
	*out = MINOR(version) == 11 ? py311 : py312;
	out->version = version;
	return 0;
}

/*
 * Slots (u64 index) of _Py_DebugOffsets. 3.13: Include/internal/
 * pycore_runtime.h of 3.13 (checked against 3.13.0's header); 3.14:
 * Include/internal/pycore_debug_offsets.h of 3.14 (threads_main,
 * code_object_generation and tlbc_generation added to the interpreter,
 * stackpointer and tlbc_index to the frame, co_tlbc to the code object,
 * and a set object before the dict: not checked against a build here).
 */
static const struct pyoffsets_slots slots[] = {
	{
		.minor = 13, .free_threaded = 2, .runtime_interpreters_head = 5,
		.runtime_finalizing = 4, .interp_size = 6, .interp_next = 8, .interp_threads_head = 9,
		.tstate_size = 19, .tstate_next = 21, .tstate_current_frame = 23,
		.tstate_native_thread_id = 25,
		.frame_size = 28, .frame_previous = 29, .frame_executable = 30, .frame_instr_ptr = 31,
		.frame_owner = 33, .frame_tlbc_index = 0,
		.code_size = 34, .code_filename = 35, .code_name = 36, .code_linetable = 38,
		.code_firstlineno = 39, .code_adaptive = 43, .code_tlbc = 0,
		.ob_type = 45,
		.bytes_size = 64, .bytes_ob_size = 65, .bytes_sval = 66,
		.str_size = 67, .str_state = 68, .str_length = 69, .str_ascii_size = 70,
		.nslots = 73,
	},
	{
		.minor = 14, .free_threaded = 2, .runtime_interpreters_head = 5,
		.runtime_finalizing = 4, .interp_size = 6, .interp_next = 8, .interp_threads_head = 9,
		.tstate_size = 22, .tstate_next = 24, .tstate_current_frame = 26,
		.tstate_native_thread_id = 28,
		.frame_size = 31, .frame_previous = 32, .frame_executable = 33, .frame_instr_ptr = 34,
		.frame_owner = 36, .frame_tlbc_index = 38,
		.code_size = 39, .code_filename = 40, .code_name = 41, .code_linetable = 43,
		.code_firstlineno = 44, .code_adaptive = 48, .code_tlbc = 49,
		.ob_type = 51,
		.bytes_size = 74, .bytes_ob_size = 75, .bytes_sval = 76,
		.str_size = 77, .str_state = 78, .str_length = 79, .str_ascii_size = 80,
		.nslots = 95,
	},
};

const struct pyoffsets_slots *pyoffsets_debug_slots(unsigned minor)
{
	for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++)
		if (slots[i].minor == minor)
			return &slots[i];
	return NULL;
}

static uint64_t slot(const uint8_t *buf, unsigned i)
{
	uint64_t v;
	memcpy(&v, buf + 8 * (size_t)i, sizeof(v));
	return v;
}

/* An offset that must lie inside a struct of SIZE bytes. */
static bool inside(uint64_t off, uint64_t size, uint64_t width)
{
	return size > 0 && size < (1u << 20) && off + width <= size;
}

int pyoffsets_from_debug(const uint8_t *buf, size_t len, unsigned version, struct pyoffsets *out,
			 char *why, size_t whylen)
{
	memset(out, 0, sizeof(*out));
	if (len < 24 || memcmp(buf, "xdebugpy", 8)) {
		snprintf(why, whylen, "no _Py_DebugOffsets at the start of _PyRuntime (cookie missing)");
		return -EINVAL;
	}
	unsigned dv = (unsigned)slot(buf, 1);
	char v[32];
	pyoffsets_version_str(dv, v, sizeof(v));
	if (version && (MAJOR(dv) != MAJOR(version) || MINOR(dv) != MINOR(version))) {
		char pv[32];
		snprintf(why, whylen, "_Py_DebugOffsets says Python %s but Py_Version says %s", v,
			 pyoffsets_version_str(version, pv, sizeof(pv)));
		return -EINVAL;
	}
	const struct pyoffsets_slots *s = MAJOR(dv) == 3 ? pyoffsets_debug_slots(MINOR(dv)) : NULL;
	if (!s) {
		snprintf(why, whylen, "Python %s: jostle knows the _Py_DebugOffsets of 3.13 and 3.14 only", v);
		return -EPROTONOSUPPORT;
	}
	if ((size_t)s->nslots * 8 > len) {
		snprintf(why, whylen, "Python %s: _Py_DebugOffsets cut short", v);
		return -EINVAL;
	}
	out->version = version ? version : dv;
	out->free_threaded = slot(buf, s->free_threaded) != 0;
	out->runtime_interpreters_head = (uint32_t)slot(buf, s->runtime_interpreters_head);
	out->runtime_finalizing = (uint32_t)slot(buf, s->runtime_finalizing);
	out->interp_next = (uint32_t)slot(buf, s->interp_next);
	out->interp_threads_head = (uint32_t)slot(buf, s->interp_threads_head);
	out->tstate_next = (uint32_t)slot(buf, s->tstate_next);
	out->tstate_native_thread_id = (uint32_t)slot(buf, s->tstate_native_thread_id);
	out->tstate_cframe = PYOFF_NONE;
	out->current_frame = (uint32_t)slot(buf, s->tstate_current_frame);
	out->frame_code = (uint32_t)slot(buf, s->frame_executable);
	out->frame_previous = (uint32_t)slot(buf, s->frame_previous);
	out->frame_instr = (uint32_t)slot(buf, s->frame_instr_ptr);
	out->frame_owner = (uint32_t)slot(buf, s->frame_owner);
	out->frame_is_entry = PYOFF_NONE;
	out->frame_tlbc_index = s->frame_tlbc_index && out->free_threaded
				? (uint32_t)slot(buf, s->frame_tlbc_index) : PYOFF_NONE;
	/* 3.13: FRAME_OWNED_BY_CSTACK = 3; 3.14: FRAME_OWNED_BY_INTERPRETER = 3
	 * and FRAME_OWNED_BY_CSTACK = 4, both frames the eval loop links in
	 * for itself, holding no code to show. */
	out->owner_shim = 3;
	out->code_tag_mask = s->minor >= 14 ? 7 : 0;   /* _PyStackRef tag bits */
	out->code_filename = (uint32_t)slot(buf, s->code_filename);
	out->code_name = (uint32_t)slot(buf, s->code_name);
	out->code_linetable = (uint32_t)slot(buf, s->code_linetable);
	out->code_firstlineno = (uint32_t)slot(buf, s->code_firstlineno);
	out->code_adaptive = (uint32_t)slot(buf, s->code_adaptive);
	out->code_tlbc = s->code_tlbc && out->free_threaded ? (uint32_t)slot(buf, s->code_tlbc) : PYOFF_NONE;
	out->ob_type = (uint32_t)slot(buf, s->ob_type);
	out->bytes_size = (uint32_t)slot(buf, s->bytes_ob_size);
	out->bytes_sval = (uint32_t)slot(buf, s->bytes_sval);
	out->str_length = (uint32_t)slot(buf, s->str_length);
	out->str_state = (uint32_t)slot(buf, s->str_state);
	out->str_ascii_size = (uint32_t)slot(buf, s->str_ascii_size);
	/* PyCompactUnicodeObject: utf8_length and utf8 after the ASCII header */
	out->str_compact_size = out->str_ascii_size + 16;
	/* 3.14t keeps `interned` in a byte of its own before the bit fields */
	out->str_kind_shift = s->minor >= 14 && out->free_threaded ? 8 : 2;

	uint64_t interp = slot(buf, s->interp_size), tstate = slot(buf, s->tstate_size);
	uint64_t frame = slot(buf, s->frame_size), code = slot(buf, s->code_size);
	uint64_t bytes = slot(buf, s->bytes_size), str = slot(buf, s->str_size);
	bool sane = inside(out->interp_next, interp, 8) && inside(out->interp_threads_head, interp, 8) &&
		    inside(out->tstate_next, tstate, 8) && inside(out->tstate_native_thread_id, tstate, 8) &&
		    inside(out->current_frame, tstate, 8) && inside(out->frame_code, frame, 8) &&
		    inside(out->frame_previous, frame, 8) && inside(out->frame_instr, frame, 8) &&
		    inside(out->frame_owner, frame, 1) && inside(out->code_filename, code, 8) &&
		    inside(out->code_name, code, 8) && inside(out->code_linetable, code, 8) &&
		    inside(out->code_firstlineno, code, 4) && inside(out->code_adaptive, code, 2) &&
		    inside(out->bytes_size, bytes, 8) && inside(out->bytes_sval, bytes, 1) &&
		    inside(out->str_length, str, 8) && inside(out->str_state, str, 4) &&
		    out->str_ascii_size <= str && out->ob_type < 64 &&
		    out->runtime_interpreters_head < (1u << 20) && out->runtime_finalizing < (1u << 20) &&
		    (out->frame_tlbc_index == PYOFF_NONE || inside(out->frame_tlbc_index, frame, 4)) &&
		    (out->code_tlbc == PYOFF_NONE || inside(out->code_tlbc, code, 8));
	if (!sane) {
		snprintf(why, whylen, "Python %s: _Py_DebugOffsets hold offsets outside their structs", v);
		return -EINVAL;
	}
	return 0;
}
