// SPDX-License-Identifier: GPL-2.0

//! Where a kernel probe goes: a `[MOD:]SYM[+OFFS]`, an address or a
//! function pattern, resolved and checked as `trace_kprobe`,
//! `trace_fprobe` and the kprobes core do it.
//!
//! `SYM+0` (or the address after the `endbr64` that starts a function
//! under indirect branch tracking) is the function's entry: the probe
//! moves past the `endbr64`, as `arch_adjust_kprobe_addr` moves it. An
//! entry that is an `__fentry__` site rftrace's engine lists is carried by
//! the engine; anything else by the kernel's kprobes.

use crate::fentry;
use crate::kernel_api::{kallsyms, kprobes, module};
use crate::portable::glob::glob_match;
use crate::portable::probes::errors::ProbeErrorCode;
use kernel::{prelude::*, str::CStr};

/// The length of `endbr64`.
const ENDBR_LEN: u64 = 4;

/// A probe's place as given, owned (kept for re-resolving it when its
/// module comes back).
pub(super) enum OwnedPlace {
    /// `[MOD:]SYM+OFFS`: `module` and `name` NUL-terminated; `lookup` the
    /// name kallsyms is asked (`MOD:SYM`, NUL-terminated).
    Symbol {
        module: Option<KVec<u8>>,
        name: KVec<u8>,
        lookup: KVec<u8>,
        offset: u64,
    },
    /// An address.
    Address(usize),
    /// A glob over the functions of rftrace's engine sites (an fprobe
    /// on `vfs_*`): every site whose function it matches.
    Pattern(KVec<u8>),
}

/// `bytes` with a NUL appended.
fn terminated(parts: &[&[u8]]) -> Result<KVec<u8>> {
    let mut out = KVec::new();
    for part in parts {
        out.extend_from_slice(part, GFP_KERNEL)?;
    }
    out.push(0, GFP_KERNEL)?;
    Ok(out)
}

/// The C string of a NUL-terminated vector.
fn c_str(bytes: &[u8]) -> Option<&CStr> {
    CStr::from_bytes_with_nul(bytes).ok()
}

impl OwnedPlace {
    /// A symbol place.
    pub(super) fn symbol(module: Option<&[u8]>, name: &[u8], offset: u64) -> Result<Self> {
        let lookup = match module {
            Some(m) => terminated(&[m, b":", name])?,
            None => terminated(&[name])?,
        };
        Ok(OwnedPlace::Symbol {
            module: module.map(|m| terminated(&[m])).transpose()?,
            name: terminated(&[name])?,
            lookup,
            offset,
        })
    }

    /// The module the place names, without its NUL.
    pub(super) fn module(&self) -> Option<&[u8]> {
        match self {
            OwnedPlace::Symbol {
                module: Some(m), ..
            } => m.split_last().map(|(_, name)| name),
            _ => None,
        }
    }
}

/// A resolved place.
#[derive(Clone, Copy)]
pub(super) struct Resolved {
    /// The probed address (after any `endbr64`).
    pub(super) addr: usize,
    /// It is an `__fentry__` site of rftrace's engine.
    pub(super) engine_site: bool,
}

/// What resolving a place gave.
pub(super) enum Resolution {
    /// `MOD:SYM` of a module not loaded: armed when it loads.
    Pending,
    /// Resolved.
    At(Resolved),
}

/// The error of a command: the kernel's error-log entry and errno.
pub(super) type PlaceError = (ProbeErrorCode, Error);

/// Resolves and checks `place` for a probe (a return probe if
/// `is_return`), as the kernel's `trace_kprobe_create` and
/// `__register_trace_kprobe` do before registering. May sleep.
pub(super) fn resolve(place: &OwnedPlace, is_return: bool) -> Result<Resolution, PlaceError> {
    let (function, offset) = match place {
        OwnedPlace::Symbol {
            module,
            name,
            lookup,
            offset,
        } => {
            let bad = (ProbeErrorCode::BadProbeAddr, EINVAL);
            let module = module.as_deref().map(|m| c_str(m).ok_or(bad)).transpose()?;
            let name = c_str(name).ok_or(bad)?;
            if module.is_some_and(|m| !module::is_loaded(m)) {
                return Ok(Resolution::Pending);
            }
            match kallsyms::count_same_symbols(module, name) {
                0 => return Err(bad),
                1 => {}
                _ => return Err((ProbeErrorCode::NonUniqSymbol, EINVAL)),
            }
            let start = c_str(lookup).and_then(kallsyms::lookup_name);
            (
                start.ok_or((ProbeErrorCode::BadProbeAddr, ENOENT))?,
                *offset,
            )
        }
        // Resolved site by site by the caller.
        OwnedPlace::Pattern(_) => return Err((ProbeErrorCode::BadProbeAddr, EINVAL)),
        OwnedPlace::Address(addr) => match kallsyms::size_offset(*addr) {
            Some((_, offset)) => (*addr - offset, offset as u64),
            // No symbol: the kprobes core refuses it at registration.
            None => (*addr, 0),
        },
    };
    let (addr, on_entry) =
        adjust(function, offset).ok_or((ProbeErrorCode::BadProbeAddr, EINVAL))?;
    if is_return && !on_entry {
        return Err((ProbeErrorCode::BadRetprobe, EINVAL));
    }
    Ok(Resolution::At(Resolved {
        addr,
        engine_site: on_entry && is_engine_site(addr),
    }))
}

/// The probed address of `function + offset` and whether it is the
/// function's entry (`arch_adjust_kprobe_addr`: with an `endbr64` first,
/// both +0 and +4 are the entry, at +4).
fn adjust(function: usize, offset: u64) -> Option<(usize, bool)> {
    let (offset, on_entry) = if kallsyms::is_endbr(function) {
        let on_entry = offset == 0 || offset == ENDBR_LEN;
        (if on_entry { ENDBR_LEN } else { offset }, on_entry)
    } else {
        (offset, offset == 0)
    };
    let addr = function.checked_add(usize::try_from(offset).ok()?)?;
    Some((addr, on_entry))
}

/// Whether `addr` is an `__fentry__` site that rftrace's engine lists.
fn is_engine_site(addr: usize) -> bool {
    if kallsyms::ftrace_location_in(addr, addr) != Some(addr) {
        return false;
    }
    fentry::engine().is_some_and(|engine| engine.table().find_with_segment(addr).is_some())
}

/// The kernel's checks before registering a probe at `addr`: kprobes
/// locked down (`FAIL_REG_PROBE`), or a function the kernel's ftrace
/// cannot trace (notrace: `FAIL_REG_PROBE`, `EINVAL`, with the kernel's
/// warning).
pub(super) fn check_registrable(addr: usize) -> Result<(), PlaceError> {
    kprobes::locked_down().map_err(|e| (ProbeErrorCode::FailRegProbe, e))?;
    if is_notrace(addr) {
        kallsyms::with_symbol(addr, kallsyms::Form::NoOffset, |name| {
            pr_warn!(
                "Could not probe notrace function {}\n",
                kernel::str::BStr::from_bytes(name)
            )
        });
        return Err((ProbeErrorCode::FailRegProbe, EINVAL));
    }
    Ok(())
}

/// Whether the function around `addr` has no `__fentry__` site; for a
/// suffixed copy (`func.isra.0`, `func.cold`), whether `func` has none
/// either (`within_notrace_func`).
fn is_notrace(addr: usize) -> bool {
    if !has_no_site(addr) {
        return false;
    }
    let mut base = [0u8; NAME_MAX + 1];
    let len = kallsyms::with_symbol(addr, kallsyms::Form::NoOffset, |text| {
        let name = text.split(|&b| b == b' ').next().unwrap_or(text);
        match name.iter().position(|&b| b == b'.') {
            Some(dot) if dot <= NAME_MAX => {
                base[..dot].copy_from_slice(&name[..dot]);
                Some(dot)
            }
            _ => None,
        }
    });
    let Some(len) = len else {
        return true;
    };
    let base = CStr::from_bytes_with_nul(&base[..=len]).ok();
    match base.and_then(kallsyms::lookup_name) {
        Some(function) => has_no_site(function),
        None => true,
    }
}

/// The longest symbol name looked up (`KSYM_NAME_LEN` is 512).
const NAME_MAX: usize = 511;

/// Whether the function covering `addr` has no `__fentry__` site.
fn has_no_site(addr: usize) -> bool {
    match kallsyms::size_offset(addr) {
        Some((size, offset)) if size > 0 => {
            let start = addr - offset;
            kallsyms::ftrace_location_in(start, start + size - 1).is_none()
        }
        // No symbol: the kprobes core refuses it itself.
        _ => false,
    }
}

/// The engine sites of the functions `pattern` matches, each with its
/// module (0 for vmlinux), as `register_fprobe` picks them from the
/// traceable functions; kprobes' blacklist left out. `BadProbeAddr` with
/// `ENOENT` when none matches.
pub(super) fn pattern_sites(pattern: &[u8]) -> Result<KVVec<(usize, usize)>, PlaceError> {
    let nomem = |_| (ProbeErrorCode::FailRegProbe, ENOMEM);
    let mut sites = KVVec::new();
    let Some(engine) = fentry::engine() else {
        return Err((ProbeErrorCode::FailRegProbe, ENODEV));
    };
    let table = engine.table();
    for segment in table.segments.iter() {
        let module = segment.module.map_or(0, |m| m as usize);
        for site in segment.sites.iter() {
            if glob_match(pattern, segment.name_of(site)) && !kprobes::blacklisted(site.ip) {
                sites.push((site.ip, module), GFP_KERNEL).map_err(nomem)?;
            }
        }
    }
    if sites.is_empty() {
        return Err((ProbeErrorCode::BadProbeAddr, ENOENT));
    }
    Ok(sites)
}
