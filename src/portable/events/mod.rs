// SPDX-License-Identifier: GPL-2.0

//! The kernel-independent half of event tracing: the fields of an event,
//! its `format` file, the filter language, the words written to
//! `set_event` and which records the event pid filters leave out.

pub(crate) mod field;
pub(crate) mod filter;
pub(crate) mod format;
pub(crate) mod layout;
pub(crate) mod pid_filter;
pub(crate) mod set_event;
