// SPDX-License-Identifier: GPL-2.0

//! Where a probe goes: the second word of a probe command, read as the
//! kernel's parsers read it.
//!
//! - kprobe (`__trace_kprobe_create()`): an address (`kstrtoul(.., 0, ..)`)
//!   or `[MOD:]SYM[+|-OFFS][%return]`; a word with both `/` and `:` is left
//!   to the uprobe parser.
//! - uprobe (`__trace_uprobe_create()`):
//!   `PATH:OFFSET[%return][(REF_CTR_OFFSET)]`.
//! - fprobe (`trace_fprobe_create_internal()`): `[MOD:]SYM[%return]`, or a
//!   tracepoint name for `t`.
//!
//! What only the kernel knows (symbols, files) is asked of a
//! [`PlaceResolver`], at the point where the kernel's parser asks, so that
//! the first error is the kernel's first error.

use core::ops::Range;

use super::errors::{ProbeError, ProbeErrorCode};
use super::names::is_alnum;

/// `EINVAL`.
pub(crate) const EINVAL: i32 = 22;
/// `ERANGE`.
pub(crate) const ERANGE: i32 = 34;

/// What `validate_probe_symbol()` finds for `[MOD:]SYM`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SymbolCount {
    /// One symbol of that name (or `MOD` is not loaded: the kernel accepts
    /// the probe and arms it when the module comes).
    Unique,
    /// Several (`-EADDRNOTAVAIL`: NON_UNIQ_SYMBOL).
    NotUnique,
    /// None (`-ENOENT`: BAD_PROBE_ADDR).
    Missing,
}

/// What `kprobe_on_func_entry(NULL, SYM, OFFS)` says of a symbol and offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FunctionEntry {
    /// `0`: the address is a function's entry.
    Entry,
    /// `-EINVAL`: it is not (a return probe there is BAD_RETPROBE).
    NotEntry,
    /// `-ENOENT` (or another error): the lookup failed; the kernel leaves
    /// that to the registration.
    Unknown,
}

/// What `kern_path(PATH, LOOKUP_FOLLOW)` and `d_is_reg()` say of a uprobe's
/// file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FileLookup {
    /// A regular file.
    Regular,
    /// Something else (NO_REGULAR_FILE, `EINVAL`).
    NotRegular,
    /// The lookup failed with this errno (positive; FILE_NOT_FOUND).
    Failed(i32),
}

/// The kernel's answers the parser needs, asked in the kernel's order.
pub(crate) trait PlaceResolver {
    /// `validate_probe_symbol()`: how many symbols `symbol` (`[MOD:]SYM`,
    /// without offset) names.
    fn count_symbol(&mut self, symbol: &[u8]) -> SymbolCount;
    /// `kprobe_on_func_entry(NULL, symbol, offset)`.
    fn function_entry(&mut self, symbol: &[u8], offset: u32) -> FunctionEntry;
    /// `kern_path()` and `d_is_reg()` of a uprobe's file.
    fn find_file(&mut self, path: &[u8]) -> FileLookup;
    /// Whether fprobe events exist (`CONFIG_FPROBE_EVENTS`): without them
    /// `f` and `t` commands belong to no parser.
    fn has_fprobe_events(&self) -> bool {
        false
    }
}

/// The `traceprobe_parse_context` flags a command sets for its arguments
/// (`TPARG_FL_*`): what the argument parser may fetch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ArgFlags {
    /// `TPARG_FL_RETURN`: at a function's return (`$retval`).
    pub(crate) is_return: bool,
    /// `TPARG_FL_KERNEL`: a kernel probe.
    pub(crate) kernel: bool,
    /// `TPARG_FL_FENTRY`: at a function's entry (`$argN`).
    pub(crate) fentry: bool,
    /// `TPARG_FL_USER`: a uprobe.
    pub(crate) user: bool,
    /// `TPARG_FL_FPROBE`.
    pub(crate) fprobe: bool,
    /// `TPARG_FL_TPOINT`.
    pub(crate) tpoint: bool,
}

impl ArgFlags {
    /// The kernel's `TPARG_FL_*` bits.
    pub(crate) fn bits(&self) -> u32 {
        [
            (self.is_return, 1 << 0),
            (self.kernel, 1 << 1),
            (self.fentry, 1 << 2),
            (self.user, 1 << 4),
            (self.fprobe, 1 << 5),
            (self.tpoint, 1 << 6),
        ]
        .iter()
        .filter(|(set, _)| *set)
        .map(|(_, bit)| bit)
        .sum()
    }

    /// `tparg_is_function_entry()`.
    pub(crate) fn is_function_entry(&self) -> bool {
        self.kernel && self.fentry && !self.is_return && !self.user
    }

    /// `tparg_is_function_return()`.
    pub(crate) fn is_function_return(&self) -> bool {
        self.kernel && self.is_return && !self.fentry && !self.user
    }
}

/// Where a probe goes. Texts are byte ranges of the command line given to
/// `parse_command()` (the kernel side copies what it keeps).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// A kprobe at an address.
    Address(u64),
    /// A kprobe at `[MOD:]SYM+OFFSET`.
    Symbol {
        /// `[MOD:]SYM`, as the kernel keeps it in `tk->symbol`.
        symbol: Range<usize>,
        /// The offset (0 to `u32::MAX`).
        offset: u32,
    },
    /// An fprobe at `[MOD:]SYM` (kept whole, as `tf->symbol`).
    Function {
        /// `[MOD:]SYM`.
        symbol: Range<usize>,
    },
    /// A tracepoint probe.
    Tracepoint {
        /// The tracepoint's name.
        name: Range<usize>,
    },
    /// A uprobe.
    File {
        /// The file's path (`tu->filename`).
        path: Range<usize>,
        /// The offset in the file.
        offset: u64,
        /// The reference counter's offset (0: none).
        ref_ctr_offset: u64,
    },
}

/// Why a place is not taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PlaceError {
    /// `-ECANCELED`: another parser's command.
    Cancel,
    /// Refused: the error (its position relative to the word) and errno.
    Refused(ProbeError, i32),
}

fn refused(code: ProbeErrorCode, pos: usize, errno: i32) -> PlaceError {
    PlaceError::Refused(ProbeError::at(code, pos), errno)
}

/// `_kstrtoull()` with the radix rules of base 0 (`0x` hex when a hex digit
/// follows, `0` octal): `Err(EINVAL)` or `Err(ERANGE)` as the kernel's.
fn kstrtoull_unsigned(text: &[u8]) -> Result<u64, i32> {
    let (radix, digits): (u64, &[u8]) = match text {
        [b'0', b'x' | b'X', rest @ ..] if rest.first().is_some_and(u8::is_ascii_hexdigit) => {
            (16, rest)
        }
        [b'0', ..] => (8, text),
        _ => (10, text),
    };
    let mut value: u64 = 0;
    let mut overflow = false;
    let mut used = 0;
    for &b in digits {
        let Some(digit) = char::from(b).to_digit(16).map(u64::from) else {
            break;
        };
        if digit >= radix {
            break;
        }
        match value.checked_mul(radix).and_then(|v| v.checked_add(digit)) {
            Some(v) => value = v,
            None => {
                value = u64::MAX;
                overflow = true;
            }
        }
        used += 1;
    }
    if overflow {
        return Err(ERANGE);
    }
    if used == 0 {
        return Err(EINVAL);
    }
    let rest = &digits[used..];
    if rest.is_empty() || rest == b"\n" {
        Ok(value)
    } else {
        Err(EINVAL)
    }
}

/// `kstrtoul(text, 0, ..)` (64-bit): an optional `+`, then a C number.
pub(crate) fn kstrtoul(text: &[u8]) -> Result<u64, i32> {
    kstrtoull_unsigned(text.strip_prefix(b"+").unwrap_or(text))
}

/// `kstrtouint(text, 0, ..)`.
pub(crate) fn kstrtouint(text: &[u8]) -> Result<u32, i32> {
    u32::try_from(kstrtoul(text)?).map_err(|_| ERANGE)
}

/// `kstrtol(text, 0, ..)` (64-bit).
pub(crate) fn kstrtol(text: &[u8]) -> Result<i64, i32> {
    if let Some(digits) = text.strip_prefix(b"-") {
        let magnitude = kstrtoull_unsigned(digits)?;
        return 0i64
            .checked_sub_unsigned(magnitude)
            .filter(|&v| v <= 0)
            .ok_or(ERANGE);
    }
    i64::try_from(kstrtoul(text)?).map_err(|_| ERANGE)
}

/// A kprobe's place and whether it makes a return probe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KprobePlace {
    /// Where.
    pub(crate) place: Place,
    /// A return probe (`r`, or `%return`).
    pub(crate) is_return: bool,
    /// The argument flags the place sets (kernel, return, entry).
    pub(crate) flags: ArgFlags,
}

/// Reads a kprobe's place, `word` starting at `start` in the line, as
/// `__trace_kprobe_create()` does; `is_return` says whether the command is
/// `r`. Errors are relative to the word.
pub(crate) fn parse_kprobe_place(
    word: &[u8],
    start: usize,
    is_return: bool,
    resolver: &mut dyn PlaceResolver,
) -> Result<KprobePlace, PlaceError> {
    let mut flags = ArgFlags {
        kernel: true,
        ..ArgFlags::default()
    };
    if let Ok(addr) = kstrtoul(word) {
        return Ok(KprobePlace {
            place: Place::Address(addr),
            is_return,
            flags,
        });
    }
    if word.contains(&b'/') && word.contains(&b':') {
        return Err(PlaceError::Cancel);
    }
    let mut is_return = is_return;
    let mut symbol_text = word;
    if let Some(percent) = word.iter().position(|&b| b == b'%') {
        if &word[percent..] != b"%return" {
            return Err(refused(ProbeErrorCode::BadAddrSuffix, percent, EINVAL));
        }
        symbol_text = &word[..percent];
        is_return = true;
    }
    // traceprobe_split_symbol_offset(): the first '+' or '-' starts the
    // offset, read by kstrtol().
    let mut offset: i64 = 0;
    if let Some(sign) = symbol_text.iter().position(|&b| b == b'+' || b == b'-') {
        offset = kstrtol(&symbol_text[sign..])
            .map_err(|_| refused(ProbeErrorCode::BadProbeAddr, 0, EINVAL))?;
        symbol_text = &symbol_text[..sign];
    }
    let offset =
        u32::try_from(offset).map_err(|_| refused(ProbeErrorCode::BadProbeAddr, 0, EINVAL))?;
    match resolver.count_symbol(symbol_text) {
        SymbolCount::Unique => {}
        SymbolCount::NotUnique => return Err(refused(ProbeErrorCode::NonUniqSymbol, 0, EINVAL)),
        SymbolCount::Missing => return Err(refused(ProbeErrorCode::BadProbeAddr, 0, EINVAL)),
    }
    flags.is_return = is_return;
    match resolver.function_entry(symbol_text, offset) {
        FunctionEntry::Entry => flags.fentry = !is_return,
        FunctionEntry::NotEntry if is_return => {
            return Err(refused(ProbeErrorCode::BadRetprobe, 0, EINVAL));
        }
        FunctionEntry::NotEntry | FunctionEntry::Unknown => {}
    }
    Ok(KprobePlace {
        place: Place::Symbol {
            symbol: start..start + symbol_text.len(),
            offset,
        },
        is_return,
        flags,
    })
}

/// A uprobe's place and whether `%return` made it a return probe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UprobePlace {
    /// `Place::File`.
    pub(crate) place: Place,
    /// `%return` was given.
    pub(crate) percent_return: bool,
}

/// Whether the uprobe parser takes `word` at all: a `/`, and a digit after
/// its last `:` (else `-ECANCELED`).
pub(crate) fn is_uprobe_place(word: &[u8]) -> bool {
    word.contains(&b'/')
        && word
            .iter()
            .rposition(|&b| b == b':')
            .is_some_and(|colon| word.get(colon + 1).is_some_and(u8::is_ascii_digit))
}

/// Reads `PATH:OFFSET[%return][(REF_CTR_OFFSET)]` as
/// `__trace_uprobe_create()` does, `word` starting at `start` in the line.
/// Errors are relative to the word.
pub(crate) fn parse_uprobe_place(
    word: &[u8],
    start: usize,
    resolver: &mut dyn PlaceResolver,
) -> Result<UprobePlace, PlaceError> {
    if !is_uprobe_place(word) {
        return Err(PlaceError::Cancel);
    }
    let colon = word
        .iter()
        .rposition(|&b| b == b':')
        .ok_or(PlaceError::Cancel)?;
    let path = &word[..colon];
    match resolver.find_file(path) {
        FileLookup::Regular => {}
        FileLookup::NotRegular => return Err(refused(ProbeErrorCode::NoRegularFile, 0, EINVAL)),
        FileLookup::Failed(errno) => return Err(refused(ProbeErrorCode::FileNotFound, 0, errno)),
    }
    let arg_start = colon + 1;
    let mut arg_end = word.len();
    let mut ref_ctr_offset = 0;
    if let Some(open) = word[arg_start..].iter().position(|&b| b == b'(') {
        let open = arg_start + open;
        let Some(close) = word[open..].iter().position(|&b| b == b')') else {
            return Err(refused(ProbeErrorCode::RefcntOpenBrace, word.len(), EINVAL));
        };
        let close = open + close;
        if close + 1 != word.len() {
            return Err(refused(ProbeErrorCode::BadRefcntSuffix, close + 1, EINVAL));
        }
        ref_ctr_offset = kstrtoul(&word[open + 1..close])
            .map_err(|errno| refused(ProbeErrorCode::BadRefcnt, open + 1, errno))?;
        arg_end = open;
    }
    let mut percent_return = false;
    if let Some(percent) = word[arg_start..arg_end].iter().position(|&b| b == b'%') {
        let percent = arg_start + percent;
        if &word[percent..arg_end] != b"%return" {
            return Err(refused(ProbeErrorCode::BadAddrSuffix, percent, EINVAL));
        }
        percent_return = true;
        arg_end = percent;
    }
    let offset = kstrtoul(&word[arg_start..arg_end])
        .map_err(|errno| refused(ProbeErrorCode::BadUprobeOffs, arg_start, errno))?;
    Ok(UprobePlace {
        place: Place::File {
            path: start..start + colon,
            offset,
            ref_ctr_offset,
        },
        percent_return,
    })
}

/// Reads an fprobe's (`tracepoint` false) or a tracepoint probe's place as
/// `parse_symbol_and_return()` does, up to the `$retval` scan of the
/// arguments (the caller's). Returns the place and whether `%return` was
/// given. Errors are relative to the word.
pub(crate) fn parse_fprobe_place(
    word: &[u8],
    start: usize,
    tracepoint: bool,
) -> Result<(Place, bool), PlaceError> {
    let mut symbol = word;
    let mut is_return = false;
    if let Some(percent) = word.iter().position(|&b| b == b'%') {
        if tracepoint || &word[percent..] != b"%return" {
            return Err(refused(ProbeErrorCode::BadAddrSuffix, percent, EINVAL));
        }
        is_return = true;
        symbol = &word[..percent];
    }
    let range = start..start + symbol.len();
    if !tracepoint {
        return Ok((Place::Function { symbol: range }, is_return));
    }
    if let Some(bad) = symbol.iter().position(|&b| !is_alnum(b) && b != b'_') {
        return Err(refused(ProbeErrorCode::BadTpName, bad, EINVAL));
    }
    Ok((Place::Tracepoint { name: range }, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A resolver with fixed answers.
    pub(crate) struct Fixed {
        pub(crate) count: SymbolCount,
        pub(crate) entry: FunctionEntry,
        pub(crate) file: FileLookup,
    }

    impl PlaceResolver for Fixed {
        fn count_symbol(&mut self, _: &[u8]) -> SymbolCount {
            self.count
        }
        fn function_entry(&mut self, _: &[u8], _: u32) -> FunctionEntry {
            self.entry
        }
        fn find_file(&mut self, _: &[u8]) -> FileLookup {
            self.file
        }
    }

    fn ok() -> Fixed {
        Fixed {
            count: SymbolCount::Unique,
            entry: FunctionEntry::Entry,
            file: FileLookup::Regular,
        }
    }

    fn err(code: ProbeErrorCode, pos: usize) -> PlaceError {
        PlaceError::Refused(ProbeError::at(code, pos), EINVAL)
    }

    #[test]
    fn kstrto_numbers() {
        assert_eq!(kstrtoul(b"0x10"), Ok(16));
        assert_eq!(kstrtoul(b"+010"), Ok(8));
        assert_eq!(kstrtoul(b"0"), Ok(0));
        assert_eq!(kstrtoul(b"0x"), Err(EINVAL));
        assert_eq!(kstrtoul(b"08"), Err(EINVAL));
        assert_eq!(kstrtoul(b""), Err(EINVAL));
        assert_eq!(kstrtoul(b"-1"), Err(EINVAL));
        assert_eq!(kstrtoul(b"18446744073709551615"), Ok(u64::MAX));
        assert_eq!(kstrtoul(b"18446744073709551616"), Err(ERANGE));
        // Overflow is found before the bad tail.
        assert_eq!(kstrtoul(b"99999999999999999999x"), Err(ERANGE));
        assert_eq!(kstrtouint(b"4294967296"), Err(ERANGE));
        assert_eq!(kstrtol(b"-0x10"), Ok(-16));
        assert_eq!(kstrtol(b"+4"), Ok(4));
        assert_eq!(kstrtol(b"-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(kstrtol(b"9223372036854775808"), Err(ERANGE));
        assert_eq!(kstrtol(b"+"), Err(EINVAL));
    }

    #[test]
    fn flag_bits_are_the_kernels() {
        let f = ArgFlags {
            is_return: true,
            kernel: true,
            ..ArgFlags::default()
        };
        assert_eq!(f.bits(), 0b11);
        assert!(f.is_function_return() && !f.is_function_entry());
        let f = ArgFlags {
            kernel: true,
            fentry: true,
            fprobe: true,
            tpoint: true,
            ..ArgFlags::default()
        };
        assert_eq!(f.bits(), 0b110_0110);
        assert!(f.is_function_entry());
        let f = ArgFlags {
            is_return: true,
            user: true,
            ..ArgFlags::default()
        };
        assert_eq!(f.bits(), 0b1_0001);
        assert!(!f.is_function_return());
    }

    #[test]
    fn kprobe_addresses_and_symbols() {
        let p = parse_kprobe_place(b"0xffffffff81000000", 4, false, &mut ok()).unwrap();
        assert_eq!(p.place, Place::Address(0xffff_ffff_8100_0000));
        assert!(!p.flags.fentry && !p.flags.is_return && p.flags.kernel);
        // `r` at an address sets no return flag (only symbols do).
        let p = parse_kprobe_place(b"4096", 4, true, &mut ok()).unwrap();
        assert!(p.is_return && !p.flags.is_return);

        let p = parse_kprobe_place(b"vfs_read+0x10", 4, false, &mut ok()).unwrap();
        assert_eq!(
            p.place,
            Place::Symbol {
                symbol: 4..12,
                offset: 16
            }
        );
        assert!(p.flags.fentry);
        let p = parse_kprobe_place(b"ext4:ext4_sync_fs%return", 2, false, &mut ok()).unwrap();
        assert_eq!(
            p.place,
            Place::Symbol {
                symbol: 2..19,
                offset: 0
            }
        );
        assert!(p.is_return && p.flags.is_return && !p.flags.fentry);
        let p = parse_kprobe_place(b"f-0", 0, false, &mut ok()).unwrap();
        assert_eq!(
            p.place,
            Place::Symbol {
                symbol: 0..1,
                offset: 0
            }
        );
    }

    #[test]
    fn kprobe_place_errors() {
        assert_eq!(
            parse_kprobe_place(b"/bin/sh:0x10", 0, false, &mut ok()),
            Err(PlaceError::Cancel)
        );
        assert_eq!(
            parse_kprobe_place(b"vfs_read%ret", 0, false, &mut ok()),
            Err(err(ProbeErrorCode::BadAddrSuffix, 8))
        );
        assert_eq!(
            parse_kprobe_place(b"vfs_read-4", 0, false, &mut ok()),
            Err(err(ProbeErrorCode::BadProbeAddr, 0))
        );
        assert_eq!(
            parse_kprobe_place(b"vfs_read+0x100000000", 0, false, &mut ok()),
            Err(err(ProbeErrorCode::BadProbeAddr, 0))
        );
        assert_eq!(
            parse_kprobe_place(b"vfs_read+x", 0, false, &mut ok()),
            Err(err(ProbeErrorCode::BadProbeAddr, 0))
        );
        let mut r = ok();
        r.count = SymbolCount::NotUnique;
        assert_eq!(
            parse_kprobe_place(b"dup", 0, false, &mut r),
            Err(err(ProbeErrorCode::NonUniqSymbol, 0))
        );
        r.count = SymbolCount::Missing;
        assert_eq!(
            parse_kprobe_place(b"nosuch", 0, false, &mut r),
            Err(err(ProbeErrorCode::BadProbeAddr, 0))
        );
        let mut r = ok();
        r.entry = FunctionEntry::NotEntry;
        assert_eq!(
            parse_kprobe_place(b"vfs_read+8", 0, true, &mut r),
            Err(err(ProbeErrorCode::BadRetprobe, 0))
        );
        let p = parse_kprobe_place(b"vfs_read+8", 0, false, &mut r).unwrap();
        assert!(!p.flags.fentry);
        r.entry = FunctionEntry::Unknown;
        assert!(parse_kprobe_place(b"mod:f", 0, true, &mut r).is_ok());
    }

    #[test]
    fn uprobe_places() {
        let p = parse_uprobe_place(b"/bin/sh:0x10", 3, &mut ok()).unwrap();
        assert_eq!(
            p.place,
            Place::File {
                path: 3..10,
                offset: 16,
                ref_ctr_offset: 0
            }
        );
        assert!(!p.percent_return);
        let p = parse_uprobe_place(b"/a:b/c:100%return(0x20)", 0, &mut ok()).unwrap();
        assert_eq!(
            p.place,
            Place::File {
                path: 0..6,
                offset: 100,
                ref_ctr_offset: 32
            }
        );
        assert!(p.percent_return);
        assert!(!is_uprobe_place(b"/bin/sh:x10"));
        assert!(!is_uprobe_place(b"bin:10"));
        assert!(!is_uprobe_place(b"/bin/sh"));
    }

    #[test]
    fn uprobe_place_errors() {
        let w = b"/bin/sh:0x10(0x20";
        assert_eq!(
            parse_uprobe_place(w, 0, &mut ok()),
            Err(err(ProbeErrorCode::RefcntOpenBrace, w.len()))
        );
        assert_eq!(
            parse_uprobe_place(b"/bin/sh:0x10(0x20)x", 0, &mut ok()),
            Err(err(ProbeErrorCode::BadRefcntSuffix, 18))
        );
        assert_eq!(
            parse_uprobe_place(b"/bin/sh:0x10(zz)", 0, &mut ok()),
            Err(err(ProbeErrorCode::BadRefcnt, 13))
        );
        assert_eq!(
            parse_uprobe_place(b"/bin/sh:0x10()", 0, &mut ok()),
            Err(err(ProbeErrorCode::BadRefcnt, 13))
        );
        assert_eq!(
            parse_uprobe_place(b"/bin/sh:0x10%ret", 0, &mut ok()),
            Err(err(ProbeErrorCode::BadAddrSuffix, 12))
        );
        // %return after the reference counter is a suffix of the brace.
        assert_eq!(
            parse_uprobe_place(b"/bin/sh:1(2)%return", 0, &mut ok()),
            Err(err(ProbeErrorCode::BadRefcntSuffix, 12))
        );
        assert_eq!(
            parse_uprobe_place(b"/bin/sh:1z", 0, &mut ok()),
            Err(err(ProbeErrorCode::BadUprobeOffs, 8))
        );
        assert_eq!(
            parse_uprobe_place(b"/bin/sh:99999999999999999999", 0, &mut ok()),
            Err(PlaceError::Refused(
                ProbeError::at(ProbeErrorCode::BadUprobeOffs, 8),
                ERANGE
            ))
        );
        let mut r = ok();
        r.file = FileLookup::Failed(2);
        assert_eq!(
            parse_uprobe_place(b"/nosuch:1(", 0, &mut r),
            Err(PlaceError::Refused(
                ProbeError::at(ProbeErrorCode::FileNotFound, 0),
                2
            ))
        );
        r.file = FileLookup::NotRegular;
        assert_eq!(
            parse_uprobe_place(b"/bin:1", 0, &mut r),
            Err(err(ProbeErrorCode::NoRegularFile, 0))
        );
    }

    #[test]
    fn fprobe_places() {
        assert_eq!(
            parse_fprobe_place(b"vfs_read", 2, false),
            Ok((Place::Function { symbol: 2..10 }, false))
        );
        assert_eq!(
            parse_fprobe_place(b"vfs_read%return", 2, false),
            Ok((Place::Function { symbol: 2..10 }, true))
        );
        assert_eq!(
            parse_fprobe_place(b"vfs_read%x", 0, false),
            Err(err(ProbeErrorCode::BadAddrSuffix, 8))
        );
        assert_eq!(
            parse_fprobe_place(b"sched_switch%return", 0, true),
            Err(err(ProbeErrorCode::BadAddrSuffix, 12))
        );
        assert_eq!(
            parse_fprobe_place(b"sched:switch", 0, true),
            Err(err(ProbeErrorCode::BadTpName, 5))
        );
        assert_eq!(
            parse_fprobe_place(b"sched_switch", 1, true),
            Ok((Place::Tracepoint { name: 1..13 }, false))
        );
    }
}
