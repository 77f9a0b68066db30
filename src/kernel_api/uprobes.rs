// SPDX-License-Identifier: GPL-2.0

//! User-space probes (`include/linux/uprobes.h`): the file a probe is
//! placed in, resolved from its path (`kern_path`), and the registration of
//! a consumer at an offset of it (`uprobe_register`,
//! `uprobe_unregister_nosync`, `uprobe_unregister_sync`).
//!
//! Consumers run in the probed task's own context, preemptible, where its
//! memory may be read with page faults allowed (`user_memory`).

use crate::bindings;
use crate::kernel_api::regs::Regs;
use core::ffi::c_int;
use core::ptr::NonNull;
use kernel::alloc::KBox;
use kernel::error::{from_err_ptr, to_result};
use kernel::prelude::*;
use kernel::str::CStr;
use kernel::types::Opaque;

/// `LOOKUP_FOLLOW` (`include/linux/namei.h`): follow a final symlink.
const LOOKUP_FOLLOW: u32 = 1;

/// Why a path names no file a uprobe can be placed in, as `uprobe_events`
/// tells them apart (`__trace_uprobe_create`).
#[derive(Debug)]
pub(crate) enum UserFileError {
    /// `kern_path` failed (`FILE_NOT_FOUND`), with its errno.
    NotFound(Error),
    /// The path is not a regular file (`NO_REGULAR_FILE`, `EINVAL`).
    NotRegular,
}

/// A regular file, resolved from a path and held referenced.
///
/// # Invariants
/// `path` was filled in by a successful `kern_path` (or copied with
/// `path_get`), this owns its references to the dentry and the mount, and
/// the dentry is a regular file.
pub(crate) struct UserFile {
    path: bindings::path,
}

// SAFETY: a `struct path` is two counted references, usable and released
// from any task.
unsafe impl Send for UserFile {}
// SAFETY: shared access only reads the references.
unsafe impl Sync for UserFile {}

impl UserFile {
    /// Resolves `name` following symlinks (`kern_path(name, LOOKUP_FOLLOW)`);
    /// sleeps.
    pub(crate) fn resolve(name: &CStr) -> Result<Self, UserFileError> {
        let mut path = bindings::path::default();
        // SAFETY: `name` is NUL-terminated and `path` is written only on
        // success.
        let ret = unsafe { bindings::kern_path(name.as_char_ptr(), LOOKUP_FOLLOW, &mut path) };
        to_result(ret).map_err(UserFileError::NotFound)?;
        // SAFETY: `kern_path` succeeded: `path.dentry` is a referenced
        // dentry.
        let regular = unsafe { bindings::rft_d_is_reg(path.dentry) };
        if !regular {
            // SAFETY: the references `kern_path` took, released once.
            unsafe { bindings::path_put(&path) };
            return Err(UserFileError::NotRegular);
        }
        // INVARIANT: resolved by `kern_path`, a regular file.
        Ok(Self { path })
    }

    /// Whether `other` is the same file's data (the same `d_real_inode`).
    pub(crate) fn same_data(&self, other: &UserFile) -> bool {
        self.data_inode() == other.data_inode()
    }

    /// The inode holding the file's data (`d_real_inode`: below an
    /// overlay), as `trace_uprobe_enable` registers at.
    fn data_inode(&self) -> *mut bindings::inode {
        // SAFETY: the dentry is referenced for as long as `self`.
        unsafe { bindings::rft_d_real_inode(self.path.dentry) }
    }
}

impl Clone for UserFile {
    fn clone(&self) -> Self {
        // SAFETY: `self.path` holds references, so taking more is valid.
        unsafe { bindings::path_get(&self.path) };
        // INVARIANT: the copy owns the references just taken.
        Self { path: self.path }
    }
}

impl Drop for UserFile {
    fn drop(&mut self) {
        // SAFETY: the references this owns (invariant), released once.
        unsafe { bindings::path_put(&self.path) };
    }
}

/// What a uprobe consumer does when its probe fires. Both run in the probed
/// task's context, preemptible; user memory may be read with faults.
pub(crate) trait UprobeHandler: Send + Sync + 'static {
    /// At the probed instruction; `regs.ip()` is its address.
    fn on_entry(&self, regs: &Regs);
    /// At the return of the probed function, whose entry is `func`;
    /// `regs.ip()` is the address it returns to.
    fn on_return(&self, func: usize, regs: &Regs);
}

/// Which of a consumer's callbacks the uprobe calls.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fires {
    /// `handler`: at the probed instruction.
    OnEntry,
    /// `ret_handler`: at the return of the function probed at its entry;
    /// and `handler` at the entry too, as the kernel's uretprobe events
    /// count their hits there (`uprobe_dispatcher`).
    OnReturn,
}

/// A `struct uprobe_consumer` calling `T`.
///
/// # Invariants
/// `raw` is the first field, so a pointer to it is a pointer to the
/// consumer; its `handler` is the entry trampoline for `T`, and for
/// `Fires::OnReturn` its `ret_handler` the return trampoline (else null).
#[repr(C)]
struct Consumer<T: UprobeHandler> {
    raw: Opaque<bindings::uprobe_consumer>,
    handler: T,
}

impl<T: UprobeHandler> Consumer<T> {
    fn new(handler: T, fires: Fires) -> Result<Pin<KBox<Self>>> {
        let mut raw = bindings::uprobe_consumer {
            handler: Some(Self::entry_trampoline),
            ..Default::default()
        };
        if fires == Fires::OnReturn {
            raw.ret_handler = Some(Self::return_trampoline);
        }
        // INVARIANT: `repr(C)` with `raw` first, the trampolines set.
        KBox::pin(
            Self {
                raw: Opaque::new(raw),
                handler,
            },
            GFP_KERNEL,
        )
        .map_err(Into::into)
    }

    /// The consumer `uc` is the `raw` of.
    ///
    /// # Safety
    /// `uc` is the `raw` of a live `Consumer<T>`.
    unsafe fn from_raw<'a>(uc: *mut bindings::uprobe_consumer) -> &'a Self {
        // SAFETY: `raw` is the first field of a `repr(C)` struct
        // (invariant) and the caller vouches the consumer is alive.
        unsafe { &*uc.cast::<Self>() }
    }

    /// `uprobe_consumer.handler`.
    ///
    /// # Safety
    /// Called by the uprobe with the `raw` of a registered `Consumer<T>` and
    /// the task's registers.
    unsafe extern "C" fn entry_trampoline(
        uc: *mut bindings::uprobe_consumer,
        regs: *mut bindings::pt_regs,
        _data: *mut u64,
    ) -> c_int {
        // SAFETY: the uprobe calls back only consumers registered through
        // `Registration`, which keeps the consumer alive until
        // `uprobe_unregister_sync` returned.
        let consumer = unsafe { Self::from_raw(uc) };
        // SAFETY: `regs` are the task's registers, valid for the call.
        let regs = Regs::from_raw(unsafe { &*regs });
        consumer.handler.on_entry(regs);
        0
    }

    /// `uprobe_consumer.ret_handler`.
    ///
    /// # Safety
    /// As `entry_trampoline`.
    unsafe extern "C" fn return_trampoline(
        uc: *mut bindings::uprobe_consumer,
        func: usize,
        regs: *mut bindings::pt_regs,
        _data: *mut u64,
    ) -> c_int {
        // SAFETY: as in `entry_trampoline`.
        let consumer = unsafe { Self::from_raw(uc) };
        // SAFETY: `regs` are the task's registers, valid for the call.
        let regs = Regs::from_raw(unsafe { &*regs });
        consumer.handler.on_return(func, regs);
        0
    }
}

/// A consumer registered at an offset of a file: its handler is called at
/// every hit in every task, until dropped (`uprobe_unregister_nosync`,
/// then `uprobe_unregister_sync`: no call is under way once the drop
/// returns). Dropping sleeps.
///
/// # Invariants
/// `uprobe` is what `uprobe_register` returned for `consumer.raw` at the
/// data inode of `_file`, not yet unregistered; `_file` keeps that inode
/// referenced, as `uprobe_register` requires.
pub(crate) struct Registration<T: UprobeHandler> {
    uprobe: NonNull<bindings::uprobe>,
    consumer: Pin<KBox<Consumer<T>>>,
    _file: UserFile,
}

// SAFETY: the uprobe handle may be unregistered from any task, and `T` is
// `Send + Sync`.
unsafe impl<T: UprobeHandler> Send for Registration<T> {}
// SAFETY: shared access does nothing with the handle.
unsafe impl<T: UprobeHandler> Sync for Registration<T> {}

impl<T: UprobeHandler> Registration<T> {
    /// Registers `handler` at byte `offset` of `file` (`uprobe_register`),
    /// with the SDT semaphore at `ref_ctr_offset` (0: none); sleeps.
    /// Errors are the kernel's: `EINVAL` for an offset past the file's end
    /// or not aligned, and those of placing the breakpoints.
    pub(crate) fn register(
        file: &UserFile,
        offset: u64,
        ref_ctr_offset: u64,
        handler: T,
        fires: Fires,
    ) -> Result<Self> {
        // `loff_t`: past `i64::MAX` is past any file's end.
        let offset = i64::try_from(offset).map_err(|_| EINVAL)?;
        let ref_ctr_offset = i64::try_from(ref_ctr_offset).map_err(|_| EINVAL)?;
        let consumer = Consumer::new(handler, fires)?;
        let file = file.clone();
        // SAFETY: the inode is kept referenced by `file`; the consumer is
        // pinned and outlives the registration (`Drop`).
        let uprobe = from_err_ptr(unsafe {
            bindings::uprobe_register(
                file.data_inode(),
                offset,
                ref_ctr_offset,
                consumer.raw.get(),
            )
        })?;
        let uprobe = NonNull::new(uprobe).ok_or(EINVAL)?;
        // INVARIANT: registered for `consumer` at `file`'s inode.
        Ok(Self {
            uprobe,
            consumer,
            _file: file,
        })
    }
}

impl<T: UprobeHandler> Drop for Registration<T> {
    fn drop(&mut self) {
        // SAFETY: registered and not yet unregistered (invariant); the
        // consumer stays allocated until the sync below returned.
        unsafe {
            bindings::uprobe_unregister_nosync(self.uprobe.as_ptr(), self.consumer.raw.get());
            bindings::uprobe_unregister_sync();
        }
    }
}
