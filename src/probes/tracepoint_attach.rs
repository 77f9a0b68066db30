// SPDX-License-Identifier: GPL-2.0

//! Where tracepoint probe events attach (`t` lines), as the kernel's
//! `trace_fprobe` does for tracepoints: the tracepoint's stub
//! (`__probestub_NAME`, a function of the tracepoint's prototype that does
//! nothing) is registered as one of the tracepoint's probes, and a probe
//! at the stub's entry sees each hit with the tracepoint's arguments after
//! the stub's data pointer (so `$arg1` is the stub's second argument).
//!
//! Both are in place only while the event is enabled. A tracepoint not
//! found then (its module is not loaded) is armed when its module comes
//! and disarmed when it goes, from the tracepoints' module notifier, which
//! runs when a module's tracepoints are set up and before they are checked
//! to have no probe left.
//!
//! Several events on one tracepoint share its stub's registration.
//!
//! # Lock order
//!
//! The kernel's `tracepoint_module_list_mutex` (held around the notifier
//! callbacks), then [`STATE`], then the kernel probes' state
//! ([`super::attach`]).

use super::attach::{KernelPlace, KernelProbe};
use crate::kernel_api::module::{
    register_pair, Chain, Module, ModuleState, NotifierPair, OnModule,
};
use crate::kernel_api::tracepoint::{StubProbe, Tracepoint};
use crate::probes::hit::ProbeHandler;
use kernel::{prelude::*, str::CStr, sync::Arc};

/// A tracepoint probe: its tracepoint by name, and the handler its hits
/// go to.
pub(crate) struct TracepointProbe {
    shared: Arc<Tprobe>,
}

/// What the enabled list holds of a [`TracepointProbe`].
struct Tprobe {
    /// The tracepoint's name, NUL-terminated.
    name: KVec<u8>,
    handler: Arc<dyn ProbeHandler>,
}

/// A tracepoint probe in place.
struct Armed {
    tracepoint: Tracepoint,
    /// The probe at the stub's entry.
    probe: KernelProbe,
}

/// An enabled tracepoint probe: armed, or waiting for its module.
struct Enabled {
    tprobe: Arc<Tprobe>,
    armed: Option<Armed>,
}

/// The enabled tracepoint probes, and the stubs they registered.
pub(crate) struct State {
    enabled: KVec<Enabled>,
    /// Each stub registered on its tracepoint, with how many armed probes
    /// use it.
    stubs: KVec<(Tracepoint, StubProbe, usize)>,
    /// Following modules' tracepoints (COMING, GOING), once a probe was
    /// enabled.
    notifiers: Option<Notifiers>,
}

/// Following modules' tracepoints: at COMING, at GOING.
type Notifiers = NotifierPair<Follower>;

kernel::sync::global_lock! {
    // SAFETY: initialised by `init` at module load, before any use.
    unsafe(uninit) static STATE: Mutex<State> = State {
        enabled: KVec::new(),
        stubs: KVec::new(),
        notifiers: None,
    };
}

/// Sets up the state. Called once, at module load.
pub(crate) fn init() {
    // SAFETY: called once, at module load, before any other use.
    unsafe { STATE.init() };
}

/// Stops following modules: at module unload, after the probe events are
/// gone (so nothing is enabled) and before the kernel probes' state goes.
pub(crate) fn release() {
    let mut state = STATE.lock();
    let notifiers = state.notifiers.take();
    // The lists are empty; their memory goes too (a static is not dropped).
    let lists = (
        core::mem::take(&mut state.enabled),
        core::mem::take(&mut state.stubs),
    );
    drop(state);
    drop(lists);
    // Outside the lock: unregistering replays GOING to the callbacks.
    drop(notifiers);
}

impl TracepointProbe {
    /// A probe on tracepoint `name` telling `handler`; nothing is
    /// registered until it is enabled (the tracepoint need not exist yet:
    /// its module may load later).
    pub(crate) fn new(name: &[u8], handler: Arc<dyn ProbeHandler>) -> Result<Self> {
        let mut owned = KVec::with_capacity(name.len() + 1, GFP_KERNEL)?;
        owned.extend_from_slice(name, GFP_KERNEL)?;
        owned.push(0, GFP_KERNEL)?;
        Ok(TracepointProbe {
            shared: Arc::new(
                Tprobe {
                    name: owned,
                    handler,
                },
                GFP_KERNEL,
            )?,
        })
    }

    /// Starts firing: arms the probe if its tracepoint is there, else
    /// leaves it for its module to come. Sleeps.
    pub(crate) fn enable(&self) -> Result {
        // Both notifier chains are joined here, in process context: a
        // probe armed from the tracepoints' notifier (inside the module
        // loader's chain) must not register on that chain.
        super::attach::follow_modules()?;
        follow_modules()?;
        let mut state = STATE.lock();
        if state.find(&self.shared).is_some() {
            return Ok(());
        }
        state.enabled.reserve(1, GFP_KERNEL)?;
        let armed = state.arm(&self.shared)?;
        let entry = Enabled {
            tprobe: self.shared.clone(),
            armed,
        };
        // Room was reserved: this does not fail.
        state.enabled.push(entry, GFP_KERNEL)?;
        Ok(())
    }

    /// Stops firing: once this returns the handler is no more called.
    /// Sleeps.
    pub(crate) fn disable(&self) {
        let mut state = STATE.lock();
        let Some(index) = state.find(&self.shared) else {
            return;
        };
        if let Ok(Enabled {
            armed: Some(armed), ..
        }) = state.enabled.remove(index)
        {
            state.disarm(armed);
        }
    }

    /// Hits missed (recursion), for `kprobe_profile`-like counts.
    pub(crate) fn misses(&self) -> u64 {
        let state = STATE.lock();
        state
            .find(&self.shared)
            .and_then(|i| state.enabled.get(i))
            .and_then(|e| e.armed.as_ref())
            .map_or(0, |a| a.probe.misses())
    }
}

impl Drop for TracepointProbe {
    fn drop(&mut self) {
        self.disable();
    }
}

impl State {
    /// Where `tprobe` is among the enabled.
    fn find(&self, tprobe: &Arc<Tprobe>) -> Option<usize> {
        self.enabled
            .iter()
            .position(|e| Arc::ptr_eq(&e.tprobe, tprobe))
    }

    /// Arms `tprobe` on its tracepoint, if found: the probe at the stub
    /// first, then the stub on the tracepoint (unless another probe has
    /// it there already). `None` when the tracepoint is not there.
    fn arm(&mut self, tprobe: &Tprobe) -> Result<Option<Armed>> {
        let name = CStr::from_bytes_with_nul(&tprobe.name).map_err(|_| EINVAL)?;
        let Some(tracepoint) = Tracepoint::find_any(name) else {
            return Ok(None);
        };
        let place = KernelPlace::Address(tracepoint.stub());
        let probe =
            KernelProbe::register(&place, false, 0, tprobe.handler.clone()).map_err(|(_, e)| e)?;
        probe.enable()?;
        match self.stubs.iter_mut().find(|(tp, _, _)| *tp == tracepoint) {
            Some((_, _, users)) => *users += 1,
            None => {
                // The kernel's own tracepoint probe events register the
                // same stub: the two cannot share it.
                let stub =
                    StubProbe::register(tracepoint)
                        .map_err(|e| if e == EEXIST { EBUSY } else { e })?;
                self.stubs.push((tracepoint, stub, 1), GFP_KERNEL)?;
            }
        }
        Ok(Some(Armed { tracepoint, probe }))
    }

    /// Takes `armed` off: the stub off its tracepoint when no other probe
    /// uses it, then the probe at the stub.
    fn disarm(&mut self, armed: Armed) {
        if let Some(index) = self
            .stubs
            .iter()
            .position(|(tp, _, _)| *tp == armed.tracepoint)
        {
            let last = self.stubs.get_mut(index).is_some_and(|(_, _, users)| {
                *users -= 1;
                *users == 0
            });
            if last {
                drop(self.stubs.remove(index));
            }
        }
        drop(armed.probe);
    }
}

/// Registers the tracepoints' module notifiers unless they are. Without
/// [`STATE`] held: registering replays COMING to the callback.
fn follow_modules() -> Result {
    if STATE.lock().notifiers.is_some() {
        return Ok(());
    }
    let (coming, going) = register_pair(Chain::TracepointModules, 0, &FOLLOWER)?;
    let mut state = STATE.lock();
    if state.notifiers.is_none() {
        state.notifiers = Some((coming, going));
        return Ok(());
    }
    drop(state);
    // Another enable registered them meanwhile.
    drop((coming, going));
    Ok(())
}

/// Arms the enabled probes waiting for a coming module's tracepoints, and
/// disarms those on a going module's.
struct Follower;

static FOLLOWER: Follower = Follower;

impl OnModule for Follower {
    fn changed(&self, change: ModuleState, module: Module) {
        let mut guard = STATE.lock();
        let state = &mut *guard;
        for i in 0..state.enabled.len() {
            let Some(entry) = state.enabled.get_mut(i) else {
                break;
            };
            match change {
                ModuleState::Coming if entry.armed.is_none() => {
                    let tprobe = entry.tprobe.clone();
                    match state.arm(&tprobe) {
                        Ok(armed) => {
                            if let Some(entry) = state.enabled.get_mut(i) {
                                entry.armed = armed;
                            }
                        }
                        Err(e) => pr_warn!("could not arm a tracepoint probe: {:?}\n", e),
                    }
                }
                ModuleState::Going => {
                    let in_module = entry.armed.as_ref().is_some_and(|a| {
                        crate::ksyms::module_of(a.tracepoint.address()) as usize == module.address()
                    });
                    if in_module {
                        if let Some(armed) = entry.armed.take() {
                            state.disarm(armed);
                        }
                    }
                }
                _ => {}
            }
        }
    }
}
