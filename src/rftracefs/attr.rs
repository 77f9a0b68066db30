// SPDX-License-Identifier: GPL-2.0

//! Control files: typed show/store callbacks behind `file_operations`.
//!
//! A read renders the whole file through `seq_file` (`single_open`), so
//! reads at any offset and of any size see one consistent text. A write is
//! copied in whole (bounded by [`Attribute::max_write`]), parsed by the
//! store callback and applied; a refused write fails with the callback's
//! errno and is explained in the instance's `error_log`.

use crate::bindings;
use crate::instance::Instance;
use crate::portable::input::InputError;
use core::fmt;
use kernel::{
    ffi::{c_int, c_void},
    prelude::*,
    sync::Arc,
    uaccess::{UserPtr, UserSlice},
};

/// Renders a control file: `(instance, file index, output)`.
pub(crate) type ShowFn = fn(&Instance, usize, &mut dyn fmt::Write) -> fmt::Result;
/// Parses and applies a write to a control file: `(instance, file index, text)`.
pub(crate) type StoreFn = fn(&Instance, usize, &[u8]) -> Result<(), InputError>;

/// Empties a control file opened with `O_TRUNC`: `(instance, file index)`.
pub(crate) type TruncateFn = fn(&Instance, usize) -> Result<(), InputError>;

/// What one control file shows and accepts.
pub(crate) struct Attribute {
    /// Writes the file's text; the `usize` is the file's index (for a family
    /// of files sharing one attribute, such as `options/*`).
    pub(crate) show: ShowFn,
    /// Parses and applies a write; `None` for read-only files.
    pub(crate) store: Option<StoreFn>,
    /// The longest write accepted; longer ones are refused whole. Zero means
    /// the written bytes are not read at all and `store` gets an empty slice.
    pub(crate) max_write: usize,
    /// Called when the file is opened for writing with `O_TRUNC`, with the
    /// file's index; an error fails the open.
    pub(crate) truncate: Option<TruncateFn>,
}

impl Attribute {
    /// A file that can only be read.
    pub(crate) const fn read_only(show: ShowFn) -> Self {
        Attribute {
            show,
            store: None,
            max_write: 0,
            truncate: None,
        }
    }
}

/// Whether an open file of an instance keeps the instance in use, so that
/// `rmdir` refuses to remove it (`EBUSY`), as the kernel's files that take
/// a reference on their trace array.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum InUse {
    /// While the file is open.
    WhileOpen,
    /// Never (the kernel's event `format` and `id`).
    Never,
}

/// What an rftracefs file inode points at (`inode->i_private`).
pub(super) struct FileNode {
    /// The control file's behaviour; `None` for stream files, whose inode
    /// has their own file operations.
    pub(super) attr: Option<&'static Attribute>,
    pub(super) instance: Arc<Instance>,
    /// Name shown in `error_log`.
    pub(super) name: &'static str,
    pub(super) index: usize,
    pub(super) in_use: InUse,
}

impl FileNode {
    /// Counts an open of the file against its instance, if it keeps the
    /// instance in use; `ENODEV` once the instance was removed.
    pub(super) fn open_use(&self) -> Result {
        match self.in_use {
            InUse::WhileOpen => self.instance.open_file(),
            InUse::Never => Ok(()),
        }
    }

    /// Gives back what [`Self::open_use`] counted.
    pub(super) fn close_use(&self) {
        if self.in_use == InUse::WhileOpen {
            self.instance.close_file();
        }
    }
}

/// A `Sync` wrapper for C operation tables, which hold raw pointers.
#[repr(transparent)]
pub(crate) struct OpTable<T>(pub(crate) T);

// SAFETY: the tables are immutable after construction and only hold
// function pointers and null pointers, which any thread may read.
unsafe impl<T> Sync for OpTable<T> {}

/// The file operations of every control file.
pub(super) static ATTR_FOPS: OpTable<bindings::file_operations> =
    OpTable(bindings::file_operations {
        open: Some(attr_open),
        read: Some(bindings::seq_read),
        write: Some(attr_write),
        llseek: Some(bindings::seq_lseek),
        release: Some(attr_release),
        // SAFETY: all-zero is a valid `file_operations` (no optional operation).
        ..unsafe { core::mem::zeroed() }
    });

/// Returns the node of an rftracefs file inode.
///
/// # Safety
///
/// `inode` must be a live rftracefs file inode made by [`super::Dir::file`];
/// the node lives until the inode is evicted.
unsafe fn node_of<'a>(inode: *const bindings::inode) -> &'a FileNode {
    // SAFETY: per the function's contract `i_private` holds a `FileNode`
    // that outlives any open file of the inode.
    unsafe { &*(*inode).i_private.cast::<FileNode>() }
}

/// Frees the node of a file inode being evicted.
///
/// # Safety
///
/// `inode` must be an rftracefs inode being evicted; nothing may use its
/// node afterwards.
pub(super) unsafe fn drop_node(inode: *mut bindings::inode) {
    // SAFETY: the caller guarantees exclusive access to the dying inode.
    let private = unsafe { core::mem::take(&mut (*inode).i_private) };
    if !private.is_null() {
        // SAFETY: a non-null `i_private` of an rftracefs inode was made by
        // `KBox::into_raw` in `Dir::file`, and is freed only here.
        drop(unsafe { KBox::from_raw(private.cast::<FileNode>()) });
    }
}

/// `open` of control files: clears the file on `O_TRUNC` if it has a
/// truncate action, and sets up `seq_file` for reading.
///
/// # Safety
///
/// Called by the VFS with a live rftracefs file inode and the file being
/// opened.
unsafe extern "C" fn attr_open(inode: *mut bindings::inode, file: *mut bindings::file) -> c_int {
    // SAFETY: the VFS passes the inode being opened, an rftracefs file.
    let node = unsafe { node_of(inode) };
    // An open file keeps its instance from being removed; paired with
    // `close_file` in `attr_release`, or below if the open fails.
    if let Err(e) = node.open_use() {
        return e.to_errno();
    }
    // SAFETY: `inode` and `file` are being opened.
    let opened = unsafe { open_node(node, inode, file) };
    if opened != 0 {
        node.close_use();
    }
    opened
}

/// The work of [`attr_open`] once the file is counted.
///
/// # Safety
///
/// As for [`attr_open`]; `node` is `inode`'s.
unsafe fn open_node(
    node: &FileNode,
    inode: *mut bindings::inode,
    file: *mut bindings::file,
) -> c_int {
    // SAFETY: `file` is the file being opened.
    let (mode, flags) = unsafe { ((*file).f_mode, (*file).f_flags) };
    if mode & bindings::RFT_FMODE_WRITE != 0 && flags & bindings::RFT_O_TRUNC != 0 {
        if let Some(truncate) = node.attr.and_then(|a| a.truncate) {
            if let Err(e) = truncate(&node.instance, node.index) {
                return -e.errno();
            }
        }
    }
    if mode & bindings::RFT_FMODE_READ == 0 {
        return 0;
    }
    // SAFETY: `file` is being opened; `attr_show` gets the node back as its
    // private pointer, valid while the file is open.
    unsafe { bindings::single_open(file, Some(attr_show), (*inode).i_private) }
}

/// `release` of control files.
///
/// # Safety
///
/// Called by the VFS with a file opened by [`attr_open`].
unsafe extern "C" fn attr_release(inode: *mut bindings::inode, file: *mut bindings::file) -> c_int {
    // SAFETY: the inode of an open file is alive, and so is its node.
    unsafe { node_of(inode) }.close_use();
    // SAFETY: `file` is the file being released.
    if unsafe { (*file).f_mode } & bindings::RFT_FMODE_READ == 0 {
        return 0;
    }
    // SAFETY: files opened for reading were set up by `single_open`.
    unsafe { bindings::single_release(inode, file) }
}

/// `show` of the `seq_file` of a control file.
///
/// # Safety
///
/// Called by `seq_read` with a `seq_file` set up by [`attr_open`].
unsafe extern "C" fn attr_show(m: *mut bindings::seq_file, _v: *mut c_void) -> c_int {
    // SAFETY: `single_open` stored the node pointer in `m->private`; the file
    // is open, so the inode and its node are alive.
    let node = unsafe { &*(*m).private.cast::<FileNode>() };
    let mut out = SeqWriter(m);
    // An error here only means the seq_file buffer overflowed: `seq_read`
    // notices that itself and calls again with a larger buffer.
    if let Some(attr) = node.attr {
        let _ = (attr.show)(&node.instance, node.index, &mut out);
    }
    0
}

/// `write` of control files.
///
/// # Safety
///
/// Called by the VFS with an open control file and a user buffer of
/// `count` bytes.
unsafe extern "C" fn attr_write(
    file: *mut bindings::file,
    buf: *const kernel::ffi::c_char,
    count: usize,
    _ppos: *mut bindings::loff_t,
) -> isize {
    // SAFETY: `file` is an open rftracefs control file.
    let node = unsafe { node_of((*file).f_inode) };
    match write_to(node, buf as usize, count) {
        Ok(()) => count as isize,
        Err(e) => e.to_errno() as isize,
    }
}

fn write_to(node: &FileNode, buf: usize, count: usize) -> Result {
    let attr = node.attr.ok_or(EINVAL)?;
    let store = attr.store.ok_or(EINVAL)?;
    let mut text = KVec::new();
    if attr.max_write > 0 {
        if count > attr.max_write {
            // Keep the start of the write for `error_log`.
            UserSlice::new(UserPtr::from_addr(buf), count.min(128))
                .read_all(&mut text, GFP_KERNEL)?;
            return Err(refuse(node, InputError::TooLong, &text));
        }
        UserSlice::new(UserPtr::from_addr(buf), count).read_all(&mut text, GFP_KERNEL)?;
    }
    store(&node.instance, node.index, &text).map_err(|e| refuse(node, e, &text))
}

fn refuse(node: &FileNode, error: InputError, text: &[u8]) -> Error {
    if error.is_logged() {
        node.instance.log_error(node.name, error, text);
    }
    Error::from_errno(-error.errno())
}

/// `fmt::Write` into a `seq_file`.
pub(super) struct SeqWriter(pub(super) *mut bindings::seq_file);

impl fmt::Write for SeqWriter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        // SAFETY: `self.0` is the seq_file whose `show` is running.
        let ret = unsafe { bindings::seq_write(self.0, s.as_ptr().cast(), s.len()) };
        if ret == 0 {
            Ok(())
        } else {
            Err(fmt::Error)
        }
    }
}
