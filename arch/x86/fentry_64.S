/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The entry trampolines of rftrace's __fentry__ patch engine.
 *
 * A traced function's `call __fentry__` site (the NOP5 the kernel leaves
 * there) is patched to call one of them. A trampoline builds a struct
 * pt_regs on the stack as the function saw its registers, hands (ip of the
 * call site, parent ip, regs) to a Rust dispatcher and returns into the
 * function with the argument registers as the dispatcher left them.
 *
 * - rftrace_fentry_trampoline calls rftrace_fentry_dispatch, which finds
 *   the site and calls every client attached to it.
 * - rftrace_fentry_direct_N (N < DIRECT_SLOTS, 8) calls
 *   rftrace_fentry_dispatch_direct with N as a fourth argument: a site
 *   that only the client of engine slot N wants calls it, and the
 *   dispatcher goes to that client without looking the site up, as the
 *   kernel's ftrace gives an ftrace_ops with a single user a trampoline of
 *   its own. While bit N of rftrace_fentry_live_slots is clear (the
 *   client is not armed), it returns before saving anything.
 *
 * On entry:   0(%rsp) = return address into the traced function (site + 5)
 *             8(%rsp) = the traced function's own return address (parent)
 * Every general-purpose register is saved, so handlers see a complete
 * pt_regs (kprobe-style handlers read arguments and %sp from it); %rflags is
 * saved too. Every register is reloaded from the frame on the way out
 * (objtool wants the saved callee-saved registers restored, and a handler
 * may rewrite argument registers in pt_regs).
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/ptrace.h>
#include <asm/segment.h>
#include <asm/nospec-branch.h>
#include <asm/unwind_hints.h>

/* The size of the call instruction at a site. */
#define RFT_CALL_SIZE	5

	.code64
	.section .text, "ax"

.macro RFT_FENTRY_TRAMPOLINE name, dispatch, slot=-1
SYM_FUNC_START(\name)
	/* Only ever reached by a direct call from a patched site. */
	ANNOTATE_NOENDBR
	.if \slot >= 0
	/*
	 * A slot whose client is not armed (its own start is patching the
	 * sites) has nothing to call: back at once, nothing saved.
	 */
	testl	$(1 << \slot), rftrace_fentry_live_slots(%rip)
	jnz	1f
	RET
1:
	.endif
	subq	$FRAME_SIZE, %rsp

	movq	%rdi, RDI(%rsp)
	movq	%rsi, RSI(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rcx, RCX(%rsp)
	movq	%r8, R8(%rsp)
	movq	%r9, R9(%rsp)
	movq	%rax, RAX(%rsp)
	movq	%r10, R10(%rsp)
	movq	%r11, R11(%rsp)
	movq	%rbx, RBX(%rsp)
	movq	%rbp, RBP(%rsp)
	movq	%r12, R12(%rsp)
	movq	%r13, R13(%rsp)
	movq	%r14, R14(%rsp)
	movq	%r15, R15(%rsp)
	movq	$-1, ORIG_RAX(%rsp)
	movq	$__KERNEL_CS, CS(%rsp)
	movq	$__KERNEL_DS, SS(%rsp)
	pushfq
	popq	%rdi
	movq	%rdi, EFLAGS(%rsp)

	/* regs->ip: the call site, as ftrace reports it. */
	movq	FRAME_SIZE(%rsp), %rdi
	subq	$RFT_CALL_SIZE, %rdi
	movq	%rdi, RIP(%rsp)
	/* regs->sp: the stack pointer at the site, pointing at the parent. */
	leaq	FRAME_SIZE+8(%rsp), %rsi
	movq	%rsi, RSP(%rsp)
	/* The parent: the traced function's return address. */
	movq	(%rsi), %rsi
	movq	%rsp, %rdx
	.if \slot >= 0
	/* The engine slot of the only client. */
	movl	$\slot, %ecx
	.endif

	call	\dispatch

	movq	RDI(%rsp), %rdi
	movq	RSI(%rsp), %rsi
	movq	RDX(%rsp), %rdx
	movq	RCX(%rsp), %rcx
	movq	R8(%rsp), %r8
	movq	R9(%rsp), %r9
	movq	RAX(%rsp), %rax
	movq	R10(%rsp), %r10
	movq	R11(%rsp), %r11
	movq	RBX(%rsp), %rbx
	movq	RBP(%rsp), %rbp
	movq	R12(%rsp), %r12
	movq	R13(%rsp), %r13
	movq	R14(%rsp), %r14
	movq	R15(%rsp), %r15
	addq	$FRAME_SIZE, %rsp
	RET
SYM_FUNC_END(\name)
.endm

RFT_FENTRY_TRAMPOLINE rftrace_fentry_trampoline, rftrace_fentry_dispatch
/* As many as DIRECT_SLOTS in src/portable/fentry/trampolines.rs. */
RFT_FENTRY_TRAMPOLINE rftrace_fentry_direct_0, rftrace_fentry_dispatch_direct, 0
RFT_FENTRY_TRAMPOLINE rftrace_fentry_direct_1, rftrace_fentry_dispatch_direct, 1
RFT_FENTRY_TRAMPOLINE rftrace_fentry_direct_2, rftrace_fentry_dispatch_direct, 2
RFT_FENTRY_TRAMPOLINE rftrace_fentry_direct_3, rftrace_fentry_dispatch_direct, 3
RFT_FENTRY_TRAMPOLINE rftrace_fentry_direct_4, rftrace_fentry_dispatch_direct, 4
RFT_FENTRY_TRAMPOLINE rftrace_fentry_direct_5, rftrace_fentry_dispatch_direct, 5
RFT_FENTRY_TRAMPOLINE rftrace_fentry_direct_6, rftrace_fentry_dispatch_direct, 6
RFT_FENTRY_TRAMPOLINE rftrace_fentry_direct_7, rftrace_fentry_dispatch_direct, 7
