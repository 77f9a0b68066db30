// SPDX-License-Identifier: GPL-2.0

//! Stream files: files whose reads produce text generated on the fly from
//! per-open state (`trace`, `trace_pipe`) and whose writes feed events in
//! (`trace_marker`).
//!
//! A [`Stream`] type supplies the behaviour; [`stream_fops`] makes the
//! `file_operations` for it. A splice takes what [`Stream::fill_spliced`]
//! makes (`trace_pipe_raw` has rules of its own for splices) through
//! `copy_splice_read`. Each open file owns a `StreamFile<T>`: the
//! stream's state and the generated text not yet read, under a mutex (reads
//! of one open file may run concurrently, and may sleep waiting for data),
//! and a flag that lets `poll` see pending text without the mutex.

use super::attr::FileNode;
use crate::bindings;
use crate::instance::Instance;
use crate::wait::WaitQueue;
use kernel::{
    ffi::{c_char, c_int, c_long, c_uint, c_ulong},
    new_mutex,
    prelude::*,
    sync::{
        atomic::{Atomic, Relaxed},
        Arc, Mutex,
    },
    uaccess::{UserPtr, UserSlice},
};

/// The largest write a stream accepts at once; longer ones are cut (the
/// caller's `write` sees a short count).
const MAX_WRITE: usize = 4096;
/// Writes up to this size are copied to the stack.
const SMALL_WRITE: usize = 256;
/// Writes up to this size (most markers) are copied to a smaller stack
/// buffer: the buffer is zeroed first, and under TCG or on hardware a
/// zeroing costs by its size.
const TINY_WRITE: usize = 64;
/// The most a splice makes at once: what a pipe of the default size
/// (`PIPE_DEF_BUFFERS` pages) holds; more waits for the next splice.
const MAX_SPLICE: usize = 16 * 4096;

/// How a stream file behaves.
pub(crate) trait Stream: Sized + Send + Unpin {
    /// Per-open state; `write_only` when the file was not opened for reading.
    fn open(
        instance: &Arc<Instance>,
        index: usize,
        write_only: bool,
        truncate: bool,
    ) -> Result<Self>;

    /// Appends at least some text to `text` (up to about `want` bytes), or
    /// nothing at the end. May block unless `nonblock`. Write-only streams
    /// keep the default, which refuses reads.
    fn fill(&mut self, _text: &mut KVec<u8>, _want: usize, _nonblock: bool) -> Result {
        Err(EINVAL)
    }

    /// Appends what a splice of up to `want` bytes hands out; the same as
    /// [`Self::fill`] unless the stream has rules of its own for splices.
    /// `splice_nonblock` is the splice's `SPLICE_F_NONBLOCK`, which (in
    /// ftrace too) only such streams heed; `nonblock` is the file's.
    fn fill_spliced(
        &mut self,
        text: &mut KVec<u8>,
        want: usize,
        nonblock: bool,
        _splice_nonblock: bool,
    ) -> Result {
        self.fill(text, want, nonblock)
    }

    /// Handles a write of `data`: the first bytes (at most 4096) of a write
    /// of `len` bytes. Returns how many of them it took (the count the
    /// `write` returns).
    fn write(&mut self, _data: &[u8], _len: usize) -> Result<usize> {
        Err(EINVAL)
    }

    /// Whether writes need none of the open file's state: then
    /// [`Self::write_shared`] takes them, without the open file's lock, so
    /// that writers sharing a file (`trace_marker`) never wait for each
    /// other, as in the kernel.
    const SHARED_WRITE: bool = false;

    /// Handles a write as [`Self::write`] does, for a stream whose writes
    /// need no per-open state ([`Self::SHARED_WRITE`]).
    fn write_shared(
        _instance: &Arc<Instance>,
        _index: usize,
        _data: &[u8],
        _len: usize,
    ) -> Result<usize> {
        Err(EINVAL)
    }

    /// Whether a read of file `index` of `instance` would find data now
    /// (for `poll`); must not block.
    fn readable(_instance: &Instance, _index: usize) -> bool {
        true
    }

    /// The queue that wakes a `poll` of file `index` of `instance` when
    /// [`Self::readable`] may have become true.
    fn poll_queue(instance: &Instance, _index: usize) -> &WaitQueue {
        instance.readers()
    }

    /// `ioctl(fd, cmd)` on file `index` of `instance`; streams have none
    /// unless they say so.
    fn ioctl(_instance: &Instance, _index: usize, _cmd: c_uint) -> Result<c_long> {
        Err(ENOTTY)
    }
}

#[pin_data]
struct StreamFile<T> {
    instance: Arc<Instance>,
    index: usize,
    /// Generated text is waiting to be read.
    pending: Atomic<bool>,
    #[pin]
    inner: Mutex<Inner<T>>,
}

struct Inner<T> {
    stream: T,
    text: KVec<u8>,
    pos: usize,
}

/// The `file_operations` of stream type `T`.
pub(crate) const fn stream_fops<T: Stream>() -> bindings::file_operations {
    bindings::file_operations {
        open: Some(stream_open::<T>),
        read_iter: Some(stream_read_iter::<T>),
        splice_read: Some(stream_splice_read::<T>),
        write: Some(stream_write::<T>),
        poll: Some(stream_poll::<T>),
        unlocked_ioctl: Some(stream_ioctl::<T>),
        release: Some(stream_release::<T>),
        // SAFETY: all-zero is a valid `file_operations`.
        ..unsafe { core::mem::zeroed() }
    }
}

/// The open file's state.
///
/// # Safety
///
/// `file` must be open with `T`'s operations.
unsafe fn state<'a, T>(file: *mut bindings::file) -> &'a StreamFile<T> {
    // SAFETY: `stream_open` stored a pinned `StreamFile<T>` there, freed only
    // by `release`, which runs after every other operation of the file.
    unsafe { &*(*file).private_data.cast::<StreamFile<T>>() }
}

/// `open`: makes the per-open state.
///
/// # Safety
///
/// Called by the VFS with a live rftracefs stream inode and its new file.
unsafe extern "C" fn stream_open<T: Stream>(
    inode: *mut bindings::inode,
    file: *mut bindings::file,
) -> c_int {
    // SAFETY: stream inodes hold a `FileNode` while the inode lives.
    let node = unsafe { &*(*inode).i_private.cast::<FileNode>() };
    // SAFETY: `file` is being opened.
    let (mode, flags) = unsafe { ((*file).f_mode, (*file).f_flags) };
    let write_only = mode & bindings::RFT_FMODE_READ == 0;
    let truncate = mode & bindings::RFT_FMODE_WRITE != 0 && flags & bindings::RFT_O_TRUNC != 0;
    // An open file keeps its instance from being removed; paired with
    // `close_file` in `stream_release`, or below if the open fails.
    if let Err(e) = node.instance.open_file() {
        return e.to_errno();
    }
    let opened = T::open(&node.instance, node.index, write_only, truncate).and_then(|stream| {
        KBox::pin_init(
            pin_init!(StreamFile {
                instance: node.instance.clone(),
                index: node.index,
                pending: Atomic::new(false),
                inner <- new_mutex!(Inner { stream, text: KVec::new(), pos: 0 }),
            }),
            GFP_KERNEL,
        )
    });
    match opened {
        Ok(state) => {
            // SAFETY: `file` is being opened; the state stays pinned where
            // it is and is freed in `stream_release`.
            unsafe {
                (*file).private_data = KBox::into_raw(Pin::into_inner_unchecked(state)).cast();
                bindings::stream_open(inode, file)
            }
        }
        Err(e) => {
            node.instance.close_file();
            e.to_errno()
        }
    }
}

/// `release`: frees the per-open state.
///
/// # Safety
///
/// Called by the VFS with a file opened by [`stream_open`].
unsafe extern "C" fn stream_release<T: Stream>(
    _inode: *mut bindings::inode,
    file: *mut bindings::file,
) -> c_int {
    // SAFETY: made from a pinned `KBox` in `stream_open`; nothing uses the
    // file any more, so dropping it in place is fine.
    let state = unsafe { KBox::from_raw((*file).private_data.cast::<StreamFile<T>>()) };
    let instance = state.instance.clone();
    drop(state);
    instance.close_file();
    0
}

/// `read_iter`: hands out generated text. It also serves `splice`, as
/// trace-cmd reads `trace_pipe_raw` (through `copy_splice_read`), with
/// the text [`stream_splice_read`] made.
///
/// # Safety
///
/// Called by the VFS with a `kiocb` of an open stream file and the
/// destination iterator.
unsafe extern "C" fn stream_read_iter<T: Stream>(
    iocb: *mut bindings::kiocb,
    to: *mut bindings::iov_iter,
) -> isize {
    // SAFETY: the `kiocb` belongs to an open stream file of type `T`.
    let (state, nonblock, count) = unsafe {
        let file = (*iocb).ki_filp;
        let nonblock = (*file).f_flags & bindings::RFT_O_NONBLOCK != 0
            || (*iocb).ki_flags & bindings::RFT_IOCB_NOWAIT != 0;
        (state::<T>(file), nonblock, bindings::rft_iov_iter_count(to))
    };
    let mut inner = state.inner.lock();
    let result = read_into(&mut inner, count, nonblock, |text| {
        // SAFETY: `to` is the live destination of this read; `text` is
        // valid for its length.
        unsafe { bindings::rft_copy_to_iter(text.as_ptr().cast(), text.len(), to) }
    });
    state.pending.store(inner.pos < inner.text.len(), Relaxed);
    match result {
        Ok(n) => n as isize,
        Err(e) => e.to_errno() as isize,
    }
}

/// `splice_read`: makes what the stream hands out to a splice
/// ([`Stream::fill_spliced`]) unless text is still pending, then passes it
/// to the pipe through `copy_splice_read`, whose `read_iter` takes it.
/// Returns 0 at once if the stream made nothing. (A `read` of the same open
/// file running meanwhile may take the text first; then the splice gets
/// what a read would.)
///
/// # Safety
///
/// Called by the VFS with an open stream file and the splice's arguments.
unsafe extern "C" fn stream_splice_read<T: Stream>(
    file: *mut bindings::file,
    ppos: *mut bindings::loff_t,
    pipe: *mut bindings::pipe_inode_info,
    len: usize,
    flags: c_uint,
) -> isize {
    // SAFETY: `file` is an open stream file of type `T`.
    let (state, nonblock) = unsafe {
        (
            state::<T>(file),
            (*file).f_flags & bindings::RFT_O_NONBLOCK != 0,
        )
    };
    let splice_nonblock = flags & bindings::RFT_SPLICE_F_NONBLOCK != 0;
    {
        let mut inner = state.inner.lock();
        if inner.pos >= inner.text.len() {
            inner.text.clear();
            inner.pos = 0;
            let inner = &mut *inner;
            let want = len.min(MAX_SPLICE);
            let filled =
                inner
                    .stream
                    .fill_spliced(&mut inner.text, want, nonblock, splice_nonblock);
            if let Err(e) = filled {
                return e.to_errno() as isize;
            }
        }
        let pending = inner.pos < inner.text.len();
        state.pending.store(pending, Relaxed);
        if !pending {
            return 0;
        }
    }
    // SAFETY: the arguments are this splice's own.
    unsafe { bindings::copy_splice_read(file, ppos, pipe, len, flags) }
}

/// Hands out up to `count` bytes of generated text through `copy`, which
/// returns how much it took; generates more first if all was read.
fn read_into<T: Stream>(
    inner: &mut Inner<T>,
    count: usize,
    nonblock: bool,
    copy: impl FnOnce(&[u8]) -> usize,
) -> Result<usize> {
    if count == 0 {
        return Ok(0);
    }
    if inner.pos >= inner.text.len() {
        inner.text.clear();
        inner.pos = 0;
        inner.stream.fill(&mut inner.text, count, nonblock)?;
    }
    let n = count.min(inner.text.len() - inner.pos);
    let copied = copy(&inner.text[inner.pos..inner.pos + n]);
    if copied == 0 && n > 0 {
        return Err(EFAULT);
    }
    inner.pos += copied;
    Ok(copied)
}

/// `write`: passes the written bytes to the stream.
///
/// # Safety
///
/// Called by the VFS with an open stream file and a user buffer.
unsafe extern "C" fn stream_write<T: Stream>(
    file: *mut bindings::file,
    buf: *const c_char,
    count: usize,
    _ppos: *mut bindings::loff_t,
) -> isize {
    // SAFETY: `file` is an open stream file of type `T`.
    let state = unsafe { state::<T>(file) };
    let n = count.min(MAX_WRITE);
    let user = UserSlice::new(UserPtr::from_addr(buf as usize), n);
    let write = |data: &[u8]| {
        if T::SHARED_WRITE {
            T::write_shared(&state.instance, state.index, data, count)
        } else {
            state.inner.lock().stream.write(data, count)
        }
    };
    // Small writes (most markers) are copied to the stack, not allocated.
    let written = if n <= TINY_WRITE {
        let mut tiny = [0u8; TINY_WRITE];
        let data = &mut tiny[..n];
        user.reader().read_slice(data).and_then(|()| write(data))
    } else if n <= SMALL_WRITE {
        let mut small = [0u8; SMALL_WRITE];
        let data = &mut small[..n];
        user.reader().read_slice(data).and_then(|()| write(data))
    } else {
        let mut data = KVec::new();
        user.read_all(&mut data, GFP_KERNEL)
            .and_then(|()| write(&data))
    };
    match written {
        Ok(taken) => taken.min(n) as isize,
        Err(e) => e.to_errno() as isize,
    }
}

/// `poll`: readable when the stream has data.
///
/// # Safety
///
/// Called by the VFS with an open stream file and its poll table.
unsafe extern "C" fn stream_poll<T: Stream>(
    file: *mut bindings::file,
    table: *mut bindings::poll_table_struct,
) -> c_uint {
    // SAFETY: `file` is an open stream file of type `T`.
    let state = unsafe { state::<T>(file) };
    // SAFETY: these are the arguments of this `poll`.
    unsafe { T::poll_queue(&state.instance, state.index).poll_wait(file, table) };
    if state.pending.load(Relaxed) || T::readable(&state.instance, state.index) {
        bindings::RFT_EPOLLIN_RDNORM
    } else {
        0
    }
}

/// `unlocked_ioctl`: the stream's ioctls.
///
/// # Safety
///
/// Called by the VFS with an open stream file.
unsafe extern "C" fn stream_ioctl<T: Stream>(
    file: *mut bindings::file,
    cmd: c_uint,
    _arg: c_ulong,
) -> c_long {
    // SAFETY: `file` is an open stream file of type `T`.
    let state = unsafe { state::<T>(file) };
    match T::ioctl(&state.instance, state.index, cmd) {
        Ok(value) => value,
        Err(e) => e.to_errno() as c_long,
    }
}
