// SPDX-License-Identifier: GPL-2.0

//! The `rftracefs` file system type: registration, mount options, and the
//! super block with its inodes.
//!
//! All mounts share one super block (`get_tree_single`), like tracefs. It
//! is filled from the module's instances when first mounted and torn down
//! after the last unmount. Mount options follow tracefs: `uid=`
//! and `gid=` own every entry, `mode=` sets the root's permissions; a later
//! mount or remount changes only the options it names.

use super::attr::{drop_node, OpTable, SeqWriter};
use super::dir::Dir;
use crate::bindings;
use crate::portable::mount_options::{self, MountOption, DEFAULT_MODE};
use core::fmt::Write;
use kernel::{
    error::to_result,
    ffi::{c_int, c_uint},
    prelude::*,
    types::Opaque,
};

/// `s_magic` of rftracefs ("rftf").
const RFTRACEFS_MAGIC: kernel::ffi::c_ulong = 0x7266_7466;
const PAGE_SHIFT: u8 = 12;

/// The registered file system type.
#[pin_data(PinnedDrop)]
pub(crate) struct Registration {
    #[pin]
    fs_type: Opaque<bindings::file_system_type>,
}

impl Registration {
    /// Registers `rftracefs`, which shows the instances of
    /// [`crate::instances`], and creates its mount point
    /// `/sys/kernel/rftrace`.
    pub(crate) fn new(module: &'static ThisModule) -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            fs_type <- Opaque::try_ffi_init(move |slot: *mut bindings::file_system_type| {
                // SAFETY: `slot` is valid for writes; all-zero is a valid
                // `file_system_type` before the fields below are set.
                unsafe {
                    slot.write(bindings::file_system_type {
                        name: c"rftracefs".as_char_ptr(),
                        init_fs_context: Some(init_fs_context),
                        kill_sb: Some(kill_sb),
                        owner: module.as_ptr().cast(),
                        ..core::mem::zeroed()
                    })
                };
                // SAFETY: `slot` is pinned and stays registered until
                // `drop`, which unregisters it.
                to_result(unsafe { bindings::register_filesystem(slot) })?;
                // SAFETY: `kernel_kobj` is the kernel's `/sys/kernel` kobject.
                let made = to_result(unsafe {
                    bindings::sysfs_create_mount_point(bindings::kernel_kobj, c"rftrace".as_char_ptr())
                });
                if made.is_err() {
                    // SAFETY: registered just above.
                    unsafe { bindings::unregister_filesystem(slot) };
                }
                made
            }),
        })
    }
}

// SAFETY: after registration the file system type is only used by the VFS,
// under its own locks.
unsafe impl Sync for Registration {}
// SAFETY: as above; nothing in it is tied to the thread that registered it.
unsafe impl Send for Registration {}

#[pinned_drop]
impl PinnedDrop for Registration {
    fn drop(self: Pin<&mut Self>) {
        // SAFETY: both were made in `new`. No super block exists: a mount
        // holds a reference on the module, so it cannot be unloading.
        unsafe {
            bindings::sysfs_remove_mount_point(bindings::kernel_kobj, c"rftrace".as_char_ptr());
            bindings::unregister_filesystem(self.fs_type.get());
        }
    }
}

/// Mount settings, held by an `fs_context` while parsing and then by the
/// super block (`s_fs_info`).
#[derive(Clone, Copy)]
struct Settings {
    uid: bindings::kuid_t,
    gid: bindings::kgid_t,
    mode: u16,
    /// Which options a mount named, as bits of `GIVEN_*`.
    given: u8,
}

const GIVEN_UID: u8 = 1;
const GIVEN_GID: u8 = 2;
const GIVEN_MODE: u8 = 4;

impl Settings {
    fn defaults() -> Self {
        Settings {
            uid: bindings::kuid_t { val: 0 },
            gid: bindings::kgid_t { val: 0 },
            mode: DEFAULT_MODE,
            given: 0,
        }
    }

    /// Takes over the options `newer` names.
    fn update(&mut self, newer: &Settings) {
        if newer.given & GIVEN_UID != 0 {
            self.uid = newer.uid;
        }
        if newer.given & GIVEN_GID != 0 {
            self.gid = newer.gid;
        }
        if newer.given & GIVEN_MODE != 0 {
            self.mode = newer.mode;
        }
    }
}

/// Returns the settings of a live rftracefs super block.
///
/// # Safety
///
/// `sb` must be an rftracefs super block between `fill_super` and `kill_sb`.
unsafe fn settings_of<'a>(sb: *mut bindings::super_block) -> &'a mut Settings {
    // SAFETY: `s_fs_info` was set from the context's settings by
    // `get_tree_single` and is freed only in `kill_sb`.
    unsafe { &mut *(*sb).s_fs_info.cast::<Settings>() }
}

static CONTEXT_OPS: OpTable<bindings::fs_context_operations> =
    OpTable(bindings::fs_context_operations {
        free: Some(free_fs_context),
        parse_param: Some(parse_param),
        get_tree: Some(get_tree),
        reconfigure: Some(reconfigure),
        // SAFETY: all-zero is a valid `fs_context_operations`.
        ..unsafe { core::mem::zeroed() }
    });

static SUPER_OPS: OpTable<bindings::super_operations> = OpTable(bindings::super_operations {
    statfs: Some(bindings::simple_statfs),
    evict_inode: Some(evict_inode),
    show_options: Some(show_options),
    // SAFETY: all-zero is a valid `super_operations`.
    ..unsafe { core::mem::zeroed() }
});

/// Inode operations of directories.
pub(super) static DIR_IOPS: OpTable<bindings::inode_operations> =
    OpTable(bindings::inode_operations {
        lookup: Some(bindings::simple_lookup),
        permission: Some(permission),
        getattr: Some(getattr),
        // SAFETY: all-zero is a valid `inode_operations`.
        ..unsafe { core::mem::zeroed() }
    });

/// Inode operations of files.
pub(super) static FILE_IOPS: OpTable<bindings::inode_operations> =
    OpTable(bindings::inode_operations {
        permission: Some(permission),
        getattr: Some(getattr),
        // SAFETY: all-zero is a valid `inode_operations`.
        ..unsafe { core::mem::zeroed() }
    });

/// Sets up a new mount or reconfiguration context with default settings.
///
/// # Safety
///
/// Called by the VFS with a new context of this file system type.
unsafe extern "C" fn init_fs_context(fc: *mut bindings::fs_context) -> c_int {
    let settings = match KBox::new(Settings::defaults(), GFP_KERNEL) {
        Ok(settings) => settings,
        Err(e) => return Error::from(e).to_errno(),
    };
    // SAFETY: `fc` is the context being set up; `free_fs_context` frees the
    // settings unless the new super block took them over.
    unsafe {
        (*fc).s_fs_info = KBox::into_raw(settings).cast();
        (*fc).ops = &CONTEXT_OPS.0;
    }
    0
}

/// Frees a context's settings unless a new super block took them.
///
/// # Safety
///
/// Called by the VFS with a context set up by [`init_fs_context`].
unsafe extern "C" fn free_fs_context(fc: *mut bindings::fs_context) {
    // SAFETY: `fc` is being freed; a non-null `s_fs_info` is still ours.
    let settings = unsafe { (*fc).s_fs_info };
    if !settings.is_null() {
        // SAFETY: made by `KBox::into_raw` in `init_fs_context`.
        drop(unsafe { KBox::from_raw(settings.cast::<Settings>()) });
    }
}

/// Parses one mount option into the context's settings.
///
/// # Safety
///
/// Called by the VFS with a context set up by [`init_fs_context`] and a
/// valid parameter.
unsafe extern "C" fn parse_param(
    fc: *mut bindings::fs_context,
    param: *mut bindings::fs_parameter,
) -> c_int {
    // SAFETY: the VFS passes a valid context, holding our settings, and a
    // parameter with a NUL-terminated key.
    let (settings, key, param) = unsafe {
        (
            &mut *(*fc).s_fs_info.cast::<Settings>(),
            CStr::from_char_ptr((*param).key),
            &*param,
        )
    };
    let value = if param.type_() == bindings::fs_value_type_fs_value_is_string {
        // SAFETY: string parameters hold a NUL-terminated string.
        unsafe { CStr::from_char_ptr(param.__bindgen_anon_1.string) }.to_bytes()
    } else {
        &[]
    };
    match mount_options::parse(key.to_bytes(), value) {
        Ok(Some(option)) => apply_option(settings, option).map_or_else(|e| e.to_errno(), |()| 0),
        Ok(None) => -bindings::RFT_ENOPARAM,
        Err(_) => EINVAL.to_errno(),
    }
}

fn apply_option(settings: &mut Settings, option: MountOption) -> Result {
    match option {
        MountOption::Uid(uid) => {
            // SAFETY: maps in the mounting task's namespace; writes `uid`.
            if !unsafe { bindings::rft_make_kuid(uid, &mut settings.uid) } {
                return Err(EINVAL);
            }
            settings.given |= GIVEN_UID;
        }
        MountOption::Gid(gid) => {
            // SAFETY: as above.
            if !unsafe { bindings::rft_make_kgid(gid, &mut settings.gid) } {
                return Err(EINVAL);
            }
            settings.given |= GIVEN_GID;
        }
        MountOption::Mode(mode) => {
            settings.mode = mode;
            settings.given |= GIVEN_MODE;
        }
    }
    Ok(())
}

/// Mounts: finds or makes the one super block, then applies the options.
///
/// # Safety
///
/// Called by the VFS with a context set up by [`init_fs_context`].
unsafe extern "C" fn get_tree(fc: *mut bindings::fs_context) -> c_int {
    // SAFETY: `fc` is a valid context of our type.
    let ret = unsafe { bindings::get_tree_single(fc, Some(fill_super)) };
    if ret != 0 {
        return ret;
    }
    // SAFETY: on success `fc->root` is the root of the (possibly existing)
    // super block; its options are updated with the ones this mount names.
    unsafe { reconfigure(fc) }
}

/// Applies the options a mount or remount names to the super block.
///
/// # Safety
///
/// `fc` is a context set up by [`init_fs_context`] whose `root` is set.
unsafe extern "C" fn reconfigure(fc: *mut bindings::fs_context) -> c_int {
    // SAFETY: `fc->root` is a dentry of our live super block. When the super
    // block was made by this context, it took the settings already and
    // `s_fs_info` of the context is null.
    unsafe {
        let newer = (*fc).s_fs_info.cast::<Settings>();
        if !newer.is_null() {
            settings_of((*(*fc).root).d_sb).update(&*newer);
        }
    }
    0
}

/// Fills a new super block with the instances.
///
/// # Safety
///
/// Called by `get_tree_single` with a new super block and the context.
unsafe extern "C" fn fill_super(
    sb: *mut bindings::super_block,
    _fc: *mut bindings::fs_context,
) -> c_int {
    // SAFETY: called once for the new super block with the mounting context.
    match unsafe { try_fill_super(sb) } {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
    }
}

/// # Safety
///
/// `sb` is a new rftracefs super block being filled.
unsafe fn try_fill_super(sb: *mut bindings::super_block) -> Result {
    // SAFETY: `sb` is new and private to this call.
    unsafe {
        (*sb).s_blocksize = 1 << PAGE_SHIFT;
        (*sb).s_blocksize_bits = PAGE_SHIFT;
        (*sb).s_magic = RFTRACEFS_MAGIC;
        (*sb).s_op = &SUPER_OPS.0;
        (*sb).s_time_gran = 1;
    }
    // SAFETY: `sb` is live and its settings are set.
    let root = unsafe { new_inode(sb, bindings::RFT_S_IFDIR as u16 | settings_of(sb).mode)? };
    // SAFETY: `root` is new; the root directory has links "." and "..".
    unsafe {
        (*root).i_ino = 1;
        (*root).i_op = &DIR_IOPS.0;
        set_fops(root, &bindings::simple_dir_operations);
        bindings::inc_nlink(root);
    }
    // SAFETY: `root` is a new directory inode; `d_make_root` consumes it,
    // also on failure.
    let dentry = unsafe { bindings::d_make_root(root) };
    if dentry.is_null() {
        return Err(ENOMEM);
    }
    // SAFETY: the super block owns its root dentry from here on.
    unsafe { (*sb).s_root = dentry };
    // SAFETY: the root dentry is a persistent directory of `sb`, alive
    // until `kill_sb`, and `fill_super` runs before anyone can unmount.
    let root_dir = unsafe { Dir::from_dentry(dentry) };
    crate::instances::show_all(&root_dir)
}

/// Tears a super block down and frees its settings.
///
/// # Safety
///
/// Called by the VFS with a dying rftracefs super block.
unsafe extern "C" fn kill_sb(sb: *mut bindings::super_block) {
    // The event tree adds and removes directories as modules come and go:
    // not any more in this super block.
    crate::events::tree::detach();
    // SAFETY: `sb` is dying; nobody uses its settings after the VFS tore it
    // down. They may be missing if the super block was never set up.
    unsafe {
        let settings = (*sb).s_fs_info.cast::<Settings>();
        bindings::kill_anon_super(sb);
        if !settings.is_null() {
            drop(KBox::from_raw(settings));
        }
    }
}

/// Evicts an inode, freeing its control-file node.
///
/// # Safety
///
/// Called by the VFS with an unused rftracefs inode.
unsafe extern "C" fn evict_inode(inode: *mut bindings::inode) {
    // SAFETY: the VFS evicts an inode of ours that nobody uses any more.
    unsafe {
        bindings::truncate_inode_pages_final(&mut (*inode).i_data);
        bindings::clear_inode(inode);
        drop_node(inode);
    }
}

/// Lists the mount options that differ from the defaults.
///
/// # Safety
///
/// Called by the VFS with a `seq_file` and our root dentry.
unsafe extern "C" fn show_options(
    m: *mut bindings::seq_file,
    root: *mut bindings::dentry,
) -> c_int {
    // SAFETY: `root` is the root of our live super block.
    let settings = unsafe { settings_of((*root).d_sb) };
    let mut out = SeqWriter(m);
    // SAFETY: plain conversions of ids to the initial namespace.
    let (uid, gid) = unsafe {
        (
            bindings::rft_uid_value(settings.uid),
            bindings::rft_gid_value(settings.gid),
        )
    };
    // Overflow is handled by the caller, which retries with more room.
    let _ = (|| {
        if uid != 0 {
            write!(out, ",uid={uid}")?;
        }
        if gid != 0 {
            write!(out, ",gid={gid}")?;
        }
        if settings.mode != DEFAULT_MODE {
            write!(out, ",mode={:o}", settings.mode)?;
        }
        core::fmt::Result::Ok(())
    })();
    0
}

/// Makes a new inode of `mode` in `sb`, owned as the mount options say.
///
/// # Safety
///
/// `sb` must be a live rftracefs super block with its settings set.
pub(super) unsafe fn new_inode(
    sb: *mut bindings::super_block,
    mode: u16,
) -> Result<*mut bindings::inode> {
    // SAFETY: `sb` is live.
    let inode = unsafe { bindings::new_inode(sb) };
    if inode.is_null() {
        return Err(ENOMEM);
    }
    // SAFETY: `inode` is new and private to us.
    unsafe {
        (*inode).i_ino = bindings::get_next_ino().into();
        (*inode).i_mode = mode;
        bindings::simple_inode_init_ts(inode);
        refresh_owner(inode);
    }
    Ok(inode)
}

/// Gives `inode` the owner, group (and for the root, the mode) the mount
/// options currently say, as tracefs does on every access.
///
/// # Safety
///
/// `inode` must be a live inode of a live rftracefs super block.
unsafe fn refresh_owner(inode: *mut bindings::inode) {
    // SAFETY: per the contract, the inode and its super block are live.
    unsafe {
        let sb = (*inode).i_sb;
        let settings = settings_of(sb);
        (*inode).i_uid = settings.uid;
        (*inode).i_gid = settings.gid;
        if (*inode).i_ino == 1 {
            (*inode).i_mode = bindings::RFT_S_IFDIR as u16 | settings.mode;
        }
    }
}

/// Checks access after refreshing the owner from the mount options.
///
/// # Safety
///
/// Called by the VFS with a live rftracefs inode.
pub(super) unsafe extern "C" fn permission(
    idmap: *mut bindings::mnt_idmap,
    inode: *mut bindings::inode,
    mask: c_int,
) -> c_int {
    // SAFETY: the VFS passes a live inode of ours.
    unsafe {
        refresh_owner(inode);
        bindings::generic_permission(idmap, inode, mask)
    }
}

/// `stat` after refreshing the owner from the mount options.
///
/// # Safety
///
/// Called by the VFS with a path of ours and a `kstat` to fill.
pub(super) unsafe extern "C" fn getattr(
    idmap: *mut bindings::mnt_idmap,
    path: *const bindings::path,
    stat: *mut bindings::kstat,
    request_mask: u32,
    _flags: c_uint,
) -> c_int {
    // SAFETY: the VFS passes a path of ours with a positive dentry.
    unsafe {
        let inode = bindings::rft_d_inode((*path).dentry);
        refresh_owner(inode);
        bindings::generic_fillattr(idmap, request_mask, inode, stat);
    }
    0
}

/// Sets the file operations of a new inode.
///
/// # Safety
///
/// `inode` must be a new inode, not yet visible to others.
pub(super) unsafe fn set_fops(inode: *mut bindings::inode, fops: *const bindings::file_operations) {
    // SAFETY: `i_fop` is the active member of this union for live inodes
    // (`free_inode` shares its storage only after the inode is dead).
    unsafe { (*inode).__bindgen_anon_3.i_fop = fops };
}
