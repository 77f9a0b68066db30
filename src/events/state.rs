// SPDX-License-Identifier: GPL-2.0

//! An instance's side of event tracing: which events it records.

use super::capture::{self, Capture};
use super::catalog::{self, Catalog};
use super::filter::EventFilter;
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

/// The events one instance records: one slot per event of the catalog,
/// holding its capture while it is enabled.
pub(crate) struct EventStates {
    captures: KVec<Option<Capture>>,
    /// How many of `captures` are enabled.
    enabled: usize,
    filters: KVec<FilterState>,
    /// Per system: the text and error of a filter write no event took.
    system_refusals: KVec<Option<(KVec<u8>, FilterError)>>,
}

/// An event's filter in one instance, and what its `filter` file shows.
#[derive(Default)]
struct FilterState {
    active: Option<Arc<EventFilter>>,
    /// The text and error of the last refused write, shown until the next
    /// write.
    refused: Option<(KVec<u8>, FilterError)>,
}

impl EventStates {
    /// None enabled.
    pub(crate) fn new() -> Result<Self> {
        let count = catalog::catalog().map_or(0, |c| c.events.len());
        let systems = catalog::catalog().map_or(0, |c| c.systems.len());
        let mut captures = KVec::with_capacity(count, GFP_KERNEL)?;
        let mut filters = KVec::with_capacity(count, GFP_KERNEL)?;
        for _ in 0..count {
            captures.push(None, GFP_KERNEL)?;
            filters.push(FilterState::default(), GFP_KERNEL)?;
        }
        let mut system_refusals = KVec::with_capacity(systems, GFP_KERNEL)?;
        for _ in 0..systems {
            system_refusals.push(None, GFP_KERNEL)?;
        }
        Ok(EventStates {
            captures,
            enabled: 0,
            filters,
            system_refusals,
        })
    }

    /// Whether event `index` of the catalog is enabled.
    pub(crate) fn is_enabled(&self, index: usize) -> bool {
        matches!(self.captures.get(index), Some(Some(_)))
    }

    /// Enables or disables event `index` for `instance`, whose states
    /// these are. May sleep.
    pub(crate) fn set_enabled(&mut self, instance: &Instance, index: usize, on: bool) -> Result {
        let catalog = catalog::catalog().ok_or(ENODEV)?;
        let (Some(slot), Some(event)) = (self.captures.get_mut(index), catalog.events.get(index))
        else {
            return Err(EINVAL);
        };
        match (on, slot.is_some()) {
            (true, false) => {
                let filter = self.filters.get(index).and_then(|f| f.active.clone());
                // As the kernel, task names and thread groups are saved
                // from before the event records.
                self.enabled += 1;
                events_enabled(instance, self.enabled);
                // SAFETY: the capture lives in `instance`'s own states, which
                // the instance disables (`disable_all`) before it goes.
                match unsafe { Capture::start(instance, event, filter) } {
                    Ok(capture) => *slot = Some(capture),
                    Err(e) => {
                        self.enabled -= 1;
                        events_enabled(instance, self.enabled);
                        return Err(e);
                    }
                }
            }
            (false, true) => {
                *slot = None;
                self.enabled = self.enabled.saturating_sub(1);
                events_enabled(instance, self.enabled);
            }
            _ => {}
        }
        Ok(())
    }

    /// Applies one `set_event` word: enables or disables each event it
    /// selects. As the kernel: `EINVAL` when it selects none, else the
    /// first error met (the other events are still changed).
    pub(crate) fn apply(&mut self, instance: &Instance, selector: &EventSelector<'_>) -> Result {
        let catalog = catalog::catalog().ok_or(ENODEV)?;
        let selected = |index: &usize| selector.selects(&catalog.events[*index].event_name());
        if !all(catalog).any(|index| selected(&index)) {
            return Err(EINVAL);
        }
        self.set_all(instance, all(catalog).filter(selected), selector.enable)
    }

    /// Enables or disables every event of `events` (indexes of the
    /// catalog); the first error, after trying all. Disabling waits for
    /// the handlers once, not once per event.
    pub(crate) fn set_all(
        &mut self,
        instance: &Instance,
        events: impl Iterator<Item = usize>,
        on: bool,
    ) -> Result {
        if !on {
            return self.disable(instance, events);
        }
        let mut first_error = None;
        for index in events {
            match self.set_enabled(instance, index, true) {
                // perf refuses to sample a few events (`TRACE_EVENT_PERF_PERM`,
                // e.g. `irq_vectors:irq_work_exit`, which perf's own wake-up
                // raises): those stay off, as when enabled alone, without
                // failing the others.
                Err(e) if e == EPERM => skipped(index),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
                Ok(()) => {}
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Disables the events of `events` (of `instance`, whose states these
    /// are).
    fn disable(&mut self, instance: &Instance, events: impl Iterator<Item = usize>) -> Result {
        let mut stopped = KVec::new();
        let before = self.enabled;
        for index in events {
            let Some(slot) = self.captures.get_mut(index) else {
                continue;
            };
            if let Some(capture) = slot.take() {
                self.enabled = self.enabled.saturating_sub(1);
                // Without room to batch it, the capture is dropped at once
                // and waits for its handlers on its own.
                let _ = stopped.push(capture, GFP_KERNEL);
            }
        }
        capture::stop_all(stopped);
        if self.enabled != before {
            events_enabled(instance, self.enabled);
        }
        Ok(())
    }

    /// Disables every event of `instance`, whose states these are.
    pub(crate) fn disable_all(&mut self, instance: &Instance) {
        let _ = self.disable(instance, 0..self.captures.len());
    }

    /// Writes what event `index`'s `filter` file shows.
    pub(crate) fn write_filter(&self, index: usize, out: &mut dyn Write) -> fmt::Result {
        match self.filters.get(index) {
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

    /// A write to event `index`'s `filter` file: `0` removes the filter,
    /// anything else is parsed as one; a refused filter leaves the event
    /// unfiltered, is logged in `error_log` as the kernel logs it, and
    /// fails with the kernel's errno. May sleep.
    pub(crate) fn write_event_filter(
        &mut self,
        instance: &Instance,
        index: usize,
        written: &[u8],
    ) -> Result<(), InputError> {
        let event = catalog::catalog()
            .and_then(|c| c.events.get(index))
            .ok_or(InputError::NoDevice)?;
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
        self.install_filter(index, active, refusal)?;
        match refusal {
            Some((_, error)) => Err(InputError::Kernel(-error.errno)),
            None => Ok(()),
        }
    }

    /// A write to system `system`'s `filter` file: the filter is set on
    /// each event of the system it parses for; the others are left
    /// unfiltered (each logged). Fails only when it parses for none.
    pub(crate) fn write_system_filter(
        &mut self,
        instance: &Instance,
        system: usize,
        written: &[u8],
    ) -> Result<(), InputError> {
        let catalog = catalog::catalog().ok_or(InputError::NoDevice)?;
        let events = &catalog
            .systems
            .get(system)
            .ok_or(InputError::NoDevice)?
            .events;
        if let Some(refusal) = self.system_refusals.get_mut(system) {
            *refusal = None;
        }
        let text = match classify_write(written) {
            FilterWrite::Clear => {
                for &index in events.iter() {
                    self.install_filter(index, None, None)?;
                }
                return Ok(());
            }
            FilterWrite::Set(text) => text,
        };
        let mut taken = false;
        for &index in events.iter() {
            match EventFilter::parse(text, &catalog.events[index]) {
                Ok(filter) => {
                    let filter = Arc::new(filter, GFP_KERNEL).map_err(|_| InputError::NoMemory)?;
                    self.install_filter(index, Some(filter), None)?;
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
                    self.install_filter(index, None, Some((text, error)))?;
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
        if let Some(refusal) = self.system_refusals.get_mut(system) {
            *refusal = Some((copy, error));
        }
        Err(InputError::Kernel(22))
    }

    /// Makes `active` event `index`'s filter (in its capture too) and
    /// `refused` what its file shows of a refusal.
    fn install_filter(
        &mut self,
        index: usize,
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
        if let Some(Some(capture)) = self.captures.get(index) {
            capture.set_filter(active.clone());
        }
        if let Some(state) = self.filters.get_mut(index) {
            *state = FilterState { active, refused };
        }
        Ok(())
    }

    /// What the `enable` file of a set of events shows: `0`, `1`, or `X`
    /// when some are enabled and some not.
    pub(crate) fn summary(&self, events: impl Iterator<Item = usize>) -> char {
        let (mut on, mut off) = (false, false);
        for index in events {
            if self.is_enabled(index) {
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

/// The indexes of every event of `catalog`.
pub(crate) fn all(catalog: &Catalog) -> core::ops::Range<usize> {
    0..catalog.events.len()
}

/// Tells `instance` how many events it records now: while it records
/// some, it saves the tasks it sees as `record-cmd` and `record-tgid` say.
fn events_enabled(instance: &Instance, count: usize) {
    instance.tasks().set_events_enabled(count > 0);
}

/// Logs an event that perf would not sample when many were enabled.
fn skipped(index: usize) {
    if let Some(event) = catalog::catalog().and_then(|c| c.events.get(index)) {
        pr_info!(
            "event {}:{} cannot be recorded (perf refuses to sample it); left off\n",
            event.system(),
            event.name()
        );
    }
}
