// SPDX-License-Identifier: GPL-2.0

//! Event tracing: the kernel's trace events recorded into rftrace's
//! buffers, with the kernel's record layout, and printed by the kernel's
//! own printers.
//!
//! - [`catalog`]: the events, read from the kernel at load;
//! - [`modules`]: module events, as their modules come and go;
//! - [`hotplug`]: counters on CPUs that come back online;
//! - [`capture`]: recording one event into one instance (perf counters);
//! - [`defined`]: events rftrace defines itself (probe events);
//! - [`state`]: which events an instance records;
//! - [`retired`]: captures of disabled events, released in the background;
//! - [`soft`]: the switch of events that function probes turn on and off;
//! - [`filter`]: event filters;
//! - [`files`]: the rftracefs files;
//! - [`tree`]: the directories of `events/`;
//! - [`text`]: the text of a record.

pub(crate) mod capture;
pub(crate) mod catalog;
pub(crate) mod defined;
pub(crate) mod files;
pub(crate) mod filter;
pub(crate) mod hotplug;
pub(crate) mod modules;
pub(crate) mod retired;
pub(crate) mod soft;
pub(crate) mod state;
pub(crate) mod text;
pub(crate) mod tree;
