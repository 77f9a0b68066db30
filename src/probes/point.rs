// SPDX-License-Identifier: GPL-2.0

//! One probe point of a probe event: where it is attached, how the
//! listings name it, and its own hit count. An event has several points
//! when more probes were added under its name (a multi-probe event).

use super::attach::KernelProbe;
use super::hit::{Hit, ProbeHandler};
use super::recorder::Recorder;
use super::uprobe_attach::UserProbe;
use core::sync::atomic::{AtomicU64, Ordering::Relaxed};
use kernel::{prelude::*, sync::Arc};

/// What fires a point.
pub(crate) enum Attachment {
    Kernel(KernelProbe),
    User(UserProbe),
}

/// Counts a point's hits, then records them for its event.
pub(crate) struct PointHandler {
    recorder: Arc<Recorder>,
    hits: AtomicU64,
    /// A uprobe's offset in its file.
    file_offset: u64,
}

impl PointHandler {
    /// A handler recording through `recorder`, for a point at
    /// `file_offset` of its file (uprobes; 0 for kernel probes).
    pub(crate) fn new(recorder: Arc<Recorder>, file_offset: u64) -> Result<Arc<Self>> {
        Ok(Arc::new(
            PointHandler {
                recorder,
                hits: AtomicU64::new(0),
                file_offset,
            },
            GFP_KERNEL,
        )?)
    }
}

impl ProbeHandler for PointHandler {
    fn on_hit(&self, hit: &Hit<'_>) {
        self.hits.fetch_add(1, Relaxed);
        self.recorder.record_kernel(hit, &[]);
    }

    fn on_user_hit(&self, hit: &Hit<'_>) {
        self.hits.fetch_add(1, Relaxed);
        self.recorder.record_user(hit, self.file_offset);
    }
}

/// One probe point.
pub(crate) struct Point {
    /// The command that made it, as the listings show it (after the
    /// `p:GROUP/EVENT ` part): the place and the argument words.
    pub(crate) text: KVec<u8>,
    /// The probe's `MAXACTIVE`, shown by the listings when not zero.
    pub(crate) maxactive: u32,
    pub(crate) handler: Arc<PointHandler>,
    pub(crate) attachment: Attachment,
}

impl Point {
    /// Starts firing.
    pub(crate) fn enable(&self) -> Result {
        match &self.attachment {
            Attachment::Kernel(probe) => probe.enable(),
            Attachment::User(probe) => probe.enable(),
        }
    }

    /// Stops firing.
    pub(crate) fn disable(&self) {
        match &self.attachment {
            Attachment::Kernel(probe) => probe.disable(),
            Attachment::User(probe) => probe.disable(),
        }
    }

    /// Its hits.
    pub(crate) fn hits(&self) -> u64 {
        self.handler.hits.load(Relaxed)
    }

    /// The hits it missed (the probe layer's count, and hits nested in
    /// another probe's handler).
    pub(crate) fn misses(&self) -> u64 {
        let own = match &self.attachment {
            Attachment::Kernel(probe) => probe.misses(),
            Attachment::User(_) => 0,
        };
        own
    }
}
