// SPDX-License-Identifier: GPL-2.0

//! Pid filters of the function tracer (`set_ftrace_pid`,
//! `set_ftrace_notrace_pid`) and the `function-fork` option.
//!
//! A [`PidSet`] is a sparse bitmap over every possible pid: 128 chunks of
//! 32768 bits, each allocated the first time a pid in it is added. Bits are
//! tested and changed with atomics, so the recording path reads a set
//! without locks and the fork and exit probes (atomic context) change it
//! without copying. Chunks are freed only with the set.

use crate::bindings;
use crate::portable::pid_words::PID_MAX_LIMIT;
use crate::task_events::{TaskEventProbes, TaskEvents};
use core::fmt::{self, Write};
use core::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering::Relaxed};
use kernel::prelude::*;

/// Pids per chunk.
const CHUNK_PIDS: usize = 32768;
/// Chunks needed for every pid up to `PID_MAX_LIMIT`.
const CHUNKS: usize = (PID_MAX_LIMIT as usize).div_ceil(CHUNK_PIDS) + 1;

/// One chunk of the bitmap.
struct Chunk {
    words: [AtomicU64; CHUNK_PIDS / 64],
}

/// A set of pids.
///
/// # Invariants
///
/// Each non-null `chunks` entry is a `KBox<Chunk>` leaked into the set and
/// freed only by its drop. `count` is the number of pids in the set (exact
/// when no change races).
pub(crate) struct PidSet {
    chunks: [AtomicPtr<Chunk>; CHUNKS],
    count: AtomicUsize,
}

// SAFETY: the chunks are only reached through atomics.
unsafe impl Send for PidSet {}
// SAFETY: as above.
unsafe impl Sync for PidSet {}

impl PidSet {
    /// The empty set.
    pub(crate) fn new() -> Self {
        PidSet {
            chunks: core::array::from_fn(|_| AtomicPtr::new(core::ptr::null_mut())),
            count: AtomicUsize::new(0),
        }
    }

    /// Whether the set has no pid: the filter is off.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.count.load(Relaxed) == 0
    }

    /// Where `pid`'s bit is.
    fn place(pid: u32) -> (usize, usize, u64) {
        let pid = pid as usize;
        let bit = pid % CHUNK_PIDS;
        (pid / CHUNK_PIDS, bit / 64, 1u64 << (bit % 64))
    }

    /// The chunk at `index`, if allocated.
    fn chunk(&self, index: usize) -> Option<&Chunk> {
        let chunk = self.chunks.get(index)?.load(Relaxed);
        // SAFETY: a non-null chunk lives as long as the set (the invariant).
        (!chunk.is_null()).then(|| unsafe { &*chunk })
    }

    /// Whether `pid` is in the set. Any context.
    #[inline]
    pub(crate) fn contains(&self, pid: u32) -> bool {
        let (chunk, word, mask) = Self::place(pid);
        self.chunk(chunk)
            .and_then(|c| c.words.get(word))
            .is_some_and(|w| w.load(Relaxed) & mask != 0)
    }

    /// Adds `pid`, allocating its chunk with `flags` if needed.
    pub(crate) fn insert(&self, pid: u32, flags: kernel::alloc::Flags) -> Result {
        let (index, word, mask) = Self::place(pid);
        let slot = self.chunks.get(index).ok_or(EINVAL)?;
        if slot.load(Relaxed).is_null() {
            let new = KBox::new(
                Chunk {
                    words: core::array::from_fn(|_| AtomicU64::new(0)),
                },
                flags,
            )?;
            let new = KBox::into_raw(new);
            if slot
                .compare_exchange(core::ptr::null_mut(), new, Relaxed, Relaxed)
                .is_err()
            {
                // SAFETY: made just above and not published.
                drop(unsafe { KBox::from_raw(new) });
            }
        }
        let chunk = self.chunk(index).ok_or(ENOMEM)?;
        let word = chunk.words.get(word).ok_or(EINVAL)?;
        if update_bits(word, |bits| bits | mask) & mask == 0 {
            self.count.fetch_add(1, Relaxed);
        }
        Ok(())
    }

    /// Removes `pid`.
    pub(crate) fn remove(&self, pid: u32) {
        let (index, word, mask) = Self::place(pid);
        let Some(word) = self.chunk(index).and_then(|c| c.words.get(word)) else {
            return;
        };
        if update_bits(word, |bits| bits & !mask) & mask != 0 {
            self.count.fetch_add(usize::MAX, Relaxed);
        }
    }

    /// Removes every pid.
    pub(crate) fn clear(&self) {
        for index in 0..CHUNKS {
            if let Some(chunk) = self.chunk(index) {
                for word in chunk.words.iter() {
                    let bits = word.swap(0, Relaxed);
                    let removed = bits.count_ones() as usize;
                    self.count.fetch_add(removed.wrapping_neg(), Relaxed);
                }
            }
        }
    }

    /// Calls `f` on every pid, in increasing order.
    pub(crate) fn for_each(&self, mut f: impl FnMut(u32) -> fmt::Result) -> fmt::Result {
        for index in 0..CHUNKS {
            let Some(chunk) = self.chunk(index) else {
                continue;
            };
            for (w, word) in chunk.words.iter().enumerate() {
                let mut bits = word.load(Relaxed);
                while bits != 0 {
                    let bit = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    f((index * CHUNK_PIDS + w * 64 + bit) as u32)?;
                }
            }
        }
        Ok(())
    }

    /// Writes the set as ftrace lists it: a pid per line, `no pid` if none.
    pub(crate) fn write_list(&self, out: &mut dyn Write) -> fmt::Result {
        if self.is_empty() {
            return out.write_str("no pid\n");
        }
        self.for_each(|pid| writeln!(out, "{pid}"))
    }
}

/// Replaces the bits of `word` by `change(bits)` atomically; returns the
/// bits before.
fn update_bits(word: &AtomicU64, change: impl Fn(u64) -> u64) -> u64 {
    let mut old = word.load(Relaxed);
    loop {
        match word.compare_exchange(old, change(old), Relaxed, Relaxed) {
            Ok(_) => return old,
            Err(now) => old = now,
        }
    }
}

impl Drop for PidSet {
    fn drop(&mut self) {
        for slot in self.chunks.iter() {
            let chunk = slot.load(Relaxed);
            if !chunk.is_null() {
                // SAFETY: leaked into the set by `insert`; nothing uses the
                // set any more.
                drop(unsafe { KBox::from_raw(chunk) });
            }
        }
    }
}

/// The two pid filters of an instance.
pub(crate) struct PidFilters {
    /// `set_ftrace_pid`: when not empty, only these pids are traced.
    pub(crate) trace: KBox<PidSet>,
    /// `set_ftrace_notrace_pid`: these pids are never traced.
    pub(crate) notrace: KBox<PidSet>,
}

impl PidFilters {
    /// No filters.
    pub(crate) fn new() -> Result<Self> {
        Ok(PidFilters {
            trace: KBox::new(PidSet::new(), GFP_KERNEL)?,
            notrace: KBox::new(PidSet::new(), GFP_KERNEL)?,
        })
    }

    /// Whether the task `pid` is traced. Any context.
    #[inline]
    pub(crate) fn allows(&self, pid: u32) -> bool {
        (self.trace.is_empty() || self.trace.contains(pid)) && !self.notrace.contains(pid)
    }

    /// `index` 0 names `set_ftrace_pid`, 1 `set_ftrace_notrace_pid`.
    pub(crate) fn set(&self, index: usize) -> &PidSet {
        if index == 0 {
            &self.trace
        } else {
            &self.notrace
        }
    }

    /// A forked task joins the sets its parent is in (`function-fork`).
    fn follow_fork(&self, parent: u32, child: u32) {
        for set in [&*self.trace, &*self.notrace] {
            if set.contains(parent) {
                // An allocation failure in the fork path loses the child,
                // as a full pid list does in ftrace.
                let _ = set.insert(child, GFP_ATOMIC);
            }
        }
    }

    /// A freed task leaves both sets (`function-fork`).
    fn forget(&self, pid: u32) {
        self.trace.remove(pid);
        self.notrace.remove(pid);
    }
}

/// The probes of `function-fork`: forked children join their parent's
/// sets, freed tasks leave them.
pub(crate) type ForkFollower = TaskEventProbes<PidFilters>;

impl TaskEvents for PidFilters {
    fn forked(&self, parent: *mut bindings::task_struct, child: *mut bindings::task_struct) {
        // SAFETY: the tracepoint passes live tasks.
        let (parent, child) = unsafe {
            (
                bindings::rft_task_pid(parent),
                bindings::rft_task_pid(child),
            )
        };
        self.follow_fork(parent as u32, child as u32);
    }

    fn freed(&self, task: *mut bindings::task_struct) {
        // SAFETY: as above.
        let pid = unsafe { bindings::rft_task_pid(task) };
        self.forget(pid as u32);
    }
}
