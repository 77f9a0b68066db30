// SPDX-License-Identifier: GPL-2.0

//! Dynamic probe events (kprobe, uprobe and fprobe events), the
//! kernel-independent half: the command grammar, fetch arguments and their
//! programs, record layouts, `format` files and the text of records.

pub(crate) mod errors;
// The fetch-argument half (arg_words to types); the probe registry uses
// it.
#[allow(dead_code)]
pub(crate) mod arg_words;
#[allow(dead_code)]
pub(crate) mod exec;
#[allow(dead_code)]
pub(crate) mod fetch;
#[allow(dead_code)]
pub(crate) mod format;
#[allow(dead_code)]
pub(crate) mod layout;
#[allow(dead_code)]
pub(crate) mod numbers;
#[allow(dead_code)]
pub(crate) mod print;
#[allow(dead_code)]
pub(crate) mod registers;
#[allow(dead_code)]
pub(crate) mod types;
