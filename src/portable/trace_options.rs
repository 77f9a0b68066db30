// SPDX-License-Identifier: GPL-2.0

//! The general trace options (`trace_options` and `options/`).
//!
//! Names, defaults and order are the kernel's. Options are kept as bits of a
//! `u32` so the recording path can test them with one atomic load.

use super::input::{self, InputError};

/// One general trace option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TraceOption {
    /// The name in `trace_options` and `options/`.
    pub(crate) name: &'static str,
    /// The bit in [`OptionSet`].
    pub(crate) bit: u32,
    /// Whether it is on in a new instance.
    pub(crate) default: bool,
}

macro_rules! trace_options {
    ($($ident:ident = $bit:literal, $name:literal, $default:literal;)*) => {
        $(
            #[doc = concat!("The `", $name, "` option.")]
            pub(crate) const $ident: TraceOption =
                TraceOption { name: $name, bit: 1 << $bit, default: $default };
        )*
        /// Every option, in the order `trace_options` lists them.
        pub(crate) const ALL: &[TraceOption] = &[$($ident),*];
    };
}

trace_options! {
    PRINT_PARENT = 0, "print-parent", true;
    SYM_OFFSET = 1, "sym-offset", false;
    SYM_ADDR = 2, "sym-addr", false;
    RAW = 3, "raw", false;
    HEX = 4, "hex", false;
    BIN = 5, "bin", false;
    CONTEXT_INFO = 6, "context-info", true;
    LATENCY_FORMAT = 7, "latency-format", false;
    RECORD_CMD = 8, "record-cmd", true;
    OVERWRITE = 9, "overwrite", true;
    IRQ_INFO = 10, "irq-info", true;
    MARKERS = 11, "markers", true;
    FUNCTION_TRACE = 12, "function-trace", true;
    FUNCTION_FORK = 13, "function-fork", false;
}

/// `func_stack_trace`: the function tracer records a stack trace after
/// each function event.
pub(crate) const FUNC_STACK_TRACE: TraceOption = TraceOption {
    name: "func_stack_trace",
    bit: 1 << 24,
    default: false,
};

/// The function tracer's own options.
pub(crate) const FUNCTION_TRACER_OPTIONS: &[TraceOption] = &[FUNC_STACK_TRACE];

/// The options of every tracer, which each have a file in `options/` (a
/// tracer's options are listed in `trace_options` only while it runs).
pub(crate) const TRACER_OPTIONS: &[TraceOption] = FUNCTION_TRACER_OPTIONS;

/// A set of options, one bit each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OptionSet(pub(crate) u32);

impl OptionSet {
    /// The options a new instance starts with.
    pub(crate) fn defaults() -> Self {
        OptionSet(
            ALL.iter()
                .filter(|o| o.default)
                .fold(0, |bits, o| bits | o.bit),
        )
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
    fn defaults_match_the_kernel() {
        let set = OptionSet::defaults();
        assert!(set.has(PRINT_PARENT) && set.has(OVERWRITE) && set.has(MARKERS));
        assert!(!set.has(RAW) && !set.has(SYM_OFFSET) && !set.has(LATENCY_FORMAT));
    }

    #[test]
    fn bits_are_distinct() {
        let all = ALL.iter().chain(TRACER_OPTIONS).fold(0u32, |acc, o| {
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
        assert!(OptionSet::defaults().has(FUNCTION_TRACE));
    }

    #[test]
    fn toggles() {
        let set = OptionSet::defaults().with(RAW, true).with(OVERWRITE, false);
        assert!(set.has(RAW) && !set.has(OVERWRITE));
    }
}
