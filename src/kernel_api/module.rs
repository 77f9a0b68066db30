// SPDX-License-Identifier: GPL-2.0

//! Kernel modules: following their loads and unloads (module notifiers),
//! and the references perf takes on them.

use crate::bindings;
use crate::ksyms;
use core::ffi::{c_int, c_void};
use core::ptr::NonNull;
use kernel::{c_str, ffi::c_char, prelude::*, str::CStr, types::Opaque};

/// Whether a module called `name` (with `_`, as loaded modules are
/// named) is loaded: the kernel's own `module_exists`, which its tracefs
/// asks before keeping a `:mod:` word. May sleep.
pub(crate) fn is_loaded(name: &CStr) -> bool {
    let Some(address) = ksyms::address_of(c_str!("module_exists")) else {
        return false;
    };
    // SAFETY: `module_exists` is `bool module_exists(const char *)` in
    // kernel/trace/trace.c; `name` is NUL-terminated.
    unsafe {
        let module_exists: unsafe extern "C" fn(*const c_char) -> bool =
            core::mem::transmute(address);
        module_exists(name.as_char_ptr())
    }
}

/// A loaded kernel module, named by address.
///
/// # Invariants
///
/// `0` is a `struct module` that was live when this value was made; it is
/// only used while the module is known to be live (between its COMING and
/// GOING notifications).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Module(NonNull<bindings::module>);

// SAFETY: a module is a kernel object usable from any task.
unsafe impl Send for Module {}
// SAFETY: as above; the handle allows nothing without `unsafe`.
unsafe impl Sync for Module {}

impl Module {
    /// The module at `ptr`, if not null.
    pub(crate) fn from_ptr(ptr: *mut c_void) -> Option<Self> {
        NonNull::new(ptr.cast()).map(Module)
    }

    /// Its address, to compare with another module's.
    pub(crate) fn address(self) -> usize {
        self.0.as_ptr() as usize
    }

    /// Its name.
    ///
    /// # Safety
    ///
    /// The module is live for `'a`.
    pub(crate) unsafe fn name<'a>(self) -> &'a CStr {
        // SAFETY: a live module's name is a NUL-terminated array in it.
        unsafe { CStr::from_char_ptr(bindings::rft_module_name(self.0.as_ptr())) }
    }

    /// Gives back one reference taken on the module by someone else (perf,
    /// for each counter on one of its events), so that it does not keep
    /// the module loaded.
    ///
    /// # Safety
    ///
    /// The caller holds a reference it did not take, and calls
    /// [`Module::take_back_reference`] before whoever took it drops it.
    pub(crate) unsafe fn give_back_reference(self) {
        // SAFETY: a reference is held (the caller's promise), so the
        // module is live and the count does not drop below what others
        // hold.
        unsafe { bindings::module_put(self.0.as_ptr()) };
    }

    /// Takes again a reference given back by
    /// [`Module::give_back_reference`], even if the module is going.
    ///
    /// # Safety
    ///
    /// The module is live: its GOING notification has not finished.
    pub(crate) unsafe fn take_back_reference(self) {
        // SAFETY: the module is live (the caller's promise);
        // `__module_get` takes a reference also when it is going.
        unsafe { bindings::__module_get(self.0.as_ptr()) };
    }
}

/// Which module notifications a [`ModuleNotifier`] passes on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ModuleState {
    /// The module is loaded and about to run its init function.
    Coming,
    /// The module is being unloaded (or failed to load).
    Going,
}

/// What a [`ModuleNotifier`] calls. May sleep.
pub(crate) trait OnModule: Sync {
    /// `module` has reached `state`.
    fn changed(&self, state: ModuleState, module: Module);
}

/// Which notifier chain a [`ModuleNotifier`] is on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Chain {
    /// The module loader's (`register_module_notifier`).
    Modules,
    /// The tracepoints' (`register_tracepoint_module_notifier`): told of
    /// modules that have tracepoints, at COMING once their tracepoints are
    /// set up and at GOING before they are checked to have no probe left,
    /// with `tracepoint_module_list_mutex` held. Registering replays
    /// COMING for every loaded module, unregistering GOING.
    TracepointModules,
}

/// A module notifier calling `owner` at each module reaching `state`, in
/// `priority` order among the kernel's notifiers (higher first).
///
/// # Invariants
///
/// `block` is registered from `register` until `drop`, and is the first
/// field, so the callback finds the rest from the block; `owner` outlives
/// the registration.
#[repr(C)]
#[pin_data(PinnedDrop)]
pub(crate) struct ModuleNotifier<T: OnModule> {
    #[pin]
    block: Opaque<bindings::notifier_block>,
    state: ModuleState,
    chain: Chain,
    owner: *const T,
}

// SAFETY: the block is changed only by the kernel, under its notifier
// lock; `owner` is `Sync`.
unsafe impl<T: OnModule> Send for ModuleNotifier<T> {}
// SAFETY: as above.
unsafe impl<T: OnModule> Sync for ModuleNotifier<T> {}

impl<T: OnModule> ModuleNotifier<T> {
    /// Registers a notifier at `priority` for `state`. The kernel's trace
    /// events of a module are added at COMING and removed at GOING by a
    /// notifier of priority 1.
    ///
    /// # Safety
    ///
    /// `owner` must outlive the returned value.
    pub(crate) unsafe fn register(
        priority: c_int,
        state: ModuleState,
        owner: *const T,
    ) -> impl PinInit<Self, Error> {
        // SAFETY: the caller's promise.
        unsafe { Self::register_on(Chain::Modules, priority, state, owner) }
    }

    /// Registers a notifier on `chain`, at `priority` for `state`.
    ///
    /// # Safety
    ///
    /// `owner` must outlive the returned value.
    pub(crate) unsafe fn register_on(
        chain: Chain,
        priority: c_int,
        state: ModuleState,
        owner: *const T,
    ) -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            state,
            chain,
            owner,
            block <- Opaque::try_ffi_init(move |slot: *mut bindings::notifier_block| {
                // SAFETY: `slot` is valid for writes and pinned.
                unsafe {
                    slot.write(bindings::notifier_block {
                        notifier_call: Some(notify::<T>),
                        next: core::ptr::null_mut(),
                        priority,
                    })
                };
                // SAFETY: the block is pinned and stays registered until
                // `drop`; `notify` finds `owner` through it, and the other
                // fields are set before the block is (field order of the
                // initialiser).
                kernel::error::to_result(unsafe {
                    match chain {
                        Chain::Modules => bindings::register_module_notifier(slot),
                        Chain::TracepointModules => {
                            bindings::register_tracepoint_module_notifier(slot)
                        }
                    }
                })
            }),
        })
    }
}

#[pinned_drop]
impl<T: OnModule> PinnedDrop for ModuleNotifier<T> {
    fn drop(self: Pin<&mut Self>) {
        // SAFETY: registered in `register_on` (type invariant);
        // unregistering waits for running callbacks.
        unsafe {
            match self.chain {
                Chain::Modules => bindings::unregister_module_notifier(self.block.get()),
                Chain::TracepointModules => {
                    bindings::unregister_tracepoint_module_notifier(self.block.get())
                }
            }
        };
    }
}

/// A notifier at COMING and one at GOING, calling the same owner.
pub(crate) type NotifierPair<T> = (Pin<KBox<ModuleNotifier<T>>>, Pin<KBox<ModuleNotifier<T>>>);

/// Registers a [`NotifierPair`] on `chain` at `priority`, calling the
/// static `owner`.
pub(crate) fn register_pair<T: OnModule>(
    chain: Chain,
    priority: c_int,
    owner: &'static T,
) -> Result<NotifierPair<T>> {
    let register = |state| {
        // SAFETY: `owner` is static, so it outlives the notifier.
        KBox::pin_init(
            unsafe { ModuleNotifier::register_on(chain, priority, state, owner) },
            GFP_KERNEL,
        )
    };
    Ok((
        register(ModuleState::Coming)?,
        register(ModuleState::Going)?,
    ))
}

/// The callback of a [`ModuleNotifier<T>`].
///
/// # Safety
///
/// Called by the module loader (or the tracepoints' chain) with the block
/// of a registered `ModuleNotifier<T>` and a live module (a `tp_module`
/// holding one).
unsafe extern "C" fn notify<T: OnModule>(
    block: *mut bindings::notifier_block,
    action: usize,
    data: *mut c_void,
) -> c_int {
    // SAFETY: `block` is the first field of a `ModuleNotifier<T>` (type
    // invariant, `repr(C)`), whose owner outlives the registration.
    let (notifier, owner) = unsafe {
        let notifier = &*block.cast::<ModuleNotifier<T>>();
        (notifier, &*notifier.owner)
    };
    let state = match action as u32 {
        bindings::module_state_MODULE_STATE_COMING => ModuleState::Coming,
        bindings::module_state_MODULE_STATE_GOING => ModuleState::Going,
        _ => return bindings::RFT_NOTIFY_DONE,
    };
    let module = match notifier.chain {
        Chain::Modules => data,
        // SAFETY: the tracepoints' chain passes a live `tp_module`.
        Chain::TracepointModules if !data.is_null() => unsafe {
            (*data.cast::<bindings::tp_module>()).mod_.cast()
        },
        Chain::TracepointModules => core::ptr::null_mut(),
    };
    if let Some(module) = Module::from_ptr(module).filter(|_| state == notifier.state) {
        owner.changed(state, module);
    }
    bindings::RFT_NOTIFY_DONE
}
