// SPDX-License-Identifier: GPL-2.0

//! Creating files and directories in the rftracefs super block.

use super::attr::{FileNode, InUse, OpTable, ATTR_FOPS};
use super::instances_dir::INSTANCES_IOPS;
use super::mount;
use crate::bindings;
use crate::instance::Instance;
use crate::rftracefs::Attribute;
use kernel::{prelude::*, str::CString, sync::Arc};

/// A directory of a live rftracefs super block, to create entries in.
///
/// # Invariants
///
/// `dentry` is a positive, persistent directory dentry of an rftracefs super
/// block that stays alive while this value exists (it is only made during
/// `fill_super`, or by a caller holding a mount).
pub(crate) struct Dir {
    dentry: *mut bindings::dentry,
}

// SAFETY: a dentry may be used from any task; the VFS locks it as needed.
unsafe impl Send for Dir {}
// SAFETY: as above; `&Dir` only creates entries, under the VFS's locks.
unsafe impl Sync for Dir {}

impl Dir {
    /// Wraps a directory dentry.
    ///
    /// # Safety
    ///
    /// `dentry` must satisfy the type invariants for the lifetime of the
    /// returned value.
    pub(super) unsafe fn from_dentry(dentry: *mut bindings::dentry) -> Self {
        // INVARIANT: guaranteed by the caller.
        Dir { dentry }
    }

    /// Creates control file `name` showing `attr` of `instance`; `index` is
    /// passed to `attr`'s callbacks.
    pub(crate) fn file(
        &self,
        name: &'static str,
        permissions: u16,
        attr: &'static Attribute,
        instance: &Arc<Instance>,
        index: usize,
    ) -> Result {
        self.file_in_use(name, permissions, attr, instance, index, InUse::WhileOpen)
    }

    /// Creates control file `name` as [`Self::file`] does, whose opens keep
    /// `instance` in use as `in_use` says.
    pub(crate) fn file_in_use(
        &self,
        name: &'static str,
        permissions: u16,
        attr: &'static Attribute,
        instance: &Arc<Instance>,
        index: usize,
        in_use: InUse,
    ) -> Result {
        let node = KBox::new(
            FileNode {
                attr: Some(attr),
                instance: instance.clone(),
                name,
                index,
                in_use,
            },
            GFP_KERNEL,
        )?;
        self.file_with_fops(name, permissions, &ATTR_FOPS, node)
    }

    /// Creates stream file `name` of `instance` with file operations `fops`
    /// (see [`super::stream_fops`]); `index` is passed to the stream.
    pub(crate) fn stream_file(
        &self,
        name: &'static str,
        permissions: u16,
        fops: &'static OpTable<bindings::file_operations>,
        instance: &Arc<Instance>,
        index: usize,
    ) -> Result {
        let node = KBox::new(
            FileNode {
                attr: None,
                instance: instance.clone(),
                name,
                index,
                in_use: InUse::WhileOpen,
            },
            GFP_KERNEL,
        )?;
        self.file_with_fops(name, permissions, fops, node)
    }

    fn file_with_fops(
        &self,
        name: &str,
        permissions: u16,
        fops: &'static OpTable<bindings::file_operations>,
        node: KBox<FileNode>,
    ) -> Result {
        let mode = bindings::RFT_S_IFREG as u16 | permissions;
        let fops = &fops.0;
        self.create(name, mode, |inode| {
            // SAFETY: `inode` is new and not yet visible to anyone else. The
            // node is freed when the inode is evicted (`drop_node`).
            unsafe {
                (*inode).i_op = &mount::FILE_IOPS.0;
                mount::set_fops(inode, fops);
                (*inode).i_private = KBox::into_raw(node).cast();
            }
        })?;
        Ok(())
    }

    /// Creates directory `name` and returns it.
    pub(crate) fn dir(&self, name: &str) -> Result<Dir> {
        self.dir_with(name, &mount::DIR_IOPS)
    }

    /// Creates `instances`, where `mkdir` and `rmdir` make and remove
    /// trace instances, and returns it.
    pub(crate) fn instances_dir(&self) -> Result<Dir> {
        self.dir_with("instances", &INSTANCES_IOPS)
    }

    /// Creates directory `name` with inode operations `iops`.
    fn dir_with(
        &self,
        name: &str,
        iops: &'static OpTable<bindings::inode_operations>,
    ) -> Result<Dir> {
        let mode = bindings::RFT_S_IFDIR as u16 | 0o750;
        let dentry = self.create(name, mode, |inode| {
            // SAFETY: `inode` is new and not yet visible to anyone else;
            // `simple_dir_operations` is a static of the kernel.
            unsafe {
                (*inode).i_op = &iops.0;
                mount::set_fops(inode, &bindings::simple_dir_operations);
                // A directory starts with two links: its name and ".".
                bindings::inc_nlink(inode);
            }
        })?;
        // SAFETY: `self.dentry` is positive by the type invariant; the new
        // directory's ".." is one more link to it.
        unsafe { bindings::inc_nlink(bindings::rft_d_inode(self.dentry)) };
        // SAFETY: the new dentry is a persistent directory of the same super
        // block as `self`, so it lives as long.
        Ok(unsafe { Dir::from_dentry(dentry) })
    }

    /// Removes the directory and everything in it. Files left open keep
    /// their nodes until closed.
    pub(crate) fn remove(self) {
        // SAFETY: `self.dentry` is a live directory of the super block
        // (type invariant) that nobody else removes; the removal takes
        // the VFS locks it needs and drops the persistent references.
        unsafe { bindings::simple_recursive_removal(self.dentry, None) };
    }

    /// Creates entry `name` with a new inode of `mode`, set up by `setup`
    /// before it becomes visible.
    fn create(
        &self,
        name: &str,
        mode: u16,
        setup: impl FnOnce(*mut bindings::inode),
    ) -> Result<*mut bindings::dentry> {
        let name = CString::try_from_fmt(fmt!("{name}"))?;
        // SAFETY: `self.dentry` is a live directory (type invariant); this
        // locks it and returns a negative dentry for `name`, or an error.
        let dentry = unsafe { bindings::simple_start_creating(self.dentry, name.as_char_ptr()) };
        let dentry = kernel::error::from_err_ptr(dentry)?;
        // SAFETY: the dentry belongs to the live super block of `self`.
        let inode = unsafe { mount::new_inode((*dentry).d_sb, mode) };
        let result = match inode {
            Ok(inode) => {
                setup(inode);
                // SAFETY: `dentry` is negative and locked for creation;
                // `inode` is fully set up. The dentry keeps the inode.
                unsafe { bindings::d_make_persistent(dentry, inode) };
                Ok(dentry)
            }
            Err(e) => Err(e),
        };
        // SAFETY: pairs with `simple_start_creating` above; a persistent
        // dentry keeps its own reference.
        unsafe { bindings::simple_done_creating(dentry) };
        result
    }
}
