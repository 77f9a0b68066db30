// SPDX-License-Identifier: GPL-2.0
/*
 * An empty module the patch engine selftests load and unload to shape the
 * module text area (see Kbuild).
 */
#include <linux/module.h>

int rftrace_spacer_touch(int x);
noinline int rftrace_spacer_touch(int x)
{
	return x + 1;
}

static int __init rftrace_spacer_init(void)
{
	return rftrace_spacer_touch(0) == 1 ? 0 : -EINVAL;
}

static void __exit rftrace_spacer_exit(void)
{
}

module_init(rftrace_spacer_init);
module_exit(rftrace_spacer_exit);
MODULE_DESCRIPTION("rftrace selftests: a module that only takes up room");
MODULE_LICENSE("GPL");
