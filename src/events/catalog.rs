// SPDX-License-Identifier: GPL-2.0

//! The kernel's trace events as rftrace shows them: one [`Event`] each,
//! with what `events/` needs (names, fields, `print fmt`) copied out of the
//! kernel's `trace_event_call`, and the systems they belong to.
//!
//! The built-in events are read at load, from the kernel's event list; a
//! module's events are added when it comes and removed when it goes
//! ([`super::modules`]). Events rftrace defines itself (its probe events,
//! [`super::defined`]) are added and removed by their definers. The
//! kernel's own dynamic events (its kprobe events...) are not shown.
//!
//! Files and event states name an event by an [`EventKey`]: its id, which
//! the kernel reuses after a module goes, and the generation of that id
//! here, so that a file left open on a gone event finds nothing.

use super::defined::DefinedEvent;
use crate::kernel_api::module::Module;
use crate::kernel_api::trace_events::{EventCall, EventsLocked};
use crate::kernel_api::trace_output::EventOutput;
use crate::portable::events::field::{Field, FilterType};
use crate::portable::events::layout;
use crate::portable::events::pid_filter::TaskRole;
use crate::portable::events::set_event::EventName;
use core::fmt::Write;
use core::sync::atomic::{
    AtomicBool,
    Ordering::{Acquire, Release},
};
use kernel::{
    prelude::*,
    str::CString,
    sync::{Arc, GlobalGuard},
};

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
    /// The kernel's printers of its records; a module's event prints only
    /// while it is in the catalog (under its lock), its module live. For
    /// an event rftrace defines, the printers of its registered type.
    pub(crate) output: EventOutput,
    /// What defines the event, if rftrace does (a probe event): it makes
    /// the records and prints them in the `trace` form.
    pub(crate) definer: Option<Arc<dyn DefinedEvent>>,
    /// The module that defines it, for a module's event.
    pub(crate) module: Option<Module>,
    /// That module's name.
    module_name: Option<CString>,
    /// `sizeof` the record's fixed part, as the kernel's compiler lays it
    /// out: where dynamic data starts counting from.
    fixed_size: u32,
    /// The padding between its fields, in the first [`HEAD_MAX`] bytes.
    gaps: KVec<(u8, u8)>,
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
        let is_syscall = call.system().to_bytes() == b"syscalls";
        let fixed_size = layout::fixed_size(fields.iter().map(|f| f.field()), is_syscall);
        let mut gaps = KVec::new();
        let mut error = None;
        layout::for_each_gap(fields.iter().map(|f| f.field()), |start, end| {
            let end = end.min(HEAD_MAX as u32);
            if start < end && error.is_none() {
                if let Err(e) = gaps.push((start as u8, end as u8), GFP_KERNEL) {
                    error = Some(e);
                }
            }
        });
        if let Some(e) = error {
            return Err(e.into());
        }
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
            // SAFETY: built-in events stay registered as long as the
            // kernel; a module's event prints only while it is in the
            // catalog, which it leaves before the kernel removes it.
            output: unsafe { EventOutput::new(call.as_ptr()) },
            definer: None,
            module: Module::from_ptr(call.module()),
            module_name: match Module::from_ptr(call.module()) {
                // SAFETY: the event's module is live while its event is
                // registered (`event_mutex` is held).
                Some(module) => Some(CString::try_from(unsafe { module.name() })?),
                None => None,
            },
            fixed_size,
            gaps,
            task_role,
        })
    }

    /// An event rftrace defines: record type `id` (registered with the
    /// kernel by the definer, printed by `output` in the forms other than
    /// `trace`) in `system`, with `fields` after the common ones.
    pub(crate) fn defined<'a>(
        id: u16,
        (system, name): (&str, &str),
        fields: impl Iterator<Item = Field<'a>>,
        print_fmt: &str,
        (definer, output): (Arc<dyn DefinedEvent>, EventOutput),
    ) -> Result<Self> {
        let mut owned = KVec::new();
        for field in fields {
            owned.push(OwnedField::copy(&field)?, GFP_KERNEL)?;
        }
        // Probe records are packed: no padding after the last field.
        let fixed_size = layout::fixed_size(owned.iter().map(|f| f.field()), true);
        Ok(Event {
            id,
            system: CString::try_from_fmt(fmt!("{system}"))?,
            name: CString::try_from_fmt(fmt!("{name}"))?,
            print_fmt: CString::try_from_fmt(fmt!("{print_fmt}"))?,
            fields: owned,
            output,
            definer: Some(definer),
            module: None,
            module_name: None,
            fixed_size,
            gaps: KVec::new(),
            task_role: TaskRole::Current,
        })
    }

    /// Its name.
    pub(crate) fn name(&self) -> &str {
        self.name.to_str().unwrap_or("")
    }

    /// Its name, as the C string tracepoints are named by.
    pub(crate) fn name_c(&self) -> &kernel::str::CStr {
        &self.name
    }

    /// Whether its record is the common fields and one `int`, as the
    /// records of events whose tracepoint takes one `int` and stores it.
    pub(crate) fn record_is_one_int(&self) -> bool {
        let mut fields = self.fields();
        matches!(
            (fields.next(), fields.next()),
            (Some(f), None) if f.type_name == "int" && f.size == 4
        )
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
            module: self.module_name.as_ref().and_then(|m| m.to_str().ok()),
        }
    }

    /// How many of the record's first bytes to copy and clear the padding
    /// of: to the end of the last gap, in whole words.
    pub(crate) fn head_len(&self) -> usize {
        self.gaps
            .last()
            .map_or(8, |&(_, end)| usize::from(end).next_multiple_of(4))
    }

    /// Clears the padding of `head`, the first bytes of a record.
    pub(crate) fn clear_gaps(&self, head: &mut [u8]) {
        for &(start, end) in self.gaps.iter() {
            if let Some(gap) = head.get_mut(usize::from(start)..usize::from(end)) {
                gap.fill(0);
            }
        }
    }

    /// The length of the record in `sample` as the kernel's tracefs
    /// records it (perf pads records).
    pub(crate) fn record_len(&self, sample: &[u8]) -> usize {
        layout::record_len(self.fields(), self.fixed_size, sample)
    }
}

/// The longest record head whose padding is cleared.
pub(crate) const HEAD_MAX: usize = 64;

/// How files and event states name an event: its id in the low 16 bits,
/// the generation of that id above.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct EventKey(usize);

impl EventKey {
    fn new(id: u16, generation: u32) -> Self {
        EventKey(usize::from(id) | (generation as usize) << 16)
    }

    /// The key a file was made with.
    pub(crate) fn from_index(index: usize) -> Self {
        EventKey(index)
    }

    /// What a file keeps.
    pub(crate) fn index(self) -> usize {
        self.0
    }

    /// The event's id.
    pub(crate) fn id(self) -> u16 {
        self.0 as u16
    }

    fn generation(self) -> u32 {
        (self.0 >> 16) as u32
    }
}

/// A system: a directory of `events/`.
pub(crate) struct System {
    name: CString,
    /// The ids of its events, in the kernel's list order; empty once the
    /// modules that defined them have gone (a system is never forgotten,
    /// so that its number stays its own).
    pub(crate) events: KVec<u16>,
}

impl System {
    /// Its name.
    pub(crate) fn name(&self) -> &str {
        self.name.to_str().unwrap_or("")
    }
}

/// An event id's place in the catalog.
#[derive(Default)]
struct Slot {
    event: Option<Arc<Event>>,
    /// Bumped each time a module's event with this id goes.
    generation: u32,
}

/// Every event rftrace shows.
pub(crate) struct Catalog {
    /// By id.
    slots: KVec<Slot>,
    /// The ids of the events, in the kernel's list order.
    order: KVec<u16>,
    /// The ids of the events rftrace defines, newest first.
    defined: KVec<u16>,
    /// In order of first appearance.
    pub(crate) systems: KVec<System>,
}

impl Catalog {
    const fn empty() -> Self {
        Catalog {
            slots: KVec::new(),
            order: KVec::new(),
            defined: KVec::new(),
            systems: KVec::new(),
        }
    }

    /// Adds the kernel's events that `take` accepts and the catalog does
    /// not have yet, in the kernel's list order; returns their ids.
    fn add_from_kernel(&mut self, take: impl Fn(&EventCall<'_>) -> bool) -> Result<KVec<u16>> {
        let mut order = KVec::new();
        let mut added = KVec::new();
        {
            let list = EventsLocked::lock()?;
            let mut error = None;
            list.for_each(|call| {
                if error.is_some() || !call.is_shown() || call.is_dynamic() {
                    return;
                }
                let id = call.id();
                let known = self.event_by_id(id).is_some();
                if !known && !take(&call) {
                    return;
                }
                let result = (|| -> Result {
                    order.push(id, GFP_KERNEL)?;
                    if !known {
                        let event = Arc::new(Event::copy(call)?, GFP_KERNEL)?;
                        added.push(event, GFP_KERNEL)?;
                    }
                    Ok(())
                })();
                if let Err(e) = result {
                    error = Some(e);
                }
            });
            if let Some(e) = error {
                return Err(e);
            }
        }
        let mut ids = KVec::with_capacity(added.len(), GFP_KERNEL)?;
        for event in added {
            ids.push(event.id, GFP_KERNEL)?;
            self.insert(event)?;
        }
        self.order = order;
        self.rebuild_systems()?;
        Ok(ids)
    }

    /// Puts `event` in its id's slot.
    fn insert(&mut self, event: Arc<Event>) -> Result {
        let id = usize::from(event.id);
        while self.slots.len() <= id {
            self.slots.push(Slot::default(), GFP_KERNEL)?;
        }
        self.slots[id].event = Some(event);
        Ok(())
    }

    /// Removes the events of `module`; returns their ids.
    fn remove_module(&mut self, module: Module) -> Result<KVec<u16>> {
        let mut ids = KVec::new();
        for slot in self.slots.iter_mut() {
            if slot
                .event
                .as_ref()
                .is_some_and(|e| e.module == Some(module))
            {
                if let Some(event) = slot.event.take() {
                    ids.push(event.id, GFP_KERNEL)?;
                }
                slot.generation = slot.generation.wrapping_add(1) & 0xffff;
            }
        }
        let slots = &self.slots;
        self.order.retain(|id| {
            slots
                .get(usize::from(*id))
                .is_some_and(|s| s.event.is_some())
        });
        self.rebuild_systems()?;
        Ok(ids)
    }

    /// Recomputes each system's events from the list order; a new system
    /// is appended.
    fn rebuild_systems(&mut self) -> Result {
        for system in self.systems.iter_mut() {
            system.events.clear();
        }
        for &id in Iterator::chain(self.defined.iter(), self.order.iter()) {
            let Some(event) = self.event_by_id(id).cloned() else {
                continue;
            };
            let at = match self.systems.iter().position(|s| s.name() == event.system()) {
                Some(at) => at,
                None => {
                    self.systems.push(
                        System {
                            name: CString::try_from_fmt(fmt!("{}", event.system()))?,
                            events: KVec::new(),
                        },
                        GFP_KERNEL,
                    )?;
                    self.systems.len() - 1
                }
            };
            self.systems[at].events.push(id, GFP_KERNEL)?;
        }
        Ok(())
    }

    /// The event of record type `id`.
    pub(crate) fn event_by_id(&self, id: u16) -> Option<&Arc<Event>> {
        self.slots.get(usize::from(id))?.event.as_ref()
    }

    /// The event `key` names, if it still exists.
    pub(crate) fn event(&self, key: EventKey) -> Option<&Arc<Event>> {
        let slot = self.slots.get(usize::from(key.id()))?;
        (slot.generation == key.generation()).then_some(slot.event.as_ref()?)
    }

    /// The key of event `id`.
    pub(crate) fn key(&self, id: u16) -> EventKey {
        let generation = self.slots.get(usize::from(id)).map_or(0, |s| s.generation);
        EventKey::new(id, generation)
    }

    /// The ids of every event: those rftrace defines, newest first, then
    /// the kernel's in its list order.
    pub(crate) fn ids(&self) -> impl DoubleEndedIterator<Item = u16> + '_ {
        Iterator::chain(self.defined.iter(), self.order.iter()).copied()
    }

    /// Adds `event`, which rftrace defines.
    pub(crate) fn add_defined(&mut self, event: Arc<Event>) -> Result {
        let id = event.id;
        if self.event_by_id(id).is_some() {
            return Err(EEXIST);
        }
        self.defined.push(id, GFP_KERNEL)?;
        self.defined.rotate_right(1);
        if let Err(e) = self.insert(event).and_then(|()| self.rebuild_systems()) {
            self.forget_defined(id);
            return Err(e);
        }
        Ok(())
    }

    /// Removes the event rftrace defined with id `id`: files left open on
    /// it find nothing from now on.
    pub(crate) fn remove_defined(&mut self, id: u16) -> Result {
        self.forget_defined(id);
        self.rebuild_systems()
    }

    fn forget_defined(&mut self, id: u16) {
        self.defined.retain(|d| *d != id);
        if let Some(slot) = self.slots.get_mut(usize::from(id)) {
            if slot.event.take().is_some() {
                slot.generation = slot.generation.wrapping_add(1) & 0xffff;
            }
        }
    }

    /// The ids of system `system`'s events.
    pub(crate) fn system_ids(&self, system: usize) -> &[u16] {
        self.systems.get(system).map_or(&[], |s| &s.events[..])
    }

    /// Writes `system:event` lines of the events `keep` accepts
    /// (`available_events`, `set_event`), in the order of the kernel's
    /// top-level instance: its list of event files got the built-in events
    /// at boot, reversing the kernel's event list, then each module's
    /// events at its head, as the event list itself did, and each dynamic
    /// event at its head when made (here: after any module's).
    pub(crate) fn write_names(
        &self,
        out: &mut dyn Write,
        keep: impl Fn(u16) -> bool,
    ) -> core::fmt::Result {
        let is_module = |id: &u16| self.event_by_id(*id).is_some_and(|e| e.module.is_some());
        let modules = self.order.iter().copied().filter(is_module);
        let built_in = self.order.iter().copied().rev().filter(|id| !is_module(id));
        let defined = self.defined.iter().copied();
        for id in Iterator::chain(Iterator::chain(defined, modules), built_in) {
            if let Some(event) = self.event_by_id(id).filter(|_| keep(id)) {
                writeln!(out, "{}:{}", event.system(), event.name())?;
            }
        }
        Ok(())
    }
}

kernel::sync::global_lock! {
    // SAFETY: initialised by `init` at module load, before any use.
    pub(crate) unsafe(uninit) static CATALOG: Mutex<Catalog> = Catalog::empty();
}

/// Whether [`load`] filled the catalog.
static LOADED: AtomicBool = AtomicBool::new(false);

/// Makes the catalog's lock. Called once, at module load, first.
pub(crate) fn init() {
    // SAFETY: called once, at module load, before any other use.
    unsafe { CATALOG.init() };
}

/// Reads the kernel's events (built-in, and of the modules loaded), once,
/// at load.
pub(crate) fn load() -> Result {
    let mut catalog = CATALOG.lock();
    if LOADED.load(Acquire) {
        return Ok(());
    }
    let mut loaded = Catalog::empty();
    loaded.add_from_kernel(|_| true)?;
    *catalog = loaded;
    LOADED.store(true, Release);
    Ok(())
}

/// Empties the catalog: at module unload, once nothing uses its events
/// (statics are not dropped when a module goes).
pub(crate) fn unload() {
    let mut catalog = CATALOG.lock();
    LOADED.store(false, Release);
    let gone = core::mem::replace(&mut *catalog, Catalog::empty());
    drop(catalog);
    drop(gone);
}

/// The catalog, locked; `None` before [`load`] (or if it failed). Lock
/// order: an instance's event states, then the catalog, then the kernel's
/// `event_mutex`. A module event prints only under this lock.
pub(crate) fn lock() -> Option<GlobalGuard<CATALOG>> {
    LOADED.load(Acquire).then(|| CATALOG.lock())
}

/// Adds the events the catalog lacks (of modules that came before their
/// notifications were followed); returns their ids.
pub(super) fn add_new() -> Result<KVec<u16>> {
    lock().ok_or(ENODEV)?.add_from_kernel(|_| true)
}

/// The ids of the events of `module`.
pub(super) fn module_ids(module: Module) -> Result<KVec<u16>> {
    let catalog = lock().ok_or(ENODEV)?;
    let mut ids = KVec::new();
    for id in catalog.ids() {
        if catalog
            .event_by_id(id)
            .is_some_and(|e| e.module == Some(module))
        {
            ids.push(id, GFP_KERNEL)?;
        }
    }
    Ok(ids)
}

/// Adds the events of `module`, which is coming; returns their ids.
pub(super) fn add_module(module: Module) -> Result<KVec<u16>> {
    let mut catalog = lock().ok_or(ENODEV)?;
    catalog.add_from_kernel(|call| Module::from_ptr(call.module()) == Some(module))
}

/// Removes the events of `module`, which is going; returns their ids.
pub(super) fn remove_module(module: Module) -> Result<KVec<u16>> {
    lock().ok_or(ENODEV)?.remove_module(module)
}
