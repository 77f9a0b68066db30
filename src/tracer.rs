// SPDX-License-Identifier: GPL-2.0

//! The tracers an instance can run (`available_tracers`, `current_tracer`).
//!
//! A tracer decides what is recorded into an instance's buffer. Each one is
//! a static description; an instance points at the one it runs.

/// A tracer rftrace provides.
pub(crate) struct Tracer {
    /// The name written to `current_tracer`.
    pub(crate) name: &'static str,
}

/// The tracer that records nothing; every instance starts with it.
pub(crate) static NOP: Tracer = Tracer { name: "nop" };

/// Every tracer, in the order `available_tracers` lists them.
pub(crate) static ALL: [&Tracer; 1] = [&NOP];

/// The names of [`ALL`], in the same order.
pub(crate) fn names() -> [&'static str; ALL.len()] {
    ALL.map(|t| t.name)
}
