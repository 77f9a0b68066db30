// SPDX-License-Identifier: GPL-2.0

//! Dynamic probe events (kprobe, uprobe and fprobe events), the
//! kernel-independent half: the command grammar, fetch arguments and their
//! programs, record layouts, `format` files and the text of records.

pub(crate) mod errors;
