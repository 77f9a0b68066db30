// SPDX-License-Identifier: GPL-2.0

//! What the command parser asks of the kernel while it reads a command
//! (symbols, function entries, files), and the addresses of `@SYM`
//! arguments.

use crate::kernel_api::uprobes::{UserFile, UserFileError};
use crate::kernel_api::{kallsyms, module};
use crate::portable::probes::fetch::SymbolLookup;
use crate::portable::probes::place::{FileLookup, FunctionEntry, PlaceResolver, SymbolCount};
use kernel::{prelude::*, str::CStr};

/// The length of `endbr64`.
const ENDBR_LEN: u32 = 4;

/// `bytes` and a NUL, for the C string functions.
fn c_string(bytes: &[u8]) -> Option<KVec<u8>> {
    let mut out = KVec::with_capacity(bytes.len() + 1, GFP_KERNEL).ok()?;
    out.extend_from_slice(bytes, GFP_KERNEL).ok()?;
    out.push(0, GFP_KERNEL).ok()?;
    Some(out)
}

/// Runs `f` on the C string of `bytes`; `None` if it holds a NUL or memory
/// runs out.
fn with_c_str<R>(bytes: &[u8], f: impl FnOnce(&CStr) -> R) -> Option<R> {
    let owned = c_string(bytes)?;
    CStr::from_bytes_with_nul(&owned).ok().map(f)
}

/// The kernel's answers, for one command.
pub(crate) struct KernelResolver;

impl KernelResolver {
    /// A resolver.
    pub(crate) fn new() -> Self {
        KernelResolver
    }
}

impl PlaceResolver for KernelResolver {
    fn count_symbol(&mut self, symbol: &[u8]) -> SymbolCount {
        let (module, name) = match symbol.iter().position(|&b| b == b':') {
            Some(colon) => (Some(&symbol[..colon]), &symbol[colon + 1..]),
            None => (None, symbol),
        };
        let count = with_c_str(name, |name| match module {
            Some(module) => with_c_str(module, |module| {
                // `validate_module_probe_symbol`: a module not loaded yet
                // is accepted.
                if !module::is_loaded(module) {
                    return 1;
                }
                kallsyms::count_same_symbols(Some(module), name)
            })
            .unwrap_or(0),
            None => kallsyms::count_same_symbols(None, name),
        })
        .unwrap_or(0);
        match count {
            0 => SymbolCount::Missing,
            1 => SymbolCount::Unique,
            _ => SymbolCount::NotUnique,
        }
    }

    fn function_entry(&mut self, symbol: &[u8], offset: u32) -> FunctionEntry {
        let Some(Some(function)) = with_c_str(symbol, kallsyms::lookup_name) else {
            return FunctionEntry::Unknown;
        };
        let on_entry = if kallsyms::is_endbr(function) {
            offset == 0 || offset == ENDBR_LEN
        } else {
            offset == 0
        };
        if on_entry {
            FunctionEntry::Entry
        } else {
            FunctionEntry::NotEntry
        }
    }

    fn find_file(&mut self, path: &[u8]) -> FileLookup {
        let found = with_c_str(path, |path| match UserFile::resolve(path) {
            Ok(_) => FileLookup::Regular,
            Err(UserFileError::NotRegular) => FileLookup::NotRegular,
            Err(UserFileError::NotFound(e)) => FileLookup::Failed(-e.to_errno()),
        });
        // A name with a NUL inside names no file.
        found.unwrap_or(FileLookup::Failed(2))
    }

    fn has_fprobe_events(&self) -> bool {
        true
    }
}

/// Kernel symbols' addresses, for `@SYM` arguments.
pub(crate) struct SymbolAddresses;

impl SymbolLookup for SymbolAddresses {
    fn address_of(&self, name: &str) -> Option<u64> {
        with_c_str(name.as_bytes(), kallsyms::lookup_name)
            .flatten()
            .map(|a| a as u64)
    }
}
