// SPDX-License-Identifier: GPL-2.0

//! Events across CPU hotplug. perf drops a per-CPU counter when its CPU
//! goes offline; when the CPU comes back, every enabled event gets a new
//! counter there, as the kernel's tracefs records on it again at once.
//! The counters are made by a work item: making one registers with perf,
//! which waits for the hotplug lock the hotplug callback runs under.

use crate::instances;
use crate::kernel_api::cpuhp::{CpuOnline, OnCpuOnline};
use crate::kernel_api::workqueue::{default_queue, flush};
use core::sync::atomic::{AtomicBool, Ordering::AcqRel, Ordering::Release};
use kernel::{
    c_str, new_work,
    prelude::*,
    sync::Arc,
    workqueue::{impl_has_work, Work, WorkItem},
};

/// The work of renewing counters on CPUs back online.
#[pin_data]
struct Renewal {
    /// By CPU: came online since the work last ran.
    pending: KVec<AtomicBool>,
    #[pin]
    work: Work<Renewal>,
}

impl_has_work! {
    impl HasWork<Self> for Renewal { self.work }
}

impl WorkItem for Renewal {
    type Pointer = Arc<Renewal>;

    fn run(this: Arc<Renewal>) {
        for (cpu, pending) in this.pending.iter().enumerate() {
            if pending.swap(false, AcqRel) {
                for instance in instances::list::all().unwrap_or_default().iter() {
                    instance.events().cpu_online(cpu);
                }
            }
        }
    }
}

/// What the hotplug callback calls.
struct Notice {
    renewal: Arc<Renewal>,
}

impl OnCpuOnline for Notice {
    fn online(&self, cpu: u32) {
        if let Some(pending) = self.renewal.pending.get(cpu as usize) {
            pending.store(true, Release);
            // Already queued is fine: the queued run sees this CPU.
            let _ = default_queue().enqueue(self.renewal.clone());
        }
    }
}

/// Events follow CPUs coming online while this lives.
pub(crate) struct CpuEvents {
    online: Option<Pin<KBox<CpuOnline<Notice>>>>,
    notice: KBox<Notice>,
}

impl CpuEvents {
    /// Starts renewing every instance's counters on CPUs that come online.
    pub(crate) fn follow() -> Result<Self> {
        let mut pending = KVec::new();
        for _ in 0..crate::instance::nr_cpu_ids() {
            pending.push(AtomicBool::new(false), GFP_KERNEL)?;
        }
        let renewal = Arc::pin_init(
            pin_init!(Renewal {
                pending,
                work <- new_work!("rftrace::events::renewal"),
            }),
            GFP_KERNEL,
        )?;
        let notice = KBox::new(Notice { renewal }, GFP_KERNEL)?;
        // SAFETY: the notice is boxed and dropped after the registration
        // (`drop`).
        let online = unsafe { CpuOnline::register(c_str!("rftrace/events:online"), &*notice)? };
        Ok(CpuEvents {
            online: Some(online),
            notice,
        })
    }
}

impl Drop for CpuEvents {
    fn drop(&mut self) {
        // No callback after this; then no work either.
        drop(self.online.take());
        flush(&self.notice.renewal.work);
    }
}
