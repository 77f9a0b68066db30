// SPDX-License-Identifier: GPL-2.0

//! A lock that the recording path can take without calling into the
//! kernel.
//!
//! Tracers record from inside traced functions, so nothing on their path
//! may call a function the patch engine can trace: the kernel's spinlock
//! functions (`_raw_spin_trylock`, ...) are such functions, and a call to
//! one would be dispatched again, once, through the recursion guard's
//! transition bit, and traced. This lock is one atomic flag, taken with a
//! single compare-and-swap. Recording paths only ever try it and go on
//! without the data when it is taken; process-context users wait for it
//! with preemption off, so a holder is never preempted, and never hold it
//! across anything that sleeps. Lockdep does not see it.

use crate::cpu_local;
use core::cell::UnsafeCell;
use core::ops::{Deref, DerefMut};
use core::sync::atomic::{
    AtomicBool,
    Ordering::{Acquire, Relaxed, Release},
};

/// Data behind a [`TryLock`].
///
/// # Invariants
///
/// `data` is only accessed through a guard, and at most one guard exists
/// at a time (`locked` is set while it does).
pub(crate) struct TryLock<T> {
    locked: AtomicBool,
    data: UnsafeCell<T>,
}

// SAFETY: the flag serialises every access to `data` (the invariant).
unsafe impl<T: Send> Sync for TryLock<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Send for TryLock<T> {}

impl<T> TryLock<T> {
    /// An unlocked lock over `data`.
    pub(crate) const fn new(data: T) -> Self {
        TryLock {
            locked: AtomicBool::new(false),
            data: UnsafeCell::new(data),
        }
    }

    /// Takes the lock if it is free; never waits. Any context.
    #[inline]
    pub(crate) fn try_lock(&self) -> Option<TryLockGuard<'_, T>> {
        let preempt = PreemptOff::new();
        self.locked
            .compare_exchange(false, true, Acquire, Relaxed)
            .ok()
            .map(|_| TryLockGuard {
                lock: self,
                _preempt: preempt,
            })
    }

    /// Waits for the lock. Process context only: a recording path holds it
    /// for a few instructions, and never waits for it.
    pub(crate) fn lock(&self) -> TryLockGuard<'_, T> {
        loop {
            if let Some(guard) = self.try_lock() {
                return guard;
            }
            while self.locked.load(Relaxed) {
                core::hint::spin_loop();
            }
        }
    }
}

/// Preemption off for as long as a guard lives.
struct PreemptOff;

impl PreemptOff {
    #[inline]
    fn new() -> Self {
        // SAFETY: paired with the enable in `drop`.
        unsafe { cpu_local::preempt_disable_notrace() };
        PreemptOff
    }
}

impl Drop for PreemptOff {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: pairs with the disable in `new`, in the same context.
        unsafe { cpu_local::preempt_enable_notrace() };
    }
}

/// The lock held: access to the data.
pub(crate) struct TryLockGuard<'a, T> {
    lock: &'a TryLock<T>,
    _preempt: PreemptOff,
}

impl<T> Deref for TryLockGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: this guard holds the lock (the invariant).
        unsafe { &*self.lock.data.get() }
    }
}

impl<T> DerefMut for TryLockGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as above, and the guard is borrowed mutably.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T> Drop for TryLockGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        self.lock.locked.store(false, Release);
    }
}
