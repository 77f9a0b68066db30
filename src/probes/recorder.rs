// SPDX-License-Identifier: GPL-2.0

//! What a probe event does at each hit: builds its record (the common
//! fields, the probe's own fields, then the fetched arguments) once, and
//! offers it to every instance that enabled the event.

use super::args::EventArgs;
use super::fetch_env::HitEnv;
use super::hit::{Hit, ProbeHandler};
use super::scratch::Scratch;
use super::sinks::PublishedSinks;
use crate::portable::output::ENTRY_HEADER_SIZE;
use crate::ring_buffer::NoPreempt;
use core::sync::atomic::{AtomicU64, Ordering::Relaxed};
use kernel::{prelude::*, sync::Arc};

/// Where a probe fires.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Space {
    /// In the kernel (kprobes, fprobes).
    Kernel,
    /// In a user task (uprobes).
    User,
}

/// The hit path of one probe event, shared by its probe points.
pub(crate) struct Recorder {
    /// The record type.
    pub(crate) id: u16,
    pub(crate) is_return: bool,
    pub(crate) space: Space,
    pub(crate) args: EventArgs,
    pub(crate) sinks: PublishedSinks,
    /// Hits of the event's probes, as `kprobe_profile` counts them.
    pub(crate) hits: AtomicU64,
    /// Hits that found their record buffer taken (a probe firing inside
    /// another's handler).
    pub(crate) nested: AtomicU64,
    scratch: Arc<Scratch>,
}

impl Recorder {
    /// The hit path of record type `id`.
    pub(crate) fn new(
        id: u16,
        (is_return, space): (bool, Space),
        args: EventArgs,
        scratch: Arc<Scratch>,
    ) -> Self {
        Recorder {
            id,
            is_return,
            space,
            args,
            sinks: PublishedSinks::new(),
            hits: AtomicU64::new(0),
            nested: AtomicU64::new(0),
            scratch,
        }
    }

    /// Where the arguments start in a record: after the common fields and
    /// the probe's own (`__probe_ip`, or `__probe_func` and
    /// `__probe_ret_ip`).
    pub(crate) fn args_offset(&self) -> usize {
        ENTRY_HEADER_SIZE + if self.is_return { 16 } else { 8 }
    }

    /// Builds the record of `hit` in `buf`; its length, or `None` if it
    /// does not fit.
    fn build(&self, hit: &Hit<'_>, (flags, depth): (u8, u8), buf: &mut [u8]) -> Option<usize> {
        let header = buf.get_mut(..ENTRY_HEADER_SIZE)?;
        header[..2].copy_from_slice(&self.id.to_le_bytes());
        header[2] = flags;
        header[3] = depth;
        header[4..8].copy_from_slice(&crate::cpu_local::current_pid().to_le_bytes());
        let mut at = ENTRY_HEADER_SIZE;
        let mut put = |value: u64| -> Option<()> {
            buf.get_mut(at..at + 8)?.copy_from_slice(&value.to_le_bytes());
            at += 8;
            Some(())
        };
        match hit.ret_ip {
            Some(ret_ip) if self.is_return => {
                put(hit.addr as u64)?;
                put(ret_ip as u64)?;
            }
            _ => put(hit.addr as u64)?,
        }
        let env = HitEnv::new(hit, self.space);
        self.args.store(&env, buf, self.args_offset())
    }
}

impl ProbeHandler for Recorder {
    fn on_hit(&self, hit: &Hit<'_>) {
        self.hits.fetch_add(1, Relaxed);
        if self.sinks.is_empty() {
            return;
        }
        // The context of the probed code, before this handler's own
        // preemption disabling.
        let context = crate::instance::current_context();
        let preempt_off = NoPreempt::new();
        let cpu = crate::cpu_local::processor_id();
        let done = self.scratch.with(cpu, context.0, &preempt_off, |buf| {
            if let Some(len) = self.build(hit, context, buf) {
                self.sinks
                    .for_each(&preempt_off, |sink| sink.offer(&buf[..len], cpu));
            }
        });
        if done.is_none() {
            self.nested.fetch_add(1, Relaxed);
        }
    }
}
