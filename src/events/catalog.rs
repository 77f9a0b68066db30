// SPDX-License-Identifier: GPL-2.0

//! The kernel's trace events as rftrace shows them: one [`Event`] each,
//! with what `events/` needs (names, fields, `print fmt`) copied out of the
//! kernel's `trace_event_call`, and the systems they belong to.
//!
//! The catalog is read once, at load, from the kernel's event list. It
//! holds the built-in events: events of modules and the kernel's dynamic
//! events are not in it (module events come and go with their module and
//! are not followed yet).

use crate::kernel_api::trace_events::{EventCall, EventsLocked};
use crate::kernel_api::trace_output::EventOutput;
use crate::portable::events::field::{Field, FilterType};
use crate::portable::events::layout;
use crate::portable::events::pid_filter::TaskRole;
use crate::portable::events::set_event::EventName;
use core::fmt::Write;
use kernel::{prelude::*, str::CString, sync::SetOnce};

/// A field of an event, owning its names.
pub(crate) struct OwnedField {
    type_name: CString,
    name: CString,
    offset: u32,
    size: u32,
    is_signed: bool,
    filter_type: FilterType,
    len: u32,
}

impl OwnedField {
    fn copy(field: &Field<'_>) -> Result<Self> {
        Ok(OwnedField {
            type_name: CString::try_from_fmt(fmt!("{}", field.type_name))?,
            name: CString::try_from_fmt(fmt!("{}", field.name))?,
            offset: field.offset,
            size: field.size,
            is_signed: field.is_signed,
            filter_type: field.filter_type,
            len: field.len,
        })
    }

    /// The field, borrowed.
    pub(crate) fn field(&self) -> Field<'_> {
        Field {
            type_name: self.type_name.to_str().unwrap_or(""),
            name: self.name.to_str().unwrap_or(""),
            offset: self.offset,
            size: self.size,
            is_signed: self.is_signed,
            filter_type: self.filter_type,
            len: self.len,
        }
    }
}

/// One kernel trace event.
pub(crate) struct Event {
    /// Its record type, the kernel's id.
    pub(crate) id: u16,
    system: CString,
    name: CString,
    print_fmt: CString,
    fields: KVec<OwnedField>,
    /// The kernel's printers of its records.
    pub(crate) output: EventOutput,
    /// `sizeof` the record's fixed part, as the kernel's compiler lays it
    /// out: where dynamic data starts counting from.
    fixed_size: u32,
    /// Which tasks decide whether the event pid filters keep a record.
    pub(crate) task_role: TaskRole,
}

impl Event {
    fn copy(call: EventCall<'_>) -> Result<Self> {
        let mut fields = KVec::new();
        let mut error = None;
        call.for_each_field(|field| {
            if error.is_none() {
                match OwnedField::copy(&field).and_then(|f| Ok(fields.push(f, GFP_KERNEL)?)) {
                    Ok(()) => {}
                    Err(e) => error = Some(e),
                }
            }
        });
        if let Some(e) = error {
            return Err(e);
        }
        let fixed_size = layout::fixed_size(fields.iter().map(|f| f.field()));
        let system = CString::try_from(call.system())?;
        let name = CString::try_from(call.name())?;
        let task_role = TaskRole::of(
            system.to_str().unwrap_or(""),
            name.to_str().unwrap_or(""),
            fields.iter().map(|f| f.field()),
        );
        Ok(Event {
            id: call.id(),
            system,
            name,
            print_fmt: CString::try_from(call.print_fmt())?,
            fields,
            // SAFETY: built-in events stay registered as long as the kernel.
            output: unsafe { EventOutput::new(call.as_ptr()) },
            fixed_size,
            task_role,
        })
    }

    /// Its name.
    pub(crate) fn name(&self) -> &str {
        self.name.to_str().unwrap_or("")
    }

    /// Its system.
    pub(crate) fn system(&self) -> &str {
        self.system.to_str().unwrap_or("")
    }

    /// Its `print fmt`.
    pub(crate) fn print_fmt(&self) -> &str {
        self.print_fmt.to_str().unwrap_or("")
    }

    /// Its own fields, in `format` order.
    pub(crate) fn fields(&self) -> impl Iterator<Item = Field<'_>> + '_ {
        self.fields.iter().map(|f| f.field())
    }

    /// What `set_event` words are matched against.
    pub(crate) fn event_name(&self) -> EventName<'_> {
        EventName {
            system: self.system(),
            name: self.name(),
            module: None,
        }
    }

    /// The length of the record in `sample` as the kernel's tracefs
    /// records it (perf pads records).
    pub(crate) fn record_len(&self, sample: &[u8]) -> usize {
        layout::record_len(self.fields(), self.fixed_size, sample)
    }
}

/// A system: a directory of `events/`.
pub(crate) struct System {
    name: CString,
    /// Its events, as indexes into [`Catalog::events`].
    pub(crate) events: KVec<usize>,
}

impl System {
    /// Its name.
    pub(crate) fn name(&self) -> &str {
        self.name.to_str().unwrap_or("")
    }
}

/// Every event rftrace shows.
pub(crate) struct Catalog {
    /// In the kernel's list order.
    pub(crate) events: KVec<Event>,
    /// Indexes of `events`, by id.
    by_id: KVec<usize>,
    /// In order of first appearance.
    pub(crate) systems: KVec<System>,
}

impl Catalog {
    /// Reads the kernel's events.
    fn read() -> Result<Self> {
        let mut events = KVec::new();
        let mut error = None;
        {
            let list = EventsLocked::lock()?;
            list.for_each(|call| {
                if error.is_some()
                    || !call.is_shown()
                    || call.is_dynamic()
                    || !call.module().is_null()
                {
                    return;
                }
                match Event::copy(call).and_then(|e| Ok(events.push(e, GFP_KERNEL)?)) {
                    Ok(()) => {}
                    Err(e) => error = Some(e),
                }
            });
        }
        if let Some(e) = error {
            return Err(e);
        }
        let mut by_id = KVec::with_capacity(events.len(), GFP_KERNEL)?;
        for i in 0..events.len() {
            by_id.push(i, GFP_KERNEL)?;
        }
        by_id.sort_unstable_by_key(|&i| events[i].id);
        let mut systems: KVec<System> = KVec::new();
        for (i, event) in events.iter().enumerate() {
            let system = match systems.iter().position(|s| s.name() == event.system()) {
                Some(at) => &mut systems[at],
                None => {
                    systems.push(
                        System {
                            name: CString::try_from_fmt(fmt!("{}", event.system()))?,
                            events: KVec::new(),
                        },
                        GFP_KERNEL,
                    )?;
                    let last = systems.len() - 1;
                    &mut systems[last]
                }
            };
            system.events.push(i, GFP_KERNEL)?;
        }
        Ok(Catalog {
            events,
            by_id,
            systems,
        })
    }

    /// The event of record type `id`.
    pub(crate) fn by_id(&self, id: u16) -> Option<&Event> {
        let at = self
            .by_id
            .binary_search_by_key(&id, |&i| self.events[i].id)
            .ok()?;
        self.events.get(*self.by_id.get(at)?)
    }

    /// Writes `system:event` lines of the events `keep` accepts
    /// (`available_events`, `set_event`), in the kernel's order: its
    /// instances list the newest event first.
    pub(crate) fn write_names(
        &self,
        out: &mut dyn Write,
        keep: impl Fn(usize) -> bool,
    ) -> core::fmt::Result {
        for (i, event) in self.events.iter().enumerate().rev() {
            if keep(i) {
                writeln!(out, "{}:{}", event.system(), event.name())?;
            }
        }
        Ok(())
    }
}

static CATALOG: SetOnce<Catalog> = SetOnce::new();

/// Reads the kernel's events, once, at load.
pub(crate) fn load() -> Result {
    if CATALOG.as_ref().is_none() {
        CATALOG.populate(Catalog::read()?);
    }
    Ok(())
}

/// The catalog; empty before [`load`].
pub(crate) fn catalog() -> Option<&'static Catalog> {
    CATALOG.as_ref()
}
