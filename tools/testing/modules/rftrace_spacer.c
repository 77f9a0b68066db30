// SPDX-License-Identifier: GPL-2.0
/*
 * A module that only takes up room: the patch engine selftests load and
 * unload it (and rftrace_pin, the same code under another name) to shape
 * the module text area (see Kbuild), and the readers' selftests load one
 * where the other was.
 */
#include <linux/module.h>

/*
 * Global and with a barrier, so that the compiler keeps it whole and by its
 * name: a function of the module that its init calls, which a selftest
 * traces to see each of the two modules named as itself.
 */
int rftrace_room_touch(int x);
noinline int rftrace_room_touch(int x)
{
	barrier();
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
