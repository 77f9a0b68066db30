// SPDX-License-Identifier: GPL-2.0

//! The clocks that time events (`trace_clock`), named and ordered as the
//! kernel's.

use super::input::{self, InputError};
use core::fmt;

/// A trace clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TraceClock {
    /// Per-CPU clock: fast, not ordered across CPUs.
    Local,
    /// Ordered across CPUs, slower.
    Global,
    /// An event counter, not a time.
    Counter,
    /// Jiffies since boot.
    Uptime,
    /// The clock perf uses.
    Perf,
    /// `CLOCK_MONOTONIC`.
    Mono,
    /// `CLOCK_MONOTONIC_RAW`.
    MonoRaw,
    /// `CLOCK_BOOTTIME`.
    Boot,
    /// `CLOCK_TAI`.
    Tai,
    /// The x86 time stamp counter (cycles, not a time).
    X86Tsc,
}

/// Every clock, in the order `trace_clock` lists them.
pub(crate) const ALL: [TraceClock; 10] = [
    TraceClock::Local,
    TraceClock::Global,
    TraceClock::Counter,
    TraceClock::Uptime,
    TraceClock::Perf,
    TraceClock::Mono,
    TraceClock::MonoRaw,
    TraceClock::Boot,
    TraceClock::Tai,
    TraceClock::X86Tsc,
];

impl TraceClock {
    /// Its name in `trace_clock`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            TraceClock::Local => "local",
            TraceClock::Global => "global",
            TraceClock::Counter => "counter",
            TraceClock::Uptime => "uptime",
            TraceClock::Perf => "perf",
            TraceClock::Mono => "mono",
            TraceClock::MonoRaw => "mono_raw",
            TraceClock::Boot => "boot",
            TraceClock::Tai => "tai",
            TraceClock::X86Tsc => "x86-tsc",
        }
    }

    /// Whether its values are nanoseconds (else they print as plain counts).
    pub(crate) fn in_ns(self) -> bool {
        !matches!(
            self,
            TraceClock::Counter | TraceClock::Uptime | TraceClock::X86Tsc
        )
    }

    /// Its index in [`ALL`].
    pub(crate) fn index(self) -> u8 {
        ALL.iter().position(|c| *c == self).unwrap_or(0) as u8
    }

    /// The clock with index `i` in [`ALL`] (local if out of range).
    pub(crate) fn from_index(i: u8) -> Self {
        ALL.get(usize::from(i))
            .copied()
            .unwrap_or(TraceClock::Local)
    }

    /// Parses a write to `trace_clock`.
    pub(crate) fn parse(text: &[u8]) -> Result<Self, InputError> {
        let name = input::word(text)?;
        ALL.iter()
            .copied()
            .find(|c| c.name().as_bytes() == name)
            .ok_or(InputError::UnknownValue)
    }
}

/// The text of `trace_clock`: every clock, the current one in brackets.
pub(crate) fn write_list(out: &mut dyn fmt::Write, current: TraceClock) -> fmt::Result {
    for (i, clock) in ALL.iter().enumerate() {
        let sep = if i == 0 { "" } else { " " };
        if *clock == current {
            write!(out, "{sep}[{}]", clock.name())?;
        } else {
            write!(out, "{sep}{}", clock.name())?;
        }
    }
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_like_the_kernel() {
        let mut s = String::new();
        assert!(write_list(&mut s, TraceClock::Local).is_ok());
        assert_eq!(
            s,
            "[local] global counter uptime perf mono mono_raw boot tai x86-tsc\n"
        );
        s.clear();
        assert!(write_list(&mut s, TraceClock::MonoRaw).is_ok());
        assert_eq!(
            s,
            "local global counter uptime perf mono [mono_raw] boot tai x86-tsc\n"
        );
    }

    #[test]
    fn parses_names() {
        assert_eq!(TraceClock::parse(b"global\n"), Ok(TraceClock::Global));
        assert_eq!(TraceClock::parse(b"mono_raw"), Ok(TraceClock::MonoRaw));
        assert_eq!(TraceClock::parse(b"[local]"), Err(InputError::UnknownValue));
        assert_eq!(TraceClock::parse(b"x86-tsc"), Ok(TraceClock::X86Tsc));
        assert_eq!(TraceClock::parse(b"tsc"), Err(InputError::UnknownValue));
        for c in ALL {
            assert_eq!(TraceClock::from_index(c.index()), c);
        }
    }
}
