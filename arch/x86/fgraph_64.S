/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The return trampoline of rftrace's function_graph tracer.
 *
 * When the tracer hooks a call, it replaces the traced function's return
 * address on the stack with rftrace_graph_return_trampoline and keeps the
 * real one on the task's shadow stack. The function's `ret` lands here,
 * with the function's return value in %rax (and %rdx) and %rsp just above
 * the slot that held the return address. The trampoline hands (that stack
 * pointer, %rax, %rdx: the return value) to the Rust handler
 * rftrace_graph_return (%rdx is already its third argument register),
 * which records the return and gives back the real return address, and
 * returns there with %rax and %rdx as the function left them. The other
 * caller-saved registers are dead after a return and are not preserved.
 *
 * Unwinding: a stack walk that meets the trampoline's address as a return
 * address looks up the unwind state at that address less one. The int3
 * before the entry point is covered by the same undefined-state hint, so
 * ORC stops there cleanly instead of using the state of whatever code
 * precedes the trampoline; the frames above the hooked call are then not
 * shown (their return addresses are on the shadow stack).
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/nospec-branch.h>
#include <asm/unwind_hints.h>

/* Saved %rax, saved %rdx, then the slot for the real return address. */
#define RFT_RAX		0
#define RFT_RDX		8
#define RFT_RET		16
#define RFT_FRAME	24

	.code64
	.section .text, "ax"

SYM_CODE_START(rftrace_graph_return_site)
	UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR
	int3
SYM_INNER_LABEL(rftrace_graph_return_trampoline, SYM_L_GLOBAL)
	UNWIND_HINT_UNDEFINED
	/* Reached only by a `ret`: no endbr64 needed. */
	ANNOTATE_NOENDBR
	subq	$RFT_FRAME, %rsp
	movq	%rax, RFT_RAX(%rsp)
	movq	%rdx, RFT_RDX(%rsp)
	/* The stack pointer right after the traced function's ret. */
	leaq	RFT_FRAME(%rsp), %rdi
	movq	%rax, %rsi
	call	rftrace_graph_return
	movq	%rax, RFT_RET(%rsp)
	movq	RFT_RAX(%rsp), %rax
	movq	RFT_RDX(%rsp), %rdx
	addq	$RFT_RET, %rsp
	/* To the real return address, now on top of the stack. */
	RET
SYM_CODE_END(rftrace_graph_return_site)
