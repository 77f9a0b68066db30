// SPDX-License-Identifier: GPL-2.0

//! Return probes at `__fentry__` sites: the entry client hooks the call's
//! return on the function_graph shadow stacks ([`crate::graph::ReturnHook`]),
//! and at the return the site's return probes are told, with `$retval` in
//! `ax` and the return address as `ret_ip`. Their MAXACTIVE is accepted
//! and ignored: a task has room for a fixed number of hooked calls (as
//! for the function_graph tracer); a call beyond is counted as missed.

use super::entry::EntryClient;
use crate::graph::ReturnClient;
use crate::kernel_api::regs::Regs;
use crate::probes::hit::Hit;
use core::sync::atomic::Ordering::Relaxed;

impl ReturnClient for EntryClient {
    fn on_return(&self, func: usize, ret: usize, regs: &Regs) {
        let Some(table) = self.table() else {
            return;
        };
        let probes = table.at(func);
        let returns = || probes.iter().filter(|(_, p)| p.is_return);
        let cpu = crate::cpu_local::processor_id();
        let Some(_running) = self.busy.enter(cpu) else {
            returns().for_each(|(_, p)| {
                p.missed.fetch_add(1, Relaxed);
            });
            return;
        };
        for (_, probe) in returns() {
            let hit = Hit {
                regs,
                addr: func,
                ret_ip: Some(ret),
            };
            probe.handler.on_hit(&hit);
        }
    }

    fn on_missed(&self, func: usize) {
        if let Some(table) = self.table() {
            for (_, probe) in table.at(func).iter().filter(|(_, p)| p.is_return) {
                probe.missed.fetch_add(1, Relaxed);
            }
        }
    }
}
