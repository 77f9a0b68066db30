// SPDX-License-Identifier: GPL-2.0
/*
 * Thin C shims for kernel `static inline` functions and macros that bindgen
 * cannot turn into callable symbols. Each wraps exactly one kernel API.
 */
#include <asm/tsc.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/gfp.h>
#include <linux/poll.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/security.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/pid_namespace.h>
#include <linux/trace_seq.h>
#include <linux/wait.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/smp.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/uidgid.h>

#include "helpers.h"

struct inode *rft_d_inode(const struct dentry *dentry)
{
	return d_inode(dentry);
}

void rft_inode_lock(struct inode *inode)
{
	inode_lock(inode);
}

void rft_inode_unlock(struct inode *inode)
{
	inode_unlock(inode);
}

void rft_inode_lock_parent(struct inode *inode)
{
	inode_lock_nested(inode, I_MUTEX_PARENT);
}

bool rft_d_is_reg(const struct dentry *dentry)
{
	return d_is_reg(dentry);
}

struct inode *rft_d_real_inode(const struct dentry *dentry)
{
	return d_real_inode(dentry);
}

void rft_pagefault_disable(void)
{
	pagefault_disable();
}

void rft_pagefault_enable(void)
{
	pagefault_enable();
}

/* Maps an id of the mounting task's user namespace; false if unmapped. */
bool rft_make_kuid(u32 uid, kuid_t *out)
{
	*out = make_kuid(current_user_ns(), uid);
	return uid_valid(*out);
}

bool rft_make_kgid(u32 gid, kgid_t *out)
{
	*out = make_kgid(current_user_ns(), gid);
	return gid_valid(*out);
}

u32 rft_uid_value(kuid_t uid)
{
	return from_kuid_munged(&init_user_ns, uid);
}

u32 rft_gid_value(kgid_t gid)
{
	return from_kgid_munged(&init_user_ns, gid);
}

unsigned int rft_nr_cpu_ids(void)
{
	return nr_cpu_ids;
}

bool rft_cpu_possible(unsigned int cpu)
{
	return cpu_possible(cpu);
}

u64 rft_local_clock(void)
{
	return local_clock();
}

u64 rft_rdtsc_ordered(void)
{
	return rdtsc_ordered();
}


unsigned long rft_get_zeroed_page(void)
{
	return get_zeroed_page(GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
}

void rft_free_page(unsigned long addr)
{
	free_page(addr);
}

void rft_preempt_disable_notrace(void)
{
	preempt_disable_notrace();
}

void rft_preempt_enable_notrace(void)
{
	preempt_enable_notrace();
}

unsigned int rft_smp_processor_id(void)
{
	return raw_smp_processor_id();
}

unsigned int rft_preempt_count(void)
{
	return preempt_count();
}

bool rft_irqs_disabled(void)
{
	return irqs_disabled();
}


unsigned int rft_num_online_cpus(void)
{
	return num_online_cpus();
}

bool rft_cpu_online(unsigned int cpu)
{
	return cpu_online(cpu);
}

void rft_init_waitqueue_head(struct wait_queue_head *wq)
{
	init_waitqueue_head(wq);
}

void rft_wake_up_all(struct wait_queue_head *wq)
{
	wake_up_interruptible_all(wq);
}

bool rft_wq_has_sleeper(struct wait_queue_head *wq)
{
	return wq_has_sleeper(wq);
}

void rft_init_irq_work(struct irq_work *work, void (*func)(struct irq_work *))
{
	init_irq_work(work, func);
}

/* wait_event_interruptible_timeout() with the condition as a callback,
 * the timeout in milliseconds. */
long rft_wait_event_interruptible_timeout_ms(struct wait_queue_head *wq, bool (*cond)(const void *), const void *arg, unsigned int ms)
{
	return wait_event_interruptible_timeout(*wq, cond(arg), msecs_to_jiffies(ms));
}

void rft_poll_wait(struct file *file, struct wait_queue_head *wq, struct poll_table_struct *pt)
{
	poll_wait(file, wq, pt);
}

/* The current task's name, TASK_COMM_LEN bytes with a NUL. */
/* memcpy, not strscpy: this runs on the recording path, which must not
 * call traceable functions. */
void rft_current_comm(char *buf)
{
	memcpy(buf, current->comm, TASK_COMM_LEN);
	buf[TASK_COMM_LEN - 1] = '\0';
}


size_t rft_iov_iter_count(const struct iov_iter *i)
{
	return iov_iter_count(i);
}

size_t rft_copy_to_iter(const void *addr, size_t bytes, struct iov_iter *i)
{
	return copy_to_iter(addr, bytes, i);
}

void rft_mutex_lock(struct mutex *lock)
{
	mutex_lock(lock);
}

void rft_mutex_unlock(struct mutex *lock)
{
	mutex_unlock(lock);
}

bool rft_mutex_is_locked(struct mutex *lock)
{
	return mutex_is_locked(lock);
}

void rft_cond_resched(void)
{
	cond_resched();
}

bool rft_within_module_core_text(unsigned long addr, struct module *mod)
{
	return within_module_mem_type(addr, mod, MOD_TEXT);
}

bool rft_within_module_init(unsigned long addr, struct module *mod)
{
	return within_module_init(addr, mod);
}

const char *rft_module_name(struct module *mod)
{
	return mod->name;
}

int rft_task_pid(struct task_struct *task)
{
	return task->pid;
}

/* The limit of pids (pid_max of the initial pid namespace): every pid is below it. */
int rft_pid_max(void)
{
	return READ_ONCE(init_pid_ns.pid_max);
}

void rft_tracepoint_synchronize_unregister(void)
{
	tracepoint_synchronize_unregister();
}

int rft_cpuhp_setup_online_multi(const char *name,
				 int (*online)(unsigned int cpu, struct hlist_node *node))
{
	return cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, name, online, NULL);
}

int rft_cpuhp_state_add_instance_nocalls(int state, struct hlist_node *node)
{
	return cpuhp_state_add_instance_nocalls(state, node);
}

int rft_cpuhp_state_remove_instance_nocalls(int state, struct hlist_node *node)
{
	return cpuhp_state_remove_instance_nocalls(state, node);
}

void rft_cpuhp_remove_multi_state(int state)
{
	cpuhp_remove_multi_state(state);
}

bool rft_current_is_idle(void)
{
	return is_idle_task(current);
}

void rft_for_each_thread(void (*fn)(struct task_struct *, void *), void *arg)
{
	struct task_struct *g, *t;

	rcu_read_lock();
	for_each_process_thread(g, t)
		fn(t, arg);
	rcu_read_unlock();
}

const char *rft_trace_event_name(struct trace_event_call *call)
{
	return trace_event_name(call);
}

struct list_head *rft_trace_get_fields(struct trace_event_call *call)
{
	return trace_get_fields(call);
}

void rft_trace_seq_init(struct trace_seq *s)
{
	trace_seq_init(s);
}

void *rft_perf_event_context(struct perf_event *event)
{
	return event->overflow_handler_context;
}

/* The raw record a tracepoint counter's sample carries, and its size. */
unsigned int rft_perf_sample_raw(struct perf_sample_data *data, const void **raw)
{
	if (!(data->sample_flags & PERF_SAMPLE_RAW) || !data->raw) {
		*raw = NULL;
		return 0;
	}
	*raw = data->raw->frag.data;
	return data->raw->frag.size;
}

struct kretprobe *rft_kretprobe_of(struct kretprobe_instance *ri)
{
	return get_kretprobe(ri);
}

unsigned long rft_kretprobe_ret_addr(struct kretprobe_instance *ri)
{
	return get_kretprobe_retaddr(ri);
}

int rft_kprobes_locked_down(void)
{
	return security_locked_down(LOCKDOWN_KPROBES);
}

unsigned long rft_current_stack_pointer(void)
{
	return current_stack_pointer;
}

/* The top of user address space (`TASK_SIZE_MAX`, set at boot by the
 * paging depth). */
unsigned long rft_task_size_max(void)
{
	return TASK_SIZE_MAX;
}
