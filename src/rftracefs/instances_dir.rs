// SPDX-License-Identifier: GPL-2.0

//! `instances/`: the directory where `mkdir` makes a trace instance and
//! `rmdir` removes one, as tracefs's instance directory.
//!
//! As tracefs does, the directory locks the VFS holds are dropped while
//! the instance is made or removed: making one creates its files in the
//! new directory (taking the parent's lock again), and removing one
//! removes them. The name is copied first; rftracefs has no rename, so the
//! dentry keeps it meanwhile. [`crate::instances`] serializes `mkdir` and
//! `rmdir` with its list's lock.

use super::dir::Dir;
use super::mount::{getattr, permission};
use super::OpTable;
use crate::bindings;
use kernel::{
    ffi::c_int,
    prelude::*,
    str::{CStr, CString},
};

/// Inode operations of `instances/`.
pub(super) static INSTANCES_IOPS: OpTable<bindings::inode_operations> =
    OpTable(bindings::inode_operations {
        lookup: Some(bindings::simple_lookup),
        permission: Some(permission),
        getattr: Some(getattr),
        mkdir: Some(instance_mkdir),
        rmdir: Some(instance_rmdir),
        // SAFETY: all-zero is a valid `inode_operations`.
        ..unsafe { core::mem::zeroed() }
    });

/// The name of `dentry`, copied.
///
/// # Safety
///
/// `dentry` is a live dentry of rftracefs.
unsafe fn name_of(dentry: *mut bindings::dentry) -> Result<CString> {
    // SAFETY: a dentry's name is NUL-terminated and stays while the
    // dentry is live and not renamed (rftracefs renames nothing); `d_name`
    // is the member of the union that names it.
    let name = unsafe { CStr::from_char_ptr((*dentry).__bindgen_anon_1.d_name.name.cast()) };
    CString::try_from(name).map_err(|_| ENOMEM)
}

/// `mkdir` in `instances/`: makes a trace instance.
///
/// # Safety
///
/// Called by the VFS with `instances/`'s inode, locked, and a negative
/// dentry in it.
unsafe extern "C" fn instance_mkdir(
    _idmap: *mut bindings::mnt_idmap,
    parent: *mut bindings::inode,
    dentry: *mut bindings::dentry,
    _mode: bindings::umode_t,
) -> *mut bindings::dentry {
    // SAFETY: the VFS holds `dentry` during the call.
    let made = unsafe { name_of(dentry) }.and_then(|name| {
        // SAFETY: `instances/` is a persistent directory of the super
        // block, which the VFS keeps alive during the call (its caller
        // holds the mount).
        let instances = unsafe { Dir::from_dentry((*dentry).d_parent) };
        // SAFETY: the VFS locked `parent`; it is unlocked while the
        // instance's directory is made in it, then locked again.
        unsafe { bindings::rft_inode_unlock(parent) };
        let made = crate::instances::make(&instances, &name);
        // SAFETY: as above.
        unsafe { bindings::rft_inode_lock(parent) };
        made
    });
    match made {
        // The directory was made at `dentry`'s name, in `dentry` itself.
        Ok(()) => core::ptr::null_mut(),
        Err(e) => e.to_ptr(),
    }
}

/// `rmdir` in `instances/`: removes a trace instance.
///
/// # Safety
///
/// Called by the VFS with `instances/`'s inode and the instance's
/// directory, both locked.
unsafe extern "C" fn instance_rmdir(
    parent: *mut bindings::inode,
    dentry: *mut bindings::dentry,
) -> c_int {
    // SAFETY: the VFS holds `dentry` during the call.
    let name = match unsafe { name_of(dentry) } {
        Ok(name) => name,
        Err(e) => return e.to_errno(),
    };
    // SAFETY: the VFS holds `dentry`, a positive directory of ours.
    let inode = unsafe { bindings::rft_d_inode(dentry) };
    // SAFETY: the VFS locked both; they are unlocked while the instance is
    // removed (removing its files takes the directory's lock), then
    // locked again in the VFS's order.
    unsafe {
        bindings::rft_inode_unlock(parent);
        bindings::rft_inode_unlock(inode);
    }
    // SAFETY: the instance's directory is persistent until removed here;
    // the VFS holds the dentry during the call.
    let dir = unsafe { Dir::from_dentry(dentry) };
    let removed = crate::instances::remove(dir, &name);
    // SAFETY: as above.
    unsafe {
        bindings::rft_inode_lock_parent(parent);
        bindings::rft_inode_lock(inode);
    }
    match removed {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}
