// SPDX-License-Identifier: GPL-2.0
/*
 * A module whose functions the patch engine selftests trace: core functions
 * called whenever 1 is written to its `call` parameter, and `__init`
 * functions whose ftrace records the kernel removes once init is done
 * (ftrace_free_mem), moving the records of the functions after them.
 *
 * It can also scribble over the __fentry__ site of one of its core
 * functions, as a user of the kernel's text patching other than ftrace
 * might: writing N to `scribble` writes a 5-byte `jmp` to the next
 * instruction there (harmless to run). That needs the addresses of
 * smp_text_poke_single and text_mutex, which the selftest reads from
 * /proc/kallsyms and passes as the parameters `poke_single` and
 * `text_mutex` (a test-only shortcut: neither is exported).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/string.h>

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

static int (*const rft_testmod_cores[])(int) = {
	rft_testmod_core_0, rft_testmod_core_1, rft_testmod_core_2,
	rft_testmod_core_3, rft_testmod_core_4, rft_testmod_core_5,
	rft_testmod_core_6, rft_testmod_core_7, rft_testmod_core_8,
	rft_testmod_core_9, rft_testmod_core_10, rft_testmod_core_11,
	rft_testmod_core_12, rft_testmod_core_13, rft_testmod_core_14,
	rft_testmod_core_15,
};

static unsigned long poke_single;
module_param(poke_single, ulong, 0600);
MODULE_PARM_DESC(poke_single, "address of smp_text_poke_single, for scribble");
static unsigned long text_mutex;
module_param(text_mutex, ulong, 0600);
MODULE_PARM_DESC(text_mutex, "address of text_mutex, for scribble");

/* The __fentry__ call site of a function: after its endbr64, if any. */
static void *rft_testmod_site(int (*fn)(int))
{
	static const u8 endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	u8 *start = (u8 *)fn;

	return memcmp(start, endbr64, sizeof(endbr64)) ? start : start + 4;
}

static int rft_testmod_scribble(const char *val, const struct kernel_param *kp)
{
	static const u8 jmp_next[] = { 0xe9, 0x00, 0x00, 0x00, 0x00 };
	void (*poke)(void *addr, const void *opcode, size_t len, const void *emulate);
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (n >= ARRAY_SIZE(rft_testmod_cores) || !poke_single || !text_mutex)
		return -EINVAL;
	poke = (void *)poke_single;
	mutex_lock((struct mutex *)text_mutex);
	poke(rft_testmod_site(rft_testmod_cores[n]), jmp_next, sizeof(jmp_next), NULL);
	mutex_unlock((struct mutex *)text_mutex);
	return 0;
}

static const struct kernel_param_ops rft_testmod_scribble_ops = {
	.set = rft_testmod_scribble,
};
module_param_cb(scribble, &rft_testmod_scribble_ops, NULL, 0200);
MODULE_PARM_DESC(scribble, "write N: overwrite the __fentry__ site of rft_testmod_core_N");

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
