// SPDX-License-Identifier: GPL-2.0

//! The lines of `kprobe_events`, `uprobe_events` and `dynamic_events`
//! (`trace_kprobe_show()`, `trace_uprobe_show()`, `trace_fprobe_show()`:
//! `dynamic_events` shows each event with its kind's own function), of
//! `kprobe_profile` and `uprobe_profile`, and the place text a removal
//! command is matched against (`*_match_command_head()`).
//!
//! Texts are bytes; `fmt::Write` takes UTF-8 only, so a byte that is not is
//! written as U+FFFD (the kernel writes it as it is).

use core::fmt::{self, Write};

use super::command::Family;
use super::names::{write_bytes, Name};

/// The arguments of a listed probe: each one's name and its text as the
/// command gave it (`probe_arg.comm`, the `[NAME=]` cut off).
pub(crate) trait ProbeArgs {
    /// How many.
    fn count(&self) -> usize;
    /// The name of argument `i` (`arg1`... when none was given).
    fn name(&self, i: usize) -> &[u8];
    /// The text of argument `i`.
    fn comm(&self, i: usize) -> &[u8];
}

/// No arguments.
pub(crate) struct NoArgs;

impl ProbeArgs for NoArgs {
    fn count(&self) -> usize {
        0
    }
    fn name(&self, _: usize) -> &[u8] {
        &[]
    }
    fn comm(&self, _: usize) -> &[u8] {
        &[]
    }
}

/// Where a kprobe is, as it is listed.
#[derive(Clone, Copy, Debug)]
pub(crate) enum KprobeAt<'a> {
    /// At an address: the kernel lists it as `0x%p`, a hashed pointer;
    /// `pointer_text` is what `%p` printed for the registered
    /// `kp.addr`, which the kprobe core may have moved (past an `endbr64`
    /// at a function's entry), so it can differ from the `%p` of the
    /// generated event name, made from the address as written.
    Address {
        /// The `%p` text.
        pointer_text: &'a [u8],
    },
    /// At `[MOD:]SYM+OFFSET`.
    Symbol {
        /// `[MOD:]SYM`.
        symbol: &'a [u8],
        /// The offset (not shown when 0).
        offset: u32,
    },
}

/// Where a probe is, as it is listed.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ListedPlace<'a> {
    /// A kprobe or kretprobe.
    Kprobe {
        /// `r[MAXACTIVE]`, shown for return probes when not 0. The kernel
        /// shows the registered kretprobe's: a command without one lists
        /// as [`kretprobe_default_maxactive`] (`r10` on the test VM).
        maxactive: u32,
        /// Where.
        at: KprobeAt<'a>,
    },
    /// A uprobe or uretprobe.
    Uprobe {
        /// The file's path as given.
        path: &'a [u8],
        /// The offset in the file.
        offset: u64,
        /// The reference counter's offset (0: none).
        ref_ctr_offset: u64,
    },
    /// An fprobe.
    Fprobe {
        /// `[MOD:]SYM`.
        symbol: &'a [u8],
    },
    /// A tracepoint probe.
    Tprobe {
        /// The tracepoint's name.
        tracepoint: &'a [u8],
    },
}

/// A probe event as its listing line shows it.
#[derive(Clone, Copy)]
pub(crate) struct ListedProbe<'a> {
    /// A return probe.
    pub(crate) is_return: bool,
    /// Its group.
    pub(crate) group: &'a [u8],
    /// Its event name.
    pub(crate) event: &'a [u8],
    /// Where.
    pub(crate) place: ListedPlace<'a>,
    /// Its arguments.
    pub(crate) args: &'a dyn ProbeArgs,
}

impl ListedProbe<'_> {
    /// Which kind of dynamic event it is.
    pub(crate) fn family(&self) -> Family {
        match self.place {
            ListedPlace::Kprobe { .. } => Family::Kprobe,
            ListedPlace::Uprobe { .. } => Family::Uprobe,
            ListedPlace::Fprobe { .. } | ListedPlace::Tprobe { .. } => Family::Fprobe,
        }
    }

    /// Whether a removal command's place word names this probe
    /// (`trace_kprobe_match_command_head()`, `trace_uprobe_...`,
    /// `trace_fprobe_...`): the place as listed, cut to `MAX_ARGSTR_LEN`
    /// (63) bytes like the kernel's buffer, for uprobes after the path
    /// and its `:`.
    pub(crate) fn head_matches(&self, word: &[u8]) -> bool {
        let mut head = Name::EMPTY;
        let compared = match self.place {
            ListedPlace::Uprobe {
                path,
                offset,
                ref_ctr_offset,
            } => {
                let Some(rest) = word.strip_prefix(path) else {
                    return false;
                };
                let Some(rest) = rest.strip_prefix(b":") else {
                    return false;
                };
                // Writing to a `Name` never fails; it cuts at 63 bytes.
                let _ = write_uprobe_offset(&mut head, offset, ref_ctr_offset);
                rest
            }
            _ => {
                let _ = self.write_place(&mut head, false);
                word
            }
        };
        head.as_bytes() == compared
    }

    /// The place as listed, without the space before it; `with_return`
    /// adds an fprobe's `%return`.
    fn write_place(&self, out: &mut dyn Write, with_return: bool) -> fmt::Result {
        match self.place {
            ListedPlace::Kprobe { at, .. } => match at {
                KprobeAt::Address { pointer_text } => {
                    out.write_str("0x")?;
                    write_bytes(out, pointer_text)
                }
                KprobeAt::Symbol { symbol, offset } => {
                    write_bytes(out, symbol)?;
                    if offset != 0 {
                        write!(out, "+{offset}")?;
                    }
                    Ok(())
                }
            },
            ListedPlace::Uprobe {
                path,
                offset,
                ref_ctr_offset,
            } => {
                write_bytes(out, path)?;
                out.write_char(':')?;
                write_uprobe_offset(out, offset, ref_ctr_offset)
            }
            ListedPlace::Fprobe { symbol } => {
                write_bytes(out, symbol)?;
                if with_return && self.is_return {
                    out.write_str("%return")?;
                }
                Ok(())
            }
            ListedPlace::Tprobe { tracepoint } => write_bytes(out, tracepoint),
        }
    }
}

/// The `maxactive` a kretprobe gets when the command gives none:
/// `register_kretprobe()` makes 0 into `max(10, 2 * num_possible_cpus())`.
pub(crate) fn kretprobe_default_maxactive(possible_cpus: u32) -> u32 {
    possible_cpus.saturating_mul(2).max(10)
}

/// `0x%016lx` and, with a reference counter, `(0x%lx)`.
fn write_uprobe_offset(out: &mut dyn Write, offset: u64, ref_ctr_offset: u64) -> fmt::Result {
    write!(out, "0x{offset:016x}")?;
    if ref_ctr_offset != 0 {
        write!(out, "(0x{ref_ctr_offset:x})")?;
    }
    Ok(())
}

/// One line of `kprobe_events`, `uprobe_events` or `dynamic_events`, with
/// its newline: `p[MAXACTIVE]:GRP/EVENT PLACE name=comm...` (`r` for
/// return probes, `f` for fprobes, `t` for tracepoint probes).
pub(crate) fn write_probe_line(out: &mut dyn Write, probe: &ListedProbe<'_>) -> fmt::Result {
    match probe.place {
        ListedPlace::Kprobe { maxactive, .. } => {
            out.write_char(if probe.is_return { 'r' } else { 'p' })?;
            if probe.is_return && maxactive != 0 {
                write!(out, "{maxactive}")?;
            }
        }
        ListedPlace::Uprobe { .. } => out.write_char(if probe.is_return { 'r' } else { 'p' })?,
        ListedPlace::Fprobe { .. } => out.write_char('f')?,
        ListedPlace::Tprobe { .. } => out.write_char('t')?,
    }
    out.write_char(':')?;
    write_bytes(out, probe.group)?;
    out.write_char('/')?;
    write_bytes(out, probe.event)?;
    out.write_char(' ')?;
    probe.write_place(out, true)?;
    for i in 0..probe.args.count() {
        out.write_char(' ')?;
        write_bytes(out, probe.args.name(i))?;
        out.write_char('=')?;
        write_bytes(out, probe.args.comm(i))?;
    }
    out.write_char('\n')
}

/// `%-44s`: the bytes, then spaces up to 44 bytes.
fn write_left_44(out: &mut dyn Write, text: &[u8]) -> fmt::Result {
    write_bytes(out, text)?;
    for _ in text.len()..44 {
        out.write_char(' ')?;
    }
    Ok(())
}

/// One line of `kprobe_profile`: `"  %-44s %15lu %15lu\n"` (event, hits,
/// misses).
pub(crate) fn write_kprobe_profile_line(
    out: &mut dyn Write,
    event: &[u8],
    nhit: u64,
    nmissed: u64,
) -> fmt::Result {
    out.write_str("  ")?;
    write_left_44(out, event)?;
    writeln!(out, " {nhit:>15} {nmissed:>15}")
}

/// One line of `uprobe_profile`: `"  %s %-44s %15lu\n"` (file, event,
/// hits).
pub(crate) fn write_uprobe_profile_line(
    out: &mut dyn Write,
    path: &[u8],
    event: &[u8],
    nhits: u64,
) -> fmt::Result {
    out.write_str("  ")?;
    write_bytes(out, path)?;
    out.write_char(' ')?;
    write_left_44(out, event)?;
    writeln!(out, " {nhits:>15}")
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Args<'a>(&'a [(&'a [u8], &'a [u8])]);

    impl ProbeArgs for Args<'_> {
        fn count(&self) -> usize {
            self.0.len()
        }
        fn name(&self, i: usize) -> &[u8] {
            self.0[i].0
        }
        fn comm(&self, i: usize) -> &[u8] {
            self.0[i].1
        }
    }

    fn line(probe: &ListedProbe<'_>) -> String {
        let mut s = String::new();
        write_probe_line(&mut s, probe).unwrap();
        s
    }

    fn kprobe<'a>(
        is_return: bool,
        maxactive: u32,
        at: KprobeAt<'a>,
        args: &'a dyn ProbeArgs,
    ) -> ListedProbe<'a> {
        ListedProbe {
            is_return,
            group: b"kprobes",
            event: b"ev",
            place: ListedPlace::Kprobe { maxactive, at },
            args,
        }
    }

    #[test]
    fn kprobe_lines() {
        let args = Args(&[(b"a", b"%di"), (b"arg2", b"+8(%si):u32")]);
        let at = KprobeAt::Symbol {
            symbol: b"vfs_read",
            offset: 0,
        };
        assert_eq!(
            line(&kprobe(false, 0, at, &args)),
            "p:kprobes/ev vfs_read a=%di arg2=+8(%si):u32\n"
        );
        let at = KprobeAt::Symbol {
            symbol: b"ext4:ext4_sync_fs",
            offset: 16,
        };
        assert_eq!(
            line(&kprobe(true, 0, at, &NoArgs)),
            "r:kprobes/ev ext4:ext4_sync_fs+16\n"
        );
        assert_eq!(
            line(&kprobe(true, 8, at, &NoArgs)),
            "r8:kprobes/ev ext4:ext4_sync_fs+16\n"
        );
        // maxactive shows on return probes only.
        assert_eq!(
            line(&kprobe(false, 8, at, &NoArgs)),
            "p:kprobes/ev ext4:ext4_sync_fs+16\n"
        );
        let at = KprobeAt::Address {
            pointer_text: b"00000000deadbeef",
        };
        assert_eq!(
            line(&kprobe(false, 0, at, &NoArgs)),
            "p:kprobes/ev 0x00000000deadbeef\n"
        );
    }

    /// Lines the test kernel (Linux 7.2, 2 CPUs) listed in `kprobe_events`
    /// and `uprobe_events` for `p:ev vfs_read a=%di +8(%si):u32`,
    /// `r vfs_write`, `p:g-1.x vfs_read%return`, `r5:e /bin/sh:0x10` and
    /// `p:uu /bin/sh:0x20%return(0x8)`.
    #[test]
    fn lines_the_kernel_listed() {
        let args = Args(&[(b"a", b"%di"), (b"arg2", b"+8(%si):u32")]);
        let at = KprobeAt::Symbol {
            symbol: b"vfs_read",
            offset: 0,
        };
        assert_eq!(
            line(&kprobe(false, 0, at, &args)),
            "p:kprobes/ev vfs_read a=%di arg2=+8(%si):u32\n"
        );
        let write = KprobeAt::Symbol {
            symbol: b"vfs_write",
            offset: 0,
        };
        let r = ListedProbe {
            event: b"r_vfs_write_0",
            ..kprobe(true, kretprobe_default_maxactive(2), write, &NoArgs)
        };
        assert_eq!(line(&r), "r10:kprobes/r_vfs_write_0 vfs_write\n");
        let r = ListedProbe {
            group: b"g-1",
            event: b"x",
            ..kprobe(true, kretprobe_default_maxactive(2), at, &NoArgs)
        };
        assert_eq!(line(&r), "r10:g-1/x vfs_read\n");
        let up = |event: &'static [u8], offset, ref_ctr_offset| ListedProbe {
            is_return: true,
            group: b"uprobes",
            event,
            place: ListedPlace::Uprobe {
                path: b"/bin/sh",
                offset,
                ref_ctr_offset,
            },
            args: &NoArgs,
        };
        assert_eq!(
            line(&up(b"p_sh_0x10", 0x10, 0)),
            "r:uprobes/p_sh_0x10 /bin/sh:0x0000000000000010\n"
        );
        assert_eq!(
            line(&up(b"uu", 0x20, 8)),
            "r:uprobes/uu /bin/sh:0x0000000000000020(0x8)\n"
        );
        assert_eq!(kretprobe_default_maxactive(8), 16);
    }

    #[test]
    fn uprobe_and_fprobe_lines() {
        let up = |is_return, ref_ctr_offset| ListedProbe {
            is_return,
            group: b"uprobes",
            event: b"p_sh_0x10",
            place: ListedPlace::Uprobe {
                path: b"/bin/sh",
                offset: 0x10,
                ref_ctr_offset,
            },
            args: &NoArgs,
        };
        assert_eq!(
            line(&up(false, 0)),
            "p:uprobes/p_sh_0x10 /bin/sh:0x0000000000000010\n"
        );
        assert_eq!(
            line(&up(true, 0x20)),
            "r:uprobes/p_sh_0x10 /bin/sh:0x0000000000000010(0x20)\n"
        );
        let f = |is_return, place| ListedProbe {
            is_return,
            group: b"fprobes",
            event: b"e",
            place,
            args: &NoArgs,
        };
        assert_eq!(
            line(&f(
                true,
                ListedPlace::Fprobe {
                    symbol: b"vfs_read"
                }
            )),
            "f:fprobes/e vfs_read%return\n"
        );
        assert_eq!(
            line(&f(
                false,
                ListedPlace::Tprobe {
                    tracepoint: b"sched_switch"
                }
            )),
            "t:fprobes/e sched_switch\n"
        );
    }

    #[test]
    fn profile_lines() {
        let mut s = String::new();
        write_kprobe_profile_line(&mut s, b"p_vfs_read_0", 12, 0).unwrap();
        assert_eq!(
            s,
            format!("  {:<44} {:>15} {:>15}\n", "p_vfs_read_0", 12, 0)
        );
        assert_eq!(s.len(), 2 + 44 + 1 + 15 + 1 + 15 + 1);
        let mut s = String::new();
        write_uprobe_profile_line(&mut s, b"/bin/sh", b"p_sh_0x10", 3).unwrap();
        assert_eq!(s, format!("  /bin/sh {:<44} {:>15}\n", "p_sh_0x10", 3));
        // A name past 44 bytes is not cut.
        let long = [b'e'; 50];
        let mut s = String::new();
        write_kprobe_profile_line(&mut s, &long, 1, 2).unwrap();
        assert!(s.starts_with(&format!("  {} ", "e".repeat(50))));
    }

    #[test]
    fn heads_match_as_listed() {
        let at = KprobeAt::Symbol {
            symbol: b"vfs_read",
            offset: 4,
        };
        let p = kprobe(false, 0, at, &NoArgs);
        assert!(p.head_matches(b"vfs_read+4"));
        assert!(!p.head_matches(b"vfs_read+0x4"));
        let up = ListedProbe {
            is_return: true,
            group: b"uprobes",
            event: b"e",
            place: ListedPlace::Uprobe {
                path: b"/bin/sh",
                offset: 0x10,
                ref_ctr_offset: 0,
            },
            args: &NoArgs,
        };
        assert!(up.head_matches(b"/bin/sh:0x0000000000000010"));
        assert!(!up.head_matches(b"/bin/sh:0x10"));
        assert!(!up.head_matches(b"/bin/sh:0x0000000000000010%return"));
        // With a reference counter, only with it (as the test kernel did).
        let with_ref = ListedProbe {
            place: ListedPlace::Uprobe {
                path: b"/bin/sh",
                offset: 0x20,
                ref_ctr_offset: 8,
            },
            ..up
        };
        assert!(with_ref.head_matches(b"/bin/sh:0x0000000000000020(0x8)"));
        assert!(!with_ref.head_matches(b"/bin/sh:0x0000000000000020"));
        // An fprobe's head has no %return.
        let f = ListedProbe {
            is_return: true,
            group: b"fprobes",
            event: b"e",
            place: ListedPlace::Fprobe {
                symbol: b"vfs_read",
            },
            args: &NoArgs,
        };
        assert!(f.head_matches(b"vfs_read"));
        // A symbol past 63 bytes never matches: the kernel's buffer cuts it.
        let long = [b's'; 70];
        let at = KprobeAt::Symbol {
            symbol: &long,
            offset: 0,
        };
        assert!(!kprobe(false, 0, at, &NoArgs).head_matches(&long));
        assert!(kprobe(false, 0, at, &NoArgs).head_matches(&long[..63]));
    }
}
