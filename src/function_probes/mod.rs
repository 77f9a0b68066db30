// SPDX-License-Identifier: GPL-2.0

//! Function probes: the commands written to an instance's
//! `set_ftrace_filter` (`schedule:traceoff`, `vfs_read:stacktrace:5`,
//! `schedule:enable_event:sched:sched_switch`), which act whenever their
//! function is called, whatever tracer runs.
//!
//! An instance keeps its probes here, under its `functions` lock; while
//! it has any, a [`client::ProbeClient`] of the patch engine calls them
//! from their functions' sites. The parsing, the counts and the listing's
//! format are ftrace's ([`crate::portable::function_probes`]).
//!
//! `snapshot`, `dump` and `cpudump` are refused: they act in process
//! context in rftrace (a snapshot allocates and takes mutexes; a dump
//! formats the buffer), which a traced call is not.

mod client;

use crate::events::catalog::Event;
use crate::events::soft::SoftSwitch;
use crate::events::state;
use crate::fentry::{self, SiteTable};
use crate::function_filter;
use crate::function_tracer::update_error;
use crate::instance::Instance;
use crate::portable::func_filter::{CommandKind, FilterCommand, Site, Target};
use crate::portable::function_probes::{self, ProbeCount, ProbeKind, ProbeSpec, UNLIMITED};
use crate::portable::input::InputError;
use client::ProbeSession;
use core::fmt::Write;
use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use kernel::{prelude::*, sync::Arc};

/// One function's probe of one kind.
pub(crate) struct ProbeEntry {
    /// The probe it belongs to.
    kind: ProbeKind,
    /// The function's site: (segment serial, call address).
    site: (u64, usize),
    /// What it does.
    action: ProbeAction,
}

/// What a probe does when its function is called.
enum ProbeAction {
    /// `traceon`, `traceoff`: turn recording on or off; counted, once per
    /// change, with its own count for each function.
    Tracing { on: bool, count: ProbeCount },
    /// `stacktrace`: record the call's kernel stack; counted, once per
    /// hit, with its own count for each function.
    Stack { count: ProbeCount },
    /// `enable_event`, `disable_event`: turn an event's switch on or off;
    /// the functions of one write share the event and the count.
    Event(Arc<EventProbe>),
}

/// An `enable_event` or `disable_event` probe as one write made it, for
/// all the functions it selected (the kernel's `event_probe_data`).
///
/// # Invariants
///
/// While `functions` is not zero, the instance's event states count this
/// probe among the soft-mode users of `event`.
pub(crate) struct EventProbe {
    /// Turns the event on (`enable_event`) or off.
    enable: bool,
    event: Arc<Event>,
    switch: Arc<SoftSwitch>,
    count: ProbeCount,
    /// The entries that still use it.
    functions: AtomicUsize,
}

/// Every probe of one instance.
pub(crate) struct FunctionProbes {
    /// The probes, the newest kind first (as ftrace lists them), each
    /// function once per kind, in site order.
    entries: KVec<Arc<ProbeEntry>>,
    /// The engine client, while there are probes.
    session: Option<ProbeSession>,
}

/// How many probes an instance may have: more than one of each kind for
/// every function of a large kernel.
const MAX_ENTRIES: usize = 1 << 20;

impl FunctionProbes {
    /// No probes.
    pub(crate) const fn new() -> Self {
        FunctionProbes {
            entries: KVec::new(),
            session: None,
        }
    }

    /// Applies a command word of `set_ftrace_filter`: adds its probe to
    /// the functions it selects, or (`!`) takes it away from them.
    pub(crate) fn apply(
        &mut self,
        instance: &Instance,
        table: &SiteTable,
        command: &FilterCommand<'_>,
        spec: &ProbeSpec<'_>,
    ) -> Result<(), InputError> {
        if matches!(
            spec.kind.command,
            CommandKind::Snapshot | CommandKind::Dump | CommandKind::CpuDump
        ) {
            return Err(InputError::UnsupportedFunctionCommand);
        }
        let event = match spec.event {
            Some((system, name)) => Some(find_event(system, name)?),
            None => None,
        };
        if command.remove {
            return self.remove(instance, table, command, spec.kind);
        }
        let sites = selected_sites(table, command)?;
        let new: KVec<(u64, usize)> = {
            let mut new = KVec::new();
            for site in sites.iter().filter(|&&s| !self.has(spec.kind, s)) {
                new.push(*site, GFP_KERNEL)
                    .map_err(|_| InputError::NoMemory)?;
            }
            new
        };
        // As ftrace: a word that adds nothing is refused.
        if new.is_empty() {
            return Err(InputError::ProbeExists);
        }
        if self.entries.len() + new.len() > MAX_ENTRIES {
            return Err(InputError::NoSpace);
        }
        let shared = match event {
            Some(event) => Some(EventProbe::start(instance, event, spec)?),
            None => None,
        };
        let mut next = self.copy_entries()?;
        let mut added = KVec::new();
        for &site in new.iter() {
            let action = match &shared {
                Some(shared) => ProbeAction::Event(shared.clone()),
                None => ProbeAction::for_spec(spec),
            };
            let entry = ProbeEntry {
                kind: spec.kind,
                site,
                action,
            };
            added
                .push(
                    Arc::new(entry, GFP_KERNEL).map_err(|_| InputError::NoMemory)?,
                    GFP_KERNEL,
                )
                .map_err(|_| InputError::NoMemory)?;
        }
        if let Some(shared) = &shared {
            shared.functions.store(added.len(), Relaxed);
        }
        let result = insert_sorted(&mut next, added).and_then(|()| self.publish(instance, next));
        if let (Err(_), Some(shared)) = (&result, &shared) {
            // Nothing took the new entries: the event leaves soft mode.
            shared.functions.store(0, Relaxed);
            instance.events().soft_release(instance, &shared.event);
        }
        result
    }

    /// Takes probe `kind` away from the functions `command` selects.
    fn remove(
        &mut self,
        instance: &Instance,
        table: &SiteTable,
        command: &FilterCommand<'_>,
        kind: ProbeKind,
    ) -> Result<(), InputError> {
        // As ftrace: ENODEV for a kind never added, EINVAL if it names
        // none of its functions.
        if !self.entries.iter().any(|e| e.kind == kind) {
            return Err(InputError::NoDevice);
        }
        let mut next = KVec::new();
        let mut removed = KVec::new();
        for entry in self.entries.iter() {
            let goes = entry.kind == kind && names(table, command, entry.site);
            let to = if goes { &mut removed } else { &mut next };
            to.push(entry.clone(), GFP_KERNEL)
                .map_err(|_| InputError::NoMemory)?;
        }
        if removed.is_empty() {
            return Err(InputError::NoMatchingFunction);
        }
        self.publish(instance, next)?;
        release_events(instance, &removed);
        Ok(())
    }

    /// Removes every probe (the instance is going).
    pub(crate) fn clear(&mut self, instance: &Instance) {
        if let Some(session) = self.session.take() {
            session.stop();
        }
        let entries = core::mem::take(&mut self.entries);
        release_events(instance, &entries);
    }

    /// Writes the probes, one per function, as `set_ftrace_filter` lists
    /// them after its functions.
    pub(crate) fn listing(&self) -> Result<KVec<Arc<ProbeEntry>>> {
        let mut copy = KVec::with_capacity(self.entries.len(), GFP_KERNEL)?;
        for entry in self.entries.iter() {
            copy.push(entry.clone(), GFP_KERNEL)?;
        }
        Ok(copy)
    }

    /// Whether `kind` is on `site` already.
    fn has(&self, kind: ProbeKind, site: (u64, usize)) -> bool {
        self.entries
            .iter()
            .any(|e| e.kind == kind && e.site == site)
    }

    /// A copy of the entries, to build the next set in.
    fn copy_entries(&self) -> Result<KVec<Arc<ProbeEntry>>, InputError> {
        self.listing().map_err(|_| InputError::NoMemory)
    }

    /// Makes `entries` the probes: hands the client their table and the
    /// engine their sites (starting or stopping the client as needed).
    /// On error nothing changed.
    fn publish(
        &mut self,
        instance: &Instance,
        entries: KVec<Arc<ProbeEntry>>,
    ) -> Result<(), InputError> {
        if entries.is_empty() {
            if let Some(session) = self.session.take() {
                session.stop();
            }
        } else {
            match &self.session {
                Some(session) => session.update(&entries)?,
                None => {
                    let engine = fentry::engine().ok_or(InputError::NoDevice)?;
                    let session =
                        ProbeSession::start(engine, instance, &entries).map_err(update_error)?;
                    self.session = Some(session);
                }
            }
        }
        self.entries = entries;
        Ok(())
    }
}

impl ProbeAction {
    /// The action of a new entry of a probe other than an event's.
    fn for_spec(spec: &ProbeSpec<'_>) -> Self {
        match spec.kind.command {
            CommandKind::TraceOn | CommandKind::TraceOff => ProbeAction::Tracing {
                on: spec.kind.command == CommandKind::TraceOn,
                count: ProbeCount::new(spec.count),
            },
            _ => ProbeAction::Stack {
                count: ProbeCount::new(spec.count),
            },
        }
    }
}

impl EventProbe {
    /// Puts `event` in soft mode for a new probe of `spec`.
    fn start(
        instance: &Instance,
        event: Arc<Event>,
        spec: &ProbeSpec<'_>,
    ) -> Result<Arc<Self>, InputError> {
        let switch = instance
            .events()
            .soft_enable(instance, &event)
            .map_err(|e| InputError::Kernel(-e.to_errno()))?;
        // INVARIANT: counted in soft mode just above; `functions` is set
        // by the caller once the entries exist, or the soft mode released.
        let probe = EventProbe {
            enable: spec.kind.command == CommandKind::EnableEvent,
            event: event.clone(),
            switch,
            count: ProbeCount::new(spec.count),
            functions: AtomicUsize::new(0),
        };
        Arc::new(probe, GFP_KERNEL).map_err(|_| {
            instance.events().soft_release(instance, &event);
            InputError::NoMemory
        })
    }
}

/// Lets go of the event probes of `gone`, entries no longer listed: an
/// event probe none of whose functions is left leaves soft mode.
fn release_events(instance: &Instance, gone: &[Arc<ProbeEntry>]) {
    for entry in gone {
        if let ProbeAction::Event(probe) = &entry.action {
            if probe.functions.fetch_sub(1, Relaxed) == 1 {
                instance.events().soft_release(instance, &probe.event);
            }
        }
    }
}

/// Puts `added` (entries of one kind, in site order) into `entries`:
/// among those of its kind, in site order, or first if the kind is new.
fn insert_sorted(
    entries: &mut KVec<Arc<ProbeEntry>>,
    added: KVec<Arc<ProbeEntry>>,
) -> Result<(), InputError> {
    let no_memory = |_| InputError::NoMemory;
    let mut next =
        KVec::with_capacity(entries.len() + added.len(), GFP_KERNEL).map_err(no_memory)?;
    let kind = added.first().map(|e| e.kind);
    let start = entries
        .iter()
        .position(|e| Some(e.kind) == kind)
        .unwrap_or(0);
    let mut added = added.into_iter().peekable();
    for (i, entry) in entries.drain_all().enumerate() {
        if i >= start {
            // Before `entry` if it is of another kind (the group ends, or
            // the kind is new), else before it in site order.
            let same = Some(entry.kind) == kind;
            while let Some(new) = added.next_if(|n| !same || n.site < entry.site) {
                next.push(new, GFP_KERNEL).map_err(no_memory)?;
            }
        }
        next.push(entry, GFP_KERNEL).map_err(no_memory)?;
    }
    for new in added {
        next.push(new, GFP_KERNEL).map_err(no_memory)?;
    }
    *entries = next;
    Ok(())
}

/// The event `system:name`: `EINVAL` if there is none, as ftrace's.
fn find_event(system: &[u8], name: &[u8]) -> Result<Arc<Event>, InputError> {
    let found = state::selected(|e| e.system().as_bytes() == system && e.name().as_bytes() == name)
        .map_err(|_| InputError::NoMemory)?;
    found.into_iter().next().ok_or(InputError::UnknownValue)
}

/// The sites `command` selects, in site order; `EINVAL` for none.
fn selected_sites(
    table: &SiteTable,
    command: &FilterCommand<'_>,
) -> Result<KVec<(u64, usize)>, InputError> {
    let sites = function_filter::selected_sites(table, command)?;
    if sites.is_empty() {
        return Err(InputError::NoMatchingFunction);
    }
    Ok(sites)
}

/// Whether removal `command` names the function at `site`: as ftrace, a
/// blank pattern or `*` names every one.
fn names(table: &SiteTable, command: &FilterCommand<'_>, site: (u64, usize)) -> bool {
    if let Target::Functions(selector) = &command.target {
        if selector.function.is_blank() || selector.function.source() == b"*" {
            return true;
        }
    }
    let Some((segment, found)) = table.find_with_segment(site.1) else {
        return false;
    };
    let info = segment.info(found);
    info.serial == site.0
        && command.selects(&Site {
            line: 0,
            function: info.name,
            module: info.module,
        })
}

impl ProbeEntry {
    /// Writes the entry's line of `set_ftrace_filter`:
    /// `function:command...`, the function named as ftrace names it.
    pub(crate) fn write_line(&self, table: &SiteTable, out: &mut dyn Write) -> core::fmt::Result {
        match table.find_with_segment(self.site.1) {
            Some((segment, site)) if segment.serial == self.site.0 => {
                out.write_str(core::str::from_utf8(segment.name_of(site)).unwrap_or("?"))?;
                if let Some(module) = segment.module_name() {
                    write!(out, " [{}]", core::str::from_utf8(module).unwrap_or("?"))?;
                }
            }
            // A module's function whose module went: its address.
            _ => write!(out, "0x{:x}", self.site.1)?,
        }
        let (event, count) = match &self.action {
            ProbeAction::Tracing { count, .. } | ProbeAction::Stack { count } => {
                (None, count.get())
            }
            ProbeAction::Event(probe) => (
                Some((probe.event.system(), probe.event.name())),
                probe.count.get(),
            ),
        };
        let count = if self.kind.counted || event.is_some() {
            count
        } else {
            UNLIMITED
        };
        function_probes::write_probe(out, self.kind, event, count)
    }
}
