// SPDX-License-Identifier: GPL-2.0

//! Function filters: the sets `set_ftrace_filter` and `set_ftrace_notrace`
//! hold, and how a write changes them.
//!
//! A set holds the sites its words selected, each as (segment serial,
//! address), so that an address chosen in one module never matches a
//! module loaded later at the same place: when a module goes, its entries
//! stay (the filter stays non-empty, as ftrace keeps it) but match nothing.
//! A `:mod:` word that names a module not loaded is kept as a pending word
//! and selects that module's functions once it is loaded.

use crate::fentry::{Segment, SiteInfo, SiteTable};
use crate::portable::func_filter::{
    Action, FilterCommand, FilterFile, FilterWords, FunctionCommand, ModuleFilter, Site, Target,
};
use crate::portable::input::InputError;
use crate::portable::sort::heap_sort;
use core::fmt::{self, Write};
use kernel::prelude::*;

/// How many pending `:mod:` words a set keeps.
const MAX_PENDING: usize = 64;

/// Which filter file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FilterKind {
    /// `set_ftrace_filter`.
    Filter,
    /// `set_ftrace_notrace`.
    Notrace,
    /// `set_graph_function`.
    GraphFunction,
    /// `set_graph_notrace`.
    GraphNotrace,
}

impl FilterKind {
    /// The kind a filter file's index names.
    pub(crate) fn from_index(index: usize) -> Option<Self> {
        match index {
            0 => Some(FilterKind::Filter),
            1 => Some(FilterKind::Notrace),
            2 => Some(FilterKind::GraphFunction),
            3 => Some(FilterKind::GraphNotrace),
            _ => None,
        }
    }

    /// The file's name, for `error_log`.
    pub(crate) fn file_name(self) -> &'static str {
        match self {
            FilterKind::Filter => "set_ftrace_filter",
            FilterKind::Notrace => "set_ftrace_notrace",
            FilterKind::GraphFunction => "set_graph_function",
            FilterKind::GraphNotrace => "set_graph_notrace",
        }
    }

    /// What reading the file shows when the set is empty.
    pub(crate) fn empty_line(self) -> &'static str {
        match self {
            FilterKind::Filter | FilterKind::GraphFunction => "#### all functions enabled ####\n",
            FilterKind::Notrace | FilterKind::GraphNotrace => "#### no functions disabled ####\n",
        }
    }

    /// The grammar of the file's words: the graph files take patterns
    /// only, no `:command`s.
    pub(crate) fn grammar(self) -> FilterFile {
        match self {
            FilterKind::Filter | FilterKind::Notrace => FilterFile::Function,
            FilterKind::GraphFunction | FilterKind::GraphNotrace => FilterFile::Graph,
        }
    }
}

/// A set of selected functions.
pub(crate) struct FilterSet {
    /// (segment serial, call site), sorted, no duplicates.
    entries: KVec<(u64, usize)>,
    /// `:mod:` words whose module was not loaded when they were written.
    pending: KVec<KVec<u8>>,
}

impl FilterSet {
    /// The empty set.
    pub(crate) fn new() -> Self {
        FilterSet {
            entries: KVec::new(),
            pending: KVec::new(),
        }
    }

    /// A copy.
    pub(crate) fn try_clone(&self) -> Result<Self, InputError> {
        let mut copy = FilterSet::new();
        copy.entries
            .extend_from_slice(&self.entries, GFP_KERNEL)
            .map_err(|_| InputError::NoMemory)?;
        for word in self.pending.iter() {
            copy.pending
                .push(copy_bytes(word)?, GFP_KERNEL)
                .map_err(|_| InputError::NoMemory)?;
        }
        Ok(copy)
    }

    /// Whether nothing was ever selected (for `set_ftrace_filter`: trace
    /// every function).
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.pending.is_empty()
    }

    /// Whether `site` is in the set.
    pub(crate) fn contains(&self, site: &SiteInfo<'_>) -> bool {
        self.entries.binary_search(&(site.serial, site.ip)).is_ok()
            || self.pending.iter().any(|word| pending_selects(word, site))
    }

    /// Applies the words of a write, in order, stopping at the first that
    /// fails: its error and its offset in `text` are returned (the words
    /// before it took effect). Words that name a function command
    /// (`func:traceoff`) go to `on_command`, which acts on them at once.
    pub(crate) fn apply_write(
        &mut self,
        table: &SiteTable,
        text: &[u8],
        grammar: FilterFile,
        on_command: &mut dyn FnMut(
            &FilterCommand<'_>,
            &FunctionCommand<'_>,
        ) -> Result<(), InputError>,
    ) -> Result<(), (InputError, usize)> {
        let mut words = FilterWords::new(text, grammar);
        while let Some(command) = words.next() {
            command
                .and_then(|command| match command.action {
                    Action::Command(function) => on_command(&command, &function),
                    Action::List => self.apply_command(table, &command),
                })
                .map_err(|e| (e, words.last_word_offset()))?;
        }
        Ok(())
    }

    /// Applies one word that lists functions.
    fn apply_command(
        &mut self,
        table: &SiteTable,
        command: &FilterCommand<'_>,
    ) -> Result<(), InputError> {
        let mut matched = selected_sites(table, command)?;
        heap_sort(&mut matched);
        if command.remove {
            let pending_removed = self.remove_pending(command);
            if matched.is_empty() && !pending_removed {
                return Err(InputError::NoMatchingFunction);
            }
            self.entries.retain(|e| matched.binary_search(e).is_err());
            return Ok(());
        }
        if matched.is_empty() {
            return self.add_pending(command);
        }
        self.entries
            .extend_from_slice(&matched, GFP_KERNEL)
            .map_err(|_| InputError::NoMemory)?;
        sort_dedup(&mut self.entries);
        Ok(())
    }

    /// Keeps a `:mod:` word that matched nothing (its module is not
    /// loaded); any other word that matches nothing is an error.
    fn add_pending(&mut self, command: &FilterCommand<'_>) -> Result<(), InputError> {
        let Some(word) = pending_text(command) else {
            return Err(InputError::NoMatchingFunction);
        };
        if self.pending.iter().any(|w| w[..] == word[..]) {
            return Ok(());
        }
        if self.pending.len() >= MAX_PENDING {
            return Err(InputError::NoSpace);
        }
        self.pending
            .push(word, GFP_KERNEL)
            .map_err(|_| InputError::NoMemory)
    }

    /// Drops pending words a `!` word names; returns whether any was.
    fn remove_pending(&mut self, command: &FilterCommand<'_>) -> bool {
        let Some(word) = pending_text(command) else {
            return false;
        };
        let before = self.pending.len();
        self.pending.retain(|w| w[..] != word[..]);
        self.pending.len() != before
    }

    /// Writes the pending words that select no loaded function, as ftrace
    /// lists the `:mod:` entries it keeps for modules not loaded.
    pub(crate) fn write_pending(&self, table: &SiteTable, out: &mut dyn Write) -> fmt::Result {
        for word in self.pending.iter() {
            let mut loaded = false;
            let _ = for_each_site(table, |segment, site, _| {
                loaded |= pending_selects(word, &segment.info(site));
                Ok(())
            });
            if !loaded {
                write_pending_word(out, word)?;
            }
        }
        Ok(())
    }
}

/// The sites `command` selects, as (segment serial, address) in listing
/// order.
pub(crate) fn selected_sites(
    table: &SiteTable,
    command: &FilterCommand<'_>,
) -> Result<KVec<(u64, usize)>, InputError> {
    let mut sites = KVec::new();
    for_each_site(table, |segment, site, line| {
        let info = segment.info(site);
        let candidate = Site {
            line,
            function: info.name,
            module: info.module,
        };
        if command.selects(&candidate) {
            sites
                .push((info.serial, info.ip), GFP_KERNEL)
                .map_err(|_| InputError::NoMemory)?;
        }
        Ok(())
    })?;
    Ok(sites)
}

/// Calls `f` on every site in listing order with its line number in
/// `available_filter_functions` (from 1).
pub(crate) fn for_each_site(
    table: &SiteTable,
    mut f: impl FnMut(&Segment, &crate::fentry::Site, usize) -> Result<(), InputError>,
) -> Result<(), InputError> {
    let mut line = 0;
    for segment in table.segments.iter() {
        for site in segment.sites.iter() {
            line += 1;
            f(segment, site, line)?;
        }
    }
    Ok(())
}

/// The text kept for a pending word: the word itself, if it is a listing
/// word limited to named modules (`PATTERN:mod:MODULE`).
fn pending_text(command: &FilterCommand<'_>) -> Option<KVec<u8>> {
    let Target::Functions(selector) = command.target else {
        return None;
    };
    let ModuleFilter::Only(module) = selector.module else {
        return None;
    };
    let mut word = KVec::new();
    let function = if selector.function.is_blank() {
        &b"*"[..]
    } else {
        selector.function.source()
    };
    for part in [function, b":mod:", module.source()] {
        word.extend_from_slice(part, GFP_KERNEL).ok()?;
    }
    Some(word)
}

/// Whether pending `word` selects `site`.
fn pending_selects(word: &[u8], site: &SiteInfo<'_>) -> bool {
    let Ok(command) = crate::portable::func_filter::parse_word(word, FilterFile::Function) else {
        return false;
    };
    // Module words never select by line number.
    command.selects(&Site {
        line: 0,
        function: site.name,
        module: site.module,
    })
}

/// Writes a pending word as ftrace lists it: `FUNC:mod:MODULE`.
fn write_pending_word(out: &mut dyn Write, word: &[u8]) -> fmt::Result {
    out.write_str(core::str::from_utf8(word).unwrap_or("?"))?;
    out.write_char('\n')
}

/// A copy of `bytes`.
fn copy_bytes(bytes: &[u8]) -> Result<KVec<u8>, InputError> {
    let mut copy = KVec::new();
    copy.extend_from_slice(bytes, GFP_KERNEL)
        .map_err(|_| InputError::NoMemory)?;
    Ok(copy)
}

/// Sorts `entries` and removes duplicates.
fn sort_dedup(entries: &mut KVec<(u64, usize)>) {
    heap_sort(entries);
    let mut previous = None;
    entries.retain(|e| {
        let keep = previous != Some(*e);
        previous = Some(*e);
        keep
    });
}
