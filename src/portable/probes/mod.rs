// SPDX-License-Identifier: GPL-2.0

//! Dynamic probe events (kprobe, uprobe and fprobe events), the
//! kernel-independent half: the command grammar, fetch arguments and their
//! programs, record layouts, `format` files and the text of records.

// The probe registry (src/probes/) uses these; what it does not use yet
// would warn in the module build.
#![allow(dead_code)]

pub(crate) mod arg_words;
pub(crate) mod command;
pub(crate) mod errors;
pub(crate) mod exec;
pub(crate) mod fetch;
pub(crate) mod format;
pub(crate) mod layout;
pub(crate) mod listing;
pub(crate) mod names;
pub(crate) mod numbers;
pub(crate) mod place;
pub(crate) mod print;
pub(crate) mod registers;
pub(crate) mod types;
