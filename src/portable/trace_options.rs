// SPDX-License-Identifier: GPL-2.0

//! The trace options (`trace_options` and `options/`): the general ones and
//! each tracer's own.
//!
//! Names, defaults and order are the kernel's. Options are kept as bits of a
//! `u64` so the recording path can test them with one atomic load: the
//! general options take the low 32 bits, the tracers' own options the high
//! ones.

use super::input::{self, InputError};

/// One trace option, general or a tracer's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TraceOption {
    /// The name in `trace_options` and `options/`.
    pub(crate) name: &'static str,
    /// The bit in [`OptionSet`].
    pub(crate) bit: u64,
    /// Whether it is on in a new instance.
    pub(crate) default: bool,
}

macro_rules! trace_options {
    ($(#[doc = $list_doc:literal])* $list:ident {
        $(
            $(#[doc = $first:literal] $(#[doc = $more:literal])*)?
            $ident:ident = $bit:literal, $name:literal, $default:literal;
        )*
    }) => {
        $(
            #[doc = concat!("The `", $name, "` option.")]
            $(#[doc = ""] #[doc = $first] $(#[doc = $more])*)?
            pub(crate) const $ident: TraceOption =
                TraceOption { name: $name, bit: 1 << $bit, default: $default };
        )*
        $(#[doc = $list_doc])*
        pub(crate) const $list: &[TraceOption] = &[$($ident),*];
    };
}

trace_options! {
    /// Every general option, in the order `trace_options` lists them.
    ALL {
        PRINT_PARENT = 0, "print-parent", true;
        SYM_OFFSET = 1, "sym-offset", false;
        SYM_ADDR = 2, "sym-addr", false;
        RAW = 3, "raw", false;
        HEX = 4, "hex", false;
        BIN = 5, "bin", false;
        CONTEXT_INFO = 6, "context-info", true;
        LATENCY_FORMAT = 7, "latency-format", false;
        RECORD_CMD = 8, "record-cmd", true;
        /// The thread group of tasks is saved at context switches while
        /// events are recorded (`saved_tgids`), and `trace` lines show it.
        RECORD_TGID = 16, "record-tgid", false;
        OVERWRITE = 9, "overwrite", true;
        IRQ_INFO = 10, "irq-info", true;
        MARKERS = 11, "markers", true;
        /// Children of the tasks in `set_event_pid` and
        /// `set_event_notrace_pid` join them as they fork; tasks leave
        /// them as they are freed.
        EVENT_FORK = 15, "event-fork", false;
        /// Reading `trace` (not `snapshot`) stops recording until the
        /// file is closed, so that the walk has an end.
        PAUSE_ON_TRACE = 14, "pause-on-trace", true;
        FUNCTION_TRACE = 12, "function-trace", true;
        FUNCTION_FORK = 13, "function-fork", false;
    }
}

trace_options! {
    /// The function tracer's own options.
    FUNCTION_TRACER_OPTIONS {
        /// The function tracer records a stack trace after each function
        /// event.
        FUNC_STACK_TRACE = 32, "func_stack_trace", false;
    }
}

trace_options! {
    /// The function_graph tracer's own options, in the kernel's order
    /// (`trace_opts[]` of a kernel with `CONFIG_FUNCTION_GRAPH_RETVAL` and
    /// without `CONFIG_FUNCTION_GRAPH_RETADDR` and
    /// `CONFIG_FUNCTION_TRACE_ARGS`).
    FUNCTION_GRAPH_TRACER_OPTIONS {
        /// A return shows the task's overrun count, ` (Overruns: N)`.
        FUNCGRAPH_OVERRUN = 33, "funcgraph-overrun", false;
        /// Lines start with the CPU column, ` 1) `.
        FUNCGRAPH_CPU = 34, "funcgraph-cpu", true;
        /// Durations carry the overhead mark (`+`, `!`, `#`, `*`, `@`, `$`).
        FUNCGRAPH_OVERHEAD = 35, "funcgraph-overhead", true;
        /// Lines show the task, `comm-pid`.
        FUNCGRAPH_PROC = 36, "funcgraph-proc", false;
        /// Lines show the duration column.
        FUNCGRAPH_DURATION = 37, "funcgraph-duration", true;
        /// Lines start with the event's time stamp.
        FUNCGRAPH_ABSTIME = 38, "funcgraph-abstime", false;
        /// Functions run in interrupts are traced and shown; off, the
        /// printer also skips whatever an irq-entry function runs.
        FUNCGRAPH_IRQS = 39, "funcgraph-irqs", true;
        /// Every closing brace names its function, `} /* func */`.
        FUNCGRAPH_TAIL = 40, "funcgraph-tail", false;
        /// Returns show the return value, `/* ret=0x0 */`.
        FUNCGRAPH_RETVAL = 41, "funcgraph-retval", false;
        /// Return values always print in hex (not as an error number).
        FUNCGRAPH_RETVAL_HEX = 42, "funcgraph-retval-hex", false;
        /// Durations include the time the task slept.
        SLEEP_TIME = 43, "sleep-time", true;
    }
}

/// The options of every tracer, which each have a file in `options/` (a
/// tracer's options are listed in `trace_options` only while it runs):
/// [`FUNCTION_TRACER_OPTIONS`], then [`FUNCTION_GRAPH_TRACER_OPTIONS`].
pub(crate) const TRACER_OPTIONS: &[TraceOption] = &[
    FUNC_STACK_TRACE,
    FUNCGRAPH_OVERRUN,
    FUNCGRAPH_CPU,
    FUNCGRAPH_OVERHEAD,
    FUNCGRAPH_PROC,
    FUNCGRAPH_DURATION,
    FUNCGRAPH_ABSTIME,
    FUNCGRAPH_IRQS,
    FUNCGRAPH_TAIL,
    FUNCGRAPH_RETVAL,
    FUNCGRAPH_RETVAL_HEX,
    SLEEP_TIME,
];

/// The general options only the top-level instance has (the kernel's
/// `TOP_LEVEL_TRACE_FLAGS`): an instance's `options/` leaves them out.
pub(crate) const TOP_LEVEL_ONLY: &[TraceOption] = &[RECORD_CMD];

/// The general options a new instance starts with off, whatever the top
/// level has (the kernel's `ZEROED_TRACE_FLAGS` that rftrace has).
const OFF_IN_NEW_INSTANCES: &[TraceOption] = &[EVENT_FORK, FUNCTION_FORK];

/// A set of options, one bit each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OptionSet(pub(crate) u64);

impl OptionSet {
    /// The options a new instance starts with: the general options' and
    /// every tracer's defaults.
    pub(crate) fn defaults() -> Self {
        OptionSet(
            ALL.iter()
                .chain(TRACER_OPTIONS)
                .filter(|o| o.default)
                .fold(0, |bits, o| bits | o.bit),
        )
    }

    /// The options of an instance made under `instances/` while the top
    /// level has `top`: the top level's general options, but for those a
    /// new instance starts without, and every tracer's defaults (tracer
    /// options are each instance's own from its start).
    pub(crate) fn for_new_instance(top: OptionSet) -> Self {
        let general = ALL.iter().fold(0, |bits, o| bits | o.bit);
        let zeroed = OFF_IN_NEW_INSTANCES.iter().fold(0, |bits, o| bits | o.bit);
        let tracers = Self::defaults().0 & !general;
        OptionSet((top.0 & general & !zeroed) | tracers)
    }

    /// Whether `option` is on.
    pub(crate) fn has(self, option: TraceOption) -> bool {
        self.0 & option.bit != 0
    }

    /// This set with `option` turned on or off.
    pub(crate) fn with(self, option: TraceOption, on: bool) -> Self {
        if on {
            OptionSet(self.0 | option.bit)
        } else {
            OptionSet(self.0 & !option.bit)
        }
    }
}

/// Looks an option up by name among the general ones and `extra` (the
/// current tracer's).
pub(crate) fn find(name: &[u8], extra: &[TraceOption]) -> Option<TraceOption> {
    ALL.iter()
        .chain(extra)
        .copied()
        .find(|o| o.name.as_bytes() == name)
}

/// Parses a write to `trace_options`: one option name, prefixed with `no`
/// to turn it off; the general options and those of the current tracer,
/// `extra`, are known.
pub(crate) fn parse_setting(
    text: &[u8],
    extra: &[TraceOption],
) -> Result<(TraceOption, bool), InputError> {
    let word = input::word(text)?;
    if let Some(option) = find(word, extra) {
        return Ok((option, true));
    }
    word.strip_prefix(b"no")
        .and_then(|name| find(name, extra))
        .map(|option| (option, false))
        .ok_or(InputError::UnknownValue)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_instances_inherit_the_general_options_but_fork_following() {
        let top = OptionSet::defaults()
            .with(SYM_OFFSET, true)
            .with(OVERWRITE, false)
            .with(FUNCTION_FORK, true)
            .with(EVENT_FORK, true)
            .with(FUNCGRAPH_TAIL, true)
            .with(FUNCGRAPH_CPU, false);
        let new = OptionSet::for_new_instance(top);
        assert!(new.has(SYM_OFFSET));
        assert!(!new.has(OVERWRITE));
        assert!(!new.has(FUNCTION_FORK));
        assert!(!new.has(EVENT_FORK));
        // Tracer options start at their defaults.
        assert!(!new.has(FUNCGRAPH_TAIL));
        assert!(new.has(FUNCGRAPH_CPU));
        assert_eq!(
            OptionSet::for_new_instance(OptionSet::defaults()),
            OptionSet::defaults()
        );
    }

    #[test]
    fn defaults_match_the_kernel() {
        let set = OptionSet::defaults();
        assert!(set.has(PRINT_PARENT) && set.has(OVERWRITE) && set.has(MARKERS));
        assert!(!set.has(RAW) && !set.has(SYM_OFFSET) && !set.has(LATENCY_FORMAT));
        assert!(set.has(RECORD_CMD) && !set.has(RECORD_TGID));
    }

    #[test]
    fn general_options_in_the_kernels_order() {
        // TRACE_FLAGS of kernel/trace/trace.h (7.2), then FUNCTION_FLAGS,
        // cut to the options rftrace has.
        let kernel = [
            "print-parent",
            "sym-offset",
            "sym-addr",
            "verbose",
            "raw",
            "hex",
            "bin",
            "block",
            "fields",
            "trace_printk",
            "annotate",
            "userstacktrace",
            "sym-userobj",
            "printk-msg-only",
            "context-info",
            "latency-format",
            "record-cmd",
            "record-tgid",
            "overwrite",
            "disable_on_free",
            "irq-info",
            "markers",
            "event-fork",
            "trace_printk_dest",
            "copy_trace_marker",
            "pause-on-trace",
            "hash-ptr",
            "bitmask-list",
            "function-trace",
            "function-fork",
        ];
        let ours: Vec<&str> = ALL.iter().map(|o| o.name).collect();
        let theirs: Vec<&str> = kernel.into_iter().filter(|n| ours.contains(n)).collect();
        assert_eq!(ours, theirs);
    }

    #[test]
    fn bits_are_distinct() {
        let all = ALL.iter().chain(TRACER_OPTIONS).fold(0u64, |acc, o| {
            assert_eq!(acc & o.bit, 0, "{} reuses a bit", o.name);
            acc | o.bit
        });
        assert_eq!(all.count_ones() as usize, ALL.len() + TRACER_OPTIONS.len());
    }

    #[test]
    fn parses_settings() {
        assert_eq!(parse_setting(b"raw\n", &[]), Ok((RAW, true)));
        assert_eq!(parse_setting(b"nooverwrite", &[]), Ok((OVERWRITE, false)));
        assert_eq!(parse_setting(b"noraw ", &[]), Ok((RAW, false)));
        assert_eq!(parse_setting(b"bogus", &[]), Err(InputError::UnknownValue));
        assert_eq!(parse_setting(b"no", &[]), Err(InputError::UnknownValue));
        assert_eq!(
            parse_setting(b"raw hex", &[]),
            Err(InputError::UnknownValue)
        );
        assert_eq!(parse_setting(b"", &[]), Err(InputError::UnknownValue));
        assert_eq!(parse_setting(b"r\x00aw", &[]), Err(InputError::NotText));
    }

    #[test]
    fn tracer_options_only_while_their_tracer_runs() {
        assert_eq!(
            parse_setting(b"func_stack_trace", &[]),
            Err(InputError::UnknownValue)
        );
        assert_eq!(
            parse_setting(b"nofunc_stack_trace", FUNCTION_TRACER_OPTIONS),
            Ok((FUNC_STACK_TRACE, false))
        );
        assert!(!OptionSet::defaults().has(FUNCTION_FORK));
        assert!(!OptionSet::defaults().has(EVENT_FORK));
        assert!(OptionSet::defaults().has(FUNCTION_TRACE));
    }

    #[test]
    fn function_graph_options_match_the_kernel() {
        let listed: Vec<(&str, bool)> = FUNCTION_GRAPH_TRACER_OPTIONS
            .iter()
            .map(|o| (o.name, o.default))
            .collect();
        assert_eq!(
            listed,
            [
                ("funcgraph-overrun", false),
                ("funcgraph-cpu", true),
                ("funcgraph-overhead", true),
                ("funcgraph-proc", false),
                ("funcgraph-duration", true),
                ("funcgraph-abstime", false),
                ("funcgraph-irqs", true),
                ("funcgraph-tail", false),
                ("funcgraph-retval", false),
                ("funcgraph-retval-hex", false),
                ("sleep-time", true),
            ]
        );
        let set = OptionSet::defaults();
        for option in FUNCTION_GRAPH_TRACER_OPTIONS {
            assert_eq!(set.has(*option), option.default, "{}", option.name);
        }
        assert!(!set.has(FUNC_STACK_TRACE));
        assert_eq!(
            parse_setting(b"nofuncgraph-cpu", FUNCTION_GRAPH_TRACER_OPTIONS),
            Ok((FUNCGRAPH_CPU, false))
        );
        assert_eq!(
            parse_setting(b"funcgraph-cpu", FUNCTION_TRACER_OPTIONS),
            Err(InputError::UnknownValue)
        );
    }

    #[test]
    fn tracer_options_are_every_tracers() {
        let every: Vec<TraceOption> = FUNCTION_TRACER_OPTIONS
            .iter()
            .chain(FUNCTION_GRAPH_TRACER_OPTIONS)
            .copied()
            .collect();
        assert_eq!(TRACER_OPTIONS, every.as_slice());
        // General options in the low word, tracers' in the high one.
        assert!(ALL.iter().all(|o| o.bit < 1 << 32));
        assert!(TRACER_OPTIONS.iter().all(|o| o.bit >= 1 << 32));
    }

    #[test]
    fn toggles() {
        let set = OptionSet::defaults().with(RAW, true).with(OVERWRITE, false);
        assert!(set.has(RAW) && !set.has(OVERWRITE));
    }
}
