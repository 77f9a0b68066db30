// SPDX-License-Identifier: GPL-2.0

//! The `format` file of an event, as the kernel's `f_show` writes it.

use super::field::{Field, COMMON_FIELDS};
use core::fmt::{self, Write};

/// What the `format` file of one event shows.
pub(crate) struct EventFormat<'a, I> {
    /// The event's name.
    pub(crate) name: &'a str,
    /// Its record type.
    pub(crate) id: u16,
    /// Its own fields, in order (after the common fields).
    pub(crate) fields: I,
    /// Its `print fmt`.
    pub(crate) print_fmt: &'a str,
}

/// Writes the whole `format` file.
pub(crate) fn write_format<'a, I: Iterator<Item = Field<'a>>>(
    out: &mut dyn Write,
    format: EventFormat<'_, I>,
) -> fmt::Result {
    writeln!(out, "name: {}", format.name)?;
    writeln!(out, "ID: {}", format.id)?;
    writeln!(out, "format:")?;
    for field in &COMMON_FIELDS {
        write_field(out, field)?;
    }
    writeln!(out)?;
    for field in format.fields {
        write_field(out, &field)?;
    }
    writeln!(out, "\nprint fmt: {}", format.print_fmt)
}

/// One `field:` line. An array type `T[N]` is shown as `T name[N]`
/// (`T name[]` when the length is unknown), except for `__data_loc` types,
/// which are shown as they are.
pub(crate) fn write_field(out: &mut dyn Write, field: &Field<'_>) -> fmt::Result {
    let signed = u8::from(field.is_signed);
    let array = match field.type_name.find('[') {
        Some(at) if !field.type_name.starts_with("__data_loc") => Some(at),
        _ => None,
    };
    write!(out, "\tfield:")?;
    match array {
        None => write!(out, "{} {}", field.type_name, field.name)?,
        Some(at) => {
            let element = field.type_name.get(..at).unwrap_or(field.type_name);
            if field.len != 0 {
                write!(out, "{element} {}[{}]", field.name, field.len)?;
            } else {
                write!(out, "{element} {}[]", field.name)?;
            }
        }
    }
    writeln!(
        out,
        ";\toffset:{};\tsize:{};\tsigned:{};",
        field.offset, field.size, signed
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::portable::events::field::FilterType;

    struct Text {
        buf: [u8; 2048],
        len: usize,
    }

    impl Write for Text {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            let end = self.len + s.len();
            self.buf
                .get_mut(self.len..end)
                .ok_or(fmt::Error)?
                .copy_from_slice(s.as_bytes());
            self.len = end;
            Ok(())
        }
    }

    fn field(
        type_name: &'static str,
        name: &'static str,
        offset: u32,
        size: u32,
        len: u32,
    ) -> Field<'static> {
        Field {
            type_name,
            name,
            offset,
            size,
            is_signed: type_name == "int",
            filter_type: FilterType::Other,
            len,
        }
    }

    #[test]
    fn format_of_sched_process_exec_shape() {
        let fields = [
            field("__data_loc char[]", "filename", 8, 4, 0),
            field("pid_t", "pid", 12, 4, 0),
            field("char[16]", "comm", 16, 16, 16),
            field("unsigned long[]", "caller", 32, 0, 0),
        ];
        let mut text = Text {
            buf: [0; 2048],
            len: 0,
        };
        write_format(
            &mut text,
            EventFormat {
                name: "demo",
                id: 310,
                fields: fields.iter().copied(),
                print_fmt: "\"pid=%d\", REC->pid",
            },
        )
        .unwrap();
        let expected = "name: demo\nID: 310\nformat:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\
\n\
\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n\
\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:0;\n\
\tfield:char comm[16];\toffset:16;\tsize:16;\tsigned:0;\n\
\tfield:unsigned long caller[];\toffset:32;\tsize:0;\tsigned:0;\n\
\nprint fmt: \"pid=%d\", REC->pid\n";
        assert_eq!(
            core::str::from_utf8(&text.buf[..text.len]).unwrap(),
            expected
        );
    }
}
