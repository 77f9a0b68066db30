// SPDX-License-Identifier: GPL-2.0

//! The files of the function tracer: the lists of traceable functions
//! (`available_filter_functions`, `available_filter_functions_addrs`), of
//! those rftrace calls out from now (`enabled_functions`) and the filters
//! (`set_ftrace_filter`, `set_ftrace_notrace`).
//!
//! A filter file works as ftrace's: opening it for writing with `O_TRUNC`
//! (`>`) starts from an empty filter, otherwise (`>>`) from the current
//! one; each write adds or removes the functions its patterns select and
//! takes effect at once (so a refusal, such as a function in use by the
//! kernel's ftrace, fails that write); closing a file that was truncated
//! and never written applies the empty filter.

use crate::fentry::{self, Segment, Site, SiteTable};
use crate::function_filter::{FilterKind, FilterSet};
use crate::function_probes::ProbeEntry;
use crate::instance::Instance;
use crate::portable::function_probes::parse_probe;
use crate::portable::input::InputError;
use crate::rftracefs::Stream;
use core::fmt::Write;
use kernel::{prelude::*, sync::Arc};

/// Lines rendered per `fill`, bounding the work of one read call.
const LINES_PER_FILL: usize = 256;

/// Where a walk over every site is.
#[derive(Default)]
struct Cursor {
    segment: usize,
    site: usize,
}

impl Cursor {
    /// Calls `f` on up to `limit` sites from the cursor on, in listing
    /// order, and moves past them. Returns false at the end.
    fn walk(
        &mut self,
        table: &SiteTable,
        limit: usize,
        mut f: impl FnMut(&Segment, &Site) -> core::fmt::Result,
    ) -> bool {
        let mut done = 0;
        while let Some(segment) = table.segments.get(self.segment) {
            while let Some(site) = segment.sites.get(self.site) {
                if done == limit {
                    return true;
                }
                if f(segment, site).is_err() {
                    return true;
                }
                self.site += 1;
                done += 1;
            }
            self.segment += 1;
            self.site = 0;
        }
        false
    }
}

/// Appends formatted text to a byte vector.
struct TextOut<'a>(&'a mut KVec<u8>);

impl Write for TextOut<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.0
            .extend_from_slice(s.as_bytes(), GFP_KERNEL)
            .map_err(|_| core::fmt::Error)
    }
}

/// Writes `func` or `func [module]`, as ftrace names a function.
fn write_name(out: &mut TextOut<'_>, segment: &Segment, site: &Site) -> core::fmt::Result {
    let name = core::str::from_utf8(segment.name_of(site)).unwrap_or("?");
    match segment.module_name() {
        Some(module) => write!(
            out,
            "{name} [{}]",
            core::str::from_utf8(module).unwrap_or("?")
        ),
        None => out.write_str(name),
    }
}

/// `available_filter_functions` (index 0) and
/// `available_filter_functions_addrs` (index 1): every function the
/// function tracer can trace, one per line, as the kernel lists them.
pub(crate) struct AvailableFunctions {
    table: Option<Arc<SiteTable>>,
    listing: Listing,
    cursor: Cursor,
}

/// What an [`AvailableFunctions`] file lists.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Listing {
    /// Every traceable function.
    Names,
    /// Every traceable function after its call site's address.
    Addresses,
    /// The functions whose site calls rftrace now, each with how many
    /// callbacks (tracers and probes) it calls, as ftrace's
    /// `enabled_functions`: `R` as rftrace saves all registers for them.
    Enabled,
}

impl Stream for AvailableFunctions {
    fn open(
        _instance: &Arc<Instance>,
        index: usize,
        _write_only: bool,
        _truncate: bool,
    ) -> Result<Self> {
        let listing = match index {
            0 => Listing::Names,
            1 => Listing::Addresses,
            _ => Listing::Enabled,
        };
        Ok(AvailableFunctions {
            table: fentry::engine().map(|e| e.table()),
            listing,
            cursor: Cursor::default(),
        })
    }

    fn fill(&mut self, text: &mut KVec<u8>, _want: usize, _nonblock: bool) -> Result {
        let Some(table) = self.table.as_ref() else {
            return Ok(());
        };
        let listing = self.listing;
        let mut out = TextOut(text);
        // Few sites are enabled: walk on until some text is made or the
        // walk ends (an empty fill means the end).
        let mut more = true;
        while more && out.0.is_empty() {
            more = self.cursor.walk(table, LINES_PER_FILL, |segment, site| {
                let callers = site.callers();
                match listing {
                    Listing::Names => {}
                    Listing::Addresses => write!(out, "{:x} ", site.ip)?,
                    Listing::Enabled if callers == 0 => return Ok(()),
                    Listing::Enabled => {}
                }
                write_name(&mut out, segment, site)?;
                if listing == Listing::Enabled {
                    // ftrace's columns: the count, then R, I, D, O and M.
                    write!(out, " ({callers}) R{:9}", "")?;
                }
                out.write_char('\n')
            });
        }
        Ok(())
    }
}

/// An open filter file: the filter being edited, and the listing of it
/// for reads.
pub(crate) struct FilterFile {
    instance: Arc<Instance>,
    kind: FilterKind,
    /// The filter as this file edits it: made at the first write, or
    /// empty from the start when truncated.
    editing: Option<FilterSet>,
    /// Truncated at open and not yet applied.
    pending_truncate: bool,
    /// What reads list: a snapshot of the filter at open.
    listed: Arc<FilterSet>,
    table: Option<Arc<SiteTable>>,
    cursor: Cursor,
    /// Reads of the pending `:mod:` lines and the "all" line are done.
    tail_done: bool,
    /// `set_ftrace_filter`: the function probes at open, listed after the
    /// functions, and how many are listed so far.
    probes: KVec<Arc<ProbeEntry>>,
    probes_listed: usize,
}

impl FilterFile {
    /// Applies a write, then makes the edited filter the instance's. An
    /// error comes with the offset in `data` it is at.
    fn apply(&mut self, data: &[u8]) -> Result<(), (InputError, usize)> {
        let table = self.table.as_ref().ok_or((InputError::NoDevice, 0))?;
        let mut next = match self.editing.as_ref() {
            Some(editing) => editing.try_clone(),
            None => self.listed.try_clone(),
        }
        .map_err(|e| (e, 0))?;
        // Words before a failing one take effect, as in ftrace.
        let (instance, kind) = (&self.instance, self.kind);
        let words = next.apply_write(table, data, kind.grammar(), &mut |command, function| {
            // Only `set_ftrace_filter` takes function commands.
            if kind != FilterKind::Filter {
                return Err(InputError::UnsupportedFunctionCommand);
            }
            let spec = parse_probe(function, command.remove)?;
            instance.apply_function_probe(table, command, &spec)
        });
        self.instance
            .set_function_filter(self.kind, &next)
            .map_err(|e| (e, 0))?;
        self.editing = Some(next);
        self.pending_truncate = false;
        words
    }
}

impl FilterFile {
    /// Lists the functions of the filter (or the line saying there are
    /// none), then its pending `:mod:` words; sets `tail_done` when done.
    fn fill_functions(&mut self, table: &SiteTable, out: &mut TextOut<'_>) -> Result {
        let listed = &self.listed;
        if listed.is_empty() {
            self.tail_done = true;
            return out.write_str(self.kind.empty_line()).map_err(|_| ENOMEM);
        }
        // Most sites are not in the set: walk on until some text is made
        // or the walk ends.
        let mut more = true;
        while more && out.0.is_empty() {
            more = self
                .cursor
                .walk(table, LINES_PER_FILL * 16, |segment, site| {
                    if listed.contains(&segment.info(site)) {
                        write_name(out, segment, site)?;
                        out.write_char('\n')?;
                    }
                    Ok(())
                });
        }
        if !more {
            self.tail_done = true;
            listed.write_pending(table, out).map_err(|_| ENOMEM)?;
        }
        Ok(())
    }
}

impl Stream for FilterFile {
    fn open(
        instance: &Arc<Instance>,
        index: usize,
        write_only: bool,
        truncate: bool,
    ) -> Result<Self> {
        let kind = FilterKind::from_index(index).ok_or(EINVAL)?;
        let probes = match kind {
            FilterKind::Filter if !write_only => instance.function_probes()?,
            _ => KVec::new(),
        };
        Ok(FilterFile {
            instance: instance.clone(),
            kind,
            editing: truncate.then(FilterSet::new),
            pending_truncate: truncate,
            listed: instance.function_filter(kind),
            table: fentry::engine().map(|e| e.table()),
            cursor: Cursor::default(),
            tail_done: false,
            probes,
            probes_listed: 0,
        })
    }

    fn fill(&mut self, text: &mut KVec<u8>, _want: usize, _nonblock: bool) -> Result {
        let Some(table) = self.table.clone() else {
            return Ok(());
        };
        let mut out = TextOut(text);
        if !self.tail_done {
            self.fill_functions(&table, &mut out)?;
        }
        // The probes after the functions (an empty fill is the end).
        if self.tail_done && out.0.is_empty() {
            for entry in self
                .probes
                .iter()
                .skip(self.probes_listed)
                .take(LINES_PER_FILL)
            {
                entry.write_line(&table, &mut out).map_err(|_| ENOMEM)?;
                self.probes_listed += 1;
            }
        }
        Ok(())
    }

    fn write(&mut self, data: &[u8], len: usize) -> Result<usize> {
        if len > data.len() {
            self.instance
                .log_error(self.kind.file_name(), InputError::TooLong, data);
            return Err(EINVAL);
        }
        self.apply(data).map_err(|(e, at)| {
            self.instance
                .log_error_at(self.kind.file_name(), e, data, at);
            Error::from_errno(-e.errno())
        })?;
        Ok(data.len())
    }
}

impl Drop for FilterFile {
    fn drop(&mut self) {
        if !self.pending_truncate {
            return;
        }
        if let Some(empty) = self.editing.as_ref() {
            if let Err(e) = self.instance.set_function_filter(self.kind, empty) {
                self.instance.log_error(self.kind.file_name(), e, b"");
            }
        }
    }
}
