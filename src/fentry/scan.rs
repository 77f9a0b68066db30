// SPDX-License-Identifier: GPL-2.0

//! Listing the call sites: the kernel's ftrace records, grouped into one
//! segment for vmlinux and one per module, each site with its function's
//! name.

use super::sites::{Segment, SiteTable};
use crate::bindings;
use crate::kernel_api::kallsyms;
use crate::ksyms::{Busy, FtraceLocked, FtraceRecord};
use kernel::{prelude::*, sync::Arc};

/// Every site of vmlinux and of the loaded modules, except rftrace's own.
pub(super) fn scan_all(this_module: &'static ThisModule) -> Result<SiteTable> {
    let own = this_module.as_ptr().cast::<bindings::module>();
    let mut segments: KVec<Arc<Segment>> = KVec::new();
    let mut current = Segment::new(None, b"");
    let mut failed = Ok(());
    {
        let lock = FtraceLocked::lock()?;
        let mut i = 0usize;
        lock.for_each_record(|rec| {
            if failed.is_err() {
                return;
            }
            i += 1;
            if i % 1024 == 0 {
                // SAFETY: process context; only a mutex is held.
                unsafe { bindings::rft_cond_resched() };
            }
            let ip = rec.ip();
            let module = crate::ksyms::module_of(ip);
            let module = (!module.is_null()).then_some(module);
            if module == Some(own) || !usable(&rec, module) {
                return;
            }
            if current.module != module {
                let name = module.map_or(Ok(KVec::new()), module_name);
                let next = name.map(|n| Segment::new(module, &n));
                failed = next.and_then(|next| {
                    let done = core::mem::replace(&mut current, next);
                    push_segment(&mut segments, done)
                });
            }
            if failed.is_ok() {
                failed = add_site(&mut current, &rec);
            }
        });
    }
    failed?;
    push_segment(&mut segments, current)?;
    Ok(SiteTable { segments })
}

/// The sites of `module`, which is coming.
pub(super) fn scan_module(module: *mut bindings::module) -> Result<Segment> {
    let mut segment = Segment::new(Some(module), &module_name(module)?);
    let mut failed = Ok(());
    let lock = FtraceLocked::lock()?;
    lock.for_each_record(|rec| {
        // SAFETY: `module` is coming: alive, and the notifier holds it.
        let ours = unsafe { bindings::rft_within_module_core_text(rec.ip(), module) };
        if failed.is_ok() && ours && usable(&rec, Some(module)) {
            failed = add_site(&mut segment, &rec);
        }
    });
    failed?;
    segment.seal()?;
    Ok(segment)
}

/// Whether a record is a site rftrace lists: not marked unusable by the
/// kernel, and not in a module's `__init` text.
fn usable(rec: &FtraceRecord<'_>, module: Option<*mut bindings::module>) -> bool {
    if rec.availability() == Err(Busy::Invalid) {
        return false;
    }
    // SAFETY: the module is alive while its records are listed under
    // `ftrace_lock`.
    module.is_none_or(|m| !unsafe { bindings::rft_within_module_init(rec.ip(), m) })
}

/// Adds the record's site, named after its function.
fn add_site(segment: &mut Segment, rec: &FtraceRecord<'_>) -> Result {
    kallsyms::with_symbol(rec.ip(), kallsyms::Form::NoOffset, |text| {
        // "func [module]" for module functions: keep "func".
        let name = text.split(|&b| b == b' ').next().unwrap_or(text);
        segment.push(rec.ip(), name)
    })
}

/// The name of `module`.
fn module_name(module: *mut bindings::module) -> Result<KVec<u8>> {
    // SAFETY: `module` is alive (see callers); its name is NUL-terminated.
    let name = unsafe { kernel::str::CStr::from_char_ptr(bindings::rft_module_name(module)) };
    let mut out = KVec::new();
    out.extend_from_slice(name.to_bytes(), GFP_KERNEL)?;
    Ok(out)
}

/// Adds a finished segment, unless it is empty.
fn push_segment(segments: &mut KVec<Arc<Segment>>, mut segment: Segment) -> Result {
    if !segment.sites.is_empty() {
        segment.seal()?;
        segments.push(Arc::new(segment, GFP_KERNEL)?, GFP_KERNEL)?;
    }
    Ok(())
}
