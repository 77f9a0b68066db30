// SPDX-License-Identifier: GPL-2.0

//! Words that only one CPU writes (the ring's writer and the interrupts that
//! nest on it), and any CPU may read: the kernel's `local_t`.
//!
//! On x86-64 an update is one instruction without the `lock` prefix: atomic
//! with respect to interrupts on the writing CPU, which is all a per-CPU
//! ring needs, and much cheaper than a locked one. Elsewhere (and for
//! correctness everywhere) it falls back to ordinary atomics.

use core::sync::atomic::{AtomicU64, Ordering};

/// A 64-bit word updated only by its owning CPU.
#[repr(transparent)]
pub(crate) struct Local(AtomicU64);

impl Local {
    /// A word holding `value`.
    pub(crate) const fn new(value: u64) -> Self {
        Local(AtomicU64::new(value))
    }

    /// Reads the word (any CPU).
    pub(crate) fn load(&self, order: Ordering) -> u64 {
        self.0.load(order)
    }

    /// Sets the word (owning CPU; `Release` orders earlier writes before it).
    pub(crate) fn store(&self, value: u64, order: Ordering) {
        self.0.store(value, order)
    }

    /// Adds `n` (owning CPU).
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn add(&self, n: u64) {
        // SAFETY: the pointer is to this word, valid and aligned; one `add`
        // cannot be torn by an interrupt, and only this CPU writes the word.
        unsafe {
            core::arch::asm!(
                "add qword ptr [{p}], {n}",
                p = in(reg) self.0.as_ptr(),
                n = in(reg) n,
                options(nostack),
            )
        }
    }

    /// Adds `n` (owning CPU).
    #[cfg(not(target_arch = "x86_64"))]
    pub(crate) fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }

    /// Subtracts `n` and returns the new value (owning CPU).
    pub(crate) fn sub_return(&self, n: u64) -> u64 {
        self.add(n.wrapping_neg());
        self.0.load(Ordering::Relaxed)
    }

    /// Replaces `current` by `new` if the word still holds `current`;
    /// returns what it held (owning CPU).
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn compare_exchange(&self, current: u64, new: u64) -> Result<u64, u64> {
        let previous: u64;
        // SAFETY: as in `add`: `cmpxchg` without `lock` is atomic with
        // respect to interrupts on this CPU, the only writer.
        unsafe {
            core::arch::asm!(
                "cmpxchg qword ptr [{p}], {new}",
                p = in(reg) self.0.as_ptr(),
                new = in(reg) new,
                inout("rax") current => previous,
                options(nostack),
            )
        };
        if previous == current {
            Ok(previous)
        } else {
            Err(previous)
        }
    }

    /// Replaces `current` by `new` if the word still holds `current`;
    /// returns what it held (owning CPU).
    #[cfg(not(target_arch = "x86_64"))]
    pub(crate) fn compare_exchange(&self, current: u64, new: u64) -> Result<u64, u64> {
        self.0
            .compare_exchange(current, new, Ordering::Relaxed, Ordering::Relaxed)
    }
}
