// SPDX-License-Identifier: GPL-2.0

//! The `function_graph` tracer: an event at the entry and at the return of
//! every traced call, from which the output draws the call tree with
//! durations.
//!
//! Entries come from the patch engine, as for the function tracer. To see
//! the return, the entry handler replaces the traced function's return
//! address on the stack with the return trampoline
//! (`arch/x86/fgraph_64.S`) and pushes the real one on the task's shadow
//! stack ([`shadow`]); the trampoline calls [`rftrace_graph_return`],
//! which pops it, records the return and goes back there. Shadow stacks
//! are kept per task in [`stacks`]; the tracer itself, its filters and
//! its recording, in [`tracer`].
//!
//! The shadow stacks are shared by every instance's function_graph tracer
//! (up to [`shadow::MAX_TRACERS`] at once); they are made when the first
//! one starts and freed at module unload, when no hooked call is pending
//! any more (see [`stacks`] for how unloading waits for them, and why that
//! does not take as long as tasks sleep inside traced functions).
//!
//! Other clients than the function_graph tracer can hook returns on the
//! same shadow stacks: the return probes of probe events ([`returns`]).
//!
//! # Lock order
//!
//! An instance's `control`, then its `functions`, then [`Runtime`]'s
//! lock, then the patch engine's locks.

mod returns;
mod shadow;
mod stacks;
mod tracer;

pub(crate) use returns::{Kept, ReturnClient, ReturnHook};
pub(crate) use tracer::{GraphFilters, GraphSession};

use crate::bindings;
use crate::task_events::{SwitchProbe, TaskEventProbes};
use core::sync::atomic::{
    AtomicPtr,
    Ordering::{Acquire, Release},
};
use kernel::{
    new_mutex,
    prelude::*,
    sync::{Arc, Mutex},
};
use shadow::MAX_TRACERS;
use stacks::{StackEvents, TaskStacks};

/// The shadow stacks, once made (the `Arc` in [`Live`] keeps them); the
/// return path reads them from here.
static STACKS: AtomicPtr<TaskStacks> = AtomicPtr::new(core::ptr::null_mut());

/// The graph tracers' shared state, between module load and unload.
static RUNTIME: AtomicPtr<Runtime> = AtomicPtr::new(core::ptr::null_mut());

/// The shadow stacks and the probes that keep them, once made.
struct Live {
    /// Keeps each task's time scheduled out. Registered once, with the
    /// stacks: registering it at every start would patch the scheduler's
    /// tracepoint each time. Dropped first, then `probes`: no probe runs
    /// once they are gone.
    switches: SwitchProbe<StackEvents>,
    probes: TaskEventProbes<StackEvents>,
    /// What the probes point at.
    events: KBox<StackEvents>,
}

/// Which tracer slots are taken, and the shadow stacks once made.
struct Slots {
    live: Option<Live>,
    used: [bool; MAX_TRACERS],
    /// Bumped at every start of a slot, so that calls a stopped tracer
    /// hooked are told apart from its successor's.
    generations: [u32; MAX_TRACERS],
    /// The return hook ([`returns`]) runs...
    return_hook: bool,
    /// ... in its run of this number.
    return_generation: u32,
}

/// The function_graph tracers' shared state.
#[pin_data]
pub(crate) struct Runtime {
    #[pin]
    slots: Mutex<Slots>,
}

/// A tracer slot, taken by a starting tracer.
pub(crate) struct SlotGrant {
    pub(crate) slot: u8,
    pub(crate) generation: u32,
    pub(crate) stacks: Arc<TaskStacks>,
}

impl Runtime {
    /// Takes a free tracer slot, making the shadow stacks first if needed,
    /// and gives every task a stack.
    fn take_slot(&self) -> Result<SlotGrant> {
        let mut slots = self.slots.lock();
        let slot = slots.used.iter().position(|u| !u).ok_or(EBUSY)?;
        let stacks = self.running_stacks(&mut slots)?;
        slots.used[slot] = true;
        slots.generations[slot] = slots.generations[slot].wrapping_add(1);
        Ok(SlotGrant {
            slot: slot as u8,
            generation: slots.generations[slot],
            stacks,
        })
    }

    /// The shadow stacks, made first if needed, with every task given a
    /// stack and marked running.
    fn running_stacks(&self, slots: &mut Slots) -> Result<Arc<TaskStacks>> {
        if slots.live.is_none() {
            slots.live = Some(self.make_stacks()?);
        }
        let stacks = slots.stacks().ok_or(ENODEV)?;
        // New tasks get stacks from the fork probe; these are the others.
        stacks.attach_all()?;
        stacks.set_running(true);
        Ok(stacks)
    }

    /// Gives back a slot, whose tracer's client is unlisted, and the
    /// hooked returns of sleeping tasks.
    fn release_slot(&self, slot: u8) {
        let mut slots = self.slots.lock();
        if let Some(used) = slots.used.get_mut(usize::from(slot)) {
            *used = false;
        }
        Self::after_release(&slots);
    }

    /// Takes the return hook's place, making the shadow stacks first if
    /// needed: its run number and the stacks. `EBUSY` if it is taken.
    fn take_return_hook(&self) -> Result<(u32, Arc<TaskStacks>)> {
        let mut slots = self.slots.lock();
        if slots.return_hook {
            return Err(EBUSY);
        }
        let stacks = self.running_stacks(&mut slots)?;
        slots.return_hook = true;
        slots.return_generation = slots.return_generation.wrapping_add(1);
        Ok((slots.return_generation, stacks))
    }

    /// Gives back the return hook's place, whose client is unlisted.
    fn release_return_hook(&self) {
        let mut slots = self.slots.lock();
        slots.return_hook = false;
        Self::after_release(&slots);
    }

    /// After a tracer or the return hook stopped: no hooking runs any more
    /// if it was the last; the hooked returns of sleeping tasks go back.
    fn after_release(slots: &Slots) {
        let Some(stacks) = slots.stacks() else {
            return;
        };
        if slots.used.iter().all(|u| !u) && !slots.return_hook {
            stacks.set_running(false);
        }
        stacks.give_back_sleeping();
    }

    /// The shadow stacks, with their probes running.
    fn make_stacks(&self) -> Result<Live> {
        let stacks = TaskStacks::new()?;
        let events = KBox::new(StackEvents(stacks.clone()), GFP_KERNEL)?;
        // SAFETY: `events` is kept in `Live` next to the probes, which drop
        // first.
        let probes = unsafe { TaskEventProbes::start(&*events)? };
        // SAFETY: as above.
        let switches = unsafe { SwitchProbe::start(&*events)? };
        STACKS.store(Arc::as_ptr(&stacks).cast_mut(), Release);
        Ok(Live {
            switches,
            probes,
            events,
        })
    }
}

impl Slots {
    /// The shadow stacks, if made.
    fn stacks(&self) -> Option<Arc<TaskStacks>> {
        self.live.as_ref().map(|live| live.events.0.clone())
    }
}

/// The graph runtime, between module load and unload.
pub(crate) fn runtime() -> Option<&'static Runtime> {
    let raw = RUNTIME.load(Acquire);
    // SAFETY: the runtime lives from `start` to `stop` (module unload,
    // after every instance is gone).
    (!raw.is_null()).then(|| unsafe { &*raw })
}

/// The shadow stacks, for the return path: preemption is off, and frames
/// are pending, so they cannot go away (unloading waits for them).
#[inline]
fn live_stacks() -> Option<&'static TaskStacks> {
    let raw = STACKS.load(Acquire);
    // SAFETY: the stacks are freed only at unload, when no hooked call is
    // pending and after a grace period.
    (!raw.is_null()).then(|| unsafe { &*raw })
}

/// Sets up the runtime at module load.
pub(crate) fn start() -> Result {
    let runtime = KBox::pin_init(
        pin_init!(Runtime {
            slots <- new_mutex!(Slots {
                live: None,
                used: [false; MAX_TRACERS],
                generations: [0; MAX_TRACERS],
                return_hook: false,
                return_generation: 0,
            }),
        }),
        GFP_KERNEL,
    )?;
    // SAFETY: never moved out of its box: `stop` turns the pointer back
    // into the box.
    let raw = KBox::into_raw(unsafe { Pin::into_inner_unchecked(runtime) });
    RUNTIME.store(raw, Release);
    Ok(())
}

/// Tears the runtime down at module unload, after every instance (and so
/// every graph tracer) is gone: first waits until no hooked call is
/// pending.
pub(crate) fn stop() {
    let raw = RUNTIME.swap(core::ptr::null_mut(), Acquire);
    if raw.is_null() {
        return;
    }
    // SAFETY: made from a box in `start`; no instance uses it any more.
    let runtime = unsafe { KBox::from_raw(raw) };
    let mut slots = runtime.slots.lock();
    let live = slots.live.take();
    drop(slots);
    let Some(live) = live else {
        return;
    };
    // The probes stay while this waits: a task going to sleep gives back
    // its returns in the switch probe.
    live.events.0.wait_until_returned();
    let Live {
        switches,
        probes,
        events,
    } = live;
    // No probe runs after this.
    drop(switches);
    drop(probes);
    STACKS.store(core::ptr::null_mut(), Release);
    // A return that brought `pending` to zero may still be reading the
    // stacks' counters with preemption off.
    // SAFETY: process context.
    unsafe { bindings::synchronize_rcu() };
    events.0.quiesce();
    drop(events);
}
