// SPDX-License-Identifier: GPL-2.0

//! The `__fentry__` call sites rftrace can patch, and the table the
//! dispatcher looks them up in.
//!
//! Sites come from the kernel's ftrace records: one segment for vmlinux,
//! one per loaded module (its core text; `__init` functions are left out,
//! their text goes away while the module lives). A segment is made once and
//! never changes shape; the table that lists the segments is replaced, under
//! RCU, when a module comes or goes.

use super::handlers::HandlerSet;
use crate::bindings;
use crate::portable::fentry::site_index;
use core::sync::atomic::{AtomicPtr, AtomicU64, AtomicU8, Ordering::Relaxed};
use kernel::{prelude::*, sync::Arc};

/// The serial number of the next segment.
static NEXT_SERIAL: AtomicU64 = AtomicU64::new(1);

/// The longest module name kept (`MODULE_NAME_LEN` is 56).
pub(crate) const MODULE_NAME_MAX: usize = 64;

/// Whether rftrace holds a site, taken from the kernel's ftrace.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub(crate) enum Hold {
    /// The kernel's ftrace has it; it holds the NOP as far as rftrace knows.
    Free = 0,
    /// Taken, and it calls rftrace's trampoline.
    Patched = 1,
    /// Taken, and found no longer holding rftrace's call when it was to be
    /// given back: someone else wrote it. It stays taken and untouched:
    /// giving the kernel's ftrace a site whose bytes it does not expect
    /// would make it fail its check on the next update and turn itself off
    /// (`ftrace_bug`).
    Lost = 2,
}

/// One call site.
///
/// The site does not keep the kernel's ftrace record: the kernel moves
/// records when it frees a module's init text, so the engine finds them
/// by address under `ftrace_lock` whenever it needs them
/// ([`crate::ksyms::FtraceLocked::records_at`]).
///
/// # Invariants
///
/// `mask` and `hold` are changed only with the engine's lock held;
/// `handlers` is null or points at a [`HandlerSet`] kept alive by the
/// engine for as long as any site points at it and one RCU grace period
/// after.
pub(crate) struct Site {
    pub(crate) ip: usize,
    name_start: u32,
    name_len: u16,
    /// One bit per engine registration that selects the site.
    pub(crate) mask: AtomicU64,
    /// A [`Hold`].
    hold: AtomicU8,
    /// What the dispatcher calls for this site.
    pub(crate) handlers: AtomicPtr<HandlerSet>,
}

impl Site {
    /// How many engine registrations call through the site now: 0 when it
    /// is not patched.
    pub(crate) fn callers(&self) -> u32 {
        if self.hold() == Hold::Patched {
            self.mask.load(Relaxed).count_ones()
        } else {
            0
        }
    }

    /// Whether rftrace holds the site, and how.
    pub(crate) fn hold(&self) -> Hold {
        match self.hold.load(Relaxed) {
            1 => Hold::Patched,
            2 => Hold::Lost,
            _ => Hold::Free,
        }
    }

    /// Records a change of [`Self::hold`]; the engine's lock is held.
    pub(crate) fn set_hold(&self, hold: Hold) {
        self.hold.store(hold as u8, Relaxed);
    }
}

/// The sites of vmlinux or of one module, sorted by address.
pub(crate) struct Segment {
    /// Unique among all segments ever made: an address recorded in a
    /// filter is only ever matched against the segment it was chosen in,
    /// not against a module loaded later at the same place.
    pub(crate) serial: u64,
    /// The module, or `None` for vmlinux.
    pub(crate) module: Option<*mut bindings::module>,
    module_name: [u8; MODULE_NAME_MAX],
    module_name_len: usize,
    /// Text range covered: `[start, end)`.
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) sites: KVec<Site>,
    names: KVec<u8>,
    /// Where each bucket of the text starts in `sites` ([`site_index`]),
    /// made by [`Self::seal`]; empty until then.
    index: KVVec<u32>,
    /// The index's bucket size, in address bits.
    shift: u32,
}

// SAFETY: the raw pointer names the module, which outlives the segment's
// place in the table; mutation goes through atomics.
unsafe impl Send for Segment {}
// SAFETY: as above.
unsafe impl Sync for Segment {}

/// What a filter sees of a site.
#[derive(Clone, Copy)]
pub(crate) struct SiteInfo<'a> {
    pub(crate) serial: u64,
    pub(crate) ip: usize,
    pub(crate) name: &'a [u8],
    /// The module's name, `None` for vmlinux.
    pub(crate) module: Option<&'a [u8]>,
}

impl Segment {
    /// An empty segment for `module` (or vmlinux) named `name`.
    pub(crate) fn new(module: Option<*mut bindings::module>, name: &[u8]) -> Self {
        let mut module_name = [0u8; MODULE_NAME_MAX];
        let len = name.len().min(MODULE_NAME_MAX);
        module_name[..len].copy_from_slice(&name[..len]);
        Segment {
            serial: NEXT_SERIAL.fetch_add(1, Relaxed),
            module,
            module_name,
            module_name_len: len,
            start: usize::MAX,
            end: 0,
            sites: KVec::new(),
            names: KVec::new(),
            index: KVVec::new(),
            shift: 0,
        }
    }

    /// The module's name, `None` for vmlinux.
    pub(crate) fn module_name(&self) -> Option<&[u8]> {
        self.module
            .map(|_| &self.module_name[..self.module_name_len])
    }

    /// Adds a site (in increasing address order) named `name`.
    pub(crate) fn push(&mut self, ip: usize, name: &[u8]) -> Result {
        let name = name
            .get(..name.len().min(u16::MAX as usize))
            .unwrap_or(name);
        let name_start = u32::try_from(self.names.len()).map_err(|_| ENOMEM)?;
        self.names.extend_from_slice(name, GFP_KERNEL)?;
        self.sites.push(
            Site {
                ip,
                name_start,
                name_len: name.len() as u16,
                mask: AtomicU64::new(0),
                hold: AtomicU8::new(Hold::Free as u8),
                handlers: AtomicPtr::new(core::ptr::null_mut()),
            },
            GFP_KERNEL,
        )?;
        self.start = self.start.min(ip);
        self.end = self.end.max(ip + 1);
        Ok(())
    }

    /// The function name of `site`.
    pub(crate) fn name_of(&self, site: &Site) -> &[u8] {
        let start = site.name_start as usize;
        self.names
            .get(start..start + usize::from(site.name_len))
            .unwrap_or(&[])
    }

    /// What filters see of `site`.
    pub(crate) fn info<'a>(&'a self, site: &Site) -> SiteInfo<'a> {
        SiteInfo {
            serial: self.serial,
            ip: site.ip,
            name: self.name_of(site),
            module: self.module_name(),
        }
    }

    /// Indexes the sites once the last is pushed: until then
    /// [`Self::find`] finds none.
    pub(crate) fn seal(&mut self) -> Result {
        let span = self.end.saturating_sub(self.start);
        let shift = site_index::bucket_shift(span, self.sites.len());
        let mut index = KVVec::new();
        index.resize(site_index::index_len(span, shift), 0, GFP_KERNEL)?;
        site_index::build(
            &mut index,
            self.start,
            shift,
            self.sites.iter().map(|s| s.ip),
        );
        self.index = index;
        self.shift = shift;
        Ok(())
    }

    /// The site at call address `ip`: a bucket of the index, then a search
    /// among the few sites in it.
    #[inline]
    pub(crate) fn find(&self, ip: usize) -> Option<&Site> {
        let range = site_index::candidates(&self.index, self.start, self.shift, ip);
        let first = range.start;
        let bucket = self.sites.get(range)?;
        let at = bucket.binary_search_by(|s| s.ip.cmp(&ip)).ok()?;
        self.sites.get(first + at)
    }
}

/// Every segment: vmlinux first, then modules in the order they were
/// loaded, which is also the order `available_filter_functions` lists them.
pub(crate) struct SiteTable {
    pub(crate) segments: KVec<Arc<Segment>>,
}

impl SiteTable {
    /// The site at call address `ip`, if rftrace knows one there, with
    /// the segment that holds it. Segments are few (vmlinux, which holds
    /// most sites, comes first): a scan of their ranges is cheaper than a
    /// search.
    #[inline]
    pub(crate) fn find_with_segment(&self, ip: usize) -> Option<(&Segment, &Site)> {
        let segment = self
            .segments
            .iter()
            .find(|s| (s.start..s.end).contains(&ip))?;
        Some((segment, segment.find(ip)?))
    }
}
