// SPDX-License-Identifier: GPL-2.0
/*
 * A module that only takes up room: the patch engine selftests load and
 * unload it (and rftrace_pin, the same code under another name) to shape
 * the module text area (see Kbuild).
 */
#include <linux/module.h>

static noinline int rftrace_room_touch(int x)
{
	return x + 1;
}

static int __init rftrace_room_init(void)
{
	return rftrace_room_touch(0) == 1 ? 0 : -EINVAL;
}

static void __exit rftrace_room_exit(void)
{
}

module_init(rftrace_room_init);
module_exit(rftrace_room_exit);
MODULE_DESCRIPTION("rftrace selftests: a module that only takes up room");
MODULE_LICENSE("GPL");
