// SPDX-License-Identifier: GPL-2.0

//! Pid filters: those of the function tracer (`set_ftrace_pid`,
//! `set_ftrace_notrace_pid`, option `function-fork`) and those of events
//! (`set_event_pid`, `set_event_notrace_pid`, option `event-fork`), each
//! a [`PidFilters`] of the instance.
//!
//! A [`PidSet`] is a sparse bitmap over every pid the kernel's pid lists
//! take (below `1 << 30`): a table of 256 tables of 128 chunks of 32768
//! bits, each table and chunk allocated the first time a pid in it is
//! added. Bits are tested and changed with atomics, so the recording path
//! reads a set without locks and the fork and exit probes (atomic context)
//! change it without copying. Tables and chunks are freed only with the
//! set.

use crate::bindings;
use crate::kernel_api::tracepoint::synchronize_unregister;
use crate::portable::events::pid_filter::{self, PidList, TaskRole};
use crate::portable::input::InputError;
use crate::portable::pid_words::{self, PID_LIST_LIMIT};
use crate::task_events::{TaskEventProbes, TaskEvents};
use core::fmt::{self, Write};
use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering::Relaxed};
use kernel::{new_mutex, prelude::*, sync::Mutex};

/// Pids per chunk.
const CHUNK_PIDS: usize = 32768;
/// Chunks per table.
const TABLE_CHUNKS: usize = 128;
/// Tables needed for every pid below `PID_LIST_LIMIT`.
const TABLES: usize = (PID_LIST_LIMIT as usize).div_ceil(CHUNK_PIDS * TABLE_CHUNKS);

/// One chunk of the bitmap.
struct Chunk {
    words: [AtomicU64; CHUNK_PIDS / 64],
}

/// The chunks of `CHUNK_PIDS * TABLE_CHUNKS` pids.
struct Table {
    chunks: [AtomicPtr<Chunk>; TABLE_CHUNKS],
}

/// Where a pid's bit is.
struct Place {
    table: usize,
    chunk: usize,
    word: usize,
    mask: u64,
}

impl Place {
    /// `pid`'s place; `None` at or above the limit.
    fn of(pid: u32) -> Option<Self> {
        let pid = pid as usize;
        if pid >= PID_LIST_LIMIT as usize {
            return None;
        }
        let chunk = pid / CHUNK_PIDS;
        let bit = pid % CHUNK_PIDS;
        Some(Place {
            table: chunk / TABLE_CHUNKS,
            chunk: chunk % TABLE_CHUNKS,
            word: bit / 64,
            mask: 1u64 << (bit % 64),
        })
    }
}

/// A list of pids, as the kernel's `trace_pid_list`.
///
/// # Invariants
///
/// Each non-null `tables` entry is a `KBox<Table>`, and each non-null
/// chunk entry of a table a `KBox<Chunk>`, leaked into the set and freed
/// only by its drop. `count` is the number of pids in the set (exact when
/// no change races). A set that is not `active` holds no pid, but for a
/// fork that races with [`PidSet::clear`] and that the clear waits for.
pub(crate) struct PidSet {
    tables: [AtomicPtr<Table>; TABLES],
    count: AtomicUsize,
    /// Whether the list is in use: the kernel's list pointer is set.
    active: AtomicBool,
}

// SAFETY: the tables and chunks are only reached through atomics.
unsafe impl Send for PidSet {}
// SAFETY: as above.
unsafe impl Sync for PidSet {}

impl PidSet {
    /// An empty list, not in use (2 KB: copied into its allocation from
    /// this constant, not built on the stack). Only ever a value to
    /// initialise with, each use a fresh copy: its atomics are never shared.
    #[allow(clippy::declare_interior_mutable_const)]
    const EMPTY: PidSet = PidSet {
        tables: [const { AtomicPtr::new(core::ptr::null_mut()) }; TABLES],
        count: AtomicUsize::new(0),
        active: AtomicBool::new(false),
    };

    /// An empty list, not in use, in its own allocation.
    pub(crate) fn new_boxed() -> Result<KBox<Self>> {
        Ok(KBox::write(KBox::new_uninit(GFP_KERNEL)?, Self::EMPTY))
    }

    /// Whether the set has no pid.
    #[inline]
    fn is_empty(&self) -> bool {
        self.count.load(Relaxed) == 0
    }

    /// The table at `index`, if allocated.
    fn table(&self, index: usize) -> Option<&Table> {
        let table = self.tables.get(index)?.load(Relaxed);
        // SAFETY: a non-null table lives as long as the set (the invariant).
        (!table.is_null()).then(|| unsafe { &*table })
    }

    /// The chunk of `place`, if allocated.
    fn chunk(&self, place: &Place) -> Option<&Chunk> {
        let chunk = self
            .table(place.table)?
            .chunks
            .get(place.chunk)?
            .load(Relaxed);
        // SAFETY: a non-null chunk lives as long as the set (the invariant).
        (!chunk.is_null()).then(|| unsafe { &*chunk })
    }

    /// Whether `pid` is in the set. Any context.
    #[inline]
    pub(crate) fn contains(&self, pid: u32) -> bool {
        Place::of(pid).is_some_and(|place| {
            self.chunk(&place)
                .and_then(|c| c.words.get(place.word))
                .is_some_and(|w| w.load(Relaxed) & place.mask != 0)
        })
    }

    /// Adds `pid`, allocating its table and chunk with `flags` if needed.
    fn insert(&self, pid: u32, flags: kernel::alloc::Flags) -> Result {
        let place = Place::of(pid).ok_or(EINVAL)?;
        let table_slot = self.tables.get(place.table).ok_or(EINVAL)?;
        fill_slot(table_slot, flags, || Table {
            chunks: core::array::from_fn(|_| AtomicPtr::new(core::ptr::null_mut())),
        })?;
        let table = self.table(place.table).ok_or(ENOMEM)?;
        let chunk_slot = table.chunks.get(place.chunk).ok_or(EINVAL)?;
        fill_slot(chunk_slot, flags, || Chunk {
            words: core::array::from_fn(|_| AtomicU64::new(0)),
        })?;
        let chunk = self.chunk(&place).ok_or(ENOMEM)?;
        let word = chunk.words.get(place.word).ok_or(EINVAL)?;
        if update_bits(word, |bits| bits | place.mask) & place.mask == 0 {
            self.count.fetch_add(1, Relaxed);
        }
        Ok(())
    }

    /// Removes `pid`.
    fn remove(&self, pid: u32) {
        let Some(place) = Place::of(pid) else {
            return;
        };
        let Some(word) = self.chunk(&place).and_then(|c| c.words.get(place.word)) else {
            return;
        };
        if update_bits(word, |bits| bits & !place.mask) & place.mask != 0 {
            self.count.fetch_add(usize::MAX, Relaxed);
        }
    }

    /// Calls `f` on every allocated chunk and the first pid it holds.
    fn for_each_chunk(&self, mut f: impl FnMut(&Chunk, usize) -> fmt::Result) -> fmt::Result {
        for t in 0..TABLES {
            let Some(table) = self.table(t) else {
                continue;
            };
            for (c, chunk) in table.chunks.iter().enumerate() {
                let chunk = chunk.load(Relaxed);
                if !chunk.is_null() {
                    // SAFETY: a non-null chunk lives as long as the set.
                    f(unsafe { &*chunk }, (t * TABLE_CHUNKS + c) * CHUNK_PIDS)?;
                }
            }
        }
        Ok(())
    }

    /// Calls `f` on every pid, in increasing order.
    fn for_each(&self, mut f: impl FnMut(u32) -> fmt::Result) -> fmt::Result {
        self.for_each_chunk(|chunk, first| {
            for (w, word) in chunk.words.iter().enumerate() {
                let mut bits = word.load(Relaxed);
                while bits != 0 {
                    let bit = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    f((first + w * 64 + bit) as u32)?;
                }
            }
            Ok(())
        })
    }

    /// Whether the list is in use (it may hold no pid).
    #[inline]
    pub(crate) fn is_active(&self) -> bool {
        self.active.load(Relaxed)
    }

    /// Writes the pids, one per line, as the kernel's `trace_pid_show`.
    pub(crate) fn write_pids(&self, out: &mut dyn Write) -> fmt::Result {
        self.for_each(|pid| writeln!(out, "{pid}"))
    }

    /// Adds the pids of a write to a pid file, all or none, as the
    /// kernel's `trace_pid_write`: a write that leaves the list without a
    /// pid takes it out of use, as the kernel frees it. May sleep.
    fn write(&self, text: &[u8]) -> Result<(), InputError> {
        // The kernel returns before parsing an empty write.
        if text.is_empty() {
            return Ok(());
        }
        for pid in pid_words::parse(text) {
            pid?;
        }
        for pid in pid_words::parse(text).flatten() {
            self.insert(pid, GFP_KERNEL)
                .map_err(|_| InputError::NoMemory)?;
        }
        self.active.store(!self.is_empty(), Relaxed);
        Ok(())
    }

    /// Empties the list and takes it out of use (`O_TRUNC`). May sleep.
    fn clear(&self) {
        if !self.active.swap(false, Relaxed) && self.is_empty() {
            return;
        }
        // A fork probe that saw the list in use may still add a child:
        // wait for it, so that the list ends empty.
        synchronize_unregister();
        let _ = self.for_each_chunk(|chunk, _| {
            for word in chunk.words.iter() {
                let removed = word.swap(0, Relaxed).count_ones() as usize;
                self.count.fetch_add(removed.wrapping_neg(), Relaxed);
            }
            Ok(())
        });
    }
}

impl PidList for PidSet {
    #[inline]
    fn is_active(&self) -> bool {
        PidSet::is_active(self)
    }

    #[inline]
    fn contains(&self, pid: u32) -> bool {
        PidSet::contains(self, pid)
    }
}

/// Fills an empty `slot` with a leaked `KBox` of `make()`; a racing
/// filler may win, which is as good.
fn fill_slot<T>(
    slot: &AtomicPtr<T>,
    flags: kernel::alloc::Flags,
    make: impl FnOnce() -> T,
) -> Result {
    if !slot.load(Relaxed).is_null() {
        return Ok(());
    }
    let new = KBox::into_raw(KBox::new(make(), flags)?);
    if slot
        .compare_exchange(core::ptr::null_mut(), new, Relaxed, Relaxed)
        .is_err()
    {
        // SAFETY: made just above and not published.
        drop(unsafe { KBox::from_raw(new) });
    }
    Ok(())
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
        for table in self.tables.iter() {
            let table = table.load(Relaxed);
            if table.is_null() {
                continue;
            }
            // SAFETY: leaked into the set by `insert`; nothing uses the set
            // any more.
            let table = unsafe { KBox::from_raw(table) };
            for chunk in table.chunks.iter() {
                let chunk = chunk.load(Relaxed);
                if !chunk.is_null() {
                    // SAFETY: as above.
                    drop(unsafe { KBox::from_raw(chunk) });
                }
            }
        }
    }
}

/// A pair of pid filters: the function tracer's or the events'.
pub(crate) struct PidFilters {
    /// `set_ftrace_pid`, `set_event_pid`: while in use, only these pids
    /// are traced.
    trace: KBox<PidSet>,
    /// `set_ftrace_notrace_pid`, `set_event_notrace_pid`: these pids are
    /// never traced.
    notrace: KBox<PidSet>,
    /// Taken by writes to the files, one at a time as in the kernel.
    writing: Pin<KBox<Mutex<()>>>,
}

impl PidFilters {
    /// No filters.
    pub(crate) fn new() -> Result<Self> {
        Ok(PidFilters {
            trace: PidSet::new_boxed()?,
            notrace: PidSet::new_boxed()?,
            writing: KBox::pin_init(new_mutex!(()), GFP_KERNEL)?,
        })
    }

    /// Whether the task `pid` is traced. Any context.
    #[inline]
    pub(crate) fn allows(&self, pid: u32) -> bool {
        !pid_filter::ignores_task(&*self.trace, &*self.notrace, pid)
    }

    /// Whether an event's `record`, of an event whose tasks play `role`,
    /// recorded while task `current` runs, is left out. Any context.
    #[inline]
    pub(crate) fn ignores_record(&self, role: TaskRole, record: &[u8], current: u32) -> bool {
        (self.trace.is_active() || self.notrace.is_active())
            && role.ignores(record, current, &*self.trace, &*self.notrace)
    }

    /// `index` 0 names the trace list, 1 the notrace list.
    pub(crate) fn set(&self, index: usize) -> &PidSet {
        if index == 0 {
            &self.trace
        } else {
            &self.notrace
        }
    }

    /// A write to the file of list `index` (see [`PidFilters::set`]): adds
    /// its pids. May sleep.
    pub(crate) fn write(&self, index: usize, text: &[u8]) -> Result<(), InputError> {
        let _writing = self.writing.lock();
        self.set(index).write(text)
    }

    /// Opening the file of list `index` with `O_TRUNC`: empties the list
    /// and takes it out of use. May sleep.
    pub(crate) fn clear(&self, index: usize) {
        let _writing = self.writing.lock();
        self.set(index).clear();
    }

    /// A forked task joins the lists its parent is in (`function-fork`,
    /// `event-fork`).
    fn follow_fork(&self, parent: u32, child: u32) {
        for set in [&*self.trace, &*self.notrace] {
            if set.is_active() && set.contains(parent) {
                // An allocation failure in the fork path loses the child,
                // as a full pid list does in ftrace.
                let _ = set.insert(child, GFP_ATOMIC);
            }
        }
    }

    /// A freed task leaves both lists, which stay in use.
    fn forget(&self, pid: u32) {
        self.trace.remove(pid);
        self.notrace.remove(pid);
    }
}

/// The probes of `function-fork` and `event-fork`: forked children join
/// their parent's lists, freed tasks leave them.
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
