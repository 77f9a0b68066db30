/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thin C shims for kernel `static inline` functions and macros that bindgen
 * cannot turn into callable symbols. No logic lives here.
 */
#ifndef RFTRACE_HELPERS_H
#define RFTRACE_HELPERS_H

#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/types.h>

struct inode *rft_d_inode(const struct dentry *dentry);
void rft_inode_lock(struct inode *inode);
void rft_inode_unlock(struct inode *inode);
void rft_inode_lock_parent(struct inode *inode);
bool rft_d_is_reg(const struct dentry *dentry);
struct inode *rft_d_real_inode(const struct dentry *dentry);
void rft_pagefault_disable(void);
void rft_pagefault_enable(void);
bool rft_make_kuid(u32 uid, kuid_t *out);
bool rft_make_kgid(u32 gid, kgid_t *out);
u32 rft_uid_value(kuid_t uid);
u32 rft_gid_value(kgid_t gid);
unsigned int rft_nr_cpu_ids(void);
bool rft_cpu_possible(unsigned int cpu);
u64 rft_local_clock(void);
u64 rft_rdtsc_ordered(void);
unsigned long rft_get_zeroed_page(void);
void rft_free_page(unsigned long addr);
void rft_preempt_disable_notrace(void);
void rft_preempt_enable_notrace(void);
unsigned int rft_smp_processor_id(void);
unsigned int rft_preempt_count(void);
bool rft_irqs_disabled(void);
unsigned int rft_num_online_cpus(void);
bool rft_cpu_online(unsigned int cpu);

struct wait_queue_head;
struct file;
struct poll_table_struct;
void rft_init_waitqueue_head(struct wait_queue_head *wq);
void rft_wake_up_all(struct wait_queue_head *wq);
bool rft_wq_has_sleeper(struct wait_queue_head *wq);
struct irq_work;
void rft_init_irq_work(struct irq_work *work, void (*func)(struct irq_work *));
long rft_wait_event_interruptible_timeout_ms(struct wait_queue_head *wq, bool (*cond)(const void *), const void *arg, unsigned int ms);
void rft_poll_wait(struct file *file, struct wait_queue_head *wq, struct poll_table_struct *pt);
void rft_current_comm(char *buf);

struct iov_iter;
size_t rft_iov_iter_count(const struct iov_iter *i);
size_t rft_copy_to_iter(const void *addr, size_t bytes, struct iov_iter *i);

struct mutex;
struct module;
void rft_mutex_lock(struct mutex *lock);
void rft_mutex_unlock(struct mutex *lock);
bool rft_mutex_is_locked(struct mutex *lock);
void rft_cond_resched(void);
bool rft_within_module_core_text(unsigned long addr, struct module *mod);
bool rft_within_module_init(unsigned long addr, struct module *mod);
const char *rft_module_name(struct module *mod);
struct task_struct;
int rft_task_pid(struct task_struct *task);
int rft_pid_max(void);
void rft_tracepoint_synchronize_unregister(void);
int rft_cpuhp_setup_online_multi(const char *name,
				 int (*online)(unsigned int cpu, struct hlist_node *node));
int rft_cpuhp_state_add_instance_nocalls(int state, struct hlist_node *node);
int rft_cpuhp_state_remove_instance_nocalls(int state, struct hlist_node *node);
void rft_cpuhp_remove_multi_state(int state);
bool rft_current_is_idle(void);
void rft_for_each_thread(void (*fn)(struct task_struct *, void *), void *arg);
struct trace_event_call;
struct list_head;
struct trace_seq;
struct perf_event;
struct perf_sample_data;
const char *rft_trace_event_name(struct trace_event_call *call);
struct list_head *rft_trace_get_fields(struct trace_event_call *call);
void rft_trace_seq_init(struct trace_seq *s);
void *rft_perf_event_context(struct perf_event *event);
unsigned int rft_perf_sample_raw(struct perf_sample_data *data, const void **raw);
unsigned long rft_task_size_max(void);
struct kretprobe;
struct kretprobe_instance;
struct kretprobe *rft_kretprobe_of(struct kretprobe_instance *ri);
unsigned long rft_kretprobe_ret_addr(struct kretprobe_instance *ri);
int rft_kprobes_locked_down(void);
unsigned long rft_current_stack_pointer(void);

#endif
