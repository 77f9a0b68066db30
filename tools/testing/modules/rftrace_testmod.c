// SPDX-License-Identifier: GPL-2.0
/*
 * A module whose functions the patch engine selftests trace: core functions
 * called whenever 1 is written to its `call` parameter, and `__init`
 * functions whose ftrace records the kernel removes once init is done
 * (ftrace_free_mem), moving the records of the functions after them.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

/* Global, so that the compiler keeps each one whole and by its name. */
#define CORE(n)							\
	int rft_testmod_core_##n(int x);			\
	noinline int rft_testmod_core_##n(int x)		\
	{							\
		barrier();					\
		return x + n;					\
	}

CORE(0) CORE(1) CORE(2) CORE(3) CORE(4) CORE(5) CORE(6) CORE(7)
CORE(8) CORE(9) CORE(10) CORE(11) CORE(12) CORE(13) CORE(14) CORE(15)

/*
 * Core text larger than the one-page hole the selftest leaves below the
 * module: the core text goes above it, the init text into it.
 */
void rft_testmod_padding(void);
noinline void rft_testmod_padding(void)
{
	asm volatile(".rept 16384\n\tnop\n\t.endr");
}

static int rft_testmod_calls;

static int rft_testmod_call(const char *val, const struct kernel_param *kp)
{
	int x = 0;

	x = rft_testmod_core_0(x);
	x = rft_testmod_core_1(x);
	x = rft_testmod_core_2(x);
	x = rft_testmod_core_3(x);
	x = rft_testmod_core_4(x);
	x = rft_testmod_core_5(x);
	x = rft_testmod_core_6(x);
	x = rft_testmod_core_7(x);
	x = rft_testmod_core_8(x);
	x = rft_testmod_core_9(x);
	x = rft_testmod_core_10(x);
	x = rft_testmod_core_11(x);
	x = rft_testmod_core_12(x);
	x = rft_testmod_core_13(x);
	x = rft_testmod_core_14(x);
	x = rft_testmod_core_15(x);
	rft_testmod_calls += x == 120;
	return 0;
}

static const struct kernel_param_ops rft_testmod_call_ops = {
	.set = rft_testmod_call,
	.get = param_get_int,
};
module_param_cb(call, &rft_testmod_call_ops, &rft_testmod_calls, 0644);
MODULE_PARM_DESC(call, "write anything: call every core function once; read: how many times");

#define INIT(n)							\
	static noinline int __init rft_testmod_init_##n(int x)	\
	{							\
		barrier();					\
		return x + n;					\
	}

INIT(0) INIT(1) INIT(2) INIT(3)

static int __init rft_testmod_init(void)
{
	int x = rft_testmod_init_0(0) + rft_testmod_init_1(0) +
		rft_testmod_init_2(0) + rft_testmod_init_3(0);

	return x == 6 ? 0 : -EINVAL;
}

static void __exit rft_testmod_exit(void)
{
}

module_init(rft_testmod_init);
module_exit(rft_testmod_exit);
MODULE_DESCRIPTION("rftrace selftests: core and init functions to trace");
MODULE_LICENSE("GPL");
