// SPDX-License-Identifier: GPL-2.0

//! The trace buffer of an instance: one lockless ring per possible CPU.
//!
//! The ring itself, its format and its readers' logic are kernel
//! independent (`portable::ring_buffer`); this is the kernel side: pages
//! from the page allocator ([`pages`]), per-CPU writing with preemption
//! disabled, and turning recording off for a reset.

mod pages;

use crate::bindings;
use crate::portable::ring_buffer::format::PAGE_DATA_SIZE;
use crate::portable::ring_buffer::ring::{CpuRing, Reservation, Stats};
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use kernel::{prelude::*, sync::Arc};
use pages::KernelPages;

/// Default size of each CPU's buffer in bytes, as ftrace's (1408 KiB).
pub(crate) const DEFAULT_SIZE: usize = 1_441_792;

/// The pages a ring of `bytes` of event data needs (at least two).
pub(crate) fn pages_for(bytes: usize) -> usize {
    bytes.div_ceil(PAGE_DATA_SIZE).max(2)
}

/// The rings of all possible CPUs.
///
/// A ring may belong to two buffers at once for a while: a per-CPU snapshot
/// swap makes new main and snapshot buffers that share all rings but the
/// swapped one with the buffers they replace (see
/// [`TraceBuffer::with_ring_of`]). Only the instance's live buffer is
/// written, and its rings are reset only under the instance's control lock,
/// so sharing never lets a writer and a reset meet in one ring.
pub(crate) struct TraceBuffer {
    cpus: KVec<Arc<CpuRing<KernelPages>>>,
    /// Pages of each ring.
    pages: KVec<usize>,
    /// Writers record nothing while this is non-zero.
    disabled: AtomicU32,
    /// When the buffer was made or last emptied as a whole, on the trace
    /// clock: where `latency-format` times count from (ftrace's
    /// `time_start`).
    time_start: AtomicU64,
}

impl TraceBuffer {
    /// Allocates a ring of `pages[cpu]` pages (at least two) for every
    /// possible CPU, in overwrite mode or not. Fails with `ENOMEM`, without
    /// eating into the system's reserve, when the memory is not available.
    pub(crate) fn new(pages: &[usize], overwrite: bool) -> Result<Self> {
        let wanted: usize = pages.iter().map(|&p| p.max(2)).sum();
        // SAFETY: reads the allocator's estimate of available pages.
        let available = unsafe { bindings::si_mem_available() }.max(0) as usize;
        if wanted >= available / 2 {
            return Err(ENOMEM);
        }
        let mut cpus = KVec::with_capacity(pages.len(), GFP_KERNEL)?;
        let mut sizes = KVec::with_capacity(pages.len(), GFP_KERNEL)?;
        for &count in pages {
            let ring = CpuRing::new(KernelPages::new(count.max(2))?);
            ring.set_overwrite(overwrite);
            cpus.push(Arc::new(ring, GFP_KERNEL)?, GFP_KERNEL)?;
            sizes.push(count.max(2), GFP_KERNEL)?;
        }
        Ok(TraceBuffer {
            cpus,
            pages: sizes,
            disabled: AtomicU32::new(0),
            time_start: AtomicU64::new(0),
        })
    }

    /// When the buffer was made or last emptied as a whole.
    pub(crate) fn time_start(&self) -> u64 {
        self.time_start.load(Relaxed)
    }

    /// Records `now` as the buffer's start (see [`Self::time_start`]).
    pub(crate) fn set_time_start(&self, now: u64) {
        self.time_start.store(now, Relaxed);
    }

    /// Pages of each CPU's ring.
    pub(crate) fn pages(&self) -> &[usize] {
        &self.pages
    }

    /// A buffer with this one's rings, but `other`'s ring for `cpu`: one
    /// half of a per-CPU snapshot swap. The rings are shared, not copied.
    /// Fails with `EINVAL` when the two rings differ in size (as the
    /// kernel's `ring_buffer_swap_cpu`) or `cpu` has none.
    pub(crate) fn with_ring_of(&self, other: &TraceBuffer, cpu: usize) -> Result<Self> {
        let (Some(theirs), Some(&their_pages)) = (other.cpus.get(cpu), other.pages.get(cpu)) else {
            return Err(EINVAL);
        };
        if self.pages.get(cpu) != Some(&their_pages) {
            return Err(EINVAL);
        }
        let mut cpus = KVec::with_capacity(self.cpus.len(), GFP_KERNEL)?;
        for (i, ring) in self.cpus.iter().enumerate() {
            let ring = if i == cpu { theirs } else { ring };
            cpus.push(ring.clone(), GFP_KERNEL)?;
        }
        Ok(TraceBuffer {
            cpus,
            pages: self.pages_vec()?,
            disabled: AtomicU32::new(0),
            time_start: AtomicU64::new(self.time_start()),
        })
    }

    /// A copy of [`Self::pages`].
    pub(crate) fn pages_vec(&self) -> Result<KVec<usize>> {
        let mut pages = KVec::new();
        pages.extend_from_slice(&self.pages, GFP_KERNEL)?;
        Ok(pages)
    }

    /// Bytes of event data the ring of `cpu` holds.
    pub(crate) fn data_size(&self, cpu: usize) -> usize {
        self.pages.get(cpu).map_or(0, |p| p * PAGE_DATA_SIZE)
    }

    /// The ring of `cpu`.
    pub(crate) fn cpu(&self, cpu: usize) -> Option<&CpuRing<KernelPages>> {
        self.cpus.get(cpu).map(|ring| &**ring)
    }

    /// Whether the ring of `cpu` is filled to `percent` of its pages (see
    /// [`CpuRing::watermark_hit`]).
    pub(crate) fn watermark_hit(&self, cpu: usize, percent: u32) -> bool {
        self.cpu(cpu)
            .is_some_and(|ring| ring.watermark_hit(percent))
    }

    /// Number of rings (possible CPU ids).
    pub(crate) fn nr_cpus(&self) -> usize {
        self.cpus.len()
    }

    /// Sets overwrite (true) or no-overwrite mode on every ring.
    pub(crate) fn set_overwrite(&self, on: bool) {
        self.cpus.iter().for_each(|ring| ring.set_overwrite(on));
    }

    /// The counters of all rings added up.
    pub(crate) fn total_stats(&self) -> Stats {
        self.cpus
            .iter()
            .map(|r| r.stats())
            .fold(Stats::default(), |a, b| Stats {
                written: a.written + b.written,
                overrun: a.overrun + b.overrun,
                dropped: a.dropped + b.dropped,
                read: a.read + b.read,
                commit_overrun: a.commit_overrun + b.commit_overrun,
            })
    }

    /// Writes an event into the ring of `cpu`, the CPU this runs on. Runs
    /// in any context, NMI included, with preemption off (the token proves
    /// it); returns false if the event was not recorded.
    #[inline]
    pub(crate) fn write_on(
        &self,
        cpu: usize,
        preempt_off: &NoPreempt,
        payload: &[u8],
        clock: &impl Fn() -> u64,
    ) -> bool {
        self.write_parts_on(cpu, preempt_off, payload.len(), (&[], payload), clock)
    }

    /// As [`Self::write_on`], for an event of `len` bytes given in two
    /// parts: `head` (a multiple of 4 bytes) then `tail`.
    #[inline]
    pub(crate) fn write_parts_on(
        &self,
        cpu: usize,
        preempt_off: &NoPreempt,
        len: usize,
        (head, tail): (&[u8], &[u8]),
        clock: &impl Fn() -> u64,
    ) -> bool {
        let Some(mut space) = self.reserve_on(cpu, preempt_off, len, clock) else {
            return false;
        };
        space.fill_parts(head, tail);
        space.commit();
        true
    }

    /// Reserves `len` bytes for an event in the ring of `cpu` (the CPU
    /// this runs on, with preemption off: the token), timed by `clock`;
    /// `None` if recording is off or there is no room. Any context.
    #[inline(always)]
    pub(crate) fn reserve_on<'a>(
        &'a self,
        cpu: usize,
        _preempt_off: &'a NoPreempt,
        len: usize,
        clock: &impl Fn() -> u64,
    ) -> Option<Reserved<'a>> {
        if self.disabled.load(Relaxed) != 0 {
            return None;
        }
        let ring = self.cpus.get(cpu)?;
        let reservation = ring.reserve(len, clock)?;
        Some(Reserved {
            ring,
            reservation: Some(reservation),
        })
    }

    /// Empties the ring of `cpu`, as [`Self::reset`] does for all.
    pub(crate) fn reset_cpu(&self, cpu: usize) {
        self.disabled
            .store(self.disabled.load(Relaxed) + 1, Relaxed);
        // SAFETY: as in `reset`.
        unsafe { bindings::synchronize_rcu() };
        if let Some(ring) = self.cpus.get(cpu) {
            ring.reset();
        }
        self.disabled
            .store(self.disabled.load(Relaxed) - 1, Relaxed);
    }

    /// Empties every ring. Recording stops while it runs, and no writer is
    /// left inside a ring when the reset starts.
    pub(crate) fn reset(&self) {
        self.disabled
            .store(self.disabled.load(Relaxed) + 1, Relaxed);
        // SAFETY: writers run with preemption disabled, which RCU treats as
        // a read-side critical section: after this no writer is in a ring.
        unsafe { bindings::synchronize_rcu() };
        self.cpus.iter().for_each(|ring| ring.reset());
        self.disabled
            .store(self.disabled.load(Relaxed) - 1, Relaxed);
    }
}

/// Space reserved for one event in a CPU's ring
/// ([`TraceBuffer::reserve_on`]), to fill and commit.
///
/// A ring cannot take back a reservation: dropping one commits it as it
/// stands, so that the ring's writers do not stay nested; the writer puts
/// the whole payload before that.
///
/// # Invariants
///
/// `reservation` is `Some` until the space is committed, and was made by
/// `ring`, on the CPU this runs on, with preemption off.
pub(crate) struct Reserved<'a> {
    ring: &'a CpuRing<KernelPages>,
    reservation: Option<Reservation>,
}

impl Reserved<'_> {
    /// Stores the event's payload, given as the 32-bit words the ring
    /// holds (words past the reserved length are left out).
    #[inline(always)]
    pub(crate) fn put_words<const N: usize>(&mut self, words: &[u32; N]) {
        if let Some(reservation) = &self.reservation {
            self.ring.put_words(reservation, words);
        }
    }

    /// Stores the event's payload from two parts: `head` (a multiple of 4
    /// bytes), then `tail`; bytes past the reserved length are left out,
    /// missing ones are zero.
    #[inline]
    pub(crate) fn fill_parts(&mut self, head: &[u8], tail: &[u8]) {
        if let Some(reservation) = &self.reservation {
            self.ring.fill_parts(reservation, head, tail);
        }
    }

    /// Sets byte `at` of the payload, after [`Self::fill_parts`].
    #[inline]
    pub(crate) fn put_byte(&mut self, at: usize, byte: u8) {
        if let Some(reservation) = &self.reservation {
            self.ring.put_byte(reservation, at, byte);
        }
    }

    /// Commits the event: readers see it once every writer nested on this
    /// CPU committed too.
    #[inline]
    pub(crate) fn commit(self) {
        // `drop` commits.
    }
}

impl Drop for Reserved<'_> {
    #[inline]
    fn drop(&mut self) {
        if let Some(reservation) = self.reservation.take() {
            self.ring.commit(reservation);
        }
    }
}

/// Preemption off for as long as it lives. While it does, the CPU cannot
/// change and an RCU grace period cannot end.
pub(crate) struct NoPreempt;

impl NoPreempt {
    /// Turns preemption off.
    pub(crate) fn new() -> Self {
        // SAFETY: paired with the enable in `drop`.
        unsafe { crate::cpu_local::preempt_disable_notrace() };
        NoPreempt
    }
}

impl Drop for NoPreempt {
    fn drop(&mut self) {
        // SAFETY: paired with the disable in `new`.
        unsafe { crate::cpu_local::preempt_enable_notrace() };
    }
}
