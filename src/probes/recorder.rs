// SPDX-License-Identifier: GPL-2.0

//! What a probe event does at each hit: builds its record (the common
//! fields, the probe's own fields, then the fetched arguments) once, and
//! offers it to every instance that enabled the event.

use super::args::EventArgs;
use super::fetch_env::HitEnv;
use super::hit::Hit;
use super::scratch::Scratch;
use super::sinks::PublishedSinks;
use crate::portable::output::ENTRY_HEADER_SIZE;
use crate::portable::probes::exec;
use crate::portable::probes::layout::{head_size, Head};
use crate::ring_buffer::NoPreempt;
use core::sync::atomic::{AtomicU64, Ordering::Relaxed};
use kernel::sync::Arc;

/// Where a probe fires.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Space {
    /// In the kernel (kprobes, fprobes).
    Kernel,
    /// In a user task (uprobes).
    User,
}

/// The hit path of one probe event, shared by its probe points (each
/// fetches its own arguments, of the same types).
pub(crate) struct Recorder {
    /// The record type.
    pub(crate) id: u16,
    pub(crate) is_return: bool,
    pub(crate) space: Space,
    pub(crate) sinks: PublishedSinks,
    /// Hits that found their record buffer taken (a probe firing inside
    /// another's handler).
    pub(crate) nested: AtomicU64,
    scratch: Arc<Scratch>,
}

impl Recorder {
    /// The hit path of record type `id`.
    pub(crate) fn new(id: u16, (is_return, space): (bool, Space), scratch: Arc<Scratch>) -> Self {
        Recorder {
            id,
            is_return,
            space,
            sinks: PublishedSinks::new(),
            nested: AtomicU64::new(0),
            scratch,
        }
    }

    /// Builds the record of `hit` in `buf`, fetching `args` from the
    /// fetch environment `env`: its length, or `None` if it does not fit.
    fn build(
        &self,
        hit: &Hit<'_>,
        (args, env): (&EventArgs, &HitEnv<'_>),
        buf: &mut [u8],
    ) -> Option<usize> {
        let head = match hit.ret_ip {
            Some(ret_ip) if self.is_return => Head::Return {
                func: hit.addr as u64,
                ret_ip: ret_ip as u64,
            },
            _ => Head::Entry {
                ip: hit.addr as u64,
            },
        };
        let len = args.measure(env, self.is_return);
        let record = buf.get_mut(..len)?;
        record[..2].copy_from_slice(&self.id.to_le_bytes());
        record[4..8].copy_from_slice(&crate::cpu_local::current_pid().to_le_bytes());
        head.store(record);
        args.store(env, record, head_size(self.is_return), self.is_return);
        Some(len)
    }

    /// Offers the record in `record` to every instance, in context
    /// `(flags, depth)`, on this CPU with preemption off.
    fn offer(&self, record: &mut [u8], (flags, depth): (u8, u8), preempt_off: &NoPreempt) {
        if record.len() < ENTRY_HEADER_SIZE {
            return;
        }
        record[2] = flags;
        record[3] = depth;
        let cpu = crate::cpu_local::processor_id();
        self.sinks
            .for_each(preempt_off, |sink| sink.offer(record, cpu));
    }

    /// Records a hit of a kernel probe (a return probe's with what it
    /// saved at the entry, `hit.entry_data`); with preemption off, never
    /// sleeps.
    pub(crate) fn record_kernel(&self, hit: &Hit<'_>, args: &EventArgs) {
        if self.sinks.is_empty() {
            return;
        }
        // The context of the probed code, before this handler's own
        // preemption disabling.
        let context = crate::instance::current_context();
        let preempt_off = NoPreempt::new();
        let cpu = crate::cpu_local::processor_id();
        // As the kernel's probes, which fetch into a reserved event: no
        // fetching when no instance would keep the record (`tracing_on`
        // 0, a CPU out of `tracing_cpumask`, the event soft-disabled).
        if !self.sinks.any(&preempt_off, |sink| sink.may_record(cpu)) {
            return;
        }
        let env = HitEnv::new(hit, self.space, 0);
        let done = self.scratch.with(cpu, context.0, &preempt_off, |buf| {
            if let Some(len) = self.build(hit, (args, &env), buf) {
                self.offer(&mut buf[..len], context, &preempt_off);
            }
        });
        if done.is_none() {
            self.nested.fetch_add(1, Relaxed);
        }
    }

    /// Saves what a return probe's `$argN` read, at the entry of the call
    /// `hit` (`store_trace_entry_data`), into `out`.
    pub(crate) fn save_entry_data(&self, hit: &Hit<'_>, args: &EventArgs, out: &mut [u8]) {
        let env = HitEnv::new(hit, self.space, 0);
        exec::store_entry_data(args.specs(), &env, out);
    }

    /// Records a hit of a uprobe, in the probed task with preemption on:
    /// the arguments are fetched first (user memory may fault in), into a
    /// buffer of this CPU held by its mutex, then the record is offered,
    /// as the kernel's `__uprobe_trace_func` does. `file_offset`: the
    /// probe's offset in its file. May sleep.
    pub(crate) fn record_user(&self, hit: &Hit<'_>, args: &EventArgs, file_offset: u64) {
        if self.sinks.is_empty() {
            return;
        }
        let env = HitEnv::new(hit, self.space, file_offset);
        self.scratch.with_user(|buf| {
            if let Some(len) = self.build(hit, (args, &env), buf) {
                let preempt_off = NoPreempt::new();
                // The probed task's context: the handler's own preemption
                // disabling is not counted, as `tracing_gen_ctx_dec`.
                let (flags, depth) = crate::instance::current_context();
                let depth = depth.saturating_sub(1);
                self.offer(&mut buf[..len], (flags, depth), &preempt_off);
            }
        });
    }
}
