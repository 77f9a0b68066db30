// SPDX-License-Identifier: GPL-2.0

//! The types of fetch arguments: the kernel's `probe_fetch_types` table
//! (kernel/trace/trace_probe.c) with each type's size, sign, the printf
//! format its values print with and the type name the `format` file shows.

/// One entry of `probe_fetch_types`. A bitfield `b<w>@<o>/<size>` has the
/// type of its container (`u8` .. `u64`), as in the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FetchType {
    /// `string`: a kernel string, stored as a `__data_loc`.
    String,
    /// `ustring`: a user string.
    Ustring,
    /// `symstr`: the `%pS` text of an address.
    Symstr,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
    /// `s8`.
    S8,
    /// `s16`.
    S16,
    /// `s32`.
    S32,
    /// `s64`.
    S64,
    /// `x8`: printed in hex.
    X8,
    /// `x16`.
    X16,
    /// `x32`.
    X32,
    /// `x64`.
    X64,
    /// `char`.
    Char,
    /// `symbol`: an address printed as `%pS`.
    Symbol,
}

/// `probe_fetch_types`, in the kernel's order.
const TABLE: [FetchType; 17] = [
    FetchType::String,
    FetchType::Ustring,
    FetchType::Symstr,
    FetchType::U8,
    FetchType::U16,
    FetchType::U32,
    FetchType::U64,
    FetchType::S8,
    FetchType::S16,
    FetchType::S32,
    FetchType::S64,
    FetchType::X8,
    FetchType::X16,
    FetchType::X32,
    FetchType::X64,
    FetchType::Char,
    FetchType::Symbol,
];

impl FetchType {
    /// `DEFAULT_FETCH_TYPE`: `x64` (`x<BITS_PER_LONG>`; this is x86-64).
    pub(crate) const DEFAULT: FetchType = FetchType::X64;

    /// The name written after `:`.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            FetchType::String => "string",
            FetchType::Ustring => "ustring",
            FetchType::Symstr => "symstr",
            FetchType::U8 => "u8",
            FetchType::U16 => "u16",
            FetchType::U32 => "u32",
            FetchType::U64 => "u64",
            FetchType::S8 => "s8",
            FetchType::S16 => "s16",
            FetchType::S32 => "s32",
            FetchType::S64 => "s64",
            FetchType::X8 => "x8",
            FetchType::X16 => "x16",
            FetchType::X32 => "x32",
            FetchType::X64 => "x64",
            FetchType::Char => "char",
            FetchType::Symbol => "symbol",
        }
    }

    /// The bytes one value takes in the record (a string: its `u32`
    /// `__data_loc`).
    pub(crate) const fn size(self) -> usize {
        match self {
            FetchType::String | FetchType::Ustring | FetchType::Symstr => 4,
            FetchType::U8 | FetchType::S8 | FetchType::X8 | FetchType::Char => 1,
            FetchType::U16 | FetchType::S16 | FetchType::X16 => 2,
            FetchType::U32 | FetchType::S32 | FetchType::X32 => 4,
            FetchType::U64 | FetchType::S64 | FetchType::X64 | FetchType::Symbol => 8,
        }
    }

    /// Whether the `format` file says `signed:1`. The string types do:
    /// the kernel's table declares them signed.
    pub(crate) const fn is_signed(self) -> bool {
        matches!(
            self,
            FetchType::String
                | FetchType::Ustring
                | FetchType::Symstr
                | FetchType::S8
                | FetchType::S16
                | FetchType::S32
                | FetchType::S64
        )
    }

    /// Whether values are strings stored after the fixed part.
    pub(crate) const fn is_string(self) -> bool {
        matches!(
            self,
            FetchType::String | FetchType::Ustring | FetchType::Symstr
        )
    }

    /// The printf format of a value, as `print fmt` shows it
    /// (`PRINT_TYPE_FMT_NAME`): the string types' is `\"%s\"` with its
    /// backslashes.
    pub(crate) const fn print_fmt(self) -> &'static str {
        match self {
            FetchType::String | FetchType::Ustring | FetchType::Symstr => "\\\"%s\\\"",
            FetchType::U8 | FetchType::U16 | FetchType::U32 => "%u",
            FetchType::U64 => "%Lu",
            FetchType::S8 | FetchType::S16 | FetchType::S32 => "%d",
            FetchType::S64 => "%Ld",
            FetchType::X8 | FetchType::X16 | FetchType::X32 => "0x%x",
            FetchType::X64 => "0x%Lx",
            FetchType::Char => "'%c'",
            FetchType::Symbol => "%pS",
        }
    }

    /// The C type the `format` file shows (`fmttype`): hex types, `char`
    /// and `symbol` show as the unsigned type of their size.
    pub(crate) const fn format_type(self) -> &'static str {
        match self {
            FetchType::String | FetchType::Ustring | FetchType::Symstr => "__data_loc char[]",
            FetchType::U8 | FetchType::X8 | FetchType::Char => "u8",
            FetchType::U16 | FetchType::X16 => "u16",
            FetchType::U32 | FetchType::X32 => "u32",
            FetchType::U64 | FetchType::X64 | FetchType::Symbol => "u64",
            FetchType::S8 => "s8",
            FetchType::S16 => "s16",
            FetchType::S32 => "s32",
            FetchType::S64 => "s64",
        }
    }
}

/// `find_fetch_type`: the type a `:TYPE` suffix names (`None`: the
/// default), or `None` if there is none such. A bitfield
/// `b<w>@<o>/<size>` gives the type of its container (only its `/<size>`
/// is read here); uprobes (`user`) have no `symbol` nor `symstr`.
pub(crate) fn find_fetch_type(name: Option<&[u8]>, user: bool) -> Option<FetchType> {
    if user && matches!(name, Some(b"symbol") | Some(b"symstr")) {
        return None;
    }
    let Some(name) = name else {
        return Some(FetchType::DEFAULT);
    };
    if name.first() == Some(&b'b') {
        let slash = name.iter().position(|&c| c == b'/')?;
        let size = super::numbers::kstrtoul(&name[slash + 1..], 0).ok()?;
        return match size {
            8 => find_fetch_type(Some(b"u8"), user),
            16 => find_fetch_type(Some(b"u16"), user),
            32 => find_fetch_type(Some(b"u32"), user),
            64 => find_fetch_type(Some(b"u64"), user),
            _ => None,
        };
    }
    TABLE.iter().copied().find(|t| t.name().as_bytes() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_is_found_by_its_name() {
        for t in TABLE {
            assert_eq!(find_fetch_type(Some(t.name().as_bytes()), false), Some(t));
        }
        assert_eq!(find_fetch_type(None, false), Some(FetchType::X64));
        assert_eq!(find_fetch_type(Some(b"u128"), false), None);
        assert_eq!(find_fetch_type(Some(b""), false), None);
    }

    #[test]
    fn bitfields_take_their_container_type() {
        assert_eq!(find_fetch_type(Some(b"b4@2/8"), false), Some(FetchType::U8));
        assert_eq!(
            find_fetch_type(Some(b"b1@0/0x20"), false),
            Some(FetchType::U32)
        );
        assert_eq!(find_fetch_type(Some(b"bx/64"), false), Some(FetchType::U64));
        assert_eq!(find_fetch_type(Some(b"b4@2/12"), false), None);
        assert_eq!(find_fetch_type(Some(b"b4@2"), false), None);
    }

    #[test]
    fn uprobes_have_no_symbols() {
        assert_eq!(find_fetch_type(Some(b"symbol"), true), None);
        assert_eq!(find_fetch_type(Some(b"symstr"), true), None);
        assert_eq!(
            find_fetch_type(Some(b"string"), true),
            Some(FetchType::String)
        );
    }

    #[test]
    fn sizes_signs_and_formats_are_the_kernels() {
        assert_eq!(FetchType::String.size(), 4);
        assert!(FetchType::String.is_signed());
        assert!(FetchType::String.is_string());
        assert_eq!(FetchType::String.format_type(), "__data_loc char[]");
        assert_eq!(FetchType::X32.format_type(), "u32");
        assert_eq!(FetchType::X64.print_fmt(), "0x%Lx");
        assert_eq!(FetchType::Char.format_type(), "u8");
        assert_eq!(FetchType::Char.print_fmt(), "'%c'");
        assert_eq!(FetchType::Symbol.size(), 8);
        assert_eq!(FetchType::Symbol.format_type(), "u64");
        assert!(!FetchType::Symbol.is_signed());
        assert!(FetchType::S16.is_signed());
        assert_eq!(FetchType::S64.print_fmt(), "%Ld");
        assert_eq!(FetchType::U64.print_fmt(), "%Lu");
    }
}
