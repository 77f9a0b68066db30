// SPDX-License-Identifier: GPL-2.0

//! Compiles the module's kernel-independent sources (`src/portable/`) for the
//! host so that `cargo test` can run their unit tests. The files are the
//! very ones built into `rftrace.ko`; nothing is copied.

// Items the module uses but no host test calls would warn here.
#![allow(dead_code)]

#[path = "../../../../src/portable/mod.rs"]
mod portable;
