/* util/x86access.h: which instructions the step perturbation holds a
 * thread up before (memory other than the stack), on encodings gcc emits. */
#include <string.h>

#include "util/x86access.h"
#include "tap.h"

/* x86_shared_access reads up to 15 bytes: pad every encoding. */
static bool shared(const char *bytes, size_t n)
{
	unsigned char buf[32] = { 0 };

	memcpy(buf, bytes, n);
	return x86_shared_access(buf);
}

#define S(lit) shared(lit, sizeof(lit) - 1)

int main(void)
{
	/* globals (RIP-relative), through pointers, atomics, string ops */
	CHECK(S("\xc7\x05\x10\x20\x00\x00\x01\x00\x00\x00"));  /* movl $1, a(%rip) */
	CHECK(S("\x8b\x05\x10\x20\x00\x00"));                  /* mov a(%rip), %eax */
	CHECK(S("\x89\x10"));                                  /* mov %edx, (%rax) */
	CHECK(S("\x48\x8b\x40\x08"));                          /* mov 8(%rax), %rax */
	CHECK(S("\x41\x89\x45\x00"));                          /* mov %eax, 0(%r13) */
	CHECK(S("\xf0\x0f\xb1\x0a"));                          /* lock cmpxchg %ecx, (%rdx) */
	CHECK(S("\xf0\x48\x0f\xc1\x07"));                      /* lock xadd %rax, (%rdi) */
	CHECK(S("\x83\x05\x10\x20\x00\x00\x01"));              /* addl $1, a(%rip) */
	CHECK(S("\x8b\x04\x25\x00\x10\x60\x00"));              /* mov 0x601000, %eax (SIB, no base) */
	CHECK(S("\x8b\x04\x88"));                              /* mov (%rax,%rcx,4), %eax */
	CHECK(S("\xf3\x48\xa5"));                              /* rep movsq */
	CHECK(S("\x66\x0f\x6f\x07"));                          /* movdqa (%rdi), %xmm0 */
	/* the stack frame, registers, addresses, control flow */
	CHECK(!S("\x8b\x45\xfc"));                             /* mov -4(%rbp), %eax */
	CHECK(!S("\x48\x89\x7d\xf8"));                         /* mov %rdi, -8(%rbp) */
	CHECK(!S("\x48\x8b\x04\x24"));                         /* mov (%rsp), %rax */
	CHECK(!S("\x89\x44\x24\x08"));                         /* mov %eax, 8(%rsp) */
	CHECK(!S("\x48\x8d\x05\x10\x20\x00\x00"));             /* lea a(%rip), %rax */
	CHECK(!S("\x01\xd0"));                                 /* add %edx, %eax */
	CHECK(!S("\x0f\x05"));                                 /* syscall */
	CHECK(!S("\xc3"));                                     /* ret */
	CHECK(!S("\x55"));                                     /* push %rbp */
	CHECK(!S("\x66\x0f\x1f\x44\x00\x00"));                 /* nopw 0(%rax,%rax) */
	CHECK(!S("\x0f\x84\x10\x00\x00\x00"));                 /* je rel32 */
	CHECK(!S("\xb8\x01\x00\x00\x00"));                     /* mov $1, %eax */
	return tap_done();
}
