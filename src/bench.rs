// SPDX-License-Identifier: GPL-2.0

//! The buffer benchmark run at load time (`bench_ms=N`), the same work as
//! the kernel's `ring_buffer_benchmark` so the two compare side by side: a
//! producer hammers the buffer with 10-byte events for N milliseconds,
//! reading the clock every [`WRITE_ITERATION`] events; with
//! `bench_reader=1` a consumer on another CPU meanwhile takes whole pages
//! out of every CPU's ring, as the kernel's reader does by pages.

use crate::instance::Instance;
use crate::portable::ring_buffer::{format::PAGE_SIZE, ring::Cursor};
use kernel::{
    prelude::*,
    sync::{
        atomic::{Acquire, Atomic, Release},
        Arc,
    },
    time::{delay::fsleep, Delta},
};

/// Events written between two looks at the clock (the kernel benchmark's
/// `write_iteration`).
const WRITE_ITERATION: u64 = 50;

/// What the producer and the consumer share.
struct Run {
    instance: Arc<Instance>,
    /// Set by the producer when it is done.
    stop: Atomic<bool>,
    /// Set by the consumer when it has returned.
    consumer_done: Atomic<bool>,
}

/// Runs the benchmark on `instance`'s buffer for `ms` milliseconds (none
/// for 0), with a consumer if `reader`, and logs the results in the kernel
/// benchmark's terms. The buffer is emptied after.
pub(crate) fn run(instance: &Arc<Instance>, ms: u64, reader: bool) {
    if ms == 0 {
        return;
    }
    let run = match Arc::new(
        Run {
            instance: instance.clone(),
            stop: Atomic::new(false),
            consumer_done: Atomic::new(!reader),
        },
        GFP_KERNEL,
    ) {
        Ok(run) => run,
        Err(_) => return pr_err!("benchmark: out of memory\n"),
    };
    if reader {
        let consumer = run.clone();
        if crate::kernel_api::workqueue::default_queue()
            .try_spawn(GFP_KERNEL, move || consume(&consumer))
            .is_err()
        {
            return pr_err!("benchmark: cannot start the consumer\n");
        }
    }
    let (elapsed, hit, missed) = produce(instance, ms);
    run.stop.store(true, Release);
    while !run.consumer_done.load(Acquire) {
        fsleep(Delta::from_millis(1));
    }
    let stats = instance.buffer().total_stats();
    let entries = stats.written.saturating_sub(stats.overrun + stats.read);
    pr_info!(
        "benchmark: {} ms, reader {}: hit {} missed {} entries {} overruns {} read {}\n",
        elapsed / 1_000_000,
        if reader { "on" } else { "off" },
        hit,
        missed,
        entries,
        stats.overrun,
        stats.read
    );
    // As the kernel benchmark's first figure: time over events written.
    pr_info!("benchmark: {} ns per entry\n", elapsed / hit.max(1));
    instance.clear(None);
}

/// The benchmark's event: 10 bytes, as the kernel benchmark reserves.
const EVENT_LEN: usize = 10;

/// Writes 10-byte events for `ms` milliseconds; returns the time taken and
/// the events written and refused.
fn produce(instance: &Instance, ms: u64) -> (u64, u64, u64) {
    let (mut hit, mut missed) = (0u64, 0u64);
    let start = instance.now();
    let deadline = start.saturating_add(ms.saturating_mul(1_000_000));
    let mut now = start;
    while now < deadline {
        for _ in 0..WRITE_ITERATION {
            if write_event(instance, hit) {
                hit += 1;
            } else {
                missed += 1;
            }
        }
        now = instance.now();
    }
    (now - start, hit, missed)
}

/// Writes one event holding `count` as the tracers write theirs (reserve,
/// store the words, commit), as the kernel benchmark reserves, stores and
/// commits; false if it was refused.
fn write_event(instance: &Instance, count: u64) -> bool {
    instance.with_live_buffer(|buffer, preempt_off| {
        let cpu = crate::cpu_local::processor_id();
        let Some(mut space) = buffer.reserve_on(cpu, preempt_off, EVENT_LEN, &|| instance.now())
        else {
            return false;
        };
        // The count, then two zero bytes and the word's padding.
        space.put_words(&[count as u32, (count >> 32) as u32, 0]);
        space.commit();
        true
    })
}

/// The consumer: takes pages out of every CPU's ring until the producer
/// stops and the buffer is drained, sleeping briefly whenever all are
/// empty.
fn consume(run: &Run) {
    if let Ok(mut page) = KBox::new([0u8; PAGE_SIZE], GFP_KERNEL) {
        let buffer = run.instance.buffer();
        let mut cursors = KVec::new();
        for _ in 0..buffer.nr_cpus() {
            if cursors.push(Cursor::new(), GFP_KERNEL).is_err() {
                pr_err!("benchmark: out of memory in the consumer\n");
                run.consumer_done.store(true, Release);
                return;
            }
        }
        loop {
            let stopping = run.stop.load(Acquire);
            let mut took = false;
            for (cpu, cursor) in cursors.iter_mut().enumerate() {
                if let Some(ring) = buffer.cpu(cpu) {
                    while ring.consume_page(cursor, &mut page, false).is_some() {
                        took = true;
                    }
                }
            }
            if stopping && !took {
                break;
            }
            if !took {
                fsleep(Delta::from_micros(50));
            }
        }
    }
    run.consumer_done.store(true, Release);
}
