// SPDX-License-Identifier: GPL-2.0

//! Readers of `per_cpu/cpuN/trace_pipe_raw` waiting, in `poll` or `splice`,
//! for that CPU's ring to fill to `buffer_percent` of its pages (the
//! kernel's "full waiters"), as trace-cmd's recorders wait: they are woken
//! when the watermark is reached, not by every event (their own activity,
//! traced, would wake them again and again).
//!
//! With `buffer_percent` at 0 they wait for any data, on the instance's
//! queue of readers of any data instead. `ioctl(fd, 0)` on `trace_pipe_raw`
//! kicks them: a waiting splice returns then, as in the kernel.

use crate::ring_buffer::TraceBuffer;
use crate::wait::WaitQueue;
use core::sync::atomic::{AtomicU32, Ordering::Relaxed};
use kernel::prelude::*;

/// The kernel's default `buffer_percent`.
const DEFAULT_PERCENT: u32 = 50;

/// The highest `buffer_percent`.
pub(crate) const MAX_PERCENT: u32 = 100;

/// The waiters for a full ring, the watermark and the kick count.
#[pin_data]
pub(crate) struct FullWaiters {
    #[pin]
    queue: WaitQueue,
    /// `buffer_percent`: 0 to [`MAX_PERCENT`].
    percent: AtomicU32,
    /// How many times waiters were kicked (`ioctl(fd, 0)`).
    kicks: AtomicU32,
}

impl FullWaiters {
    /// No waiters; the watermark at half the ring, as in the kernel.
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(Self {
            queue <- WaitQueue::new(),
            percent: AtomicU32::new(DEFAULT_PERCENT),
            kicks: AtomicU32::new(0),
        })
    }

    /// `buffer_percent`.
    pub(crate) fn percent(&self) -> u32 {
        self.percent.load(Relaxed)
    }

    /// Sets `buffer_percent`; at most [`MAX_PERCENT`].
    pub(crate) fn set_percent(&self, percent: u32) {
        self.percent.store(percent.min(MAX_PERCENT), Relaxed);
    }

    /// The queue a reader waiting for `percent` sleeps on: this one, or
    /// `any_data` (the instance's readers of any data) for 0.
    pub(crate) fn queue_for<'a>(&'a self, percent: u32, any_data: &'a WaitQueue) -> &'a WaitQueue {
        if percent == 0 {
            any_data
        } else {
            &self.queue
        }
    }

    /// After a write to the ring of `cpu` in `buffer`: wakes the waiters if
    /// that ring is filled to the watermark. Any context; cheap while
    /// nobody waits.
    #[inline]
    pub(crate) fn wake_if_full(&self, buffer: &TraceBuffer, cpu: usize) {
        if self.queue.may_have_sleeper() && buffer.watermark_hit(cpu, self.percent()) {
            self.queue.wake_all();
        }
    }

    /// How many times waiters were kicked: a waiter notes it before it
    /// sleeps and stops waiting when it changes.
    pub(crate) fn kicks(&self) -> u32 {
        self.kicks.load(Relaxed)
    }

    /// Kicks every waiter (`ioctl(fd, 0)`): those on this queue and those on
    /// `any_data`.
    pub(crate) fn kick(&self, any_data: &WaitQueue) {
        self.kicks.fetch_add(1, Relaxed);
        self.queue.wake_all();
        any_data.wake_all();
    }
}
