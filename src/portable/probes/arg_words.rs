// SPDX-License-Identifier: GPL-2.0

//! The rewriting of `:%pd`/`:%pD` argument words by
//! `traceprobe_expand_dentry_args` (kernel/trace/trace_probe.c): after
//! the place, the name and the `$arg*` check, before each argument is
//! parsed, `ARG:%pd` becomes a string fetch of the dentry's name.

use super::command::Words;
use core::fmt::Write;

/// `MAX_DENTRY_ARGS_LEN`: the room for all the rewritten `%pd` words of
/// a command (each with its NUL).
pub(crate) const MAX_DENTRY_ARGS_LEN: usize = 256;

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

/// The most a command line grows by its rewritten `%pd` words: they all
/// fit [`MAX_DENTRY_ARGS_LEN`].
pub(crate) const MAX_DENTRY_GROWTH: usize = MAX_DENTRY_ARGS_LEN;

/// Rewrites every `%pd`/`%pD` argument word of command `line` (a word
/// after the first two) as [`expand_dentry_arg`] does, into `out`: the
/// command's words joined by single spaces, as the kernel logs and lists
/// them. `None` when no word is one; `NoRoom` when the rewritten words
/// take more than [`MAX_DENTRY_ARGS_LEN`] (the kernel's `-ENOMEM`). `out`
/// needs `line.len() + MAX_DENTRY_GROWTH` bytes.
pub(crate) fn expand_dentry_words(
    line: &[u8],
    offsets: &DentryOffsets,
    out: &mut [u8],
) -> Option<Result<usize, NoRoom>> {
    let is_dentry = |w: &[u8]| w.ends_with(b":%pd") || w.ends_with(b":%pD");
    if !Words::new(line).skip(2).any(|(_, w)| is_dentry(w)) {
        return None;
    }
    let mut room = [0u8; MAX_DENTRY_ARGS_LEN];
    let mut used = 0;
    let mut text = Text {
        buf: out,
        len: 0,
        overflow: false,
    };
    for (i, (_, word)) in Words::new(line).enumerate() {
        if i > 0 {
            text.bytes(b" ");
        }
        match expand_dentry_arg(word, offsets, &mut room[used..]).filter(|_| i >= 2) {
            Some(Ok(len)) => {
                text.bytes(&room[used..used + len]);
                used += len + 1;
            }
            Some(Err(NoRoom)) => return Some(Err(NoRoom)),
            None => text.bytes(word),
        }
    }
    if text.overflow {
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
    use super::*;

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

    fn expand_line(line: &str, room: usize) -> Option<Result<String, NoRoom>> {
        let mut buf = vec![0u8; room];
        expand_dentry_words(line.as_bytes(), &OFFSETS, &mut buf)
            .map(|r| r.map(|len| String::from_utf8(buf[..len].to_vec()).unwrap()))
    }

    #[test]
    fn command_lines_are_rewritten_word_by_word() {
        let room = |l: &str| l.len() + MAX_DENTRY_GROWTH;
        let plain = "p:e vfs_read %di:string";
        assert_eq!(expand_line(plain, room(plain)), None);
        // The first two words are never rewritten.
        let head = "p:e:%pd  vfs_read:%pd";
        assert_eq!(expand_line(head, room(head)), None);
        let line = "p:testprobe  vfs_read name=$arg1:%pD\tx=%si # c";
        assert_eq!(
            expand_line(line, room(line)),
            Some(Ok(
                "p:testprobe vfs_read name=+0x0(+0x28(+0x18($arg1))):string x=%si".into()
            ))
        );
        // Eleven rewritten words (22 bytes and a NUL each) overflow the
        // kernel's 256 bytes.
        let many = format!("p:e dput{}", " %di:%pd".repeat(11));
        assert_eq!(expand_line(&many, room(&many)), Some(Err(NoRoom)));
        let ten = format!("p:e dput{}", " %di:%pd".repeat(10));
        assert!(matches!(expand_line(&ten, room(&ten)), Some(Ok(_))));
    }
}
