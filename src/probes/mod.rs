// SPDX-License-Identifier: GPL-2.0

//! Dynamic probe events: kprobe, kretprobe, uprobe and fprobe events, whose
//! records rftrace defines itself.

pub(crate) mod hit;
pub(crate) mod uprobe_attach;
