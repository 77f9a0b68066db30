// SPDX-License-Identifier: GPL-2.0

//! Where kernel probes attach: one probe point of a kprobe event, given
//! its place, calls an [`Arc<dyn ProbeHandler>`] on every hit.
//!
//! - A probe at a function's entry that is an `__fentry__` site of
//!   rftrace's patch engine is a client of the engine ([`entry`]); a
//!   return probe there hooks the return on the function_graph shadow
//!   stacks ([`ret`]). (A kernel kprobe at such a site would be armed
//!   through the kernel's ftrace, which skips sites rftrace holds: it
//!   would never fire.)
//! - Other places use the kernel's kprobes and kretprobes ([`kprobe`]).
//!
//! Places are resolved and checked as `trace_kprobe` does ([`place`]). A
//! `MOD:SYM` of a module not loaded is accepted and armed when the module
//! loads; when it goes, engine probes in it are disarmed, and kernel
//! kprobes are left to the kprobes core (which marks them gone), then
//! registered again at the next load, as `trace_kprobe`'s module notifier
//! does.
//!
//! # Lock order
//!
//! [`STATE`], then the graph runtime's and the patch engine's locks.
//! Module notifiers are registered and unregistered without [`STATE`]
//! held (their callbacks take it).

mod entry;
mod kprobe;
mod place;
mod ret;

use crate::fentry::{self, SiteSelector, UpdateError};
use crate::graph::ReturnHook;
use crate::kernel_api::kprobes::{self, KernelKprobe};
use crate::kernel_api::module::{
    register_pair, Chain, Module, ModuleState, NotifierPair, OnModule,
};
use crate::portable::probes::errors::ProbeErrorCode;
use crate::probes::hit::ProbeHandler;
use core::sync::atomic::{
    AtomicBool, AtomicU64, AtomicUsize,
    Ordering::{Relaxed, Release},
};
use entry::{EntryClient, SiteProbes};
use kernel::{prelude::*, sync::Arc};
use place::{OwnedPlace, Resolution};

/// Where a probe goes, as the command gives it.
pub(crate) enum KernelPlace<'a> {
    /// `[MOD:]SYM[+OFFS]`.
    Symbol {
        module: Option<&'a [u8]>,
        name: &'a [u8],
        offset: u64,
    },
    /// An address.
    Address(usize),
    /// Every function a glob matches, at its entry (an fprobe on `vfs_*`).
    Pattern(&'a [u8]),
}

/// One probe: what it is, and what its hits tell.
pub(super) struct Probe {
    place: OwnedPlace,
    is_return: bool,
    maxactive: u32,
    handler: Arc<dyn ProbeHandler>,
    /// Hits not passed on (recursion, no room to hook a return).
    missed: AtomicU64,
    /// The resolved address, 0 while unresolved.
    address: AtomicUsize,
}

/// How a probe is armed now.
enum Arm {
    /// Its module is not loaded (or its text went).
    Pending,
    /// At an engine site (listed in the engine table while enabled); the
    /// module holding the site, 0 for vmlinux.
    Engine { site: usize, module: usize },
    /// A kernel kprobe or kretprobe.
    Kernel(Pin<KBox<KernelKprobe>>),
    /// At the engine sites of a pattern, each with the module holding it
    /// (0 for vmlinux); a going module's sites leave, and a coming one's
    /// are not added, as the kernel's fprobes do.
    Sites(KVVec<(usize, usize)>),
}

impl Arm {
    /// Whether the probe is in the engine table while enabled.
    fn on_engine(&self) -> bool {
        matches!(self, Arm::Engine { .. } | Arm::Sites(_))
    }
}

/// A registered probe, under [`STATE`].
struct Attached {
    probe: Arc<Probe>,
    enabled: bool,
    arm: Arm,
}

/// Every registered probe, and what they share.
pub(crate) struct State {
    probes: KVec<Attached>,
    /// Made with the first probe.
    shared: Option<Shared>,
    /// The engine slot of the entry client, while it has sites.
    engine_slot: Option<usize>,
    /// The return hook, while some return probe is at an engine site.
    return_hook: Option<KBox<ReturnHook>>,
    /// The module notifiers, from the first probe until [`release`].
    notifiers: Option<Notifiers>,
}

/// What the probes share once the first is made.
struct Shared {
    busy: Arc<CpuBusy>,
    client: Arc<EntryClient>,
}

/// Following module loads and unloads.
type Notifiers = NotifierPair<Follower>;

kernel::sync::global_lock! {
    // SAFETY: initialised by `init` at module load, before any use.
    unsafe(uninit) static STATE: Mutex<State> = State {
        probes: KVec::new(),
        shared: None,
        engine_slot: None,
        return_hook: None,
        notifiers: None,
    };
}

/// Sets up the probes' state. Called once, at module load, first.
pub(crate) fn init() {
    // SAFETY: called once, at module load, before any other use.
    unsafe { STATE.init() };
}

/// Detaches every probe still registered and frees what the probes
/// shared: at module unload, after the probe events are gone (then there
/// is nothing left to detach) and before the graph runtime and the patch
/// engine stop. A [`KernelProbe`] dropped later finds nothing to do.
pub(crate) fn release() {
    let mut state = STATE.lock();
    let probes = core::mem::take(&mut state.probes);
    if state.shared.is_some() {
        if let Err(e) = state.publish() {
            pr_warn!("could not detach the probes: {:?}\n", e);
        }
    }
    let shared = state.shared.take();
    let notifiers = state.notifiers.take();
    drop(state);
    drop(probes);
    drop(shared);
    drop(notifiers);
}

/// Per CPU: a probe handler runs (the kernel's `kprobe_running()`); a hit
/// meanwhile is a miss.
pub(super) struct CpuBusy(KVec<AtomicBool>);

/// A CPU's claim on its [`CpuBusy`] flag.
pub(super) struct Running<'a>(&'a AtomicBool);

impl CpuBusy {
    /// A flag per possible CPU.
    fn new() -> Result<Self> {
        let n = crate::instance::nr_cpu_ids();
        let mut flags = KVec::with_capacity(n, GFP_KERNEL)?;
        for _ in 0..n {
            flags.push(AtomicBool::new(false), GFP_KERNEL)?;
        }
        Ok(CpuBusy(flags))
    }

    /// Claims `cpu` (the current one, preemption off), or `None` if a
    /// handler runs there already.
    #[inline]
    pub(super) fn enter(&self, cpu: usize) -> Option<Running<'_>> {
        let flag = self.0.get(cpu)?;
        // Only this CPU changes its flag, and a nested context that takes
        // it gives it back before returning.
        if flag.load(Relaxed) {
            return None;
        }
        flag.store(true, Relaxed);
        Some(Running(flag))
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.store(false, Relaxed);
    }
}

/// One probe point of one event, registered with the kernel (or rftrace's
/// engine); dropping it unregisters it and waits until the handler can no
/// longer run.
pub(crate) struct KernelProbe {
    probe: Arc<Probe>,
}

impl KernelProbe {
    /// Resolves and validates `place` and registers the probe, not firing
    /// yet. Errors are the kernel's for the same command: the error-log
    /// entry and the errno (`BAD_PROBE_ADDR`, `NON_UNIQ_SYMBOL`,
    /// `BAD_RETPROBE` with `EINVAL`; `BAD_INSN_BNDRY` with `EILSEQ`;
    /// `BAD_PROBE_ADDR` with `ENOENT`; `FAIL_REG_PROBE` with the kernel's
    /// errno). A `MOD:SYM` whose module is not loaded is accepted and armed
    /// when the module loads. `maxactive` applies to kretprobes the kernel
    /// carries; return probes at engine sites ignore it.
    pub(crate) fn register(
        place: &KernelPlace<'_>,
        is_return: bool,
        maxactive: u32,
        handler: Arc<dyn ProbeHandler>,
    ) -> Result<Self, (ProbeErrorCode, Error)> {
        let nomem = |_| (ProbeErrorCode::FailRegProbe, ENOMEM);
        let owned = match place {
            KernelPlace::Symbol {
                module,
                name,
                offset,
            } => OwnedPlace::symbol(*module, name, *offset).map_err(nomem)?,
            KernelPlace::Address(addr) => OwnedPlace::Address(*addr),
            KernelPlace::Pattern(pattern) => {
                let mut owned = KVec::new();
                owned
                    .extend_from_slice(pattern, GFP_KERNEL)
                    .map_err(|_| (ProbeErrorCode::FailRegProbe, ENOMEM))?;
                OwnedPlace::Pattern(owned)
            }
        };
        let probe = Arc::new(
            Probe {
                place: owned,
                is_return,
                maxactive,
                handler,
                missed: AtomicU64::new(0),
                address: AtomicUsize::new(0),
            },
            GFP_KERNEL,
        )
        .map_err(|_| (ProbeErrorCode::FailRegProbe, ENOMEM))?;
        follow_modules().map_err(|e| (ProbeErrorCode::FailRegProbe, e))?;
        let mut state = STATE.lock();
        let shared = state
            .shared()
            .map_err(|e| (ProbeErrorCode::FailRegProbe, e))?;
        let arm = arm(&probe, &shared.busy)?;
        state
            .probes
            .push(
                Attached {
                    probe: probe.clone(),
                    enabled: false,
                    arm,
                },
                GFP_KERNEL,
            )
            .map_err(|_| (ProbeErrorCode::FailRegProbe, ENOMEM))?;
        Ok(KernelProbe { probe })
    }

    /// Starts firing. A probe at an engine site the kernel's ftrace uses
    /// meanwhile (its tracer, one of its kprobes, BPF) is moved to a kernel
    /// kprobe there, which the kernel arms through its ftrace.
    pub(crate) fn enable(&self) -> Result {
        let mut state = STATE.lock();
        let index = state.index_of(&self.probe).ok_or(ENOENT)?;
        let attached = state.probes.get_mut(index).ok_or(ENOENT)?;
        if attached.enabled {
            return Ok(());
        }
        attached.enabled = true;
        let result = match &attached.arm {
            Arm::Pending => Ok(()),
            Arm::Kernel(kprobe) => kprobe.enable(),
            Arm::Engine { .. } => match state.publish() {
                Err(e) if e == EBUSY => fall_back_to_kprobe(&mut state, index),
                other => other,
            },
            Arm::Sites(_) => state.publish(),
        };
        if result.is_err() {
            if let Some(attached) = state.probes.get_mut(index) {
                attached.enabled = false;
            }
        }
        result
    }

    /// Stops firing (a hit under way on another CPU may still complete).
    pub(crate) fn disable(&self) {
        let mut state = STATE.lock();
        let Some(attached) = state
            .index_of(&self.probe)
            .and_then(|i| state.probes.get_mut(i))
        else {
            return;
        };
        if !attached.enabled {
            return;
        }
        attached.enabled = false;
        match &attached.arm {
            Arm::Pending => {}
            Arm::Kernel(kprobe) => kprobe.disable(),
            Arm::Engine { .. } | Arm::Sites(_) => {
                if let Err(e) = state.publish() {
                    pr_warn!("could not disable a probe: {:?}\n", e);
                }
            }
        }
    }

    /// The resolved address (for the listing and `(sym+off)`), `None`
    /// while the probe's module is not loaded.
    pub(crate) fn address(&self) -> Option<usize> {
        let address = self.probe.address.load(Relaxed);
        (address != 0).then_some(address)
    }

    /// Hits missed (the kprobe's `nmissed`, or rftrace's count of
    /// recursions and returns it could not hook), for `kprobe_profile`.
    pub(crate) fn misses(&self) -> u64 {
        let own = self.probe.missed.load(Relaxed);
        let state = STATE.lock();
        let kernel = state
            .index_of(&self.probe)
            .and_then(|i| state.probes.get(i))
            .map_or(0, |a| match &a.arm {
                Arm::Kernel(kprobe) => kprobe.misses(),
                _ => 0,
            });
        own + kernel
    }
}

impl Drop for KernelProbe {
    fn drop(&mut self) {
        let mut state = STATE.lock();
        let Some(index) = state.index_of(&self.probe) else {
            return;
        };
        let Ok(attached) = state.probes.remove(index) else {
            return;
        };
        if attached.enabled && attached.arm.on_engine() {
            if let Err(e) = state.publish() {
                pr_warn!("could not detach a probe: {:?}\n", e);
            }
        }
        drop(state);
        // Unregistering a kernel kprobe waits until its handlers are done;
        // engine probes are off the published table after `publish`, which
        // waited for the dispatchers.
        drop(attached);
    }
}

impl State {
    /// What the probes share, made with the first probe.
    fn shared(&mut self) -> Result<&Shared> {
        if self.shared.is_none() {
            let busy = Arc::new(CpuBusy::new()?, GFP_KERNEL)?;
            let client = Arc::new(EntryClient::new(busy.clone()), GFP_KERNEL)?;
            self.shared = Some(Shared { busy, client });
        }
        self.shared.as_ref().ok_or(ENOMEM)
    }

    /// Where `probe` is in the list.
    fn index_of(&self, probe: &Arc<Probe>) -> Option<usize> {
        self.probes
            .iter()
            .position(|a| Arc::ptr_eq(&a.probe, probe))
    }

    /// Re-publishes the engine table from the enabled engine probes, has
    /// the engine patch exactly their sites, and starts or stops the
    /// return hook. On error the previous table stays.
    fn publish(&mut self) -> Result {
        let client = self.shared()?.client.clone();
        let mut table = SiteProbes::new();
        for attached in self.probes.iter().filter(|a| a.enabled) {
            match &attached.arm {
                Arm::Engine { site, .. } => table.add(*site, attached.probe.clone())?,
                Arm::Sites(sites) => {
                    for (site, _) in sites.iter() {
                        table.add(*site, attached.probe.clone())?;
                    }
                }
                _ => {}
            }
        }
        table.sort();
        if table.has_returns() && self.return_hook.is_none() {
            let hook = ReturnHook::start(client.clone())?;
            match KBox::new(hook, GFP_KERNEL) {
                Ok(hook) => {
                    client.set_return_hook(Some(&hook));
                    self.return_hook = Some(hook);
                }
                Err(_) => return Err(ENOMEM),
            }
        }
        let stop_returns = !table.has_returns();
        let empty = table.is_empty();
        let sites: Arc<dyn SiteSelector> = Arc::new(table.sites()?, GFP_KERNEL)?;
        let engine = fentry::engine().ok_or(ENODEV)?;
        // New entries first: a site patched before its entries are listed
        // would drop its first hits.
        let old = client.publish(Some(KBox::new(table, GFP_KERNEL)?));
        let update = match (self.engine_slot, empty) {
            (None, true) => Ok(()),
            (Some(slot), true) => {
                engine.unregister(slot);
                self.engine_slot = None;
                Ok(())
            }
            (Some(slot), false) => engine.reselect(slot, sites).map(|_| ()),
            (None, false) => engine
                .register(client.clone(), sites)
                .map(|(slot, _)| self.engine_slot = Some(slot)),
        };
        if let Err(e) = update {
            fentry::wait_for_dispatchers();
            drop(client.publish(old));
            return Err(match e {
                UpdateError::Busy => EBUSY,
                UpdateError::Other(e) => e,
            });
        }
        fentry::wait_for_dispatchers();
        drop(old);
        if stop_returns {
            if let Some(hook) = self.return_hook.take() {
                client.set_return_hook(None);
                fentry::wait_for_dispatchers();
                KBox::into_inner(hook).stop();
            }
        }
        Ok(())
    }
}

/// Arms `probe` where its place resolves to now.
fn arm(probe: &Arc<Probe>, busy: &Arc<CpuBusy>) -> Result<Arm, place::PlaceError> {
    if let OwnedPlace::Pattern(pattern) = &probe.place {
        kprobes::locked_down().map_err(|e| (ProbeErrorCode::FailRegProbe, e))?;
        return place::pattern_sites(pattern).map(Arm::Sites);
    }
    let resolved = match place::resolve(&probe.place, probe.is_return)? {
        Resolution::Pending => {
            probe.address.store(0, Release);
            return Ok(Arm::Pending);
        }
        Resolution::At(resolved) => resolved,
    };
    place::check_registrable(resolved.addr)?;
    let arm = if resolved.engine_site {
        // What `register_kprobe` refuses, the engine does not probe either.
        if crate::kernel_api::kprobes::blacklisted(resolved.addr) {
            return Err((ProbeErrorCode::FailRegProbe, EINVAL));
        }
        Arm::Engine {
            site: resolved.addr,
            module: crate::ksyms::module_of(resolved.addr) as usize,
        }
    } else {
        return arm_kernel(probe, busy, resolved.addr);
    };
    probe.address.store(resolved.addr, Release);
    Ok(arm)
}

/// Arms `probe` at `addr` with a kernel kprobe (or kretprobe), disabled.
fn arm_kernel(
    probe: &Arc<Probe>,
    busy: &Arc<CpuBusy>,
    addr: usize,
) -> Result<Arm, place::PlaceError> {
    let hits = Arc::new(
        kprobe::KprobeHits {
            probe: probe.clone(),
            busy: busy.clone(),
        },
        GFP_KERNEL,
    )
    .map_err(|_| (ProbeErrorCode::FailRegProbe, ENOMEM))?;
    let kprobe = KBox::pin_init(
        KernelKprobe::register(
            addr,
            (probe.is_return, probe.maxactive),
            probe.handler.entry_data_size(),
            hits,
        ),
        GFP_KERNEL,
    )
    .map_err(register_error)?;
    probe.address.store(kprobe.address(), Release);
    Ok(Arm::Kernel(kprobe))
}

/// Moves the enabled engine probe at `index`, whose site the kernel's
/// ftrace uses (a tracer, a kprobe, BPF of the kernel's), to a kernel
/// kprobe there, which the kernel arms through its ftrace, as it would
/// arm its own; enables it.
fn fall_back_to_kprobe(state: &mut State, index: usize) -> Result {
    let busy = state.shared()?.busy.clone();
    let attached = state.probes.get_mut(index).ok_or(ENOENT)?;
    let Arm::Engine { site, .. } = attached.arm else {
        return Err(EINVAL);
    };
    let arm = arm_kernel(&attached.probe, &busy, site).map_err(|(_, e)| e)?;
    attached.arm = arm;
    match &attached.arm {
        Arm::Kernel(kprobe) => kprobe.enable(),
        _ => Err(EINVAL),
    }
}

/// The error-log entry of a registration error, as `trace_kprobe_create`
/// picks it.
fn register_error(e: Error) -> place::PlaceError {
    let code = if e == crate::kernel_api::kprobes::eilseq() {
        ProbeErrorCode::BadInsnBndry
    } else if e == ENOENT {
        ProbeErrorCode::BadProbeAddr
    } else {
        ProbeErrorCode::FailRegProbe
    };
    (code, e)
}

/// Registers the module notifiers unless they are; they stay until
/// [`release`]. Without [`STATE`] held, in process context outside any
/// module notifier (a probe armed from one finds them registered).
pub(crate) fn follow_modules() -> Result {
    if STATE.lock().notifiers.is_some() {
        return Ok(());
    }
    // After the engine's notifier (priority 0), which lists a coming
    // module's sites and unpatches a going one's.
    let (coming, going) = register_pair(Chain::Modules, -1, &FOLLOWER)?;
    let mut state = STATE.lock();
    if state.notifiers.is_none() {
        state.notifiers = Some((coming, going));
        return Ok(());
    }
    drop(state);
    // Another registration was first; these go, outside the lock.
    drop((coming, going));
    Ok(())
}

/// Re-arms probes on a coming module, disarms engine probes of a going
/// one.
struct Follower;

static FOLLOWER: Follower = Follower;

impl OnModule for Follower {
    fn changed(&self, state: ModuleState, module: Module) {
        // SAFETY: the module is live during its notification.
        let name = unsafe { module.name() }.to_bytes();
        let mut guard = STATE.lock();
        let state_ref = &mut *guard;
        let Ok(shared) = state_ref.shared().map(|s| s.busy.clone()) else {
            return;
        };
        let mut republish = false;
        for attached in state_ref.probes.iter_mut() {
            match state {
                ModuleState::Coming if attached.probe.place.module() == Some(name) => {
                    republish |= rearm(attached, &shared, name);
                }
                ModuleState::Going => match &mut attached.arm {
                    Arm::Engine { module: m, .. } if *m == module.address() => {
                        republish |= attached.enabled;
                        attached.arm = Arm::Pending;
                        attached.probe.address.store(0, Release);
                    }
                    Arm::Sites(sites) => {
                        let before = sites.len();
                        sites.retain(|site| site.1 != module.address());
                        republish |= attached.enabled && sites.len() != before;
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        if republish {
            if let Err(e) = state_ref.publish() {
                pr_warn!("could not update probes for a module: {:?}\n", e);
            }
        }
    }
}

/// Registers `attached` again on its coming module (`name`), enabled if
/// it was; returns whether the engine table must be re-published.
fn rearm(attached: &mut Attached, busy: &Arc<CpuBusy>, name: &[u8]) -> bool {
    // Drop the gone registration first (unregistering a gone kprobe only
    // frees it).
    attached.arm = Arm::Pending;
    match arm(&attached.probe, busy) {
        Ok(arm) => {
            attached.arm = arm;
            match &attached.arm {
                Arm::Kernel(kprobe) if attached.enabled => {
                    if let Err(e) = kprobe.enable() {
                        pr_warn!(
                            "Failed to enable a probe on {}: {:?}\n",
                            kernel::str::BStr::from_bytes(name),
                            e
                        );
                    }
                    false
                }
                Arm::Engine { .. } => attached.enabled,
                _ => false,
            }
        }
        Err((_, e)) => {
            pr_warn!(
                "Failed to re-register probe on {}: {:?}\n",
                kernel::str::BStr::from_bytes(name),
                e
            );
            false
        }
    }
}
