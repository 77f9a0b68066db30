// SPDX-License-Identifier: GPL-2.0

//! The list of trace instances: the top level and the named ones, in the
//! order they were made.

use crate::instance::Instance;
use kernel::{prelude::*, str::CStr, sync::Arc};

/// Every instance of the module.
pub(crate) struct Instances {
    /// The top level, from module load to unload.
    top: Option<Arc<Instance>>,
    /// The instances of `instances/`, oldest first.
    named: KVec<Arc<Instance>>,
}

kernel::sync::global_lock! {
    // SAFETY: initialised by `init` at module load, before any use.
    pub(crate) unsafe(uninit) static LIST: Mutex<Instances> = Instances {
        top: None,
        named: KVec::new(),
    };
}

/// Makes the list's lock. Called once, at module load, first.
pub(crate) fn init() {
    // SAFETY: called once, at module load, before any other use.
    unsafe { LIST.init() };
}

/// The list, locked.
pub(crate) type Guard = kernel::sync::GlobalGuard<LIST>;

/// Locks the list.
pub(crate) fn lock() -> Guard {
    LIST.lock()
}

/// Every instance, the top level first: a snapshot, for work that must
/// not hold the list's lock.
pub(crate) fn all() -> Result<KVec<Arc<Instance>>> {
    let list = LIST.lock();
    let mut all = KVec::with_capacity(list.named.len() + 1, GFP_KERNEL)?;
    for instance in Iterator::chain(list.top.iter(), list.named.iter()) {
        all.push(instance.clone(), GFP_KERNEL)?;
    }
    Ok(all)
}

/// Makes `top` the top-level instance, at module load.
pub(crate) fn set_top(top: Arc<Instance>) {
    LIST.lock().top = Some(top);
}

/// Empties the list at unload: every instance is shut down, then freed
/// once the last reference to it goes.
pub(crate) fn unload() {
    let (top, named) = {
        let mut list = LIST.lock();
        (list.top.take(), core::mem::take(&mut list.named))
    };
    for instance in Iterator::chain(named.iter(), top.iter()) {
        instance.shut_down();
    }
}

impl Instances {
    /// The top-level instance.
    pub(crate) fn top(&self) -> Option<&Arc<Instance>> {
        self.top.as_ref()
    }

    /// The instances of `instances/`, oldest first.
    pub(crate) fn named(&self) -> &[Arc<Instance>] {
        &self.named
    }

    /// The instance named `name` under `instances/`.
    pub(crate) fn find(&self, name: &CStr) -> Option<&Arc<Instance>> {
        self.named
            .iter()
            .find(|i| i.name().is_some_and(|n| n.to_bytes() == name.to_bytes()))
    }

    /// Adds a new instance of `instances/`.
    pub(crate) fn add(&mut self, instance: Arc<Instance>) -> Result {
        self.named.push(instance, GFP_KERNEL)?;
        Ok(())
    }

    /// Takes `instance` out of the list.
    pub(crate) fn take(&mut self, instance: &Instance) -> Option<Arc<Instance>> {
        let index = self
            .named
            .iter()
            .position(|i| core::ptr::eq(&**i, instance))?;
        self.named.remove(index).ok()
    }
}
