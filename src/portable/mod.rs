// SPDX-License-Identifier: GPL-2.0

//! Kernel-independent logic: parsers, formats and bookkeeping that need only
//! `core`.
//!
//! Everything below this module compiles into `rftrace.ko` and, unchanged,
//! into the host test crate (`tools/testing/hosttests`), where `cargo test`
//! exercises it. Nothing here may name `kernel::` or allocate.

pub(crate) mod cmdlines;
pub(crate) mod cpumask;
pub(crate) mod error_log;
pub(crate) mod events;
pub(crate) mod fentry;
pub(crate) mod func_filter;
pub(crate) mod function_probes;
pub(crate) mod glob;
pub(crate) mod graph_output;
pub(crate) mod input;
pub(crate) mod mount_options;
pub(crate) mod output;
pub(crate) mod pid_words;
pub(crate) mod printk_formats;
pub(crate) mod probes;
pub(crate) mod readme;
pub(crate) mod records;
pub(crate) mod ring_buffer;
pub(crate) mod sort;
pub(crate) mod symbol_cache;
pub(crate) mod tgids;
pub(crate) mod trace_clock;
pub(crate) mod trace_options;
pub(crate) mod tracer_name;
