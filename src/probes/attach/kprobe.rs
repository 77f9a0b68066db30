// SPDX-License-Identifier: GPL-2.0

//! Probes the kernel's kprobes carry: inside a function (an int3 at an
//! instruction boundary), and entries or returns of functions that have
//! no `__fentry__` site of rftrace's engine (a kretprobe, with its
//! MAXACTIVE).

use super::{CpuBusy, Probe};
use crate::kernel_api::kprobes::KprobeHandler;
use crate::kernel_api::regs::Regs;
use crate::probes::hit::Hit;
use core::sync::atomic::Ordering::Relaxed;
use kernel::sync::Arc;

/// Passes a kernel kprobe's hits to its probe.
pub(super) struct KprobeHits {
    pub(super) probe: Arc<Probe>,
    pub(super) busy: Arc<CpuBusy>,
}

impl KprobeHits {
    /// Tells the probe of `hit`, unless a probe handler already runs on
    /// this CPU (then it is a miss, as the kernel counts one).
    fn tell(&self, hit: &Hit<'_>) {
        let cpu = crate::cpu_local::processor_id();
        match self.busy.enter(cpu) {
            Some(_running) => self.probe.handler.on_hit(hit),
            None => {
                self.probe.missed.fetch_add(1, Relaxed);
            }
        }
    }
}

impl KprobeHandler for KprobeHits {
    fn on_entry(&self, addr: usize, regs: &Regs) {
        self.tell(&Hit {
            regs,
            addr,
            ret_ip: None,
            entry_data: &[],
        });
    }

    fn on_return_entry(&self, addr: usize, regs: &Regs, data: &mut [u8]) {
        let entry = Hit {
            regs,
            addr,
            ret_ip: None,
            entry_data: &[],
        };
        self.probe.handler.save_entry_data(&entry, data);
    }

    fn on_return(&self, addr: usize, ret_ip: usize, regs: &Regs, data: &[u8]) {
        self.tell(&Hit {
            regs,
            addr,
            ret_ip: Some(ret_ip),
            entry_data: data,
        });
    }
}
