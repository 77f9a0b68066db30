// SPDX-License-Identifier: GPL-2.0

//! The trace instances: the top level, and the directories made under
//! `instances/`, as the kernel's list of trace arrays.
//!
//! - [`list`]: every instance, from its making (the top level's at module
//!   load, another's at `mkdir`) to its removal (`rmdir`, or unload);
//! - [`lifecycle`]: `mkdir` and `rmdir` of `instances/NAME`, and showing
//!   every instance in a new super block.
//!
//! An instance's own state and recording paths are [`crate::instance`];
//! the VFS side of `instances/` is [`crate::rftracefs`].
//!
//! # Lock order
//!
//! The probe registry, then the instance list, then an instance's locks
//! (see [`crate::instance::Instance`]), then the event tree, then the
//! event catalog, then the VFS's directory locks.

mod lifecycle;
pub(crate) mod list;

pub(crate) use lifecycle::{make, remove, show_all};
