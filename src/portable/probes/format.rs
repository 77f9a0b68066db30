// SPDX-License-Identifier: GPL-2.0

//! The `format` file of a probe event: its own fields after the common
//! ones (`kprobe_event_define_fields`, `uprobe_event_define_fields` and
//! `traceprobe_define_arg_fields`) and its `print fmt`
//! (`traceprobe_set_print_fmt`). The file itself is written by
//! `events::format::write_format`.

use super::super::events::field::Field;
use super::super::events::filter::fields::filter_assign_type;
use super::fetch::ArgSpec;
use super::layout::{field_offset, TRACE_ENTRY_SIZE};
use core::fmt::{self, Write};

/// `enum probe_print_type` (without eprobes').
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PrintType {
    /// `(%lx)` of `__probe_ip`.
    Normal,
    /// `(%lx <- %lx)` of `__probe_func` and `__probe_ret_ip`.
    Return,
}

/// An `unsigned long` field of the probe.
const fn word(name: &'static str, offset: u32) -> Field<'static> {
    Field {
        type_name: "unsigned long",
        name,
        offset,
        size: 8,
        is_signed: false,
        filter_type: super::super::events::field::FilterType::Other,
        len: 0,
    }
}

const ENTRY_FIELDS: [Field<'static>; 1] = [word("__probe_ip", TRACE_ENTRY_SIZE as u32)];
const RETURN_FIELDS: [Field<'static>; 2] = [
    word("__probe_func", TRACE_ENTRY_SIZE as u32),
    word("__probe_ret_ip", TRACE_ENTRY_SIZE as u32 + 8),
];

/// The probe's own words.
pub(crate) fn head_fields(is_return: bool) -> &'static [Field<'static>] {
    if is_return {
        &RETURN_FIELDS
    } else {
        &ENTRY_FIELDS
    }
}

/// The field of argument `arg`: its name, its type's `format` name (an
/// array `type[N]`, shown as `type name[]`), its offset and size, signed
/// as its type.
pub(crate) fn arg_field(arg: &ArgSpec, is_return: bool) -> Field<'_> {
    let type_name = arg.field_type();
    Field {
        type_name,
        name: arg.name_str(),
        offset: field_offset(arg, is_return) as u32,
        size: arg.size() as u32,
        is_signed: arg.fetch_type.is_signed(),
        filter_type: filter_assign_type(type_name),
        len: 0,
    }
}

/// All the fields of a probe event after the common ones, in order.
pub(crate) fn probe_fields(args: &[ArgSpec], is_return: bool) -> impl Iterator<Item = Field<'_>> {
    head_fields(is_return)
        .iter()
        .copied()
        .chain(args.iter().map(move |arg| arg_field(arg, is_return)))
}

/// Writes the `print fmt` of a probe event (`__set_print_fmt`).
pub(crate) fn write_print_fmt(
    out: &mut dyn Write,
    args: &[ArgSpec],
    print_type: PrintType,
) -> fmt::Result {
    let (fmt, head_args) = match print_type {
        PrintType::Normal => ("(%lx)", ", REC->__probe_ip"),
        PrintType::Return => ("(%lx <- %lx)", ", REC->__probe_func, REC->__probe_ret_ip"),
    };
    write!(out, "\"{fmt}")?;
    for arg in args {
        let f = arg.fetch_type.print_fmt();
        write!(out, " {}=", arg.name_str())?;
        if arg.count != 0 {
            write!(out, "{{{f}")?;
            for _ in 1..arg.count {
                write!(out, ",{f}")?;
            }
            write!(out, "}}")?;
        } else {
            out.write_str(f)?;
        }
    }
    write!(out, "\"{head_args}")?;
    for arg in args {
        let name = arg.name_str();
        let string = arg.fetch_type.is_string();
        if arg.count != 0 {
            for j in 0..arg.count {
                if string {
                    write!(out, ", __get_str({name}[{j}])")?;
                } else {
                    write!(out, ", REC->{name}[{j}]")?;
                }
            }
        } else if string {
            write!(out, ", __get_str({name})")?;
        } else {
            write!(out, ", REC->{name}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::super::events::format::{write_format, EventFormat};
    use super::super::exec::tests::parse_all;
    use super::super::fetch::ProbeKind;
    use super::*;

    #[test]
    fn kprobe_format_file() {
        let args = parse_all(
            ProbeKind::Kprobe,
            false,
            &[
                "dfd=%ax",
                "filename=+0(%si):string",
                "flags=%dx:s32",
                "mode=+4($stack):u16[2]",
                "names=+0(%di):string[2]",
                "c=%cx:char",
            ],
        );
        let mut print_fmt = String::new();
        write_print_fmt(&mut print_fmt, &args, PrintType::Normal).unwrap();
        let mut text = String::new();
        write_format(
            &mut text,
            EventFormat {
                name: "myprobe",
                id: 1234,
                fields: probe_fields(&args, false),
                print_fmt: &print_fmt,
            },
        )
        .unwrap();
        let expected = "name: myprobe\nID: 1234\nformat:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\
\n\
\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n\
\tfield:u64 dfd;\toffset:16;\tsize:8;\tsigned:0;\n\
\tfield:__data_loc char[] filename;\toffset:24;\tsize:4;\tsigned:1;\n\
\tfield:s32 flags;\toffset:28;\tsize:4;\tsigned:1;\n\
\tfield:u16 mode[];\toffset:32;\tsize:4;\tsigned:0;\n\
\tfield:__data_loc char[][2] names;\toffset:36;\tsize:8;\tsigned:1;\n\
\tfield:u8 c;\toffset:44;\tsize:1;\tsigned:0;\n\
\nprint fmt: \"(%lx) dfd=0x%Lx filename=\\\"%s\\\" flags=%d mode={%u,%u} \
names={\\\"%s\\\",\\\"%s\\\"} c='%c'\", REC->__probe_ip, REC->dfd, __get_str(filename), \
REC->flags, REC->mode[0], REC->mode[1], __get_str(names[0]), __get_str(names[1]), REC->c\n";
        assert_eq!(text, expected);
    }

    #[test]
    fn return_probe_fields_and_print_fmt() {
        let args = parse_all(ProbeKind::Kprobe, true, &["$retval:s64", "s=%ax:symbol"]);
        let fields: Vec<_> = probe_fields(&args, true).collect();
        assert_eq!(fields[0].name, "__probe_func");
        assert_eq!((fields[1].name, fields[1].offset), ("__probe_ret_ip", 16));
        assert_eq!(
            (fields[2].name, fields[2].offset, fields[2].type_name),
            ("arg1", 24, "s64")
        );
        assert_eq!((fields[3].offset, fields[3].type_name), (32, "u64"));
        let mut s = String::new();
        write_print_fmt(&mut s, &args, PrintType::Return).unwrap();
        assert_eq!(
            s,
            "\"(%lx <- %lx) arg1=%Ld s=%pS\", REC->__probe_func, REC->__probe_ret_ip, REC->arg1, REC->s"
        );
        let mut s = String::new();
        write_print_fmt(&mut s, &[], PrintType::Normal).unwrap();
        assert_eq!(s, "\"(%lx)\", REC->__probe_ip");
    }

    #[test]
    fn string_fields_compare_as_strings() {
        let args = parse_all(
            ProbeKind::Kprobe,
            false,
            &["+0(%si):string", "+0(%si):u8[2]"],
        );
        use super::super::super::events::field::FilterType;
        assert_eq!(
            arg_field(&args[0], false).filter_type,
            FilterType::DynString
        );
        assert_eq!(arg_field(&args[1], false).filter_type, FilterType::Other);
    }

    /// The `format` files the test kernel wrote for
    /// `p:kprobes/t vfs_read a=%si:s32 c=%dx:x16 b=+0(%si):u8[4]
    /// s=%di:symbol t=%di:symstr n=$comm i=\"imm\" f=+0(%bx):string
    /// bf=%dx:b4@2/8 u=+0(%si):ustring ch=+0(%si):char fn=%di:%pD` and
    /// `r:kprobes/r vfs_read c=$arg3 $retval s=$arg1:x32`.
    #[test]
    fn format_files_are_the_kernels() {
        use super::super::arg_words::{expand_dentry_arg, DentryOffsets};
        let offsets = DentryOffsets {
            dentry_name: 0x28,
            file_dentry: 0x48,
        };
        let mut buf = [0u8; 256];
        let len = expand_dentry_arg(b"fn=%di:%pD", &offsets, &mut buf)
            .unwrap()
            .unwrap();
        let fn_word = core::str::from_utf8(&buf[..len]).unwrap();
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
            fn_word,
        ];
        let cases = [
            (false, &words[..], "t", 1078, "name: t\n\
ID: 1078\n\
format:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\
\n\
\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n\
\tfield:s32 a;\toffset:16;\tsize:4;\tsigned:1;\n\
\tfield:u16 c;\toffset:20;\tsize:2;\tsigned:0;\n\
\tfield:u8 b[];\toffset:22;\tsize:4;\tsigned:0;\n\
\tfield:u64 s;\toffset:26;\tsize:8;\tsigned:0;\n\
\tfield:__data_loc char[] t;\toffset:34;\tsize:4;\tsigned:1;\n\
\tfield:__data_loc char[] n;\toffset:38;\tsize:4;\tsigned:1;\n\
\tfield:__data_loc char[] i;\toffset:42;\tsize:4;\tsigned:1;\n\
\tfield:__data_loc char[] f;\toffset:46;\tsize:4;\tsigned:1;\n\
\tfield:u8 bf;\toffset:50;\tsize:1;\tsigned:0;\n\
\tfield:__data_loc char[] u;\toffset:51;\tsize:4;\tsigned:1;\n\
\tfield:u8 ch;\toffset:55;\tsize:1;\tsigned:0;\n\
\tfield:__data_loc char[] fn;\toffset:56;\tsize:4;\tsigned:1;\n\
\n\
print fmt: \"(%lx) a=%d c=0x%x b={%u,%u,%u,%u} s=%pS t=\\\"%s\\\" n=\\\"%s\\\" i=\\\"%s\\\" f=\\\"%s\\\" bf=%u u=\\\"%s\\\" ch='%c' fn=\\\"%s\\\"\", REC->__probe_ip, REC->a, REC->c, REC->b[0], REC->b[1], REC->b[2], REC->b[3], REC->s, __get_str(t), __get_str(n), __get_str(i), __get_str(f), REC->bf, __get_str(u), REC->ch, __get_str(fn)\n\
"),
            (
                true,
                &["c=$arg3", "$retval", "s=$arg1:x32"][..],
                "r",
                1079,
                "name: r\n\
ID: 1079\n\
format:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\
\n\
\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n\
\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n\
\tfield:u64 c;\toffset:24;\tsize:8;\tsigned:0;\n\
\tfield:u64 arg2;\toffset:32;\tsize:8;\tsigned:0;\n\
\tfield:u32 s;\toffset:40;\tsize:4;\tsigned:0;\n\
\n\
print fmt: \"(%lx <- %lx) c=0x%Lx arg2=0x%Lx s=0x%x\", REC->__probe_func, REC->__probe_ret_ip, REC->c, REC->arg2, REC->s\n\
",
            ),
        ];
        for (is_return, words, name, id, expected) in cases {
            let args = parse_all(ProbeKind::Kprobe, is_return, words);
            let mut print_fmt = String::new();
            let ptype = if is_return {
                PrintType::Return
            } else {
                PrintType::Normal
            };
            write_print_fmt(&mut print_fmt, &args, ptype).unwrap();
            let mut text = String::new();
            write_format(
                &mut text,
                EventFormat {
                    name,
                    id,
                    fields: probe_fields(&args, is_return),
                    print_fmt: &print_fmt,
                },
            )
            .unwrap();
            assert_eq!(text, expected);
        }
    }
}
