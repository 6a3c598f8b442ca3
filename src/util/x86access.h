/*
 * x86access.h: whether an x86-64 instruction touches memory that other
 * threads may share. The step perturbation (preload/chaos.c, `--chaos
 * step`) holds a thread up just before such an instruction: a global, or
 * memory reached through a pointer, never the thread's own stack frame.
 *
 * A heuristic, not a disassembler: it reads prefixes, the opcode and the
 * ModRM/SIB bytes of the common integer, x87 and SSE forms. A form it does
 * not know reads as "no access", and a wrong answer only moves where a
 * delay falls, never what the program does. Header-only so the preload
 * library and the unit test share it.
 */
#ifndef JOSTLE_X86ACCESS_H
#define JOSTLE_X86ACCESS_H

#include <stdbool.h>

/* One-byte opcodes that take a ModRM byte (LEA, 8D, computes an address
 * without touching memory, and is left out). */
static inline bool x86_has_modrm(unsigned op)
{
	if (op < 0x40)
		return (op & 7) < 4;   /* ADD OR ADC SBB AND SUB XOR CMP r/m forms */
	switch (op) {
	case 0x62: case 0x63: case 0x69: case 0x6b:
	case 0x80: case 0x81: case 0x82: case 0x83: case 0x84: case 0x85: case 0x86: case 0x87:
	case 0x88: case 0x89: case 0x8a: case 0x8b: case 0x8c: case 0x8e: case 0x8f:
	case 0xc0: case 0xc1: case 0xc6: case 0xc7: case 0xd0: case 0xd1: case 0xd2: case 0xd3:
	case 0xd8: case 0xd9: case 0xda: case 0xdb: case 0xdc: case 0xdd: case 0xde: case 0xdf:
	case 0xf6: case 0xf7: case 0xfe: case 0xff:
		return true;
	default:
		return false;
	}
}

/* Two-byte opcodes (0F xx) without a memory operand. */
static inline bool x86_0f_no_memory(unsigned op)
{
	return op == 0x05 || op == 0x0b || op == 0x0d || op == 0x18 || op == 0x1e || op == 0x1f ||
	       op == 0x31 || op == 0xa2 || (op >= 0x80 && op <= 0x8f) || (op >= 0xc8 && op <= 0xcf);
}

/* Whether the instruction at p reads or writes memory other than the stack
 * (RSP- or RBP-based). p must have 15 readable bytes. */
static inline bool x86_shared_access(const unsigned char *p)
{
	unsigned i = 0, rexb = 0, op, modrm, mod, rm, base;

	for (; i < 14; i++) {   /* legacy prefixes */
		unsigned b = p[i];
		if (b != 0x66 && b != 0x67 && b != 0xf2 && b != 0xf3 && b != 0xf0 && b != 0x2e &&
		    b != 0x3e && b != 0x26 && b != 0x36 && b != 0x64 && b != 0x65)
			break;
	}
	if ((p[i] & 0xf0) == 0x40)   /* REX */
		rexb = p[i++] & 1;
	op = p[i++];
	if (op == 0x0f) {
		op = p[i++];
		if (op == 0x38 || op == 0x3a)
			i++;
		else if (x86_0f_no_memory(op))
			return false;
	} else if ((op >= 0xa0 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf)) {
		return true;             /* MOV with a 64-bit address, string ops */
	} else if (!x86_has_modrm(op)) {
		return false;
	}
	modrm = p[i++];
	mod = modrm >> 6;
	rm = modrm & 7;
	if (mod == 3)
		return false;            /* a register operand */
	if (rm == 4) {                   /* SIB: its base register */
		base = (p[i] & 7u) | (rexb << 3);
		return !(base == 4 || (base == 5 && mod != 0));
	}
	if (rm == 5 && mod == 0)
		return true;             /* RIP-relative: a global */
	base = rm | (rexb << 3);
	return base != 5;                /* RBP-based: the frame */
}

#endif
