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
#include <linux/fs_context.h>
#include <linux/irq_work.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
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
#include <linux/uidgid.h>

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
const unsigned int RFT_EPOLLIN_RDNORM = (__force unsigned int)(EPOLLIN | EPOLLRDNORM);
