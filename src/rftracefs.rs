// SPDX-License-Identifier: GPL-2.0

//! rftracefs: a pseudo file system with the layout and semantics of tracefs.
//!
//! There is one super block, shared by every mount (as tracefs has). Its
//! dentries are a view of the module's trace instances
//! ([`crate::instances`]), built when the super block is created (and as
//! instances are made) and dropped with it, so nothing here keeps the module
//! pinned while the file system is not mounted; a mount pins the module, so
//! `rmmod` is refused while rftracefs is mounted.
//!
//! - [`attr`]: control files, as show/store callbacks over `seq_file`;
//! - [`stream`]: files whose text is generated per open file (`trace`);
//! - [`dir`]: creating files and directories in a live super block;
//! - [`instances_dir`]: `instances/`, where `mkdir` and `rmdir` make and
//!   remove trace instances;
//! - [`mount`]: the file system type, mount options and super block.

mod attr;
mod dir;
mod instances_dir;
mod mount;
mod stream;

pub(crate) use attr::{Attribute, InUse, OpTable};
pub(crate) use dir::Dir;
pub(crate) use mount::Registration;
pub(crate) use stream::{stream_fops, Stream};
