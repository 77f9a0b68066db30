// SPDX-License-Identifier: GPL-2.0

//! `per_cpu/cpuN/trace_pipe_raw`: hands out the CPU's ring a page at a
//! time in the binary format, consuming it, as trace-cmd records. As the
//! kernel's `tracing_buffers_*` operations:
//!
//! - `read` takes the oldest page as it is, even the one the writer is
//!   still filling, and waits for any data unless non-blocking;
//! - `splice` takes only pages the writer has left, as many as fit, and
//!   waits until the ring is filled to `buffer_percent` (or an `ioctl`
//!   kicks it); woken, it takes what is there, or returns 0;
//! - `poll` says readable when the ring is filled to `buffer_percent`;
//! - `ioctl(fd, 0)` kicks waiting splices.

use super::{has_unread, newer_buffer, page_buffer};
use crate::instance::Instance;
use crate::portable::ring_buffer::{format::PAGE_SIZE, ring::Cursor};
use crate::rftracefs::Stream;
use crate::ring_buffer::TraceBuffer;
use crate::wait::WaitQueue;
use kernel::{
    ffi::{c_long, c_uint},
    prelude::*,
    sync::Arc,
};

/// The open file: its CPU, the buffer it reads and its place there.
pub(crate) struct TracePipeRaw {
    instance: Arc<Instance>,
    buffer: Arc<TraceBuffer>,
    cpu: usize,
    cursor: Cursor,
    page: KBox<[u8; PAGE_SIZE]>,
}

impl TracePipeRaw {
    /// Moves to the buffer writers use now once the one read is drained
    /// (after a resize or a snapshot swap).
    fn follow_live_buffer(&mut self) {
        if let Some(live) = newer_buffer(&self.instance, &self.buffer) {
            if !self.buffer.cpu(self.cpu).is_some_and(|r| r.has_unread()) {
                self.buffer = live;
                self.cursor = Cursor::new();
            }
        }
    }

    /// Appends pages consumed from the ring to `text`, while they fit in
    /// `room` bytes; only pages the writer has left if `complete_only`.
    /// Returns how many.
    fn take_pages(
        &mut self,
        text: &mut KVec<u8>,
        room: usize,
        complete_only: bool,
    ) -> Result<usize> {
        let ring = self.buffer.cpu(self.cpu).ok_or(EINVAL)?;
        let mut pages = 0;
        while text.len() + PAGE_SIZE <= room
            && ring
                .consume_page(&mut self.cursor, &mut self.page, complete_only)
                .is_some()
        {
            text.extend_from_slice(&self.page[..], GFP_KERNEL)?;
            pages += 1;
        }
        Ok(pages)
    }
}

/// Whether the ring of file `index` is filled to `percent`.
fn filled_to(instance: &Instance, index: usize, percent: u32) -> bool {
    let Some(cpu) = index.checked_sub(1) else {
        return false;
    };
    instance.with_live_buffer(|buffer, _| buffer.watermark_hit(cpu, percent))
}

impl Stream for TracePipeRaw {
    fn open(
        instance: &Arc<Instance>,
        index: usize,
        _write_only: bool,
        _truncate: bool,
    ) -> Result<Self> {
        let cpu = index.checked_sub(1).ok_or(EINVAL)?;
        Ok(TracePipeRaw {
            instance: instance.clone(),
            buffer: instance.buffer(),
            cpu,
            cursor: Cursor::new(),
            page: page_buffer()?,
        })
    }

    fn fill(&mut self, text: &mut KVec<u8>, _want: usize, nonblock: bool) -> Result {
        loop {
            self.follow_live_buffer();
            if self.take_pages(text, PAGE_SIZE, false)? > 0 {
                return Ok(());
            }
            if nonblock {
                return Err(EAGAIN);
            }
            let (instance, index) = (&self.instance, self.cpu + 1);
            instance
                .readers()
                .wait_until(&|| has_unread(instance, index))?;
        }
    }

    fn fill_spliced(
        &mut self,
        text: &mut KVec<u8>,
        want: usize,
        nonblock: bool,
        splice_nonblock: bool,
    ) -> Result {
        if want < PAGE_SIZE {
            return Err(EINVAL);
        }
        let mut woken = false;
        loop {
            self.follow_live_buffer();
            if self.take_pages(text, want, true)? > 0 || woken {
                return Ok(());
            }
            if nonblock || splice_nonblock {
                return Err(EAGAIN);
            }
            let (instance, index) = (&self.instance, self.cpu + 1);
            let full = instance.full_readers();
            let (percent, kicks) = (full.percent(), full.kicks());
            full.queue_for(percent, instance.readers())
                .wait_until(&|| filled_to(instance, index, percent) || full.kicks() != kicks)?;
            // No waiting again once tracing is off.
            if !instance.tracing_on() {
                return Ok(());
            }
            woken = true;
        }
    }

    fn readable(instance: &Instance, index: usize) -> bool {
        filled_to(instance, index, instance.full_readers().percent())
    }

    fn poll_queue(instance: &Instance, _index: usize) -> &WaitQueue {
        let full = instance.full_readers();
        full.queue_for(full.percent(), instance.readers())
    }

    fn ioctl(instance: &Instance, _index: usize, cmd: c_uint) -> Result<c_long> {
        if cmd != 0 {
            return Err(ENOTTY);
        }
        instance.full_readers().kick(instance.readers());
        Ok(0)
    }
}
