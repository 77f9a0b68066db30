// SPDX-License-Identifier: GPL-2.0

//! Dynamic probe events: kprobe, kretprobe, uprobe and fprobe events, whose
//! records rftrace defines itself.

// Used by the probe events, which are being wired in.
#[allow(dead_code)]
pub(crate) mod attach;
pub(crate) mod hit;
