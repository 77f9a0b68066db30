// SPDX-License-Identifier: GPL-2.0

//! An instance's side of event tracing: which events it records, with
//! which filters. States are kept by event id; the catalog says which ids
//! exist.

use super::capture::{self, Capture};
use super::catalog::{self, Event};
use super::filter::EventFilter;
use super::retired::Retired;
use super::soft::SoftSwitch;
use crate::instance::Instance;
use crate::portable::events::filter::error::{
    self as filter_error, FilterError, ERROR_LOG_LOCATION,
};
use crate::portable::events::filter::text::{classify_write, FilterWrite};
use crate::portable::events::set_event::EventSelector;
use crate::portable::input::InputError;
use core::fmt::{self, Write};
use kernel::prelude::*;
use kernel::sync::Arc;

/// The events one instance records. Each vector is indexed by event id
/// and grows to the largest id used.
pub(crate) struct EventStates {
    captures: KVec<Option<Capture>>,
    /// How many of `captures` are enabled.
    enabled: usize,
    filters: KVec<FilterState>,
    /// Whether the event was enabled since it appeared: when a module
    /// goes, the buffer is cleared if one of its events was (its ids will
    /// be reused), as the kernel does.
    was_enabled: KVec<bool>,
    /// Per system: the text and error of a filter write no event took.
    system_refusals: KVec<Option<(KVec<u8>, FilterError)>>,
    /// Captures of disabled events, being released.
    retired: Arc<Retired>,
    /// How many function probes keep each event in soft mode
    /// ([`super::soft`]): its capture stays while this is not zero, and
    /// disabling it only turns its switch off.
    soft_refs: KVec<u32>,
    /// `:mod:` words whose module was not loaded, oldest first (`set_event`
    /// lists them newest first); applied when the module comes.
    pending: KVec<KVec<u8>>,
}

/// How many `:mod:` words an instance keeps for modules not loaded.
const MAX_PENDING: usize = 64;

/// An event's filter in one instance, and what its `filter` file shows.
#[derive(Default)]
struct FilterState {
    active: Option<Arc<EventFilter>>,
    /// The text and error of the last refused write, shown until the next
    /// write.
    refused: Option<(KVec<u8>, FilterError)>,
}

impl Drop for EventStates {
    fn drop(&mut self) {
        let count = self.captures.len();
        self.stop((0..count).map(|id| id as u16));
        self.retired.wait();
    }
}

/// The slot of `index` in `v`, grown with defaults if needed.
fn slot<T: Default>(v: &mut KVec<T>, index: usize) -> Result<&mut T> {
    while v.len() <= index {
        v.push(T::default(), GFP_KERNEL)?;
    }
    Ok(&mut v[index])
}

impl EventStates {
    /// None enabled.
    pub(crate) fn new() -> Result<Self> {
        Ok(EventStates {
            retired: Retired::new()?,
            captures: KVec::new(),
            enabled: 0,
            soft_refs: KVec::new(),
            filters: KVec::new(),
            was_enabled: KVec::new(),
            system_refusals: KVec::new(),
            pending: KVec::new(),
        })
    }

    /// Whether event `id` is enabled.
    pub(crate) fn is_enabled(&self, id: u16) -> bool {
        matches!(self.captures.get(usize::from(id)), Some(Some(_)))
    }

    /// Whether function probes keep event `id` in soft mode.
    fn in_soft_mode(&self, id: usize) -> bool {
        self.soft_refs.get(id).is_some_and(|&refs| refs > 0)
    }

    /// What event `id`'s `enable` file shows: `1` while it records, else
    /// `0`; then `*` in soft mode, as the kernel's.
    pub(crate) fn enable_state(&self, id: u16) -> (bool, bool) {
        let id = usize::from(id);
        let switch = self
            .captures
            .get(id)
            .and_then(|c| c.as_ref())
            .map(Capture::switch);
        let disabled = switch.is_some_and(|s| s.is_disabled());
        (
            switch.is_some() && !disabled,
            disabled || self.in_soft_mode(id),
        )
    }

    /// Enables or disables `event` for `instance`, whose states these
    /// are. In soft mode only its switch changes. May sleep.
    pub(crate) fn set_enabled(
        &mut self,
        instance: &Instance,
        event: &Arc<Event>,
        on: bool,
    ) -> Result {
        let id = usize::from(event.id);
        let soft = self.in_soft_mode(id);
        match (on, slot(&mut self.captures, id)?) {
            (true, Some(capture)) => capture.switch().set_disabled(false),
            (true, None) => self.start(instance, event, false)?,
            (false, Some(capture)) if soft => capture.switch().set_disabled(true),
            (false, Some(_)) => self.release(instance, core::iter::once(event.id)),
            (false, None) => {}
        }
        Ok(())
    }

    /// Starts capturing `event`, its switch off if `disabled`.
    fn start(&mut self, instance: &Instance, event: &Arc<Event>, disabled: bool) -> Result {
        let id = usize::from(event.id);
        let filter = self.filters.get(id).and_then(|f| f.active.clone());
        let switch = SoftSwitch::new(disabled)?;
        // As the kernel, task names and thread groups are saved from
        // before the event records.
        self.enabled += 1;
        events_enabled(instance, self.enabled);
        // SAFETY: the capture lives in `instance`'s own states, which the
        // instance disables (`release_all`, or dropping them) before it goes.
        let started = unsafe { Capture::start(instance, event.clone(), filter, switch) };
        match started {
            Ok(started) => *slot(&mut self.captures, id)? = Some(started),
            Err(e) => {
                self.enabled -= 1;
                events_enabled(instance, self.enabled);
                return Err(e);
            }
        }
        *slot(&mut self.was_enabled, id)? = true;
        Ok(())
    }

    /// A function probe puts `event` in soft mode: its capture stays until
    /// the probe lets go ([`Self::soft_release`]); an event not enabled is
    /// captured with its switch off. Returns the switch the probe turns.
    pub(crate) fn soft_enable(
        &mut self,
        instance: &Instance,
        event: &Arc<Event>,
    ) -> Result<Arc<SoftSwitch>> {
        let id = usize::from(event.id);
        if !self.is_enabled(event.id) {
            self.start(instance, event, true)?;
        }
        let switch = match self.captures.get(id) {
            Some(Some(capture)) => capture.switch().clone(),
            _ => return Err(ENODEV),
        };
        let refs = slot(&mut self.soft_refs, id)?;
        *refs = refs.saturating_add(1);
        Ok(switch)
    }

    /// A function probe lets go of `event`'s soft mode; the last one
    /// leaves it as its switch says: disabled (its capture stops) or
    /// enabled. Nothing if the event is gone since (its id may be
    /// another event's now).
    pub(crate) fn soft_release(&mut self, instance: &Instance, event: &Arc<Event>) {
        let id = usize::from(event.id);
        let same = match self.captures.get(id) {
            Some(Some(capture)) => Arc::ptr_eq(capture.event(), event),
            _ => false,
        };
        let Some(refs) = self.soft_refs.get_mut(id).filter(|_| same) else {
            return;
        };
        *refs = refs.saturating_sub(1);
        if *refs == 0 && self.enable_state(event.id) == (false, true) {
            self.release(instance, core::iter::once(event.id));
        }
    }

    /// Applies one `set_event` word: enables or disables each event it
    /// selects. As the kernel: `EINVAL` when it selects none, else the
    /// first error met (the other events are still changed). A `:mod:`
    /// word for a module not loaded is kept until the module comes (or,
    /// with `!`, takes such kept words back).
    pub(crate) fn apply(&mut self, instance: &Instance, selector: &EventSelector<'_>) -> Result {
        let events = selected(|event| selector.selects(&event.event_name()))?;
        if !events.is_empty() {
            return self.set_all(instance, &events, selector.enable);
        }
        match selector.module() {
            Some(module) if !is_loaded(module)? => {
                if selector.enable {
                    self.keep_pending(selector)
                } else {
                    self.take_back_pending(selector)
                }
            }
            _ => Err(EINVAL),
        }
    }

    /// Keeps `:mod:` word `selector`.
    fn keep_pending(&mut self, selector: &EventSelector<'_>) -> Result {
        let mut text = KVec::new();
        selector
            .write_pending(&mut Bytes(&mut text))
            .map_err(|_| ENOMEM)?;
        if self.pending.iter().any(|kept| kept[..] == text[..]) {
            return Ok(());
        }
        if self.pending.len() >= MAX_PENDING {
            return Err(ENOSPC);
        }
        Ok(self.pending.push(text, GFP_KERNEL)?)
    }

    /// Drops the kept words `!` word `selector` names; `EINVAL` if none.
    fn take_back_pending(&mut self, selector: &EventSelector<'_>) -> Result {
        let before = self.pending.len();
        self.pending.retain(|kept| {
            !core::str::from_utf8(kept)
                .is_ok_and(|kept| selector.takes_back(&EventSelector::parse(kept)))
        });
        if self.pending.len() == before {
            return Err(EINVAL);
        }
        Ok(())
    }

    /// Applies the kept words of module `name`, which came, and drops them.
    pub(crate) fn apply_pending(&mut self, instance: &Instance, name: &str) {
        let mut words = KVec::new();
        self.pending.retain(|kept| {
            let mine = core::str::from_utf8(kept)
                .is_ok_and(|kept| EventSelector::parse(kept).is_for_module(name));
            if mine {
                let _ = words.push(core::mem::take(kept), GFP_KERNEL);
            }
            !mine
        });
        for word in words.iter() {
            let Ok(word) = core::str::from_utf8(word) else {
                continue;
            };
            let selector = EventSelector::parse(word);
            if let Ok(events) = selected(|event| selector.selects(&event.event_name())) {
                let _ = self.set_all(instance, &events, true);
            }
        }
    }

    /// Drops every kept word (`set_event` opened with `O_TRUNC`).
    pub(crate) fn clear_pending(&mut self) {
        self.pending.clear();
    }

    /// Writes the kept words, one per line, the newest first.
    pub(crate) fn write_pending(&self, out: &mut dyn Write) -> fmt::Result {
        for kept in self.pending.iter().rev() {
            writeln!(out, "{}", core::str::from_utf8(kept).unwrap_or(""))?;
        }
        Ok(())
    }

    /// Enables or disables every event of `events`; the first error, after
    /// trying all. Disabling waits for the handlers once, not once per
    /// event.
    pub(crate) fn set_all(
        &mut self,
        instance: &Instance,
        events: &[Arc<Event>],
        on: bool,
    ) -> Result {
        if !on {
            self.disable(instance, events.iter().map(|e| e.id));
            return Ok(());
        }
        let mut first_error = None;
        for event in events {
            match self.set_enabled(instance, event, true) {
                // Events that cannot be captured at all stay off, as when
                // enabled alone, without failing the others.
                Err(e) if e == EPERM => skipped(event),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
                Ok(()) => {}
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Disables the events of `ids` (of `instance`, whose states these
    /// are); those in soft mode only have their switch turned off.
    fn disable(&mut self, instance: &Instance, ids: impl Iterator<Item = u16>) {
        let mut stopped = KVec::new();
        for id in ids {
            let Some(Some(capture)) = self.captures.get(usize::from(id)) else {
                continue;
            };
            if self.in_soft_mode(usize::from(id)) {
                capture.switch().set_disabled(true);
            } else if stopped.push(id, GFP_KERNEL).is_err() {
                // Without room to batch it, it stops on its own.
                self.release(instance, core::iter::once(id));
            }
        }
        self.release(instance, stopped.into_iter());
    }

    /// Stops the captures of `ids`, soft mode or not.
    fn release(&mut self, instance: &Instance, ids: impl Iterator<Item = u16>) {
        if self.stop(ids) > 0 {
            events_enabled(instance, self.enabled);
        }
    }

    /// Stops the captures of `ids`; returns how many there were.
    fn stop(&mut self, ids: impl Iterator<Item = u16>) -> usize {
        let mut stopped = KVec::new();
        let mut count = 0;
        for id in ids {
            let Some(slot) = self.captures.get_mut(usize::from(id)) else {
                continue;
            };
            if let Some(capture) = slot.take() {
                count += 1;
                // Without room to batch it, the capture is dropped at once
                // and waits for its handlers on its own.
                let _ = stopped.push(capture, GFP_KERNEL);
            }
        }
        capture::stop_all(stopped, &self.retired);
        self.enabled = self.enabled.saturating_sub(count);
        count
    }

    /// Gives every enabled event a counter on `cpu`, which came online.
    /// May sleep.
    pub(crate) fn cpu_online(&mut self, cpu: usize) {
        for capture in self.captures.iter_mut().flatten() {
            if let Err(e) = capture.renew_on(cpu) {
                pr_warn!("an event is not recorded on CPU {cpu}, back online: {e:?}\n");
            }
        }
    }

    /// Disables every event of `instance`, whose states these are, as
    /// `set_event` opened with `O_TRUNC` does: those in soft mode only
    /// have their switch turned off.
    pub(crate) fn disable_all(&mut self, instance: &Instance) {
        let count = self.captures.len();
        self.disable(instance, (0..count).map(|id| id as u16));
    }

    /// Stops every capture of `instance`, whose states these are, soft
    /// mode or not: rftrace is going.
    pub(crate) fn release_all(&mut self, instance: &Instance) {
        let count = self.captures.len();
        self.release(instance, (0..count).map(|id| id as u16));
    }

    /// Forgets events `ids`, whose module is going: disables them and
    /// drops their filters. Returns whether one of them was enabled since
    /// it appeared (the buffer then holds records whose ids will be
    /// reused).
    pub(crate) fn forget(&mut self, instance: &Instance, ids: &[u16]) -> bool {
        self.release(instance, ids.iter().copied());
        let mut used = false;
        for &id in ids {
            let id = usize::from(id);
            if let Some(refs) = self.soft_refs.get_mut(id) {
                *refs = 0;
            }
            if let Some(was) = self.was_enabled.get_mut(id) {
                used |= core::mem::take(was);
            }
            if let Some(filter) = self.filters.get_mut(id) {
                *filter = FilterState::default();
            }
        }
        used
    }

    /// Writes what event `id`'s `filter` file shows.
    pub(crate) fn write_filter(&self, id: u16, out: &mut dyn Write) -> fmt::Result {
        match self.filters.get(usize::from(id)) {
            Some(FilterState {
                refused: Some((text, error)),
                ..
            }) => filter_error::write_event_filter_file(out, Some(text), Some(error)),
            Some(FilterState {
                active: Some(filter),
                ..
            }) => filter_error::write_event_filter_file(out, Some(filter.text()), None),
            _ => filter_error::write_event_filter_file(out, None, None),
        }
    }

    /// Writes what system `system`'s `filter` file shows.
    pub(crate) fn show_system_filter(&self, system: usize, out: &mut dyn Write) -> fmt::Result {
        let refused = self
            .system_refusals
            .get(system)
            .and_then(|r| r.as_ref())
            .map(|(text, error)| (&text[..], error));
        filter_error::write_subsystem_filter_file(out, refused)
    }

    /// A write to `event`'s `filter` file: `0` removes the filter,
    /// anything else is parsed as one; a refused filter leaves the event
    /// unfiltered, is logged in `error_log` as the kernel logs it, and
    /// fails with the kernel's errno. May sleep.
    pub(crate) fn write_event_filter(
        &mut self,
        instance: &Instance,
        event: &Event,
        written: &[u8],
    ) -> Result<(), InputError> {
        let result = match classify_write(written) {
            FilterWrite::Clear => Ok(None),
            FilterWrite::Set(text) => match EventFilter::parse(text, event) {
                Ok(filter) => Arc::new(filter, GFP_KERNEL).map(Some).map_err(|_| None),
                Err(error) => Err(Some((text, error))),
            },
        };
        let (active, refusal) = match result {
            Ok(active) => (active, None),
            Err(None) => return Err(InputError::NoMemory),
            Err(Some((text, error))) => {
                instance.log_message_at(
                    ERROR_LOG_LOCATION,
                    error.log_message(),
                    text,
                    error.log_pos(),
                );
                (None, Some((text, error)))
            }
        };
        self.install_filter(event.id, active, refusal)?;
        match refusal {
            Some((_, error)) => Err(InputError::Kernel(-error.errno)),
            None => Ok(()),
        }
    }

    /// A write to system `system`'s `filter` file: the filter is set on
    /// each of its `events` it parses for; the others are left unfiltered
    /// (each logged). Fails only when it parses for none.
    pub(crate) fn write_system_filter(
        &mut self,
        instance: &Instance,
        (system, events): (usize, &[Arc<Event>]),
        written: &[u8],
    ) -> Result<(), InputError> {
        if let Some(refusal) = self.system_refusals.get_mut(system) {
            *refusal = None;
        }
        let text = match classify_write(written) {
            FilterWrite::Clear => {
                for event in events {
                    self.install_filter(event.id, None, None)?;
                }
                return Ok(());
            }
            FilterWrite::Set(text) => text,
        };
        let mut taken = false;
        for event in events {
            match EventFilter::parse(text, event) {
                Ok(filter) => {
                    let filter = Arc::new(filter, GFP_KERNEL).map_err(|_| InputError::NoMemory)?;
                    self.install_filter(event.id, Some(filter), None)?;
                    taken = true;
                }
                Err(_) => {
                    let error = FilterError::subsystem_event();
                    instance.log_message_at(
                        ERROR_LOG_LOCATION,
                        error.log_message(),
                        text,
                        error.log_pos(),
                    );
                    self.install_filter(event.id, None, Some((text, error)))?;
                }
            }
        }
        if taken {
            return Ok(());
        }
        let error = FilterError::subsystem_event();
        let mut copy = KVec::new();
        copy.extend_from_slice(text, GFP_KERNEL)
            .map_err(|_| InputError::NoMemory)?;
        *slot(&mut self.system_refusals, system).map_err(|_| InputError::NoMemory)? =
            Some((copy, error));
        Err(InputError::Kernel(22))
    }

    /// Makes `active` event `id`'s filter (in its capture too) and
    /// `refused` what its file shows of a refusal.
    fn install_filter(
        &mut self,
        id: u16,
        active: Option<Arc<EventFilter>>,
        refused: Option<(&[u8], FilterError)>,
    ) -> Result<(), InputError> {
        let refused = match refused {
            Some((text, error)) => {
                let mut copy = KVec::new();
                copy.extend_from_slice(text, GFP_KERNEL)
                    .map_err(|_| InputError::NoMemory)?;
                Some((copy, error))
            }
            None => None,
        };
        let id = usize::from(id);
        if let Some(Some(capture)) = self.captures.get(id) {
            capture.set_filter(active.clone());
        }
        *slot(&mut self.filters, id).map_err(|_| InputError::NoMemory)? =
            FilterState { active, refused };
        Ok(())
    }

    /// What the `enable` file of a set of events shows: `0`, `1`, or `X`
    /// when some are enabled and some not.
    pub(crate) fn summary(&self, ids: impl Iterator<Item = u16>) -> char {
        let (mut on, mut off) = (false, false);
        for id in ids {
            if self.is_enabled(id) {
                on = true;
            } else {
                off = true;
            }
        }
        match (on, off) {
            (true, true) => 'X',
            (true, false) => '1',
            _ => '0',
        }
    }
}

/// The events of the catalog that `keep` accepts, in its order.
pub(crate) fn selected(keep: impl Fn(&Event) -> bool) -> Result<KVec<Arc<Event>>> {
    let catalog = catalog::lock().ok_or(ENODEV)?;
    let mut events = KVec::new();
    for id in catalog.ids() {
        if let Some(event) = catalog.event_by_id(id).filter(|e| keep(e)) {
            events.push(event.clone(), GFP_KERNEL)?;
        }
    }
    Ok(events)
}

/// The events of system `system`.
pub(crate) fn of_system(system: usize) -> Result<KVec<Arc<Event>>> {
    let catalog = catalog::lock().ok_or(ENODEV)?;
    let mut events = KVec::new();
    for &id in catalog.system_ids(system) {
        if let Some(event) = catalog.event_by_id(id) {
            events.push(event.clone(), GFP_KERNEL)?;
        }
    }
    Ok(events)
}

/// Whether module `module` (as written: a `-` stands for `_`) is loaded.
fn is_loaded(module: &str) -> Result<bool> {
    let mut name = KVec::with_capacity(module.len() + 1, GFP_KERNEL)?;
    for b in module.bytes() {
        name.push(if b == b'-' { b'_' } else { b }, GFP_KERNEL)?;
    }
    name.push(0, GFP_KERNEL)?;
    let name = kernel::str::CStr::from_bytes_with_nul(&name).map_err(|_| EINVAL)?;
    Ok(crate::kernel_api::module::is_loaded(name))
}

/// A `fmt::Write` into bytes.
struct Bytes<'a>(&'a mut KVec<u8>);

impl Write for Bytes<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0
            .extend_from_slice(s.as_bytes(), GFP_KERNEL)
            .map_err(|_| fmt::Error)
    }
}

/// Tells `instance` how many events it records now: while it records
/// some, it saves the tasks it sees as `record-cmd` and `record-tgid` say.
fn events_enabled(instance: &Instance, count: usize) {
    instance.set_events_enabled(count > 0);
}

/// Logs an event that cannot be recorded, when many were enabled.
fn skipped(event: &Event) {
    pr_info!(
        "event {}:{} cannot be recorded (perf refuses to sample it, and its tracepoint cannot be probed); left off\n",
        event.system(),
        event.name()
    );
}
