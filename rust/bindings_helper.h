/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C declarations rftrace needs beyond what the kernel crate's
 * `kernel::bindings` covers. Run through bindgen at build time with the
 * kernel's own C flags (see Kbuild); the allowlists there keep the output to
 * what the module uses.
 */
#include <linux/cpumask.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/rcupdate_wait.h>
#include <linux/stacktrace.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/fs_context.h>
#include <linux/irq_work.h>
#include <linux/kallsyms.h>
#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/splice.h>
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/utsname.h>
#include <linux/poll.h>
#include <linux/preempt.h>
#include <linux/wait.h>
#include <linux/seq_file.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
#include <linux/trace_clock.h>
#include <linux/trace_events.h>
#include <linux/trace_seq.h>
#include <linux/perf_event.h>
#include <linux/uidgid.h>
#include <linux/uprobes.h>

#include "helpers.h"

/* Constants bindgen cannot evaluate from macros. */
const unsigned int RFT_S_IFDIR = S_IFDIR;
const unsigned int RFT_S_IFREG = S_IFREG;
const unsigned int RFT_O_TRUNC = O_TRUNC;
const unsigned int RFT_FMODE_READ = (__force unsigned int)FMODE_READ;
const unsigned int RFT_FMODE_WRITE = (__force unsigned int)FMODE_WRITE;
const int RFT_ENOPARAM = ENOPARAM;
const unsigned int RFT_KSYM_SYMBOL_LEN = KSYM_SYMBOL_LEN;
const unsigned int RFT_SOFTIRQ_OFFSET = SOFTIRQ_OFFSET;
const unsigned int RFT_HARDIRQ_MASK = HARDIRQ_MASK;
const unsigned int RFT_NMI_MASK = NMI_MASK;
const unsigned int RFT_PREEMPT_MASK = PREEMPT_MASK;
const unsigned int RFT_O_NONBLOCK = O_NONBLOCK;
const int RFT_IOCB_NOWAIT = IOCB_NOWAIT;
const unsigned int RFT_SPLICE_F_NONBLOCK = SPLICE_F_NONBLOCK;
const unsigned int RFT_EPOLLIN_RDNORM = (__force unsigned int)(EPOLLIN | EPOLLRDNORM);
const int RFT_NOTIFY_DONE = NOTIFY_DONE;
const unsigned long RFT_DIE_INT3 = DIE_INT3;
const unsigned long RFT_FTRACE_FL_ENABLED = FTRACE_FL_ENABLED;
const unsigned long RFT_FTRACE_FL_REGS = FTRACE_FL_REGS;
const unsigned long RFT_FTRACE_FL_TRAMP = FTRACE_FL_TRAMP;
const unsigned long RFT_FTRACE_FL_IPMODIFY = FTRACE_FL_IPMODIFY;
const unsigned long RFT_FTRACE_FL_DISABLED = FTRACE_FL_DISABLED;
const unsigned long RFT_FTRACE_FL_DIRECT = FTRACE_FL_DIRECT;
const unsigned long RFT_FTRACE_FL_DIRECT_EN = FTRACE_FL_DIRECT_EN;
const unsigned long RFT_FTRACE_REF_MAX = FTRACE_REF_MAX;
/* Where a probe's %pd and %pD arguments find a name (trace_probe.c). */
const unsigned long RFT_DENTRY_NAME_OFFSET = offsetof(struct dentry, d_name.name);
const unsigned long RFT_FILE_DENTRY_OFFSET = offsetof(struct file, f_path.dentry);
/* Where the recording path reads the current task's pid and flags. */
const unsigned long RFT_TASK_PID_OFFSET = offsetof(struct task_struct, pid);
const unsigned long RFT_TASK_TI_FLAGS_OFFSET =
	offsetof(struct task_struct, thread_info) + offsetof(struct thread_info, flags);
const unsigned long RFT_TIF_NEED_RESCHED = TIF_NEED_RESCHED;
/* What the scheduler probes save of the tasks they see (saved_cmdlines, saved_tgids). */
const unsigned long RFT_TASK_TGID_OFFSET = offsetof(struct task_struct, tgid);
const unsigned long RFT_TASK_COMM_OFFSET = offsetof(struct task_struct, comm);
const unsigned long RFT_TASK_COMM_LEN = TASK_COMM_LEN;
/*
 * What function_graph reads of a task the scheduler holds still
 * (task_call_func) to give back its hooked returns.
 */
const unsigned long RFT_TASK_STATE_OFFSET = offsetof(struct task_struct, __state);
const unsigned long RFT_TASK_EXIT_STATE_OFFSET = offsetof(struct task_struct, exit_state);
const unsigned long RFT_TASK_ON_RQ_OFFSET = offsetof(struct task_struct, on_rq);
const unsigned long RFT_TASK_ON_CPU_OFFSET = offsetof(struct task_struct, on_cpu);
const unsigned long RFT_TASK_SCHED_DELAYED_OFFSET =
	offsetof(struct task_struct, se) + offsetof(struct sched_entity, sched_delayed);
/* Their widths vary between kernel versions. */
const unsigned long RFT_TASK_EXIT_STATE_SIZE = sizeof_field(struct task_struct, exit_state);
const unsigned long RFT_TASK_ON_RQ_SIZE = sizeof_field(struct task_struct, on_rq);
const unsigned long RFT_TASK_ON_CPU_SIZE = sizeof_field(struct task_struct, on_cpu);
const unsigned long RFT_TASK_SCHED_DELAYED_SIZE = sizeof_field(struct sched_entity, sched_delayed);
const unsigned long RFT_TASK_STACK_OFFSET = offsetof(struct task_struct, stack);
const unsigned long RFT_TASK_SAVED_SP_OFFSET =
	offsetof(struct task_struct, thread) + offsetof(struct thread_struct, sp);
const unsigned long RFT_THREAD_SIZE = THREAD_SIZE;
const unsigned int RFT_TASK_RUNNING = TASK_RUNNING;
const unsigned int RFT_TASK_DEAD = TASK_DEAD;
const unsigned int RFT_TASK_WAKING = TASK_WAKING;
const unsigned int RFT_TASK_NEW = TASK_NEW;
const unsigned long RFT_FTRACE_OPS_FL_ENABLED = FTRACE_OPS_FL_ENABLED;
const unsigned long RFT_FTRACE_OPS_FL_SAVE_REGS = FTRACE_OPS_FL_SAVE_REGS;
const unsigned long RFT_FTRACE_OPS_FL_IPMODIFY = FTRACE_OPS_FL_IPMODIFY;
const unsigned long RFT_FTRACE_OPS_FL_DIRECT = FTRACE_OPS_FL_DIRECT;
const int RFT_TRACE_EVENT_FL_IGNORE_ENABLE = TRACE_EVENT_FL_IGNORE_ENABLE;
const int RFT_TRACE_EVENT_FL_DYNAMIC = TRACE_EVENT_FL_DYNAMIC;
const int RFT_TRACE_EVENT_FL_TRACEPOINT = TRACE_EVENT_FL_TRACEPOINT;
const unsigned int RFT_PERF_TYPE_TRACEPOINT = PERF_TYPE_TRACEPOINT;
const unsigned long long RFT_PERF_SAMPLE_RAW = PERF_SAMPLE_RAW;
const unsigned long long RFT_PERF_SAMPLE_PERIOD = PERF_SAMPLE_PERIOD;
