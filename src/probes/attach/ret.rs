// SPDX-License-Identifier: GPL-2.0

//! Return probes at `__fentry__` sites: the entry client hooks the call's
//! return on the function_graph shadow stacks ([`crate::graph::ReturnHook`]),
//! and at the return the site's return probes are told, with `$retval` in
//! `ax`, the return address as `ret_ip` and the entry data they saved
//! (their `$argN`, beside the frame). Their MAXACTIVE is accepted
//! and ignored: a task has room for a fixed number of hooked calls (as
//! for the function_graph tracer); a call beyond is counted as missed.

use super::entry::EntryClient;
use crate::graph::{Kept, ReturnClient};
use crate::kernel_api::regs::Regs;
use crate::probes::hit::Hit;
use core::sync::atomic::Ordering::Relaxed;

impl ReturnClient for EntryClient {
    fn on_return(&self, func: usize, ret: usize, regs: &Regs, kept: Kept<'_>) {
        let Some(table) = self.table() else {
            return;
        };
        let probes = table.at(func);
        let returns = || probes.iter().map(|e| &e.probe).filter(|p| p.is_return);
        let cpu = crate::cpu_local::processor_id();
        let Some(_running) = self.busy.enter(cpu) else {
            returns().for_each(|p| {
                p.missed.fetch_add(1, Relaxed);
            });
            return;
        };
        // The entry data was laid out by the table of the entry: with
        // another table now, the returns read none.
        let mut rest = if kept.tag == table.serial {
            kept.bytes
        } else {
            &[]
        };
        for probe in returns() {
            let (entry_data, others) =
                rest.split_at(probe.handler.entry_data_size().min(rest.len()));
            rest = others;
            let hit = Hit {
                regs,
                addr: func,
                ret_ip: Some(ret),
                entry_data,
            };
            probe.handler.on_hit(&hit);
        }
    }

    fn on_missed(&self, func: usize) {
        if let Some(table) = self.table() {
            for probe in table
                .at(func)
                .iter()
                .map(|e| &e.probe)
                .filter(|p| p.is_return)
            {
                probe.missed.fetch_add(1, Relaxed);
            }
        }
    }
}
