// SPDX-License-Identifier: GPL-2.0

//! Group and event names of probe events, as the kernel checks and makes
//! them: `traceprobe_parse_event_name()` (trace_probe.c), the
//! `is_good_name()`/`is_good_system_name()` rules and
//! `sanitize_event_name()` (trace.h), and the names the kprobe, uprobe and
//! fprobe parsers generate when the command gives none.

use core::fmt::{self, Write};

use super::errors::{ProbeError, ProbeErrorCode};

/// The kernel's `MAX_EVENT_NAME_LEN`: a group or event name is shorter.
pub(crate) const MAX_EVENT_NAME_LEN: usize = 64;

/// The group of kprobe events that name none (`KPROBE_EVENT_SYSTEM`).
pub(crate) const KPROBE_GROUP: &[u8] = b"kprobes";
/// The group of uprobe events that name none (`UPROBE_EVENT_SYSTEM`).
pub(crate) const UPROBE_GROUP: &[u8] = b"uprobes";
/// The group of fprobe events that name none (`FPROBE_EVENT_SYSTEM`).
pub(crate) const FPROBE_GROUP: &[u8] = b"fprobes";
/// The group of tracepoint probe events that name none
/// (`TRACEPOINT_EVENT_SYSTEM`).
pub(crate) const TRACEPOINT_GROUP: &[u8] = b"tracepoints";

/// A group or event name: at most `MAX_EVENT_NAME_LEN - 1` bytes, kept by
/// value so that it outlives the command it came from.
///
/// # Invariants
///
/// `len < MAX_EVENT_NAME_LEN`; `bytes[len..]` are zero.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Name {
    bytes: [u8; MAX_EVENT_NAME_LEN],
    len: u8,
}

impl Name {
    /// The empty name.
    pub(crate) const EMPTY: Name = Name {
        bytes: [0; MAX_EVENT_NAME_LEN],
        len: 0,
    };

    /// `text` as a name, if it is short enough.
    pub(crate) fn new(text: &[u8]) -> Option<Name> {
        if text.len() >= MAX_EVENT_NAME_LEN {
            return None;
        }
        Some(Self::truncated(text))
    }

    /// `text` cut to `MAX_EVENT_NAME_LEN - 1` bytes, as
    /// `snprintf(buf, MAX_EVENT_NAME_LEN, ...)` cuts it.
    pub(crate) fn truncated(text: &[u8]) -> Name {
        let mut name = Name::EMPTY;
        let len = text.len().min(MAX_EVENT_NAME_LEN - 1);
        name.bytes[..len].copy_from_slice(&text[..len]);
        // `len` < 64 fits a u8.
        name.len = len as u8;
        name
    }

    /// The name's bytes.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// Appends what fits (the rest is cut, as `snprintf` cuts it).
    fn push(&mut self, text: &[u8]) {
        for &b in text {
            let len = usize::from(self.len);
            if len >= MAX_EVENT_NAME_LEN - 1 {
                return;
            }
            self.bytes[len] = b;
            self.len += 1;
        }
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Name(\"{}\")", self.as_bytes().escape_ascii())
    }
}

impl Write for Name {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push(s.as_bytes());
        Ok(())
    }
}

/// The kernel's `isalpha()`: ASCII letters and the Latin-1 letters 0xc0 to
/// 0xff but × and ÷ (its `ctype` table marks them so).
pub(crate) fn is_alpha(b: u8) -> bool {
    b.is_ascii_alphabetic() || (b >= 0xc0 && b != 0xd7 && b != 0xf7)
}

/// The kernel's `isdigit()`.
pub(crate) fn is_digit(b: u8) -> bool {
    b.is_ascii_digit()
}

/// The kernel's `isalnum()`.
pub(crate) fn is_alnum(b: u8) -> bool {
    is_alpha(b) || is_digit(b)
}

/// The kernel's `isspace()`: `\t` to `\r`, the space and Latin-1's no-break
/// space 0xa0.
pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | b' ' | 0xa0)
}

/// `__is_good_name()`: a C identifier (the kernel's `isalpha()`, so Latin-1
/// letters count); `-` too when `hyphen_ok`. The empty name is not good.
fn is_good(name: &[u8], hyphen_ok: bool) -> bool {
    let Some((&first, rest)) = name.split_first() else {
        return false;
    };
    if !is_alpha(first) && first != b'_' && !(hyphen_ok && first == b'-') {
        return false;
    }
    rest.iter()
        .all(|&b| is_alnum(b) || b == b'_' || (hyphen_ok && b == b'-'))
}

/// `is_good_name()`: what an event (or argument) name must be.
pub(crate) fn is_good_name(name: &[u8]) -> bool {
    is_good(name, false)
}

/// `is_good_system_name()`: what a group name must be (`-` allowed).
pub(crate) fn is_good_system_name(name: &[u8]) -> bool {
    is_good(name, true)
}

/// `sanitize_event_name()`: `:`, `.` and `*` become `_`, all but the first
/// byte (the kernel's loop steps past the first before it looks).
pub(crate) fn sanitize_event_name(name: &mut Name) {
    let len = usize::from(name.len);
    for b in name.bytes[..len].iter_mut().skip(1) {
        if matches!(*b, b':' | b'.' | b'*') {
            *b = b'_';
        }
    }
}

/// The group and event a command names, as `traceprobe_parse_event_name()`
/// reads `[GROUP/][EVENT]` or `[GROUP.][EVENT]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EventNames {
    /// The group, when one is given.
    pub(crate) group: Option<Name>,
    /// The event, unless only `GROUP/` is given (the parser makes one).
    pub(crate) event: Option<Name>,
}

/// Parses `[GROUP/][EVENT]` (or `GROUP.EVENT`) as
/// `traceprobe_parse_event_name()` does. `offset` is where `text` starts in
/// its word: the errors' positions are relative to the word, where the
/// kernel puts its caret.
pub(crate) fn parse_event_name(text: &[u8], offset: usize) -> Result<EventNames, ProbeError> {
    let err = |code, at| Err(ProbeError::at(code, at));
    let slash = text
        .iter()
        .position(|&b| b == b'/')
        .or_else(|| text.iter().position(|&b| b == b'.'));
    let mut group = None;
    let mut event_text = text;
    let mut event_offset = offset;
    if let Some(slash) = slash {
        if slash == 0 {
            return err(ProbeErrorCode::NoGroupName, offset);
        }
        if slash + 1 > MAX_EVENT_NAME_LEN {
            return err(ProbeErrorCode::GroupTooLong, offset);
        }
        let group_text = &text[..slash];
        if !is_good_system_name(group_text) {
            return err(ProbeErrorCode::BadGroupName, offset);
        }
        group = Name::new(group_text);
        event_text = &text[slash + 1..];
        event_offset = offset + slash + 1;
    }
    if event_text.is_empty() {
        if slash.is_some() {
            return Ok(EventNames { group, event: None });
        }
        return err(ProbeErrorCode::NoEventName, event_offset);
    }
    if event_text.len() >= MAX_EVENT_NAME_LEN {
        return err(ProbeErrorCode::EventTooLong, event_offset);
    }
    if !is_good_name(event_text) {
        return err(ProbeErrorCode::BadEventName, event_offset);
    }
    Ok(EventNames {
        group,
        event: Name::new(event_text),
    })
}

/// Writes bytes through `fmt::Write`, which takes only UTF-8: a byte that
/// is not is written as U+FFFD (the kernel writes it as it is).
pub(crate) fn write_bytes(out: &mut dyn Write, bytes: &[u8]) -> fmt::Result {
    for chunk in bytes.utf8_chunks() {
        out.write_str(chunk.valid())?;
        if !chunk.invalid().is_empty() {
            out.write_char(char::REPLACEMENT_CHARACTER)?;
        }
    }
    Ok(())
}

/// The event name a kprobe on a symbol gets when the command names none:
/// `"%c_%s_%ld"` (`p` or `r`, the symbol with its `MOD:`, the offset),
/// cut to 63 bytes, then sanitized (`MOD:` becomes `MOD_`).
pub(crate) fn kprobe_symbol_event_name(is_return: bool, symbol: &[u8], offset: i64) -> Name {
    let mut name = Name::EMPTY;
    name.push(if is_return { b"r_" } else { b"p_" });
    name.push(symbol);
    // Writing to a `Name` never fails; it cuts.
    let _ = write!(name, "_{offset}");
    sanitize_event_name(&mut name);
    name
}

/// The event name a kprobe on an address gets: `"%c_0x%p"`. The kernel
/// prints the address with `%p`, a hashed pointer; `pointer_text` is what
/// `%p` printed (the kernel side formats it with the kernel's own `%p`, so
/// the names match the kernel's on the same boot).
pub(crate) fn kprobe_address_event_name(is_return: bool, pointer_text: &[u8]) -> Name {
    let mut name = Name::EMPTY;
    name.push(if is_return { b"r_0x" } else { b"p_0x" });
    name.push(pointer_text);
    sanitize_event_name(&mut name);
    name
}

/// The event name a uprobe gets: `"p_%s_0x%lx"` with the file's base name
/// cut at its first `.`, `-` or `_` (always `p`, a return probe too, as
/// `__trace_uprobe_create()` writes it). Not sanitized.
pub(crate) fn uprobe_event_name(path: &[u8], offset: u64) -> Name {
    let base = match path.iter().rposition(|&b| b == b'/') {
        Some(slash) => &path[slash + 1..],
        None => path,
    };
    let tail = match base.iter().position(|&b| matches!(b, b'.' | b'-' | b'_')) {
        Some(cut) => &base[..cut],
        None => base,
    };
    let mut name = Name::EMPTY;
    name.push(b"p_");
    name.push(tail);
    let _ = write!(name, "_0x{offset:x}");
    name
}

/// The event name an fprobe gets: `"%s__%s"` (the symbol with its `MOD:`,
/// `entry` or `exit`), sanitized.
pub(crate) fn fprobe_event_name(is_return: bool, symbol: &[u8]) -> Name {
    let mut name = Name::EMPTY;
    name.push(symbol);
    name.push(if is_return { b"__exit" } else { b"__entry" });
    sanitize_event_name(&mut name);
    name
}

/// The event name a tracepoint probe gets: the tracepoint's name, with `_`
/// before it when it starts with a digit, sanitized.
pub(crate) fn tprobe_event_name(tracepoint: &[u8]) -> Name {
    let mut name = Name::EMPTY;
    if tracepoint.first().is_some_and(|&b| is_digit(b)) {
        name.push(b"_");
    }
    name.push(tracepoint);
    sanitize_event_name(&mut name);
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &[u8]) -> (Option<&'static str>, Option<&'static str>) {
        let parsed = parse_event_name(text, 0).expect("good names");
        let leak = |n: Option<Name>| {
            n.map(|n| {
                &*Box::leak(
                    String::from_utf8(n.as_bytes().to_vec())
                        .unwrap()
                        .into_boxed_str(),
                )
            })
        };
        (leak(parsed.group), leak(parsed.event))
    }

    #[test]
    fn group_and_event() {
        assert_eq!(names(b"ev"), (None, Some("ev")));
        assert_eq!(names(b"grp/ev"), (Some("grp"), Some("ev")));
        assert_eq!(names(b"grp.ev"), (Some("grp"), Some("ev")));
        assert_eq!(names(b"grp/"), (Some("grp"), None));
        assert_eq!(names(b"my-grp/_e1"), (Some("my-grp"), Some("_e1")));
        // '/' wins over '.': the group "a.b" is not an identifier.
        assert_eq!(
            parse_event_name(b"a.b/c", 2),
            Err(ProbeError::at(ProbeErrorCode::BadGroupName, 2))
        );
    }

    #[test]
    fn name_errors_and_their_carets() {
        let e = |t: &[u8]| parse_event_name(t, 2).unwrap_err();
        assert_eq!(e(b""), ProbeError::at(ProbeErrorCode::NoEventName, 2));
        assert_eq!(e(b"/ev"), ProbeError::at(ProbeErrorCode::NoGroupName, 2));
        assert_eq!(e(b".ev"), ProbeError::at(ProbeErrorCode::NoGroupName, 2));
        let long_group = [b'g'; 64];
        let mut text = long_group.to_vec();
        text.extend_from_slice(b"/ev");
        assert_eq!(e(&text), ProbeError::at(ProbeErrorCode::GroupTooLong, 2));
        // 63 bytes of group are fine.
        assert!(parse_event_name(&text[1..], 2).is_ok());
        assert_eq!(e(b"1g/ev"), ProbeError::at(ProbeErrorCode::BadGroupName, 2));
        assert_eq!(e(b"g/1ev"), ProbeError::at(ProbeErrorCode::BadEventName, 4));
        assert_eq!(e(b"g/e-v"), ProbeError::at(ProbeErrorCode::BadEventName, 4));
        assert_eq!(e(b"e:v"), ProbeError::at(ProbeErrorCode::BadEventName, 2));
        let long_event = [b'e'; 64];
        assert_eq!(
            e(&long_event),
            ProbeError::at(ProbeErrorCode::EventTooLong, 2)
        );
        assert!(parse_event_name(&long_event[1..], 2).is_ok());
        let mut grp_long_event = b"g/".to_vec();
        grp_long_event.extend_from_slice(&long_event);
        assert_eq!(
            e(&grp_long_event),
            ProbeError::at(ProbeErrorCode::EventTooLong, 4)
        );
    }

    #[test]
    fn kernel_ctype_letters() {
        assert!(is_good_name(b"_"));
        assert!(is_good_name(&[0xe9, b'x']));
        assert!(!is_good_name(&[0xd7]));
        assert!(!is_good_name(b""));
        assert!(is_good_system_name(b"-"));
        assert!(!is_good_name(b"-"));
        assert!(is_space(0xa0) && is_space(0x0b) && !is_space(0x85));
    }

    #[test]
    fn sanitizing_spares_the_first_byte() {
        let mut n = Name::new(b".a:b.c*d-e").unwrap();
        sanitize_event_name(&mut n);
        assert_eq!(n.as_bytes(), b".a_b_c_d-e");
    }

    #[test]
    fn generated_names() {
        assert_eq!(
            kprobe_symbol_event_name(false, b"vfs_read", 0).as_bytes(),
            b"p_vfs_read_0"
        );
        assert_eq!(
            kprobe_symbol_event_name(true, b"ext4:ext4_sync_fs", 16).as_bytes(),
            b"r_ext4_ext4_sync_fs_16"
        );
        assert_eq!(
            kprobe_symbol_event_name(false, b"a.isra.0", 4).as_bytes(),
            b"p_a_isra_0_4"
        );
        assert_eq!(
            kprobe_address_event_name(true, b"000000001a2b3c4d").as_bytes(),
            b"r_0x000000001a2b3c4d"
        );
        assert_eq!(
            uprobe_event_name(b"/usr/lib/libc.so.6", 0x4f0).as_bytes(),
            b"p_libc_0x4f0"
        );
        assert_eq!(
            uprobe_event_name(b"/bin/my-prog", 16).as_bytes(),
            b"p_my_0x10"
        );
        assert_eq!(uprobe_event_name(b"prog_a", 1).as_bytes(), b"p_prog_0x1");
        // A uprobe's generated name is not sanitized.
        assert_eq!(uprobe_event_name(b"/x/a:b", 1).as_bytes(), b"p_a:b_0x1");
        assert_eq!(
            fprobe_event_name(false, b"vfs_read").as_bytes(),
            b"vfs_read__entry"
        );
        assert_eq!(fprobe_event_name(true, b"m:f").as_bytes(), b"m_f__exit");
        assert_eq!(tprobe_event_name(b"9p_req").as_bytes(), b"_9p_req");
        assert_eq!(
            tprobe_event_name(b"sched_switch").as_bytes(),
            b"sched_switch"
        );
    }

    #[test]
    fn generated_names_are_cut_like_snprintf() {
        let long = [b's'; 80];
        let n = kprobe_symbol_event_name(false, &long, 5);
        assert_eq!(n.as_bytes().len(), 63);
        assert!(n.as_bytes().starts_with(b"p_sss"));
        assert_eq!(Name::truncated(&long).as_bytes().len(), 63);
        assert!(Name::new(&long[..63]).is_some());
        assert!(Name::new(&long[..64]).is_none());
    }
}
