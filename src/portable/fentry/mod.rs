// SPDX-License-Identifier: GPL-2.0

//! The patch engine's kernel-independent half.

pub(crate) mod site_index;
pub(crate) mod trampolines;
