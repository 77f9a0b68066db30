// SPDX-License-Identifier: GPL-2.0

//! Function probes: the commands `set_ftrace_filter` attaches to functions
//! (`schedule:traceoff:3`, `vfs_read:enable_event:sched:sched_switch`), as
//! ftrace's users of `register_ftrace_function_probe` keep them.
//!
//! This module reads what a command word asks for ([`parse_probe`]),
//! spends a probe's count the way each of ftrace's commands does
//! ([`ProbeCount`]) and writes the line `set_ftrace_filter` lists for a
//! probe ([`write_probe`]).
//!
//! ftrace keys a function's probes by their "probe ops": a command's
//! counted form (`traceoff:3`) and its uncounted one (`traceoff`) are
//! different probes, `enable_event` probes for two events are the same
//! one. A removal (`!schedule:traceoff`) names the probe the same way, so
//! `!schedule:traceoff` leaves a `schedule:traceoff:3` in place.

use core::fmt::{self, Write};
use core::sync::atomic::{
    AtomicI64,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};

use super::func_filter::{CommandKind, FunctionCommand};
use super::input::{self, InputError};

/// The count of a probe that never runs out (`:unlimited` in the listing).
pub(crate) const UNLIMITED: i64 = -1;

/// Which probe a command word names: ftrace's probe ops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProbeKind {
    /// The command.
    pub(crate) command: CommandKind,
    /// Its counted form: a count was written after it (always for `dump`,
    /// which runs once; never for `cpudump`).
    pub(crate) counted: bool,
}

/// What one command word asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProbeSpec<'a> {
    /// The probe.
    pub(crate) kind: ProbeKind,
    /// `enable_event` and `disable_event`: the event's system and name.
    pub(crate) event: Option<(&'a [u8], &'a [u8])>,
    /// The count a new probe starts with: [`UNLIMITED`] when none was
    /// written (or the word removes a probe).
    pub(crate) count: i64,
}

/// Reads the parameter of `command` (everything after `FUNCTION:NAME:`),
/// for a word that adds a probe or, with `remove`, takes one away. As in
/// ftrace, a removal reads no count; `enable_event` and `disable_event`
/// need `SYSTEM:EVENT`, and a count after them may not be empty.
pub(crate) fn parse_probe<'a>(
    command: &FunctionCommand<'a>,
    remove: bool,
) -> Result<ProbeSpec<'a>, InputError> {
    let parameter = command.parameter;
    let kind = |counted| ProbeKind {
        command: command.kind,
        counted,
    };
    match command.kind {
        CommandKind::EnableEvent | CommandKind::DisableEvent => {
            let (system, rest) = split(parameter.ok_or(InputError::UnknownValue)?);
            let (event, number) = split(rest.ok_or(InputError::UnknownValue)?);
            let count = match number {
                Some(number) if !remove => {
                    let (number, _) = split(number);
                    if number.is_empty() {
                        return Err(InputError::BadNumber);
                    }
                    parse_count(number)?
                }
                _ => UNLIMITED,
            };
            Ok(ProbeSpec {
                kind: kind(number.is_some()),
                event: Some((system, event)),
                count,
            })
        }
        // A dump runs once, whatever was written; a CPU dump every time.
        CommandKind::Dump => Ok(ProbeSpec {
            kind: kind(true),
            event: None,
            count: 1,
        }),
        CommandKind::CpuDump => Ok(ProbeSpec {
            kind: kind(false),
            event: None,
            count: UNLIMITED,
        }),
        CommandKind::TraceOn
        | CommandKind::TraceOff
        | CommandKind::StackTrace
        | CommandKind::Snapshot => {
            let count = match parameter {
                Some(parameter) if !remove => {
                    let (number, _) = split(parameter);
                    if number.is_empty() {
                        UNLIMITED
                    } else {
                        parse_count(number)?
                    }
                }
                _ => UNLIMITED,
            };
            Ok(ProbeSpec {
                kind: kind(parameter.is_some()),
                event: None,
                count,
            })
        }
    }
}

/// Splits `text` at its first `:`.
fn split(text: &[u8]) -> (&[u8], Option<&[u8]>) {
    match text.iter().position(|&b| b == b':') {
        Some(colon) => (&text[..colon], text.get(colon + 1..)),
        None => (text, None),
    }
}

/// A count as `kstrtoul(.., 0, ..)` reads it, within the kernel's `long`.
fn parse_count(text: &[u8]) -> Result<i64, InputError> {
    i64::try_from(input::parse_c_number(text)?).map_err(|_| InputError::BadNumber)
}

/// What is left of a probe's count, spent from any CPU as ftrace's
/// commands spend theirs.
#[derive(Debug)]
pub(crate) struct ProbeCount(AtomicI64);

impl ProbeCount {
    /// A count starting at `count` ([`UNLIMITED`] or a number).
    pub(crate) const fn new(count: i64) -> Self {
        ProbeCount(AtomicI64::new(count))
    }

    /// What is left, as listed.
    pub(crate) fn get(&self) -> i64 {
        self.0.load(Relaxed)
    }

    /// `traceon:N`, `traceoff:N`: while the count is above zero, a hit
    /// that finds the state not yet what it wants (`in_state` false)
    /// `change`s it and spends one. Two CPUs may both change the state;
    /// the count goes down once (the new state is seen before the new
    /// count).
    pub(crate) fn spend_on_change(&self, in_state: impl FnOnce() -> bool, change: impl FnOnce()) {
        let old = self.0.load(Acquire);
        if old <= 0 || in_state() {
            return;
        }
        change();
        self.0.store(old - 1, Release);
    }

    /// `enable_event:..:N`, `disable_event:..:N`: as
    /// [`Self::spend_on_change`], but until the count is zero, and an
    /// unlimited count is not spent.
    pub(crate) fn spend_event_change(
        &self,
        in_state: impl FnOnce() -> bool,
        change: impl FnOnce(),
    ) {
        let old = self.0.load(Acquire);
        if old == 0 || in_state() {
            return;
        }
        change();
        if old != UNLIMITED {
            self.0.store(old - 1, Release);
        }
    }

    /// `stacktrace:N`: takes one use per hit until the count is zero;
    /// true if one was taken (exactly as many hits as the count).
    pub(crate) fn take_one(&self) -> bool {
        let mut old = self.0.load(Relaxed);
        loop {
            if old == 0 {
                return false;
            }
            match self
                .0
                .compare_exchange_weak(old, old.wrapping_sub(1), AcqRel, Relaxed)
            {
                Ok(_) => return true,
                Err(now) => old = now,
            }
        }
    }
}

/// Writes what `set_ftrace_filter` lists after a probe's function name:
/// `:traceoff:unlimited`, `:traceon:count=3`,
/// `:enable_event:sched:sched_switch:unlimited`. A counted probe shows
/// its count left (an event probe shows `unlimited` for a count that
/// never runs out), an uncounted one `unlimited`, as ftrace's.
pub(crate) fn write_probe(
    out: &mut dyn Write,
    kind: ProbeKind,
    event: Option<(&str, &str)>,
    count: i64,
) -> fmt::Result {
    write!(out, ":{}", kind.command.name())?;
    let unlimited = match event {
        Some((system, name)) => {
            write!(out, ":{system}:{name}")?;
            count == UNLIMITED
        }
        None => !kind.counted,
    };
    if unlimited {
        out.write_str(":unlimited\n")
    } else {
        writeln!(out, ":count={count}")
    }
}

#[cfg(test)]
mod tests;
