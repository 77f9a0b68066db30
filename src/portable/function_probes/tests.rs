// SPDX-License-Identifier: GPL-2.0

use super::*;
use crate::portable::func_filter::{parse_word, Action, FilterFile};

extern crate std;
use core::cell::Cell;
use std::string::String;

/// The probe a `set_ftrace_filter` word names.
fn spec(word: &str) -> Result<ProbeSpec<'_>, InputError> {
    let command = parse_word(word.as_bytes(), FilterFile::Function).expect("a command word");
    let Action::Command(function) = command.action else {
        panic!("{word} is not a command");
    };
    parse_probe(&function, command.remove)
}

fn kind(command: CommandKind, counted: bool) -> ProbeKind {
    ProbeKind { command, counted }
}

#[test]
fn counted_and_uncounted_forms_are_different_probes() {
    let plain = spec("schedule:traceoff").unwrap();
    assert_eq!(plain.kind, kind(CommandKind::TraceOff, false));
    assert_eq!(plain.count, UNLIMITED);
    let three = spec("schedule:traceoff:3").unwrap();
    assert_eq!(three.kind, kind(CommandKind::TraceOff, true));
    assert_eq!(three.count, 3);
    assert_eq!(spec("f:traceon:0x10").unwrap().count, 16);
    // An empty count is the counted form, unlimited.
    let empty = spec("f:stacktrace:").unwrap();
    assert_eq!(empty.kind, kind(CommandKind::StackTrace, true));
    assert_eq!(empty.count, UNLIMITED);
    // Anything after the count is ignored, as ftrace's strsep leaves it.
    assert_eq!(spec("f:snapshot:2:junk").unwrap().count, 2);
}

#[test]
fn bad_counts_are_refused_but_removals_read_none() {
    assert_eq!(spec("f:traceoff:x"), Err(InputError::BadNumber));
    assert_eq!(spec("f:traceoff:-1"), Err(InputError::BadNumber));
    assert_eq!(
        spec("f:traceoff:99999999999999999999"),
        Err(InputError::BadNumber)
    );
    let removal = spec("!f:traceoff:count=3").unwrap();
    assert_eq!(removal.kind, kind(CommandKind::TraceOff, true));
    let removal = spec("!f:traceoff").unwrap();
    assert_eq!(removal.kind, kind(CommandKind::TraceOff, false));
}

#[test]
fn dump_runs_once_and_cpudump_always() {
    let dump = spec("f:dump:7").unwrap();
    assert_eq!((dump.kind.counted, dump.count), (true, 1));
    let cpudump = spec("f:cpudump").unwrap();
    assert_eq!((cpudump.kind.counted, cpudump.count), (false, UNLIMITED));
}

#[test]
fn event_commands_name_system_and_event() {
    let on = spec("schedule:enable_event:sched:sched_switch").unwrap();
    assert_eq!(on.kind, kind(CommandKind::EnableEvent, false));
    assert_eq!(on.event, Some((&b"sched"[..], &b"sched_switch"[..])));
    assert_eq!(on.count, UNLIMITED);
    let off = spec("schedule:disable_event:sched:sched_switch:3").unwrap();
    assert_eq!(off.kind, kind(CommandKind::DisableEvent, true));
    assert_eq!(off.count, 3);
    assert_eq!(spec("f:enable_event"), Err(InputError::UnknownValue));
    assert_eq!(spec("f:enable_event:sched"), Err(InputError::UnknownValue));
    assert_eq!(
        spec("f:enable_event:sched:sched_switch:"),
        Err(InputError::BadNumber)
    );
    // A removal names the counted probe without reading its count.
    let removal = spec("!f:enable_event:sched:sched_switch:count=3").unwrap();
    assert_eq!(removal.kind, kind(CommandKind::EnableEvent, true));
}

#[test]
fn traceoff_count_goes_down_once_per_change() {
    let count = ProbeCount::new(2);
    let on = Cell::new(true);
    let off = || !on.get();
    for _ in 0..2 {
        count.spend_on_change(off, || on.set(false));
        assert!(!on.get());
        // Already off: no change, nothing spent.
        count.spend_on_change(off, || on.set(false));
        on.set(true);
    }
    assert_eq!(count.get(), 0);
    count.spend_on_change(off, || on.set(false));
    assert!(on.get(), "a spent count changes nothing");
    // The counted form with no number (-1) never acts.
    let empty = ProbeCount::new(UNLIMITED);
    empty.spend_on_change(|| false, || panic!("acted"));
}

#[test]
fn event_count_spares_unlimited() {
    let unlimited = ProbeCount::new(UNLIMITED);
    let mut changes = 0;
    for _ in 0..5 {
        unlimited.spend_event_change(|| false, || changes += 1);
    }
    assert_eq!((changes, unlimited.get()), (5, UNLIMITED));
    let three = ProbeCount::new(3);
    for _ in 0..5 {
        three.spend_event_change(|| false, || changes += 1);
    }
    assert_eq!((changes, three.get()), (8, 0));
    three.spend_event_change(|| true, || changes += 1);
    assert_eq!(changes, 8);
}

#[test]
fn stack_counts_take_one_per_hit() {
    let two = ProbeCount::new(2);
    assert!(two.take_one() && two.take_one() && !two.take_one());
    // The counted form with no number (-1) goes on, as ftrace's.
    let empty = ProbeCount::new(UNLIMITED);
    assert!(empty.take_one() && empty.get() == -2);
}

fn line(kind: ProbeKind, event: Option<(&str, &str)>, count: i64) -> String {
    let mut out = String::new();
    write_probe(&mut out, kind, event, count).unwrap();
    out
}

#[test]
fn listing_lines_are_ftraces() {
    assert_eq!(
        line(kind(CommandKind::TraceOff, false), None, UNLIMITED),
        ":traceoff:unlimited\n"
    );
    assert_eq!(
        line(kind(CommandKind::TraceOn, true), None, 3),
        ":traceon:count=3\n"
    );
    assert_eq!(
        line(kind(CommandKind::StackTrace, true), None, UNLIMITED),
        ":stacktrace:count=-1\n"
    );
    assert_eq!(
        line(
            kind(CommandKind::EnableEvent, false),
            Some(("sched", "sched_switch")),
            UNLIMITED
        ),
        ":enable_event:sched:sched_switch:unlimited\n"
    );
    assert_eq!(
        line(
            kind(CommandKind::DisableEvent, true),
            Some(("sched", "sched_switch")),
            0
        ),
        ":disable_event:sched:sched_switch:count=0\n"
    );
}
