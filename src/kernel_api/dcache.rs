// SPDX-License-Identifier: GPL-2.0

//! The layout of the kernel's `struct dentry` and `struct file` that a
//! probe's `%pd` and `%pD` arguments read through: fetch programs follow
//! these offsets with nofault reads, never dereferencing them here.

use crate::bindings;

/// `offsetof(struct dentry, d_name.name)`.
pub(crate) const DENTRY_NAME_OFFSET: usize = bindings::RFT_DENTRY_NAME_OFFSET;

/// `offsetof(struct file, f_path.dentry)`.
pub(crate) const FILE_DENTRY_OFFSET: usize = bindings::RFT_FILE_DENTRY_OFFSET;
