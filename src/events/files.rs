// SPDX-License-Identifier: GPL-2.0

//! The event files of an instance: `events/enable`, each system's
//! `enable`, each event's `enable`, `format` and `id`, `set_event`,
//! `available_events`, and the event pid filters `set_event_pid` and
//! `set_event_notrace_pid`.

use super::catalog::{self, Event, EventKey};
use super::state;
use crate::control_files::{MAX_PIDS_WRITE, READ_ONLY, READ_WRITE};
use crate::instance::Instance;
use crate::portable::events::format::{write_format, EventFormat};
use crate::portable::events::set_event::EventSelector;
use crate::portable::input::{self, InputError};
use crate::rftracefs::Dir;
use crate::rftracefs::{Attribute, InUse};
use kernel::{prelude::*, sync::Arc};

/// The longest `enable` write read (a number).
const MAX_VALUE_WRITE: usize = 64;
/// The longest filter write accepted (the kernel refuses a page or more).
const MAX_FILTER_WRITE: usize = crate::portable::events::filter::WRITE_LIMIT - 1;
/// The longest `set_event` write accepted.
const MAX_SET_EVENT_WRITE: usize = 4096;
/// The longest word of `set_event` (the kernel's `EVENT_BUF_SIZE`).
const MAX_EVENT_WORD: usize = 127;

/// The files of each event's directory.
/// Whether an open file keeps its instance in use (see
/// [`crate::rftracefs::InUse`]): as in the kernel, the event's `format`
/// and `id` do not, being the same in every instance.
pub(super) static EVENT_FILES: &[(&str, u16, &Attribute, InUse)] = &[
    ("enable", READ_WRITE, &EVENT_ENABLE, InUse::WhileOpen),
    ("filter", READ_WRITE, &EVENT_FILTER, InUse::WhileOpen),
    ("format", READ_ONLY, &EVENT_FORMAT, InUse::Never),
    ("id", READ_ONLY, &EVENT_ID, InUse::Never),
];

/// The files of each system's directory.
pub(super) static SYSTEM_FILES: &[(&str, &Attribute)] =
    &[("enable", &SYSTEM_ENABLE), ("filter", &SYSTEM_FILTER)];

/// Creates the event files of `instance` in `dir` (the instance's root)
/// and `events` (its `events/`), and a directory per system and event.
///
/// # Safety
///
/// `events` belongs to a super block being filled, torn down only after
/// [`super::tree::detach`].
pub(crate) unsafe fn populate(dir: &Dir, events: Dir, instance: &Arc<Instance>) -> Result {
    dir.file("set_event", READ_WRITE, &SET_EVENT, instance, 0)?;
    if instance.is_top() {
        dir.file(
            "available_events",
            READ_ONLY,
            &AVAILABLE_EVENTS,
            instance,
            0,
        )?;
    }
    dir.file("set_event_pid", READ_WRITE, &EVENT_PIDS, instance, 0)?;
    dir.file(
        "set_event_notrace_pid",
        READ_WRITE,
        &EVENT_PIDS,
        instance,
        1,
    )?;
    events.file("enable", READ_WRITE, &ALL_ENABLE, instance, 0)?;
    // SAFETY: the caller's promise.
    unsafe { super::tree::attach(events, instance) }
}

/// The event a file was made for, if it still exists.
fn event_of(index: usize) -> Result<Arc<Event>, InputError> {
    catalog::lock()
        .and_then(|c| c.event(EventKey::from_index(index)).cloned())
        .ok_or(InputError::NoDevice)
}

/// Reads an `enable` write: `0` or `1`, as the kernel's `kstrtoul`.
fn parse_enable(text: &[u8]) -> Result<bool, InputError> {
    match input::parse_kstrtoul(text)? {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(InputError::BadNumber),
    }
}

/// A kernel error as a refusal.
fn refused(error: Error) -> InputError {
    InputError::Kernel(-error.to_errno())
}

/// `events/<system>/<event>/enable`.
static EVENT_ENABLE: Attribute = Attribute {
    show: |inst, index, out| {
        let id = EventKey::from_index(index).id();
        let (records, soft) = inst.events().enable_state(id);
        writeln!(out, "{}{}", u8::from(records), if soft { "*" } else { "" })
    },
    store: Some(|inst, index, text| {
        let on = parse_enable(text)?;
        let event = event_of(index)?;
        inst.events().set_enabled(inst, &event, on).map_err(refused)
    }),
    max_write: MAX_VALUE_WRITE,
    truncate: None,
};

/// `events/<system>/enable`: `0`, `1`, or `X` when mixed.
static SYSTEM_ENABLE: Attribute = Attribute {
    show: |inst, system, out| {
        let states = inst.events();
        let Some(catalog) = catalog::lock() else {
            return Ok(());
        };
        let ids = catalog.system_ids(system).iter().copied();
        writeln!(out, "{}", states.summary(ids))
    },
    store: Some(|inst, system, text| {
        let on = parse_enable(text)?;
        let events = state::of_system(system).map_err(refused)?;
        inst.events().set_all(inst, &events, on).map_err(refused)
    }),
    max_write: MAX_VALUE_WRITE,
    truncate: None,
};

/// `events/enable`: every event.
static ALL_ENABLE: Attribute = Attribute {
    show: |inst, _, out| {
        let states = inst.events();
        let Some(catalog) = catalog::lock() else {
            return writeln!(out, "0");
        };
        writeln!(out, "{}", states.summary(catalog.ids()))
    },
    store: Some(|inst, _, text| {
        let on = parse_enable(text)?;
        let events = state::selected(|_| true).map_err(refused)?;
        inst.events().set_all(inst, &events, on).map_err(refused)
    }),
    max_write: MAX_VALUE_WRITE,
    truncate: None,
};

/// `events/<system>/<event>/filter`: the event's filter (`none`), or the
/// text and error of the last refused one.
static EVENT_FILTER: Attribute = Attribute {
    show: |inst, index, out| {
        let id = EventKey::from_index(index).id();
        inst.events().write_filter(id, out)
    },
    store: Some(|inst, index, text| {
        let event = event_of(index)?;
        inst.events().write_event_filter(inst, &event, text)
    }),
    max_write: MAX_FILTER_WRITE,
    truncate: None,
};

/// `events/<system>/filter`: sets a filter on each event of the system it
/// parses for.
static SYSTEM_FILTER: Attribute = Attribute {
    show: |inst, system, out| inst.events().show_system_filter(system, out),
    store: Some(|inst, system, text| {
        let events = state::of_system(system).map_err(refused)?;
        inst.events()
            .write_system_filter(inst, (system, &events), text)
    }),
    max_write: MAX_FILTER_WRITE,
    truncate: None,
};

/// `events/<system>/<event>/format`.
static EVENT_FORMAT: Attribute = Attribute::read_only(|_, index, out| {
    let Ok(event) = event_of(index) else {
        return Ok(());
    };
    write_format(
        out,
        EventFormat {
            name: event.name(),
            id: event.id,
            fields: event.fields(),
            print_fmt: event.print_fmt(),
        },
    )
});

/// `events/<system>/<event>/id`.
static EVENT_ID: Attribute = Attribute::read_only(|_, index, out| match event_of(index) {
    Ok(event) => writeln!(out, "{}", event.id),
    Err(_) => Ok(()),
});

/// `set_event`: the enabled events; a write enables (`SYSTEM:EVENT`) or
/// disables (`!SYSTEM:EVENT`) what each word selects; opening it with
/// `O_TRUNC` disables every event.
static SET_EVENT: Attribute = Attribute {
    show: |inst, _, out| {
        let states = inst.events();
        let Some(catalog) = catalog::lock() else {
            return Ok(());
        };
        catalog.write_names(out, |id| states.is_enabled(id))?;
        states.write_pending(out)
    },
    store: Some(|inst, _, text| {
        let text = core::str::from_utf8(text).map_err(|_| InputError::NotText)?;
        for word in text.split_ascii_whitespace() {
            if word.len() > MAX_EVENT_WORD {
                return Err(InputError::TooLong);
            }
            let selector = EventSelector::parse(word);
            inst.events().apply(inst, &selector).map_err(|e| {
                if e == EINVAL {
                    InputError::NoMatchingEvent
                } else {
                    refused(e)
                }
            })?;
        }
        Ok(())
    }),
    max_write: MAX_SET_EVENT_WRITE,
    truncate: Some(|inst, _| {
        let mut states = inst.events();
        states.disable_all(inst);
        states.clear_pending();
        Ok(())
    }),
};

/// `available_events`: every event, `system:event`.
static AVAILABLE_EVENTS: Attribute = Attribute::read_only(|_, _, out| match catalog::lock() {
    Some(catalog) => catalog.write_names(out, |_| true),
    None => Ok(()),
});

/// `set_event_pid` (index 0) and `set_event_notrace_pid` (1): pids, one
/// per line (nothing when none); a write adds pids, all or none; `>`
/// empties the list first and takes it out of use.
static EVENT_PIDS: Attribute = Attribute {
    show: |inst, index, out| inst.event_pids().set(index).write_pids(out),
    store: Some(|inst, index, text| inst.event_pids().write(index, text)),
    max_write: MAX_PIDS_WRITE,
    truncate: Some(|inst, index| {
        inst.event_pids().clear(index);
        Ok(())
    }),
};
