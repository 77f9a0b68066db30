// SPDX-License-Identifier: GPL-2.0

//! What the kernel does with all the argument words of a probe command
//! before it parses each one: the `$arg*` check of
//! `traceprobe_expand_meta_args` (without BTF), the `MAX_TRACE_ARGS` limit
//! and the rewriting of `:%pd`/`:%pD` arguments by
//! `traceprobe_expand_dentry_args` (kernel/trace/trace_probe.c,
//! trace_kprobe.c). The order is: meta arguments, count, dentries, then
//! `fetch::parse_arg` on each word.

use super::errors::{ProbeError, ProbeErrorCode};
use super::fetch::{ParseContext, MAX_TRACE_ARGS};
use core::fmt::Write;

/// `MAX_DENTRY_ARGS_LEN`: the room for all the rewritten `%pd` words of
/// a command (each with its NUL).
pub(crate) const MAX_DENTRY_ARGS_LEN: usize = 256;

/// What `traceprobe_expand_meta_args` decides about the words of a kprobe
/// or fprobe command (uprobe commands have no such step).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MetaArgs {
    /// Parse the words as they are.
    Keep,
    /// Refused: `error` is logged at argument word `word` (from 0; the
    /// kernel's log index is `word + 2`) and the command fails.
    Refused {
        /// The argument word.
        word: usize,
        /// The error, at offset 0 of that word.
        error: ProbeError,
    },
    /// `$arg*` without BTF: the kernel logs `error` at argument word
    /// `word` (the last word starting with `$arg`) and goes on with the
    /// words as they are; the `$arg*` word then fails on its own.
    LoggedAndKept {
        /// The argument word.
        word: usize,
        /// The error, at offset 0 of that word.
        error: ProbeError,
    },
}

/// `traceprobe_expand_meta_args` without BTF, over the argument words of
/// a kprobe or fprobe command.
pub(crate) fn check_meta_args(words: &[&[u8]], ctx: &ParseContext<'_>) -> MetaArgs {
    let refuse = |word, code| MetaArgs::Refused {
        word,
        error: ProbeError::at(code, 0),
    };
    // argv_has_var_arg
    let mut found = false;
    let mut args_idx = None;
    let mut last = 0;
    for (i, word) in words.iter().enumerate() {
        let Some(rest) = word.strip_prefix(b"$arg") else {
            continue;
        };
        last = i;
        if !ctx.has_function_args() {
            return refuse(i, ProbeErrorCode::NofentryArgs);
        }
        match rest.first() {
            Some(c) if c.is_ascii_digit() => found = true,
            Some(b'*') => {
                if args_idx.is_some() {
                    return refuse(i, ProbeErrorCode::DoubleArgs);
                }
                found = true;
                args_idx = Some(i);
            }
            _ => return refuse(i, ProbeErrorCode::BadVar),
        }
    }
    if !found || args_idx.is_none() {
        return MetaArgs::Keep;
    }
    // No BTF: "$arg* requires BTF info", logged, and nothing expanded.
    MetaArgs::LoggedAndKept {
        word: last,
        error: ProbeError::at(ProbeErrorCode::NosupBtfarg, 0),
    }
}

/// `argc > MAX_TRACE_ARGS`: the error is logged at offset 0 of the first
/// argument word (log index 2).
pub(crate) fn check_arg_count(count: usize) -> Result<(), ProbeError> {
    if count > MAX_TRACE_ARGS {
        return Err(ProbeError::at(ProbeErrorCode::TooManyArgs, 0));
    }
    Ok(())
}

/// Where a `struct dentry`'s name and a `struct file`'s dentry are, for
/// `%pd` and `%pD` (the module takes them from the kernel's headers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DentryOffsets {
    /// `offsetof(struct dentry, d_name.name)`.
    pub(crate) dentry_name: usize,
    /// `offsetof(struct file, f_path.dentry)`.
    pub(crate) file_dentry: usize,
}

/// Why a `%pd` word could not be rewritten: the rewritten words of the
/// command take more than [`MAX_DENTRY_ARGS_LEN`] bytes (the kernel
/// fails with `-ENOMEM` and logs nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NoRoom;

/// Rewrites `[NAME=]ARG:%pd` into `[NAME=]+0x0(+0xN(ARG)):string` (and
/// `%pD` through the file's dentry) into `out`, the room left of the
/// command's [`MAX_DENTRY_ARGS_LEN`] (the text and a NUL must fit; the
/// caller takes `len + 1` of it). `None` for a word that is not one. The
/// rewritten word replaces the original everywhere, the logged command
/// too.
pub(crate) fn expand_dentry_arg(
    word: &[u8],
    offsets: &DentryOffsets,
    out: &mut [u8],
) -> Option<Result<usize, NoRoom>> {
    let is_dentry = word.ends_with(b":%pd") || word.ends_with(b":%pD");
    if !is_dentry {
        return None;
    }
    let stem = &word[..word.len() - 4];
    let (name, arg) = match stem.iter().position(|&c| c == b'=') {
        Some(eq) => (&stem[..=eq], &stem[eq + 1..]),
        None => (&stem[..0], stem),
    };
    let mut text = Text {
        buf: out,
        len: 0,
        overflow: false,
    };
    text.bytes(name);
    let _ = write!(text, "+0x0(+0x{:x}(", offsets.dentry_name);
    if word.ends_with(b"D") {
        let _ = write!(text, "+0x{:x}(", offsets.file_dentry);
        text.bytes(arg);
        text.bytes(b"))):string");
    } else {
        text.bytes(arg);
        text.bytes(b")):string");
    }
    // snprintf's `ret >= bufsize - used`: the NUL must fit too.
    if text.overflow || text.len >= text.buf.len() {
        return Some(Err(NoRoom));
    }
    Some(Ok(text.len))
}

/// Writes into a fixed buffer, noting when it does not fit.
struct Text<'b> {
    buf: &'b mut [u8],
    len: usize,
    overflow: bool,
}

impl Text<'_> {
    fn bytes(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        match self.buf.get_mut(self.len..end) {
            Some(slot) => {
                slot.copy_from_slice(bytes);
                self.len = end;
            }
            None => self.overflow = true,
        }
    }
}

impl Write for Text<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.bytes(s.as_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::fetch::ProbeKind;
    use super::*;

    fn ctx(is_return: bool, at_func_entry: bool) -> ParseContext<'static> {
        ParseContext {
            kind: ProbeKind::Kprobe,
            is_return,
            at_func_entry,
            previous: &[],
            param_max_stack: super::super::fetch::PARAM_MAX_STACK,
        }
    }

    #[test]
    fn meta_args() {
        let entry = ctx(false, true);
        assert_eq!(
            check_meta_args(&[b"%ax", b"x=$arg1"], &entry),
            MetaArgs::Keep
        );
        assert_eq!(
            check_meta_args(&[b"$arg1", b"$arg2:u8"], &entry),
            MetaArgs::Keep
        );
        assert_eq!(
            check_meta_args(&[b"%ax", b"$arg1"], &ctx(false, false)),
            MetaArgs::Refused {
                word: 1,
                error: ProbeError::at(ProbeErrorCode::NofentryArgs, 0)
            }
        );
        assert_eq!(
            check_meta_args(&[b"$argx"], &entry),
            MetaArgs::Refused {
                word: 0,
                error: ProbeError::at(ProbeErrorCode::BadVar, 0)
            }
        );
        assert_eq!(
            check_meta_args(&[b"$arg*", b"$arg*"], &entry),
            MetaArgs::Refused {
                word: 1,
                error: ProbeError::at(ProbeErrorCode::DoubleArgs, 0)
            }
        );
        assert_eq!(
            check_meta_args(&[b"$arg*", b"%ax", b"$arg2"], &ctx(true, true)),
            MetaArgs::LoggedAndKept {
                word: 2,
                error: ProbeError::at(ProbeErrorCode::NosupBtfarg, 0)
            }
        );
    }

    #[test]
    fn argument_count() {
        assert_eq!(check_arg_count(128), Ok(()));
        assert_eq!(
            check_arg_count(129),
            Err(ProbeError::at(ProbeErrorCode::TooManyArgs, 0))
        );
    }

    const OFFSETS: DentryOffsets = DentryOffsets {
        dentry_name: 0x28,
        file_dentry: 0x18,
    };

    fn expand(word: &str, room: usize) -> Option<Result<String, NoRoom>> {
        let mut buf = vec![0u8; room];
        expand_dentry_arg(word.as_bytes(), &OFFSETS, &mut buf)
            .map(|r| r.map(|len| String::from_utf8(buf[..len].to_vec()).unwrap()))
    }

    #[test]
    fn dentries_become_strings() {
        assert_eq!(expand("%di", 256), None);
        assert_eq!(expand("%di:string", 256), None);
        assert_eq!(
            expand("%di:%pd", 256),
            Some(Ok("+0x0(+0x28(%di)):string".into()))
        );
        assert_eq!(
            expand("name=%di:%pd", 256),
            Some(Ok("name=+0x0(+0x28(%di)):string".into()))
        );
        assert_eq!(
            expand("f=$arg1:%pD", 256),
            Some(Ok("f=+0x0(+0x28(+0x18($arg1))):string".into()))
        );
        let needed = "+0x0(+0x28(%di)):string".len();
        assert_eq!(expand("%di:%pd", needed), Some(Err(NoRoom)));
        assert!(matches!(expand("%di:%pd", needed + 1), Some(Ok(_))));
    }
}
