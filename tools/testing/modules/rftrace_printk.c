// SPDX-License-Identifier: GPL-2.0
/*
 * A module with trace_printk() formats, for the printk_formats selftest:
 * when it loads, the kernel copies its formats onto its list of module
 * formats (trace_bprintk_fmt_list), which printk_formats shows after the
 * built-in ones. The formats hold what printk_formats escapes (a tab, a
 * newline, double quotes) and what it does not (a backslash).
 *
 * Loading it makes the kernel allocate its trace_printk() buffers and
 * save task names at every context switch from then on (its "trace_printk()
 * being used" notice), as any module using trace_printk() does; the
 * formats stay listed after it is unloaded. Nothing here is ever printed.
 */
#include <linux/kernel.h>
#include <linux/module.h>

static int never;
module_param(never, int, 0);
MODULE_PARM_DESC(never, "print the formats at load (only if not 0)");

static noinline void rftrace_printk_formats(int x)
{
	trace_printk("rftrace_printk: \"quoted\"\tx=%d\\back\n", x);
	trace_printk("rftrace_printk: plain line\n");
}

static int __init rftrace_printk_init(void)
{
	if (never)
		rftrace_printk_formats(never);
	return 0;
}

static void __exit rftrace_printk_exit(void)
{
}

module_init(rftrace_printk_init);
module_exit(rftrace_printk_exit);
MODULE_DESCRIPTION("rftrace selftests: a module with trace_printk() formats");
MODULE_LICENSE("GPL");
