// SPDX-License-Identifier: GPL-2.0

//! The tracers an instance can run (`available_tracers`, `current_tracer`).
//!
//! A tracer decides what is recorded into an instance's buffer. Each one is
//! a static description; an instance points at the one it runs and starts
//! or stops what it needs (see `Instance::set_tracer`).

use crate::portable::trace_options::{self, TraceOption};

/// What a tracer records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Nothing: only what user space and events write.
    Nop,
    /// A `function` event per call of each selected function.
    Function,
    /// `funcgraph_entry` and `funcgraph_exit` events around each traced
    /// call.
    FunctionGraph,
}

/// A tracer rftrace provides.
pub(crate) struct Tracer {
    /// The name written to `current_tracer`.
    pub(crate) name: &'static str,
    pub(crate) kind: Kind,
    /// Its own options, listed in `trace_options` while it runs.
    pub(crate) options: &'static [TraceOption],
}

/// The tracer that records nothing; every instance starts with it.
pub(crate) static NOP: Tracer = Tracer {
    name: "nop",
    kind: Kind::Nop,
    options: &[],
};

/// The function tracer.
pub(crate) static FUNCTION: Tracer = Tracer {
    name: "function",
    kind: Kind::Function,
    options: trace_options::FUNCTION_TRACER_OPTIONS,
};

/// The function_graph tracer.
pub(crate) static FUNCTION_GRAPH: Tracer = Tracer {
    name: "function_graph",
    kind: Kind::FunctionGraph,
    options: trace_options::FUNCTION_GRAPH_TRACER_OPTIONS,
};

/// Every tracer, in the order `available_tracers` lists them (the kernel's:
/// the most recently registered first, `nop` last).
pub(crate) static ALL: [&Tracer; 3] = [&FUNCTION_GRAPH, &FUNCTION, &NOP];

/// The names of [`ALL`], in the same order.
pub(crate) fn names() -> [&'static str; ALL.len()] {
    ALL.map(|t| t.name)
}
