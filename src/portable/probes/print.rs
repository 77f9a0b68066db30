// SPDX-License-Identifier: GPL-2.0

//! The text of a probe event's record, as `print_kprobe_event`,
//! `print_kretprobe_event` (trace_kprobe.c), `print_uprobe_event`
//! (trace_uprobe.c) and `trace_probe_print_args` (trace_probe.c) write it:
//! `name: (where) arg=value ...`.

use super::super::records::{write_ip_sym, SymbolStyle, Symbols};
use super::fetch::{ArgSpec, ProbeKind};
use super::layout::{head_size, Head};
use super::types::FetchType;
use core::fmt::{self, Write};

/// `FAULT_STRING`: what a string that could not be read prints.
pub(crate) const FAULT_STRING: &str = "(fault)";

/// Writes the arguments of `record` (a whole record, its arguments after
/// `head_size` bytes): ` name=value` each, an array as `{a,b,c}`.
pub(crate) fn write_args(
    out: &mut dyn Write,
    args: &[ArgSpec],
    record: &[u8],
    head_size: usize,
    symbols: &dyn Symbols,
) -> fmt::Result {
    for arg in args {
        write!(out, " ")?;
        write_bytes(out, arg.name())?;
        write!(out, "=")?;
        let at = head_size + arg.offset;
        if arg.count == 0 {
            write_value(out, arg.fetch_type, record, at, symbols)?;
            continue;
        }
        out.write_char('{')?;
        for j in 0..arg.count as usize {
            let p = at + j * arg.fetch_type.size();
            write_value(out, arg.fetch_type, record, p, symbols)?;
            out.write_char(if j + 1 == arg.count as usize {
                '}'
            } else {
                ','
            })?;
        }
    }
    Ok(())
}

/// The `size` bytes at `at` as a little-endian number (0 past the end).
fn number(record: &[u8], at: usize, size: usize) -> u64 {
    let mut bytes = [0u8; 8];
    if let Some(src) = record.get(at..at + size) {
        bytes[..size].copy_from_slice(src);
    }
    u64::from_le_bytes(bytes)
}

/// One value, as the type's print function prints it.
fn write_value(
    out: &mut dyn Write,
    fetch_type: FetchType,
    record: &[u8],
    at: usize,
    symbols: &dyn Symbols,
) -> fmt::Result {
    let v = number(record, at, fetch_type.size());
    match fetch_type {
        FetchType::U8 | FetchType::U16 | FetchType::U32 | FetchType::U64 => write!(out, "{v}"),
        FetchType::S8 => write!(out, "{}", v as u8 as i8),
        FetchType::S16 => write!(out, "{}", v as u16 as i16),
        FetchType::S32 => write!(out, "{}", v as u32 as i32),
        FetchType::S64 => write!(out, "{}", v as i64),
        FetchType::X8 | FetchType::X16 | FetchType::X32 | FetchType::X64 => write!(out, "0x{v:x}"),
        FetchType::Char => {
            // '%c' writes the byte as it is (a NUL too); a byte that is
            // not ASCII is written as U+FFFD here.
            let c = v as u8;
            let c = if c.is_ascii() {
                char::from(c)
            } else {
                char::REPLACEMENT_CHARACTER
            };
            write!(out, "'{c}'")
        }
        FetchType::Symbol => write_sprint_symbol(out, symbols, v),
        FetchType::String | FetchType::Ustring | FetchType::Symstr => {
            let loc = v as u32;
            if loc >> 16 == 0 {
                return out.write_str(FAULT_STRING);
            }
            let offset = (loc & 0xffff) as usize;
            let rest = record.get(offset..).unwrap_or(&[]);
            let len = rest.iter().position(|&c| c == 0).unwrap_or(rest.len());
            out.write_char('"')?;
            write_bytes(out, &rest[..len])?;
            out.write_char('"')
        }
    }
}

/// `%pS` (`sprint_symbol`): `name+0x1c/0x80 [mod]`, or the address in hex
/// when no symbol holds it.
pub(crate) fn write_sprint_symbol(
    out: &mut dyn Write,
    symbols: &dyn Symbols,
    address: u64,
) -> fmt::Result {
    match symbols.write_symbol(out, address, true) {
        Some(written) => written,
        None => write!(out, "{address:#x}"),
    }
}

/// Bytes of a record as text: a byte that is not UTF-8 is written as
/// U+FFFD (the kernel writes it as it is).
fn write_bytes(out: &mut dyn Write, bytes: &[u8]) -> fmt::Result {
    for chunk in bytes.utf8_chunks() {
        out.write_str(chunk.valid())?;
        if !chunk.invalid().is_empty() {
            out.write_char(char::REPLACEMENT_CHARACTER)?;
        }
    }
    Ok(())
}

/// Writes the head of a line: `name: (where)`. A kprobe shows its
/// address as `%pS` would (the `sym-offset` form whatever the option;
/// `sym-addr` adds the address), a kretprobe `(ret_ip <- func)` with the
/// function without offset, a uprobe the addresses in hex.
pub(crate) fn write_head(
    out: &mut dyn Write,
    event: &str,
    kind: ProbeKind,
    head: Head,
    symbols: &dyn Symbols,
    style: SymbolStyle,
) -> fmt::Result {
    write!(out, "{event}: (")?;
    let with_offset = SymbolStyle {
        offset: true,
        ..style
    };
    let without_offset = SymbolStyle {
        offset: false,
        ..style
    };
    match (kind, head) {
        (ProbeKind::Uprobe, Head::Entry { ip }) => write!(out, "0x{ip:x}")?,
        (ProbeKind::Uprobe, Head::Return { func, ret_ip }) => {
            write!(out, "0x{ret_ip:x} <- 0x{func:x}")?
        }
        (_, Head::Entry { ip }) => write_ip_sym(out, symbols, ip, with_offset)?,
        (_, Head::Return { func, ret_ip }) => {
            write_ip_sym(out, symbols, ret_ip, with_offset)?;
            out.write_str(" <- ")?;
            write_ip_sym(out, symbols, func, without_offset)?;
        }
    }
    out.write_char(')')
}

/// What a probe event's lines are made of besides the record.
#[derive(Clone, Copy)]
pub(crate) struct LineFormat<'a> {
    /// The event's name.
    pub(crate) event: &'a str,
    /// The kind of probe.
    pub(crate) kind: ProbeKind,
    /// A return probe.
    pub(crate) is_return: bool,
    /// Its arguments.
    pub(crate) args: &'a [ArgSpec],
}

/// Writes the whole line of a record, with its newline.
pub(crate) fn write_line(
    out: &mut dyn Write,
    line: &LineFormat<'_>,
    record: &[u8],
    symbols: &dyn Symbols,
    style: SymbolStyle,
) -> fmt::Result {
    let Some(head) = Head::load(record, line.is_return) else {
        return Ok(());
    };
    write_head(out, line.event, line.kind, head, symbols, style)?;
    write_args(out, line.args, record, head_size(line.is_return), symbols)?;
    out.write_char('\n')
}

#[cfg(test)]
mod tests {
    use super::super::exec::tests::{parse_all, record, FakeEnv};
    use super::super::exec::Space;
    use super::*;

    struct Names;

    impl Symbols for Names {
        fn write_symbol(
            &self,
            out: &mut dyn Write,
            address: u64,
            offset: bool,
        ) -> Option<fmt::Result> {
            let (name, start, size) = match address {
                0xffff_ffff_8100_0000..=0xffff_ffff_8100_00ff => {
                    ("vfs_read", 0xffff_ffff_8100_0000u64, 0x100)
                }
                0xffff_ffff_8300_0000..=0xffff_ffff_8300_02df => {
                    ("vfs_read", 0xffff_ffff_8300_0000, 0x2e0)
                }
                0xffff_ffff_8200_0000..=0xffff_ffff_8200_00ff => {
                    ("ksys_read", 0xffff_ffff_8200_0000, 0x100)
                }
                _ => return None,
            };
            Some(if offset {
                write!(out, "{name}+{:#x}/{size:#x}", address - start)
            } else {
                out.write_str(name)
            })
        }
    }

    fn line(kind: ProbeKind, is_return: bool, words: &[&str], env: &FakeEnv, head: Head) -> String {
        let args = parse_all(kind, is_return, words);
        let mut r = record(&args, env, is_return);
        head.store(&mut r);
        let mut s = String::new();
        let format = LineFormat {
            event: "ev",
            kind,
            is_return,
            args: &args,
        };
        write_line(&mut s, &format, &r, &Names, SymbolStyle::default()).unwrap();
        s
    }

    #[test]
    fn kprobe_lines() {
        let mut env = FakeEnv::new();
        env.set(112, 0x2000);
        env.set(104, (-5i64) as u64);
        env.set(80, 0xffff_ffff_8100_0010);
        env.map(Space::Kernel, 0x2000, b"file\0");
        let s = line(
            ProbeKind::Kprobe,
            false,
            &[
                "a=%si:s32",
                "b=%si:u8",
                "c=%si:x16",
                "n=+0(%di):string",
                "f=+0(%bx):string",
                "s=%ax:symbol",
                "t=%ax:symstr",
                "c2=\\65:char",
                "d=%si",
                "e=%si:u64",
            ],
            &env,
            Head::Entry {
                ip: 0xffff_ffff_8100_0000,
            },
        );
        assert_eq!(
            s,
            "ev: (vfs_read+0x0/0x100) a=-5 b=251 c=0xfffb n=\"file\" f=(fault) \
s=vfs_read+0x10/0x100 t=\"vfs_read+0x10/0x100\" c2='A' d=0xfffffffffffffffb \
e=18446744073709551611\n"
        );
    }

    #[test]
    fn arrays_print_in_braces() {
        let mut env = FakeEnv::new();
        env.set(112, 0x3000);
        env.map(Space::Kernel, 0x3000, &[1, 2, 3, 0xff]);
        let s = line(
            ProbeKind::Kprobe,
            false,
            &["+0(%di):u8[3]", "+0(%di):s8[4]", "x=+0(%di):x16[2]"],
            &env,
            Head::Entry { ip: 0x1234 },
        );
        assert_eq!(
            s,
            "ev: (0x1234) arg1={1,2,3} arg2={1,2,3,-1} x={0x201,0xff03}\n"
        );
    }

    #[test]
    fn return_and_uprobe_heads() {
        let env = FakeEnv::new();
        let s = line(
            ProbeKind::Kprobe,
            true,
            &["$retval"],
            &env,
            Head::Return {
                func: 0xffff_ffff_8100_0000,
                ret_ip: 0xffff_ffff_8200_001c,
            },
        );
        assert_eq!(s, "ev: (ksys_read+0x1c/0x100 <- vfs_read) arg1=0x0\n");
        let s = line(
            ProbeKind::Uprobe,
            false,
            &[],
            &env,
            Head::Entry { ip: 0x40_1000 },
        );
        assert_eq!(s, "ev: (0x401000)\n");
        let s = line(
            ProbeKind::Uprobe,
            true,
            &[],
            &env,
            Head::Return {
                func: 0x40_1000,
                ret_ip: 0x40_2000,
            },
        );
        assert_eq!(s, "ev: (0x402000 <- 0x401000)\n");
        let mut s = String::new();
        let style = SymbolStyle {
            offset: false,
            address: true,
        };
        write_head(
            &mut s,
            "ev",
            ProbeKind::Kprobe,
            Head::Entry {
                ip: 0xffff_ffff_8100_0004,
            },
            &Names,
            style,
        )
        .unwrap();
        assert_eq!(s, "ev: (vfs_read+0x4/0x100 <ffffffff81000004>)");
    }

    /// A line the test kernel wrote for the probe of
    /// `format::tests::format_files_are_the_kernels`, rebuilt from a hit
    /// like the one it saw (`cat` reading `tracing_on`): a user buffer not
    /// yet mapped, a NUL `char`, and the `symstr` text run into the next
    /// string, as the kernel leaves it.
    #[test]
    fn a_line_the_kernel_wrote() {
        use super::super::arg_words::{expand_dentry_arg, DentryOffsets};
        let offsets = DentryOffsets {
            dentry_name: 0x28,
            file_dentry: 0x48,
        };
        let mut buf = [0u8; 256];
        let len = expand_dentry_arg(b"fn=%di:%pD", &offsets, &mut buf)
            .unwrap()
            .unwrap();
        let fn_word = core::str::from_utf8(&buf[..len]).unwrap().to_string();
        let mut env = FakeEnv::new();
        env.comm[..4].copy_from_slice(b"cat\0");
        env.task_size = 0x7fff_ffff_f000;
        let file = 0xff11_0000_00b2_7d80u64;
        let (dentry, name, empty) = (
            0xff11_0000_0100_0000u64,
            0xff11_0000_0200_0000u64,
            0xff11_0000_0300_0000u64,
        );
        env.set(112, file);
        env.set(104, 0x7ffc_4ed5_9000);
        env.set(96, 0);
        env.set(40, empty);
        env.map(Space::Kernel, file + 0x48, &dentry.to_le_bytes());
        env.map(Space::Kernel, dentry + 0x28, &name.to_le_bytes());
        env.map(Space::Kernel, name, b"tracing_on\0");
        env.map(Space::Kernel, empty, b"\0");
        let words = [
            "a=%si:s32",
            "c=%dx:x16",
            "b=+0(%si):u8[4]",
            "s=%di:symbol",
            "t=%di:symstr",
            "n=$comm",
            "i=\\\"imm\\\"",
            "f=+0(%bx):string",
            "bf=%dx:b4@2/8",
            "u=+0(%si):ustring",
            "ch=+0(%si):char",
            &fn_word,
        ];
        let args = parse_all(ProbeKind::Kprobe, false, &words);
        let mut r = record(&args, &env, false);
        Head::Entry {
            ip: 0xffff_ffff_8300_0004,
        }
        .store(&mut r);
        let mut s = String::new();
        let format = LineFormat {
            event: "t",
            kind: ProbeKind::Kprobe,
            is_return: false,
            args: &args,
        };
        write_line(&mut s, &format, &r, &Names, SymbolStyle::default()).unwrap();
        assert_eq!(
            s,
            "t: (vfs_read+0x4/0x2e0) a=1322618880 c=0x0 b={0,0,0,0} s=0xff11000000b27d80 \
t=\"0xff11000000b27d80cat\" n=\"cat\" i=\"imm\\\" f=\"\" bf=0 u=(fault) ch='\0' \
fn=\"tracing_on\"\n"
        );
    }
}
