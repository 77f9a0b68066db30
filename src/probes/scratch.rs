// SPDX-License-Identifier: GPL-2.0

//! Where a probe hit builds its record before offering it to each
//! instance: a buffer per CPU and context (task, softirq, hardirq, NMI),
//! taken for the length of one hit. A hit that finds its buffer taken (a
//! probe firing inside another probe's handler, in the same context) is
//! missed, as the kernel's kprobes miss a nested hit.
//!
//! Uprobe hits fetch with preemption on (user memory may have to be paged
//! in), into a buffer per CPU held by its mutex, as the kernel's
//! `uprobe_buffer_get`.

use crate::portable::output::{FLAG_HARDIRQ, FLAG_NMI, FLAG_SOFTIRQ};
use crate::ring_buffer::NoPreempt;
use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, Ordering::Acquire, Ordering::Release};
use kernel::{new_mutex, prelude::*, sync::Mutex};

/// The room for one record: what one ring-buffer page holds, the most an
/// event record can be.
pub(crate) const RECORD_MAX: usize = 4096;

/// Contexts a CPU nests: task, softirq, hardirq, NMI.
const CONTEXTS: usize = 4;

/// One buffer and whether it is taken.
struct Slot {
    taken: AtomicBool,
    bytes: UnsafeCell<[u8; RECORD_MAX]>,
}

/// A uprobe record buffer and the mutex that holds it.
type UserBuffer = Pin<KBox<Mutex<KBox<[u8; RECORD_MAX]>>>>;

/// The buffers of every CPU.
///
/// # Invariants
///
/// `bytes` of a slot is only borrowed by the holder of its `taken` flag.
pub(crate) struct Scratch {
    slots: KVec<KBox<Slot>>,
    /// For uprobe hits, by CPU.
    user: KVec<UserBuffer>,
}

// SAFETY: a slot's bytes are used by one holder at a time (type invariant).
unsafe impl Sync for Scratch {}
// SAFETY: as above.
unsafe impl Send for Scratch {}

impl Scratch {
    /// Buffers for `cpus` CPUs.
    pub(crate) fn new(cpus: usize) -> Result<Self> {
        let mut slots = KVec::with_capacity(cpus * CONTEXTS, GFP_KERNEL)?;
        for _ in 0..cpus * CONTEXTS {
            slots.push(
                KBox::new(
                    Slot {
                        taken: AtomicBool::new(false),
                        bytes: UnsafeCell::new([0; RECORD_MAX]),
                    },
                    GFP_KERNEL,
                )?,
                GFP_KERNEL,
            )?;
        }
        let mut user = KVec::with_capacity(cpus, GFP_KERNEL)?;
        for _ in 0..cpus {
            let buf = KBox::new([0u8; RECORD_MAX], GFP_KERNEL)?;
            user.push(KBox::pin_init(new_mutex!(buf), GFP_KERNEL)?, GFP_KERNEL)?;
        }
        Ok(Scratch { slots, user })
    }

    /// Runs `f` on the uprobe buffer of the CPU this runs on, holding its
    /// mutex (the task may move to another CPU meanwhile: the buffer is
    /// still its own while it holds the mutex). May sleep.
    pub(crate) fn with_user<R>(&self, f: impl FnOnce(&mut [u8; RECORD_MAX]) -> R) -> Option<R> {
        let cpu = crate::cpu_local::processor_id();
        let slot = self.user.get(cpu).or_else(|| self.user.first())?;
        let mut buf = slot.lock();
        Some(f(&mut buf))
    }

    /// Runs `f` on the buffer of `cpu` (this CPU, preemption off) in the
    /// context `flags` (a record's flags) says; `None` if it is taken.
    #[inline]
    pub(crate) fn with<R>(
        &self,
        cpu: usize,
        flags: u8,
        _preempt_off: &NoPreempt,
        f: impl FnOnce(&mut [u8; RECORD_MAX]) -> R,
    ) -> Option<R> {
        let context = if flags & FLAG_NMI != 0 {
            3
        } else if flags & FLAG_HARDIRQ != 0 {
            2
        } else if flags & FLAG_SOFTIRQ != 0 {
            1
        } else {
            0
        };
        let slot = self.slots.get(cpu * CONTEXTS + context)?;
        if slot.taken.swap(true, Acquire) {
            return None;
        }
        // SAFETY: this holds `taken` (type invariant) until below.
        let result = f(unsafe { &mut *slot.bytes.get() });
        slot.taken.store(false, Release);
        Some(result)
    }
}
