// SPDX-License-Identifier: GPL-2.0

//! The engine: which client each site calls, and patching sites to match.
//!
//! Each client (a tracer of an instance) holds one of 64 slots. A site's
//! mask has a bit for every slot whose selector wants it; a site with a
//! non-empty mask is taken from the kernel's ftrace and patched to call the
//! trampoline, and points at the [`HandlerSet`] of its mask. Changing a
//! selection recomputes only that slot's bit, and patches only the sites
//! whose mask became empty or non-empty.
//!
//! # Lock order
//!
//! `Engine::state`, then the kernel's `ftrace_lock`, then `text_mutex`
//! (the kernel takes the last two in that order too). Selectors and
//! clients are called with the state lock held and must not take it, nor
//! any lock of an instance's control path.

use super::handlers::{FentryClient, HandlerSet, SiteSelector};
use super::sites::{Hold, Segment, Site, SiteTable};
use crate::bindings;
use crate::ksyms::{self, Busy, FtraceLocked, RecordIndex, TextPatcher};
use crate::portable::fentry::trampolines::{direct_slot, DIRECT_SLOTS};
use core::sync::atomic::{
    AtomicPtr, AtomicU32, AtomicU64,
    Ordering::{Acquire, Relaxed, Release},
};
use kernel::{
    new_mutex,
    prelude::*,
    str::BStr,
    sync::{Arc, Mutex},
};

/// The bytes at an idle site: the 5-byte NOP the kernel's ftrace writes.
pub(crate) const NOP5: [u8; 5] = [0x0f, 0x1f, 0x44, 0x00, 0x00];
/// Engine slots: one bit of a site's mask each.
pub(crate) const SLOTS: usize = 64;
/// Sites handled between two chances to reschedule.
const RESCHED_EVERY: usize = 256;

extern "C" {
    /// The generic entry trampoline (`arch/x86/fentry_64.S`).
    fn rftrace_fentry_trampoline();
    fn rftrace_fentry_direct_0();
    fn rftrace_fentry_direct_1();
    fn rftrace_fentry_direct_2();
    fn rftrace_fentry_direct_3();
    fn rftrace_fentry_direct_4();
    fn rftrace_fentry_direct_5();
    fn rftrace_fentry_direct_6();
    fn rftrace_fentry_direct_7();
}

/// The direct trampolines, by slot.
const DIRECT_TRAMPOLINES: [unsafe extern "C" fn(); DIRECT_SLOTS] = [
    rftrace_fentry_direct_0,
    rftrace_fentry_direct_1,
    rftrace_fentry_direct_2,
    rftrace_fentry_direct_3,
    rftrace_fentry_direct_4,
    rftrace_fentry_direct_5,
    rftrace_fentry_direct_6,
    rftrace_fentry_direct_7,
];

/// The trampoline a site whose clients are `mask` calls.
fn trampoline_for(mask: u64) -> usize {
    let trampoline = direct_slot(mask)
        .and_then(|slot| DIRECT_TRAMPOLINES.get(slot).copied())
        .unwrap_or(rftrace_fentry_trampoline);
    trampoline as usize
}

/// The call placed at `ip` for a site whose clients are `mask` (a call of
/// the trampoline that serves them), if the trampoline is within reach of
/// a 32-bit displacement from there.
pub(crate) fn call_insn(ip: usize, mask: u64) -> Option<[u8; 5]> {
    let target = trampoline_for(mask) as i64;
    let displacement = i32::try_from(target.wrapping_sub(ip as i64 + 5)).ok()?;
    let d = displacement.to_le_bytes();
    Some([0xe8, d[0], d[1], d[2], d[3]])
}

/// A client's place in the engine.
struct Slot {
    client: Arc<dyn FentryClient>,
    selector: Arc<dyn SiteSelector>,
    /// Whether the slot's direct trampoline calls the client (see
    /// [`Engine::register_disarmed`]).
    armed: bool,
}

/// The engine's state, under its lock.
pub(crate) struct State {
    pub(crate) table: Arc<SiteTable>,
    slots: [Option<Slot>; SLOTS],
    /// Every handler set some site points at.
    sets: KVec<Arc<HandlerSet>>,
    /// Handler sets no site points at any more, which a CPU may still be
    /// running: dropped after the next wait for the dispatchers.
    retired: KVec<Arc<HandlerSet>>,
}

/// A change planned for one site.
struct Change<'a> {
    segment: &'a Arc<Segment>,
    site: &'a Site,
    mask: u64,
}

/// What an update did, for the caller to report.
#[derive(Default, Debug)]
pub(crate) struct UpdateReport {
    /// Sites that started calling the trampoline.
    pub(crate) patched: usize,
    /// Sites given back to the kernel.
    pub(crate) unpatched: usize,
    /// Wanted sites skipped because they are in use elsewhere.
    pub(crate) skipped_busy: usize,
}

/// Why an update was refused.
pub(crate) enum UpdateError {
    /// A named site is in use by the kernel's ftrace (a tracer, a kprobe,
    /// BPF).
    Busy,
    /// Anything else.
    Other(Error),
}

impl From<Error> for UpdateError {
    fn from(e: Error) -> Self {
        UpdateError::Other(e)
    }
}

impl From<kernel::alloc::AllocError> for UpdateError {
    fn from(_: kernel::alloc::AllocError) -> Self {
        UpdateError::Other(ENOMEM)
    }
}

/// The direct slots whose trampoline has a client to call: bit N while
/// [`Engine::solo_set`] of N is a set. A direct trampoline tests its bit
/// before it saves a register (`arch/x86/fentry_64.S`) and returns at
/// once when it is clear, so the sites of a client not armed yet (the text
/// poking of its own start) cost a call and a return. A hint only: a call
/// that passes it still reads the set. One engine is loaded at a time.
#[export_name = "rftrace_fentry_live_slots"]
static LIVE_SLOTS: AtomicU32 = AtomicU32::new(0);

/// The patch engine.
///
/// # Invariants
///
/// `table` points at `state.table`'s [`SiteTable`]; a table replaced there
/// is kept alive until an RCU grace period after `table` moved on.
#[pin_data]
pub(crate) struct Engine {
    pub(crate) table: AtomicPtr<SiteTable>,
    #[pin]
    pub(crate) state: Mutex<State>,
    /// Per-CPU recursion bits of the dispatcher (one per context).
    pub(crate) recursion: KVec<AtomicU32>,
    /// Calls dropped because they recursed.
    pub(crate) recursion_misses: AtomicU64,
    /// Per direct slot, the handler set of that slot's client alone while
    /// some site uses it, else null: what the
    /// slot's direct trampoline calls.
    solo: [AtomicPtr<HandlerSet>; DIRECT_SLOTS],
    /// The stray-breakpoint report, with `debug_patching`.
    _int3_watch: Option<super::debug::Int3Watch>,
}

// SAFETY: the raw table pointer is only read under RCU and written under
// the state lock.
unsafe impl Send for Engine {}
// SAFETY: as above.
unsafe impl Sync for Engine {}

impl Engine {
    /// An engine over the sites of `table`, none patched.
    pub(crate) fn new(
        table: SiteTable,
        nr_cpus: usize,
        int3_watch: Option<super::debug::Int3Watch>,
    ) -> Result<impl PinInit<Self, Error>> {
        let initial = Arc::new(table, GFP_KERNEL)?;
        let mut recursion = KVec::with_capacity(nr_cpus, GFP_KERNEL)?;
        for _ in 0..nr_cpus {
            recursion.push(AtomicU32::new(0), GFP_KERNEL)?;
        }
        let raw: *const SiteTable = &*initial;
        Ok(try_pin_init!(Engine {
            table: AtomicPtr::new(raw.cast_mut()),
            state <- new_mutex!(State {
                table: initial,
                slots: [const { None }; SLOTS],
                sets: KVec::new(),
                retired: KVec::new(),
            }),
            recursion,
            recursion_misses: AtomicU64::new(0),
            solo: [const { AtomicPtr::new(core::ptr::null_mut()) }; DIRECT_SLOTS],
            _int3_watch: int3_watch,
        }? Error))
    }

    /// The handler set that the direct trampoline of `slot` calls, or null.
    /// A non-null set lives until an RCU grace period after it is
    /// unpublished.
    #[inline]
    pub(crate) fn solo_set(&self, slot: usize) -> *mut HandlerSet {
        self.solo
            .get(slot)
            .map_or(core::ptr::null_mut(), |set| set.load(Acquire))
    }

    /// Makes `set` (a set of `state.sets`, or null) what the direct
    /// trampoline of `slot` calls. Under the state lock; a set is
    /// published before any site calls the trampoline for it, and
    /// unpublished when it retires, before the wait that frees it.
    fn publish_solo(&self, slot: usize, set: *mut HandlerSet) {
        let Some(solo) = self.solo.get(slot) else {
            return;
        };
        solo.store(set, Release);
        // After the set: a trampoline that sees the bit finds the set.
        if set.is_null() {
            LIVE_SLOTS.fetch_and(!(1 << slot), Release);
        } else {
            LIVE_SLOTS.fetch_or(1 << slot, Release);
        }
    }

    /// Attaches `client`, calling it on the sites `selector` wants.
    pub(crate) fn register(
        &self,
        client: Arc<dyn FentryClient>,
        selector: Arc<dyn SiteSelector>,
    ) -> Result<(usize, UpdateReport), UpdateError> {
        self.register_slot(client, selector, true)
    }

    /// As [`Self::register`], for a client that ignores its calls until
    /// [`Self::arm`] (the function tracer, which does not record the
    /// patching of its own start): until then the sites that call its
    /// slot's direct trampoline return from it at once, before it saves a
    /// register. The text poking of a start runs hundreds of thousands of
    /// traced calls.
    pub(crate) fn register_disarmed(
        &self,
        client: Arc<dyn FentryClient>,
        selector: Arc<dyn SiteSelector>,
    ) -> Result<(usize, UpdateReport), UpdateError> {
        self.register_slot(client, selector, false)
    }

    /// Lets the direct trampoline of `slot` call its client.
    pub(crate) fn arm(&self, slot: usize) {
        self.set_armed(slot, true);
    }

    /// Stops the direct trampoline of `slot` calling its client, as before
    /// [`Self::arm`] (the function tracer, before it unpatches).
    pub(crate) fn disarm(&self, slot: usize) {
        self.set_armed(slot, false);
    }

    fn set_armed(&self, slot: usize, armed: bool) {
        let mut state = self.state.lock();
        let Some(entry) = state.slots.get_mut(slot).and_then(Option::as_mut) else {
            return;
        };
        entry.armed = armed;
        if slot < DIRECT_SLOTS {
            let set = if armed {
                find_set(&state, 1 << slot)
            } else {
                core::ptr::null_mut()
            };
            self.publish_solo(slot, set);
        }
    }

    fn register_slot(
        &self,
        client: Arc<dyn FentryClient>,
        selector: Arc<dyn SiteSelector>,
        armed: bool,
    ) -> Result<(usize, UpdateReport), UpdateError> {
        let mut state = self.state.lock();
        let slot = state
            .slots
            .iter()
            .position(Option::is_none)
            .ok_or(UpdateError::Other(ENOSPC))?;
        let Some(entry) = state.slots.get_mut(slot) else {
            return Err(UpdateError::Other(ENOSPC));
        };
        *entry = Some(Slot {
            client,
            selector,
            armed,
        });
        match self.apply(&mut state, slot, None) {
            Ok(report) => Ok((slot, report)),
            Err(e) => {
                if let Some(entry) = state.slots.get_mut(slot) {
                    *entry = None;
                }
                Err(e)
            }
        }
    }

    /// Replaces the selector of `slot` and re-patches what changed. On
    /// error nothing changed.
    pub(crate) fn reselect(
        &self,
        slot: usize,
        selector: Arc<dyn SiteSelector>,
    ) -> Result<UpdateReport, UpdateError> {
        let mut state = self.state.lock();
        let entry = state.slots.get_mut(slot).and_then(Option::as_mut);
        let entry = entry.ok_or(UpdateError::Other(EINVAL))?;
        let old = core::mem::replace(&mut entry.selector, selector);
        let result = self.apply(&mut state, slot, None);
        if result.is_err() {
            if let Some(entry) = state.slots.get_mut(slot).and_then(Option::as_mut) {
                entry.selector = old;
            }
        }
        result
    }

    /// Detaches the client of `slot`: its sites stop calling it, and once
    /// this returns no CPU runs it any more.
    pub(crate) fn unregister(&self, slot: usize) {
        let mut state = self.state.lock();
        let Some(entry) = state.slots.get_mut(slot).and_then(Option::as_mut) else {
            return;
        };
        entry.selector = Arc::new(SelectNothing, GFP_KERNEL)
            .map(|s| s as Arc<dyn SiteSelector>)
            .unwrap_or_else(|_| entry.selector.clone());
        // Un-selecting never needs memory for new handler sets beyond the
        // plan; should even that fail, the sites are cleared one by one.
        if self.apply_keeping_sets(&mut state, slot, None).is_err() {
            self.clear_slot_slowly(&mut state, slot);
        }
        let removed = state.slots.get_mut(slot).and_then(Option::take);
        let retired = core::mem::take(&mut state.retired);
        drop(state);
        // The handler sets that held the client are gone; wait until no CPU
        // can still be calling it (or running one of those sets) before
        // dropping the last references: one wait for both.
        wait_for_dispatchers();
        drop(retired);
        drop(removed);
    }

    /// Plans and applies `slot`'s selection over every segment (or only
    /// `only`), and drops the handler sets it left unused.
    pub(crate) fn apply(
        &self,
        state: &mut State,
        slot: usize,
        only: Option<&Segment>,
    ) -> Result<UpdateReport, UpdateError> {
        let result = self.apply_keeping_sets(state, slot, only);
        drop_retired(state);
        result
    }

    /// As [`Self::apply`], but leaves the unused handler sets in
    /// `state.retired` for the caller to drop after a wait.
    fn apply_keeping_sets(
        &self,
        state: &mut State,
        slot: usize,
        only: Option<&Segment>,
    ) -> Result<UpdateReport, UpdateError> {
        let bit = 1u64 << slot;
        let table = state.table.clone();
        let selector = state
            .slots
            .get(slot)
            .and_then(Option::as_ref)
            .map(|s| s.selector.clone());
        let mut plan = KVec::new();
        for segment in table.segments.iter() {
            if only.is_some_and(|o| !core::ptr::eq(o, &**segment)) {
                continue;
            }
            for (i, site) in segment.sites.iter().enumerate() {
                let old = site.mask.load(Relaxed);
                let wanted = selector
                    .as_ref()
                    .is_some_and(|s| s.selects(&segment.info(site)));
                let new = if wanted { old | bit } else { old & !bit };
                if new != old {
                    plan.push(
                        Change {
                            segment,
                            site,
                            mask: new,
                        },
                        GFP_KERNEL,
                    )?;
                }
                maybe_resched(i);
            }
        }
        let explicit = selector.as_ref().is_some_and(|s| s.explicit());
        self.carry_out(state, plan, explicit)
    }

    /// Carries out `plan`: claims, patches and releases sites, points them
    /// at their new handler sets.
    fn carry_out(
        &self,
        state: &mut State,
        mut plan: KVec<Change<'_>>,
        explicit: bool,
    ) -> Result<UpdateReport, UpdateError> {
        let mut report = UpdateReport::default();
        let released = plan.iter().filter(|c| c.mask == 0).count();
        let mut waited_for = GivenBack::with_room(released)?;
        {
            let lock = FtraceLocked::lock()?;
            // The records are found again for every update: the kernel
            // moves them (see `FtraceLocked::records_at`).
            let records = lock.records_at(plan.iter().map(|c| c.site.ip))?;
            // First check every site to be taken, so that a refusal leaves
            // everything as it was.
            let busy = |c: &Change<'_>| {
                c.mask != 0
                    && c.site.hold() != Hold::Patched
                    && claimable(&records, c.site, c.mask).is_err()
            };
            if explicit {
                if plan.iter().any(busy) {
                    return Err(UpdateError::Busy);
                }
            } else {
                let before = plan.len();
                plan.retain(|c| !busy(c));
                report.skipped_busy = before - plan.len();
            }
            // Handler sets for every new mask, before any site uses them;
            // those of one client with a direct trampoline are published
            // for its dispatcher.
            let mut last = 0;
            for change in plan.iter() {
                if change.mask != 0 && change.mask != last {
                    intern(state, change.mask)?;
                    if let Some(slot) = direct_slot(change.mask).filter(|&s| is_armed(state, s)) {
                        self.publish_solo(slot, find_set(state, change.mask));
                    }
                    last = change.mask;
                }
            }
            let mut patcher = lock.patch();
            for (i, change) in plan.iter().enumerate() {
                if change.mask != 0 {
                    let set = find_set(state, change.mask);
                    change.site.handlers.store(set, Release);
                    match change.site.hold() {
                        Hold::Free => {
                            let taken = take(&records, &mut patcher, change.site, change.mask);
                            report.patched += usize::from(taken);
                        }
                        Hold::Patched => retarget(&mut patcher, change),
                        _ => {}
                    }
                } else if change.site.hold() == Hold::Patched {
                    unpatch(&mut patcher, change);
                }
                change.site.mask.store(change.mask, Relaxed);
                maybe_resched(i);
            }
            patcher.finish();
            if super::debug::enabled() {
                super::debug::verify(plan.iter().map(|c| (c.site, c.mask)));
            }
            drop(patcher);
            // The NOPs are in place: give the released sites back.
            for change in plan.iter().filter(|c| c.mask == 0) {
                let site = change.site;
                if site.hold() != Hold::Patched {
                    continue;
                }
                site.handlers.store(core::ptr::null_mut(), Release);
                site.set_hold(Hold::Free);
                let given = records.get(site.ip).map(|mut rec| rec.give_back(&lock));
                if given == Some(true) {
                    waited_for.add(change);
                }
                report.unpatched += 1;
            }
        }
        waited_for.hand_over();
        self.collect_sets(state);
        Ok(report)
    }

    /// Clears `slot`'s bit from every site without needing memory: the
    /// fallback of [`Self::unregister`]. Sites whose mask becomes empty are
    /// pointed at nothing; they stay patched (calling nobody) until the
    /// engine shuts down.
    fn clear_slot_slowly(&self, state: &mut State, slot: usize) {
        let bit = 1u64 << slot;
        // The sites that call the slot's direct trampoline find no set.
        if slot < DIRECT_SLOTS {
            self.publish_solo(slot, core::ptr::null_mut());
        }
        for segment in state.table.segments.iter() {
            for site in segment.sites.iter() {
                let mask = site.mask.load(Relaxed);
                if mask & bit != 0 {
                    site.handlers.store(core::ptr::null_mut(), Release);
                    site.mask.store(0, Relaxed);
                }
            }
        }
    }

    /// Moves the handler sets no site uses any more to `state.retired`.
    fn collect_sets(&self, state: &mut State) {
        let in_use = |mask: u64| {
            state.table.segments.iter().any(|segment| {
                segment
                    .sites
                    .iter()
                    .any(|s| s.mask.load(Relaxed) == mask && !s.handlers.load(Relaxed).is_null())
            })
        };
        // Room for every set first, so that none is dropped early; without
        // it the sets stay until a later update.
        if state.retired.reserve(state.sets.len(), GFP_KERNEL).is_err() {
            return;
        }
        let mut i = 0;
        while let Some(set) = state.sets.get(i) {
            if in_use(set.mask) {
                i += 1;
            } else if let Ok(set) = state.sets.remove(i) {
                if let Some(slot) = direct_slot(set.mask) {
                    self.publish_solo(slot, core::ptr::null_mut());
                }
                // Within the capacity reserved: cannot fail.
                let _ = state.retired.push(set, GFP_ATOMIC);
            } else {
                break;
            }
        }
    }

    /// Replaces the site table by `table` (a module came or went).
    pub(crate) fn set_table(&self, state: &mut State, table: SiteTable) -> Result {
        let table = Arc::new(table, GFP_KERNEL)?;
        let raw: *const SiteTable = &*table;
        let old = core::mem::replace(&mut state.table, table);
        self.table.store(raw.cast_mut(), Release);
        wait_for_dispatchers();
        drop(old);
        Ok(())
    }

    /// Every registered slot, for re-applying selections to a new segment.
    pub(crate) fn used_slots(state: &State) -> impl Iterator<Item = usize> + '_ {
        (0..SLOTS).filter(|s| state.slots.get(*s).is_some_and(Option::is_some))
    }

    /// Unpatches every site of `segment` (its module is going) and gives
    /// the records back.
    pub(crate) fn release_segment(&self, state: &mut State, segment: &Arc<Segment>) {
        let mut plan = KVec::new();
        for site in segment.sites.iter() {
            let change = Change {
                segment,
                site,
                mask: 0,
            };
            if site.mask.load(Relaxed) != 0 && plan.push(change, GFP_KERNEL).is_err() {
                break;
            }
        }
        if self.carry_out(state, plan, false).is_err() {
            pr_err!("could not unpatch a going module's sites\n");
        }
        drop_retired(state);
    }

    /// Unpatches every site: the engine is shutting down.
    pub(crate) fn release_all(&self) {
        let mut state = self.state.lock();
        let table = state.table.clone();
        for segment in table.segments.iter() {
            self.release_segment(&mut state, segment);
        }
        for slot in state.slots.iter_mut() {
            *slot = None;
        }
    }

    /// The site table, for listing and matching sites.
    pub(crate) fn table(&self) -> Arc<SiteTable> {
        self.state.lock().table.clone()
    }
}

/// Whether rftrace may take `site` now: the kernel's ftrace does not use
/// it, no kprobe waits for it and it holds the NOP.
fn claimable(records: &RecordIndex<'_>, site: &Site, mask: u64) -> core::result::Result<(), Busy> {
    if site.hold() == Hold::Lost {
        return Err(Busy::InUse);
    }
    records.get(site.ip).ok_or(Busy::Invalid)?.availability()?;
    call_insn(site.ip, mask).ok_or(Busy::Invalid)?;
    // A kprobe at the site, even one disabled now, would be armed through
    // the kernel's ftrace, which skips a site rftrace holds: it would stay
    // silent until rftrace let go.
    if ksyms::kprobe_at(site.ip) {
        return Err(Busy::InUse);
    }
    if !text_is(site.ip, &NOP5) {
        // Someone patched it without ftrace (an int3 kprobe, BPF).
        return Err(Busy::InUse);
    }
    Ok(())
}

/// Takes `site` from the kernel's ftrace and queues its call of the
/// trampoline that serves `mask`; returns whether it did.
fn take(records: &RecordIndex<'_>, patcher: &mut TextPatcher<'_>, site: &Site, mask: u64) -> bool {
    let Some(mut rec) = records.get(site.ip) else {
        return false;
    };
    let Some(call) = call_insn(site.ip, mask) else {
        return false;
    };
    if rec.take().is_err() {
        return false;
    }
    // SAFETY: `ip` is a call site that `claimable` found holding the NOP in
    // live text; the call is 5 bytes too.
    unsafe { patcher.queue(site.ip, &call) };
    site.set_hold(Hold::Patched);
    true
}

/// Queues the NOP back at a site rftrace patched, if it still holds
/// rftrace's call. If it does not, someone else wrote it: the site is kept
/// taken and untouched ([`Hold::Lost`]), and that is logged, once.
fn unpatch(patcher: &mut TextPatcher<'_>, change: &Change<'_>) {
    replace_call(patcher, change, NOP5);
}

/// Queues a call of the trampoline that serves `change`'s new mask at a
/// site rftrace patched for its old mask (still in `site.mask`), if the
/// trampoline differs and the site still holds rftrace's call (if not, as
/// [`unpatch`]).
fn retarget(patcher: &mut TextPatcher<'_>, change: &Change<'_>) {
    let site = change.site;
    if trampoline_for(site.mask.load(Relaxed)) == trampoline_for(change.mask) {
        return;
    }
    if let Some(call) = call_insn(site.ip, change.mask) {
        replace_call(patcher, change, call);
    }
}

/// Queues `insn` at `change`'s site in place of the call rftrace placed
/// there for the site's mask, if the site still holds it. If it does not,
/// someone else wrote it: the site is kept taken and untouched
/// ([`Hold::Lost`]), and that is logged, once.
fn replace_call(patcher: &mut TextPatcher<'_>, change: &Change<'_>, insn: [u8; 5]) {
    let site = change.site;
    let ours = call_insn(site.ip, site.mask.load(Relaxed));
    if ours.is_some_and(|call| text_is(site.ip, &call)) {
        // SAFETY: the site holds our call, written by this engine; the new
        // instruction (the NOP or another call) is as long.
        unsafe { patcher.queue(site.ip, &insn) };
        return;
    }
    site.handlers.store(core::ptr::null_mut(), Release);
    site.set_hold(Hold::Lost);
    let name = BStr::from_bytes(change.segment.name_of(site));
    pr_err!(
        "{} ({:#x}) no longer holds rftrace's call: it was changed behind rftrace's back; it stays taken from ftrace, untouched\n",
        name,
        site.ip
    );
}

/// Sites given back to the kernel's ftrace while some of its users waited
/// for them: the kernel has to patch them for those users.
///
/// # Invariants
///
/// `ips` has room for every site of the release it was made for.
struct GivenBack {
    ips: KVec<usize>,
    first: Option<(Arc<Segment>, usize)>,
}

impl GivenBack {
    /// Room for `released` sites, allocated before anything changes.
    fn with_room(released: usize) -> Result<Self> {
        // INVARIANT: room for every released site.
        Ok(GivenBack {
            ips: KVec::with_capacity(released, GFP_KERNEL)?,
            first: None,
        })
    }

    /// Notes `change`'s site, one of the release's.
    fn add(&mut self, change: &Change<'_>) {
        // Within the room made for the release (the type invariant): the
        // push does not allocate, so it cannot fail.
        let _ = self.ips.push(change.site.ip, GFP_NOWAIT);
        if self.first.is_none() {
            self.first = Some((change.segment.clone(), change.site.ip));
        }
    }

    /// Makes the kernel's ftrace patch the sites for its users, and says so
    /// in the kernel log, once for the whole release.
    fn hand_over(mut self) {
        if self.ips.is_empty() {
            return;
        }
        let name = self
            .first
            .as_ref()
            .and_then(|(segment, ip)| segment.find(*ip).map(|s| segment.name_of(s)))
            .unwrap_or(b"?");
        let (functions, them) = match self.ips.len() {
            1 => ("function", "it"),
            _ => ("functions", "them"),
        };
        pr_info!(
            "gave {} {} back to the kernel's ftrace users that waited for {} (first: {})\n",
            self.ips.len(),
            functions,
            them,
            BStr::from_bytes(name)
        );
        if let Err(e) = ksyms::kick_kernel_ftrace(&mut self.ips) {
            pr_warn!(
                "could not hand {} sites back to ftrace: {:?}\n",
                self.ips.len(),
                e
            );
        }
    }
}

/// Whether the text at `ip` is `bytes`.
fn text_is(ip: usize, bytes: &[u8; 5]) -> bool {
    let mut now = [0u8; 5];
    ksyms::read_text(ip, &mut now).is_ok() && now == *bytes
}

/// Whether the client of `slot` is armed.
fn is_armed(state: &State, slot: usize) -> bool {
    state
        .slots
        .get(slot)
        .and_then(Option::as_ref)
        .is_some_and(|s| s.armed)
}

/// Makes sure a handler set for `mask` exists.
fn intern(state: &mut State, mask: u64) -> Result {
    if state.sets.iter().any(|s| s.mask == mask) {
        return Ok(());
    }
    let mut clients = KVec::new();
    for (slot, entry) in state.slots.iter().enumerate() {
        if let Some(entry) = entry.as_ref().filter(|_| mask & (1 << slot) != 0) {
            clients.push(entry.client.clone(), GFP_KERNEL)?;
        }
    }
    let set = Arc::new(HandlerSet { mask, clients }, GFP_KERNEL)?;
    state.sets.push(set, GFP_KERNEL)?;
    Ok(())
}

/// The handler set of `mask`, made by [`intern`].
fn find_set(state: &State, mask: u64) -> *mut HandlerSet {
    state
        .sets
        .iter()
        .find(|s| s.mask == mask)
        .map_or(core::ptr::null_mut(), |s| {
            let p: *const HandlerSet = &**s;
            p.cast_mut()
        })
}

/// Lets other tasks run during long loops (all locks held are mutexes).
fn maybe_resched(i: usize) {
    if i % RESCHED_EVERY == RESCHED_EVERY - 1 {
        // SAFETY: process context; only sleeping locks are held.
        unsafe { bindings::rft_cond_resched() };
    }
}

/// Waits until no CPU can still be dispatching with what was unpublished
/// before the call: dispatchers run with preemption off (an RCU read side),
/// and the "rude" flavour also covers CPUs where RCU is not watching.
pub(crate) fn wait_for_dispatchers() {
    // SAFETY: process context.
    unsafe {
        bindings::synchronize_rcu();
        bindings::synchronize_rcu_tasks_rude();
    }
}

/// Drops the handler sets an update retired, once no CPU can still be
/// running one.
fn drop_retired(state: &mut State) {
    if !state.retired.is_empty() {
        wait_for_dispatchers();
        state.retired.clear();
    }
}

/// The selector of a slot being emptied.
struct SelectNothing;

impl SiteSelector for SelectNothing {
    fn selects(&self, _: &super::sites::SiteInfo<'_>) -> bool {
        false
    }

    fn explicit(&self) -> bool {
        false
    }
}

/// Reads what the table lookup needs under `Acquire`, for the dispatcher.
pub(crate) fn current_table(engine: &Engine) -> *const SiteTable {
    engine.table.load(Acquire)
}
