// SPDX-License-Identifier: GPL-2.0

//! Dynamic probe events (kprobe, uprobe and fprobe events), the
//! kernel-independent half: the command grammar, fetch arguments and their
//! programs, record layouts, `format` files and the text of records.

// The probe registry (src/probes/) will use these; until it does, the
// module build would warn of unused items.
#![allow(dead_code)]

pub(crate) mod command;
pub(crate) mod errors;
pub(crate) mod listing;
pub(crate) mod names;
pub(crate) mod place;
