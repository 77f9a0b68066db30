// SPDX-License-Identifier: GPL-2.0

//! The words written to `set_event`: which events one word names, as the
//! kernel's `ftrace_set_clr_event` reads it.
//!
//! A word is `[!]SYSTEM:EVENT`, `[!]NAME` or either with `:mod:MODULE`
//! appended. Names are compared whole (no globs); an empty part or `*`
//! stands for any. `NAME` alone selects the events of system `NAME` and
//! the events called `NAME`.

use core::fmt::{self, Write};

/// The events one word of `set_event` selects, and whether it enables them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EventSelector<'a> {
    /// Enable (no `!`) or disable.
    pub(crate) enable: bool,
    /// `NAME` alone: a system or an event of that name.
    either: Option<&'a str>,
    /// `SYSTEM` of `SYSTEM:EVENT`.
    system: Option<&'a str>,
    /// `EVENT` of `SYSTEM:EVENT`.
    event: Option<&'a str>,
    /// `MODULE` of `:mod:MODULE`.
    module: Option<&'a str>,
}

/// What a selector is matched against: one event.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EventName<'a> {
    /// Its system.
    pub(crate) system: &'a str,
    /// Its name.
    pub(crate) name: &'a str,
    /// The module that defines it (`None` for built-in and dynamic ones).
    pub(crate) module: Option<&'a str>,
}

/// `part`, unless it stands for any (empty or `*`).
fn named(part: &str) -> Option<&str> {
    (!part.is_empty() && part != "*").then_some(part)
}

impl<'a> EventSelector<'a> {
    /// Reads one word.
    pub(crate) fn parse(word: &'a str) -> Self {
        let (enable, word) = match word.strip_prefix('!') {
            Some(rest) => (false, rest),
            None => (true, word),
        };
        let (word, module) = match word.find(":mod:") {
            Some(at) => (&word[..at], Some(&word[at + 5..])),
            None => (word, None),
        };
        let mut selector = EventSelector {
            enable,
            either: None,
            system: None,
            event: None,
            module,
        };
        match word.split_once(':') {
            Some((system, event)) => {
                selector.system = named(system);
                selector.event = named(event);
            }
            None if module.is_some() => selector.either = named(word),
            None => selector.either = Some(word),
        }
        selector
    }

    /// Whether the word selects `event`.
    pub(crate) fn selects(&self, event: &EventName<'_>) -> bool {
        if let Some(module) = self.module {
            match event.module {
                Some(theirs) if same_module(module, theirs) => {}
                _ => return false,
            }
        }
        if let Some(either) = self.either {
            if either != event.name && either != event.system {
                return false;
            }
        }
        self.system.is_none_or(|s| s == event.system) && self.event.is_none_or(|e| e == event.name)
    }
}

impl EventSelector<'_> {
    /// The module of a `:mod:` word.
    pub(crate) fn module(&self) -> Option<&str> {
        self.module
    }

    /// Writes the word as the kernel keeps a `:mod:` word whose module is
    /// not loaded, and lists it in `set_event`: `NAME:mod:MODULE`, or
    /// `SYSTEM:EVENT:mod:MODULE` with `*` for any, the module's `-`
    /// written as `_`. Nothing for a word without a module.
    pub(crate) fn write_pending(&self, out: &mut dyn Write) -> fmt::Result {
        let Some(module) = self.module else {
            return Ok(());
        };
        match self.either {
            Some(either) => write!(out, "{either}")?,
            None => write!(
                out,
                "{}:{}",
                self.system.unwrap_or("*"),
                self.event.unwrap_or("*")
            )?,
        }
        out.write_str(":mod:")?;
        for c in module.chars() {
            out.write_char(if c == '-' { '_' } else { c })?;
        }
        Ok(())
    }

    /// Whether this `!` word takes back kept word `kept`: the same module,
    /// and each part this word names equal to the kept word's (the
    /// kernel's `remove_cache_mod`).
    pub(crate) fn takes_back(&self, kept: &EventSelector<'_>) -> bool {
        let same = |a: Option<&str>, b: Option<&str>| a.is_none() || a == b;
        match (self.module, kept.module) {
            (Some(a), Some(b)) if same_module(a, b) => {}
            _ => return false,
        }
        same(self.either, kept.either)
            && same(self.system, kept.system)
            && same(self.event, kept.event)
    }

    /// Whether this kept word is for module `name` (as loaded).
    pub(crate) fn is_for_module(&self, name: &str) -> bool {
        self.module.is_some_and(|m| same_module(m, name))
    }
}

/// Whether module names `a` (as written) and `b` (as loaded) are the same,
/// a `-` written standing for the `_` that module names have.
fn same_module(a: &str, b: &str) -> bool {
    let normal = |c: u8| if c == b'-' { b'_' } else { c };
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .all(|(x, y)| normal(x) == normal(y))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SWITCH: EventName<'static> = EventName {
        system: "sched",
        name: "sched_switch",
        module: None,
    };
    const READ: EventName<'static> = EventName {
        system: "syscalls",
        name: "sys_enter_read",
        module: None,
    };
    const SAMPLE: EventName<'static> = EventName {
        system: "sample-trace",
        name: "foo_bar",
        module: Some("trace_events_sample"),
    };

    #[test]
    fn system_and_event() {
        let s = EventSelector::parse("sched:sched_switch");
        assert!(s.enable && s.selects(&SWITCH) && !s.selects(&READ));
        let s = EventSelector::parse("!sched:sched_switch");
        assert!(!s.enable && s.selects(&SWITCH));
    }

    #[test]
    fn any_parts() {
        for word in ["sched:*", "sched:"] {
            let s = EventSelector::parse(word);
            assert!(s.selects(&SWITCH) && !s.selects(&READ), "{word}");
        }
        for word in ["*:*", ":", "*:", ":*"] {
            let s = EventSelector::parse(word);
            assert!(s.selects(&SWITCH) && s.selects(&READ), "{word}");
        }
        for word in ["*:sched_switch", ":sched_switch"] {
            let s = EventSelector::parse(word);
            assert!(s.selects(&SWITCH) && !s.selects(&READ), "{word}");
        }
    }

    #[test]
    fn a_name_alone_is_a_system_or_an_event() {
        assert!(EventSelector::parse("sched").selects(&SWITCH));
        assert!(EventSelector::parse("sched_switch").selects(&SWITCH));
        assert!(!EventSelector::parse("sched_switch").selects(&READ));
        // No globs.
        assert!(!EventSelector::parse("sched_*").selects(&SWITCH));
        // `*` alone names nothing.
        assert!(!EventSelector::parse("*").selects(&SWITCH));
    }

    #[test]
    fn modules() {
        let s = EventSelector::parse(":mod:trace-events-sample");
        assert!(s.selects(&SAMPLE) && !s.selects(&SWITCH));
        let s = EventSelector::parse("*:mod:trace_events_sample");
        assert!(s.selects(&SAMPLE));
        let s = EventSelector::parse("sample-trace:foo_bar:mod:trace_events_sample");
        assert!(s.selects(&SAMPLE));
        let s = EventSelector::parse("sample-trace:other:mod:trace_events_sample");
        assert!(!s.selects(&SAMPLE));
    }

    fn pending(word: &str) -> String {
        let mut out = String::new();
        EventSelector::parse(word).write_pending(&mut out).unwrap();
        out
    }

    #[test]
    fn kept_words_as_the_kernel_lists_them() {
        assert_eq!(
            pending(":mod:trace-events-sample"),
            "*:*:mod:trace_events_sample"
        );
        assert_eq!(
            pending("sample-trace:mod:trace-events-sample"),
            "sample-trace:mod:trace_events_sample"
        );
        assert_eq!(
            pending("foo_bar:mod:trace-events-sample"),
            "foo_bar:mod:trace_events_sample"
        );
        assert_eq!(
            pending("sample-trace:foo_bar_with_cond:mod:trace-events-sample"),
            "sample-trace:foo_bar_with_cond:mod:trace_events_sample"
        );
        assert_eq!(pending("sched:sched_switch"), "");
        // A kept word reads back as the same word.
        for word in ["*:*:mod:m", "sys:mod:m", "sys:ev:mod:m"] {
            assert_eq!(pending(word), word);
        }
    }

    #[test]
    fn taking_kept_words_back() {
        let kept = EventSelector::parse("sample-trace:foo_bar:mod:trace_events_sample");
        let back = |word: &str| EventSelector::parse(word).takes_back(&kept);
        assert!(back("!:mod:trace-events-sample"));
        assert!(back("!sample-trace:foo_bar:mod:trace_events_sample"));
        assert!(back("!sample-trace:*:mod:trace_events_sample"));
        assert!(!back("!sample-trace:other:mod:trace_events_sample"));
        assert!(!back("!:mod:other"));
        assert!(!back("!sample-trace:mod:trace_events_sample"));
        assert!(kept.is_for_module("trace_events_sample"));
        assert!(!kept.is_for_module("other"));
    }
}
