// SPDX-License-Identifier: GPL-2.0

//! Safe wrappers over the kernel's C interfaces, one file per C API, as
//! `rust/kernel/` has them: the raw bindings and their `unsafe` stay here,
//! and the components above use these types.
//!
//! New interfaces go here; the older ones (`ksyms`, `symbols`,
//! `cpu_local`, `task_events`, the rftracefs VFS glue) are still to move.

pub(crate) mod cpuhp;
pub(crate) mod dcache;
pub(crate) mod kallsyms;
pub(crate) mod kprobes;
pub(crate) mod module;
pub(crate) mod nofault;
pub(crate) mod perf_event;
pub(crate) mod printk;
pub(crate) mod printk_formats;
pub(crate) mod rcu;
pub(crate) mod regs;
pub(crate) mod task;
pub(crate) mod trace_events;
pub(crate) mod trace_output;
pub(crate) mod tracepoint;
pub(crate) mod uprobes;
pub(crate) mod user_memory;
pub(crate) mod workqueue;
