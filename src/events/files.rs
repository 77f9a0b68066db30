// SPDX-License-Identifier: GPL-2.0

//! The event files of an instance: `events/enable`, each system's
//! `enable`, each event's `enable`, `format` and `id`, and `set_event`
//! and `available_events`.

use super::catalog::{self, Catalog};
use super::state::all;
use crate::control_files::{READ_ONLY, READ_WRITE};
use crate::instance::Instance;
use crate::portable::events::format::{write_format, EventFormat};
use crate::portable::events::set_event::EventSelector;
use crate::portable::input::{self, InputError};
use crate::rftracefs::Attribute;
use crate::rftracefs::Dir;
use kernel::{prelude::*, sync::Arc};

/// The longest `enable` write read (a number).
const MAX_VALUE_WRITE: usize = 64;
/// The longest filter write accepted (the kernel refuses a page or more).
const MAX_FILTER_WRITE: usize = crate::portable::events::filter::WRITE_LIMIT - 1;
/// The longest `set_event` write accepted.
const MAX_SET_EVENT_WRITE: usize = 4096;
/// The longest word of `set_event` (the kernel's `EVENT_BUF_SIZE`).
const MAX_EVENT_WORD: usize = 127;

/// Creates the event files of `instance` in `dir` (the instance's root)
/// and `events` (its `events/`).
pub(crate) fn populate(dir: &Dir, events: &Dir, instance: &Arc<Instance>) -> Result {
    dir.file("set_event", READ_WRITE, &SET_EVENT, instance, 0)?;
    dir.file(
        "available_events",
        READ_ONLY,
        &AVAILABLE_EVENTS,
        instance,
        0,
    )?;
    events.file("enable", READ_WRITE, &ALL_ENABLE, instance, 0)?;
    let Some(catalog) = catalog::catalog() else {
        return Ok(());
    };
    for (system_index, system) in catalog.systems.iter().enumerate() {
        let system_dir = events.dir(system.name())?;
        system_dir.file("enable", READ_WRITE, &SYSTEM_ENABLE, instance, system_index)?;
        system_dir.file("filter", READ_WRITE, &SYSTEM_FILTER, instance, system_index)?;
        for &index in system.events.iter() {
            let event_dir = system_dir.dir(catalog.events[index].name())?;
            event_dir.file("enable", READ_WRITE, &EVENT_ENABLE, instance, index)?;
            event_dir.file("filter", READ_WRITE, &EVENT_FILTER, instance, index)?;
            event_dir.file("format", READ_ONLY, &EVENT_FORMAT, instance, index)?;
            event_dir.file("id", READ_ONLY, &EVENT_ID, instance, index)?;
        }
    }
    Ok(())
}

/// The catalog, or the refusal of a file that needs it.
fn catalog() -> Result<&'static Catalog, InputError> {
    catalog::catalog().ok_or(InputError::NoDevice)
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
    show: |inst, index, out| writeln!(out, "{}", u8::from(inst.events().is_enabled(index))),
    store: Some(|inst, index, text| {
        let on = parse_enable(text)?;
        inst.events().set_enabled(inst, index, on).map_err(refused)
    }),
    max_write: MAX_VALUE_WRITE,
    truncate: None,
};

/// `events/<system>/enable`: `0`, `1`, or `X` when mixed.
static SYSTEM_ENABLE: Attribute = Attribute {
    show: |inst, system, out| {
        let Some(system) = catalog::catalog().and_then(|c| c.systems.get(system)) else {
            return Ok(());
        };
        writeln!(
            out,
            "{}",
            inst.events().summary(system.events.iter().copied())
        )
    },
    store: Some(|inst, system, text| {
        let on = parse_enable(text)?;
        let system = catalog()?.systems.get(system).ok_or(InputError::NoDevice)?;
        inst.events()
            .set_all(inst, system.events.iter().copied(), on)
            .map_err(refused)
    }),
    max_write: MAX_VALUE_WRITE,
    truncate: None,
};

/// `events/enable`: every event.
static ALL_ENABLE: Attribute = Attribute {
    show: |inst, _, out| {
        let Some(catalog) = catalog::catalog() else {
            return writeln!(out, "0");
        };
        writeln!(out, "{}", inst.events().summary(all(catalog)))
    },
    store: Some(|inst, _, text| {
        let on = parse_enable(text)?;
        let catalog = catalog()?;
        inst.events()
            .set_all(inst, all(catalog), on)
            .map_err(refused)
    }),
    max_write: MAX_VALUE_WRITE,
    truncate: None,
};

/// `events/<system>/<event>/filter`: the event's filter (`none`), or the
/// text and error of the last refused one.
static EVENT_FILTER: Attribute = Attribute {
    show: |inst, index, out| inst.events().write_filter(index, out),
    store: Some(|inst, index, text| inst.events().write_event_filter(inst, index, text)),
    max_write: MAX_FILTER_WRITE,
    truncate: None,
};

/// `events/<system>/filter`: sets a filter on each event of the system it
/// parses for.
static SYSTEM_FILTER: Attribute = Attribute {
    show: |inst, system, out| inst.events().show_system_filter(system, out),
    store: Some(|inst, system, text| inst.events().write_system_filter(inst, system, text)),
    max_write: MAX_FILTER_WRITE,
    truncate: None,
};

/// `events/<system>/<event>/format`.
static EVENT_FORMAT: Attribute = Attribute::read_only(|_, index, out| {
    let Some(event) = catalog::catalog().and_then(|c| c.events.get(index)) else {
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
static EVENT_ID: Attribute = Attribute::read_only(|_, index, out| {
    match catalog::catalog().and_then(|c| c.events.get(index)) {
        Some(event) => writeln!(out, "{}", event.id),
        None => Ok(()),
    }
});

/// `set_event`: the enabled events; a write enables (`SYSTEM:EVENT`) or
/// disables (`!SYSTEM:EVENT`) what each word selects; opening it with
/// `O_TRUNC` disables every event.
static SET_EVENT: Attribute = Attribute {
    show: |inst, _, out| {
        let Some(catalog) = catalog::catalog() else {
            return Ok(());
        };
        let events = inst.events();
        catalog.write_names(out, |index| events.is_enabled(index))
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
    truncate: Some(|inst, _| inst.events().disable_all(inst)),
};

/// `available_events`: every event, `system:event`.
static AVAILABLE_EVENTS: Attribute = Attribute::read_only(|_, _, out| match catalog::catalog() {
    Some(catalog) => catalog.write_names(out, |_| true),
    None => Ok(()),
});
