// SPDX-License-Identifier: GPL-2.0

//! The buffer benchmark run at load time (`bench_events=N`): the same work
//! as the kernel's `ring_buffer_benchmark` producer with its reader off,
//! 10-byte events written one by one, each with preemption turned off and
//! on again, so the two can be compared side by side.

use crate::instance::Instance;
use kernel::prelude::*;

/// Writes `events` 10-byte events into `instance`'s buffer, on whatever CPU
/// the loop runs, and logs the time per event. The buffer is emptied after.
pub(crate) fn run(instance: &Instance, events: u64) {
    if events == 0 {
        return;
    }
    let mut payload = [0u8; 10];
    let start = instance.now();
    let mut hit = 0u64;
    for i in 0..events {
        payload[..8].copy_from_slice(&i.to_le_bytes());
        if instance.with_live_buffer(|buffer, preempt_off| {
            buffer.write(preempt_off, &payload, &|| instance.now())
        }) {
            hit += 1;
        }
    }
    let elapsed = instance.now().saturating_sub(start);
    let stats = instance.buffer().total_stats();
    pr_info!(
        "benchmark: {} events of 10 bytes in {} ns: {} ns per event ({} hit, {} overruns)\n",
        events,
        elapsed,
        elapsed / events,
        hit,
        stats.overrun
    );
    instance.buffer().reset();
}
