// SPDX-License-Identifier: GPL-2.0

//! Where uprobe events attach: a probe at an offset of a file
//! (`PATH:OFFSET[(REF_CTR_OFFSET)]`), resolved when the event is defined
//! and registered only while the event is enabled, as the kernel's
//! `trace_uprobe` does (`__trace_uprobe_create`, `trace_uprobe_enable`,
//! `__probe_event_disable`).
//!
//! Hits reach the handler through `ProbeHandler::on_user_hit`, in the
//! probed task's context with preemption enabled, as `uprobe_dispatcher`
//! and `uretprobe_dispatcher` run.

use crate::kernel_api::regs::Regs;
use crate::kernel_api::uprobes::{Fires, Registration, UprobeHandler, UserFile, UserFileError};
use crate::portable::probes::errors::ProbeErrorCode;
use crate::probes::hit::{Hit, ProbeHandler};
use kernel::new_mutex;
use kernel::prelude::*;
use kernel::str::CStr;
use kernel::sync::{Arc, Mutex};

/// Tells a probe event's handler of the hits of one uprobe, with the
/// addresses the kernel's uprobe events record: `__probe_ip` (the probed
/// address) at entry; `__probe_func` (the function) and `__probe_ret_ip`
/// (where it returns to) at return.
struct UserHits {
    handler: Arc<dyn ProbeHandler>,
}

impl UprobeHandler for UserHits {
    fn on_entry(&self, regs: &Regs) {
        let hit = Hit {
            regs,
            addr: regs.ip() as usize,
            ret_ip: None,
            entry_data: &[],
        };
        self.handler.on_user_hit(&hit);
    }

    fn on_return(&self, func: usize, regs: &Regs) {
        let hit = Hit {
            regs,
            addr: func,
            ret_ip: Some(regs.ip() as usize),
            entry_data: &[],
        };
        self.handler.on_user_hit(&hit);
    }
}

/// A uprobe of a probe event: the file resolved, registered while enabled.
pub(crate) struct UserProbe {
    file: UserFile,
    offset: u64,
    /// 0 for none, as the kernel passes it.
    ref_ctr_offset: u64,
    fires: Fires,
    handler: Arc<dyn ProbeHandler>,
    registration: Pin<KBox<Mutex<Option<Registration<UserHits>>>>>,
}

impl UserProbe {
    /// Resolves `path` now, following symlinks (errors as the kernel logs
    /// them: `FILE_NOT_FOUND` with `kern_path`'s errno, `NO_REGULAR_FILE`
    /// with `EINVAL`); registers nothing yet. Sleeps.
    pub(crate) fn new(
        path: &[u8],
        offset: u64,
        ref_ctr_offset: Option<u64>,
        is_return: bool,
        handler: Arc<dyn ProbeHandler>,
    ) -> Result<Self, (ProbeErrorCode, Error)> {
        let file = resolve(path)?;
        let registration = KBox::pin_init(new_mutex!(None), GFP_KERNEL)
            .map_err(|e| (ProbeErrorCode::FileNotFound, e))?;
        Ok(Self {
            file,
            offset,
            ref_ctr_offset: ref_ctr_offset.unwrap_or(0),
            fires: if is_return {
                Fires::OnReturn
            } else {
                Fires::OnEntry
            },
            handler,
            registration,
        })
    }

    /// Whether a probe at `offset` of `file` with reference counter
    /// `ref_ctr_offset` conflicts with this one: the same place with
    /// another counter (`validate_ref_ctr_offset`).
    pub(crate) fn counter_conflicts(
        &self,
        file: &UserFile,
        offset: u64,
        ref_ctr_offset: u64,
    ) -> bool {
        self.file.same_data(file) && self.offset == offset && self.ref_ctr_offset != ref_ctr_offset
    }

    /// Places the probe in every task mapping the file (`uprobe_register`,
    /// as the kernel does when the event is enabled); nothing if already
    /// placed. Sleeps. Errors are `uprobe_register`'s (`EINVAL` for an
    /// offset past the file's end or misaligned).
    pub(crate) fn enable(&self) -> Result {
        let mut registration = self.registration.lock();
        if registration.is_none() {
            let hits = UserHits {
                handler: self.handler.clone(),
            };
            *registration = Some(Registration::register(
                &self.file,
                self.offset,
                self.ref_ctr_offset,
                hits,
                self.fires,
            )?);
        }
        Ok(())
    }

    /// Removes the probe (`uprobe_unregister_nosync`, then
    /// `uprobe_unregister_sync`): once this returns the handler is no more
    /// called. Sleeps.
    pub(crate) fn disable(&self) {
        let registration = self.registration.lock().take();
        drop(registration);
    }
}

/// `kern_path` of `path` and the check that it is a regular file, with the
/// errors `__trace_uprobe_create` logs.
pub(crate) fn resolve(path: &[u8]) -> Result<UserFile, (ProbeErrorCode, Error)> {
    let not_found = |e| (ProbeErrorCode::FileNotFound, e);
    let mut name =
        KVec::with_capacity(path.len() + 1, GFP_KERNEL).map_err(|_| not_found(ENOMEM))?;
    name.extend_from_slice(path, GFP_KERNEL)
        .map_err(|_| not_found(ENOMEM))?;
    name.push(0, GFP_KERNEL).map_err(|_| not_found(ENOMEM))?;
    // A NUL inside is a name no file has.
    let name = CStr::from_bytes_with_nul(&name).map_err(|_| not_found(ENOENT))?;
    UserFile::resolve(name).map_err(|e| match e {
        UserFileError::NotFound(e) => not_found(e),
        UserFileError::NotRegular => (ProbeErrorCode::NoRegularFile, EINVAL),
    })
}
