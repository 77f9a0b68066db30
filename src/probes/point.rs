// SPDX-License-Identifier: GPL-2.0

//! One probe point of a probe event: where it is attached, its own
//! arguments (an event's points fetch arguments of the same names and
//! types, each in its own way), how the listings show it, and its hit
//! count. An event has several points when more probes were added under
//! its name (a multi-probe event).

use super::args::EventArgs;
use super::attach::KernelProbe;
use super::hit::{Hit, ProbeHandler};
use super::recorder::Recorder;
use super::tracepoint_attach::TracepointProbe;
use super::uprobe_attach::UserProbe;
use crate::portable::probes::fetch;
use crate::portable::probes::listing::{KprobeAt, ListedPlace};
use core::sync::atomic::{AtomicU64, Ordering::Relaxed};
use kernel::{prelude::*, sync::Arc};

/// What fires a point.
pub(crate) enum Attachment {
    Kernel(KernelProbe),
    Tracepoint(TracepointProbe),
    User(UserProbe),
}

/// Counts a point's hits, then records them for its event.
pub(crate) struct PointHandler {
    recorder: Arc<Recorder>,
    pub(crate) args: Arc<EventArgs>,
    hits: AtomicU64,
    /// A uprobe's offset in its file.
    file_offset: u64,
    /// What a return probe saves at the entry for its `$argN`.
    entry_data_size: usize,
}

impl PointHandler {
    /// A handler recording `args` through `recorder`, for a point at
    /// `file_offset` of its file (uprobes; 0 for kernel probes).
    pub(crate) fn new(
        recorder: Arc<Recorder>,
        args: Arc<EventArgs>,
        file_offset: u64,
    ) -> Result<Arc<Self>> {
        Ok(Arc::new(
            PointHandler {
                recorder,
                hits: AtomicU64::new(0),
                file_offset,
                entry_data_size: fetch::entry_data_size(args.specs()),
                args,
            },
            GFP_KERNEL,
        )?)
    }
}

impl ProbeHandler for PointHandler {
    fn on_hit(&self, hit: &Hit<'_>) {
        self.hits.fetch_add(1, Relaxed);
        self.recorder.record_kernel(hit, &self.args);
    }

    fn entry_data_size(&self) -> usize {
        self.entry_data_size
    }

    fn save_entry_data(&self, hit: &Hit<'_>, out: &mut [u8]) {
        self.recorder.save_entry_data(hit, &self.args, out);
    }

    /// A uretprobe is told of the entry too: the kernel counts its hits
    /// there, and records at the return.
    fn on_user_hit(&self, hit: &Hit<'_>) {
        if hit.ret_ip.is_none() {
            self.hits.fetch_add(1, Relaxed);
        }
        if hit.ret_ip.is_some() == self.recorder.is_return {
            self.recorder.record_user(hit, &self.args, self.file_offset);
        }
    }
}

/// Where a point is, as the listings show it (texts copied from the
/// command).
pub(crate) enum PlaceText {
    /// A kprobe at `[MOD:]SYM+OFFSET`, or at an address (shown as the
    /// kernel's `%p` showed it).
    Kprobe {
        maxactive: u32,
        symbol: Option<KVec<u8>>,
        offset: u32,
        pointer_text: KVec<u8>,
    },
    /// A uprobe.
    Uprobe {
        path: KVec<u8>,
        offset: u64,
        ref_ctr_offset: u64,
    },
    /// An fprobe at `[MOD:]SYM`.
    Fprobe { symbol: KVec<u8> },
    /// A tracepoint probe on tracepoint `name`.
    Tprobe { name: KVec<u8> },
}

impl PlaceText {
    /// The place as the portable listing takes it.
    pub(crate) fn listed(&self) -> ListedPlace<'_> {
        match self {
            PlaceText::Kprobe {
                maxactive,
                symbol: Some(symbol),
                offset,
                ..
            } => ListedPlace::Kprobe {
                maxactive: *maxactive,
                at: KprobeAt::Symbol {
                    symbol,
                    offset: *offset,
                },
            },
            PlaceText::Kprobe {
                maxactive,
                symbol: None,
                pointer_text,
                ..
            } => ListedPlace::Kprobe {
                maxactive: *maxactive,
                at: KprobeAt::Address { pointer_text },
            },
            PlaceText::Uprobe {
                path,
                offset,
                ref_ctr_offset,
            } => ListedPlace::Uprobe {
                path,
                offset: *offset,
                ref_ctr_offset: *ref_ctr_offset,
            },
            PlaceText::Fprobe { symbol } => ListedPlace::Fprobe { symbol },
            PlaceText::Tprobe { name } => ListedPlace::Tprobe { tracepoint: name },
        }
    }

    /// What the kernel compares to find the same probe twice
    /// (`trace_kprobe_has_same_kprobe`: the symbol, "unknown" for an
    /// address, and the offset; uprobes: the file and offset).
    pub(crate) fn same_place(&self, other: &PlaceText) -> bool {
        match (self, other) {
            (
                PlaceText::Kprobe {
                    symbol: a,
                    offset: ao,
                    ..
                },
                PlaceText::Kprobe {
                    symbol: b,
                    offset: bo,
                    ..
                },
            ) => a.as_deref() == b.as_deref() && ao == bo,
            (
                PlaceText::Uprobe {
                    path: a,
                    offset: ao,
                    ..
                },
                PlaceText::Uprobe {
                    path: b,
                    offset: bo,
                    ..
                },
            ) => a[..] == b[..] && ao == bo,
            (PlaceText::Fprobe { symbol: a }, PlaceText::Fprobe { symbol: b }) => a[..] == b[..],
            (PlaceText::Tprobe { name: a }, PlaceText::Tprobe { name: b }) => a[..] == b[..],
            _ => false,
        }
    }
}

/// The order points were made in: the listings show them in it.
static NEXT_SEQ: AtomicU64 = AtomicU64::new(0);

/// The next point's place in the listings.
pub(crate) fn next_seq() -> u64 {
    NEXT_SEQ.fetch_add(1, Relaxed)
}

/// One probe point.
pub(crate) struct Point {
    /// Its place in the order points were made.
    pub(crate) seq: u64,
    pub(crate) place: PlaceText,
    pub(crate) handler: Arc<PointHandler>,
    pub(crate) attachment: Attachment,
}

impl Point {
    /// Starts firing.
    pub(crate) fn enable(&self) -> Result {
        match &self.attachment {
            Attachment::Kernel(probe) => probe.enable(),
            Attachment::Tracepoint(probe) => probe.enable(),
            Attachment::User(probe) => probe.enable(),
        }
    }

    /// Stops firing.
    pub(crate) fn disable(&self) {
        match &self.attachment {
            Attachment::Kernel(probe) => probe.disable(),
            Attachment::Tracepoint(probe) => probe.disable(),
            Attachment::User(probe) => probe.disable(),
        }
    }

    /// Its hits.
    pub(crate) fn hits(&self) -> u64 {
        self.handler.hits.load(Relaxed)
    }

    /// The hits it missed, for `kprobe_profile`.
    pub(crate) fn misses(&self) -> u64 {
        match &self.attachment {
            Attachment::Kernel(probe) => probe.misses(),
            Attachment::Tracepoint(probe) => probe.misses(),
            Attachment::User(_) => 0,
        }
    }
}
