// SPDX-License-Identifier: GPL-2.0

//! The kernel-independent parts of the ring buffer: the binary format of
//! pages and events, and the lockless per-CPU ring itself.

pub(crate) mod format;
pub(crate) mod iter;
pub(crate) mod local;
pub(crate) mod ring;
