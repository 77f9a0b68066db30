// SPDX-License-Identifier: GPL-2.0

//! Kernel symbols: finding the address of a symbol the kernel does not
//! export, and naming addresses in the output as ftrace does (the name
//! alone, or with `sym-offset` `%pS`'s `name+off/size [module]`), with a
//! cache of the names for each reader.

use crate::bindings;
use crate::kernel_api::kallsyms::{with_symbol, Form};
use crate::ksyms;
use crate::portable::records::Symbols;
use crate::portable::symbol_cache::{module_in, Lifetime, Slot, SymbolCache};
use core::{cell::RefCell, fmt};
use kernel::{
    prelude::*,
    str::CStr,
    sync::atomic::{Atomic, Relaxed},
};

/// The address of kernel symbol `name`, found by registering a kprobe on it
/// and reading where the kprobe was placed (then removing it at once).
/// With indirect branch tracking the probe may sit just after the `endbr`
/// at the start, which still names the same function. `None` if there is
/// no such symbol or it cannot be probed.
pub(crate) fn address_of(name: &CStr) -> Option<usize> {
    // SAFETY: an all-zero `struct kprobe` is a valid unregistered probe.
    let mut probe: bindings::kprobe = unsafe { core::mem::zeroed() };
    probe.symbol_name = name.as_char_ptr();
    // SAFETY: `probe` is a valid, unregistered kprobe that outlives its
    // registration, which ends before it goes.
    if unsafe { bindings::register_kprobe(&mut probe) } != 0 {
        return None;
    }
    let address = probe.addr as usize;
    // SAFETY: `probe` was registered just above.
    unsafe { bindings::unregister_kprobe(&mut probe) };
    (address != 0).then_some(address)
}

/// The kallsyms form of `%pS` (`offset`) or `%ps`.
fn form(offset: bool) -> Form {
    if offset {
        Form::WithOffset
    } else {
        Form::NoOffset
    }
}

/// Names addresses with kallsyms, looking each up every time.
pub(crate) struct Kallsyms;

impl Symbols for Kallsyms {
    fn write_symbol(
        &self,
        out: &mut dyn fmt::Write,
        address: u64,
        offset: bool,
    ) -> Option<fmt::Result> {
        with_symbol(address as usize, form(offset), |text| {
            write_name(out, text, offset)
        })
    }
}

/// Module loads and unloads so far: a name in the module area is true
/// until the next.
static MODULE_CHANGES: Atomic<u64> = Atomic::new(0);

/// Tells the readers' caches that a module is coming or going: the names
/// they kept in the module area may no longer be true. A going module's
/// memory, or a live one's freed init text, holds another's code only
/// after that one's COMING; so the module notifier calls this at
/// `MODULE_STATE_COMING`, before the new code can run, and at
/// `MODULE_STATE_GOING`, so that a gone module's addresses are looked up
/// again (and print as addresses) as in ftrace.
pub(crate) fn modules_changed() {
    MODULE_CHANGES.fetch_add(1, Relaxed);
}

/// How many addresses a reader keeps the names of (136 bytes each: 68 KiB
/// a reader).
const CACHED_NAMES: usize = 512;

/// Names addresses with kallsyms like [`Kallsyms`], keeping the names it
/// found (see `portable::symbol_cache`): one per trace reader, which uses
/// it from one task at a time. Without memory for the cache, every
/// address is looked up.
pub(crate) struct SymbolNames {
    cache: RefCell<SymbolCache<KVVec<Slot>>>,
}

impl SymbolNames {
    /// A cache with nothing in it yet.
    pub(crate) fn new() -> Self {
        let slots = KVVec::from_elem(Slot::EMPTY, CACHED_NAMES, GFP_KERNEL)
            .unwrap_or_else(|_| KVVec::new());
        SymbolNames {
            cache: RefCell::new(SymbolCache::new(slots)),
        }
    }
}

impl Symbols for SymbolNames {
    fn write_symbol(
        &self,
        out: &mut dyn fmt::Write,
        address: u64,
        offset: bool,
    ) -> Option<fmt::Result> {
        let changes = MODULE_CHANGES.load(Relaxed);
        let Ok(mut cache) = self.cache.try_borrow_mut() else {
            return Kallsyms.write_symbol(out, address, offset);
        };
        if let Some(text) = cache.get(address, offset, changes) {
            return write_name(out, text, offset);
        }
        with_symbol(address as usize, form(offset), |text| {
            if let Some(lifetime) = lifetime_of(address as usize, text, changes) {
                cache.put(address, offset, lifetime, text);
            }
            write_name(out, text, offset)
        })
    }
}

/// How long `text`, kallsyms' name of `address` looked up after `changes`
/// module loads and unloads, stays true; `None` for names that may change
/// unseen: the BPF programs' and ftrace trampolines', and no name.
fn lifetime_of(address: usize, text: &[u8], changes: u64) -> Option<Lifetime> {
    if ksyms::kernel_text().contains(&address) {
        return Some(Lifetime::Always);
    }
    // ftrace's trampolines are named as if of a module
    // `__builtin__ftrace`, but come and go with ftrace.
    (module_in(text)? != b"__builtin__ftrace").then_some(Lifetime::UntilModulesChange { changes })
}

/// Writes kallsyms' `text` for an address as ftrace names it; `None` if it
/// names no symbol.
fn write_name(out: &mut dyn fmt::Write, mut text: &[u8], offset: bool) -> Option<fmt::Result> {
    if !offset {
        // ftrace names a function without its module (`kallsyms_lookup`,
        // not exported, gives only the name): drop ` [module]`.
        if let Some(space) = text.iter().position(|&b| b == b' ') {
            text = &text[..space];
        }
    }
    // An address with no symbol prints as itself: not a name.
    if text.first().is_none_or(|&b| b == b'0') {
        return None;
    }
    Some(out.write_str(core::str::from_utf8(text).ok()?))
}
