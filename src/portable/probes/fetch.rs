// SPDX-License-Identifier: GPL-2.0

//! One fetch argument of a probe event, `[NAME=]BODY[:TYPE]`, parsed into
//! its name, type and fetch program as the kernel's
//! `traceprobe_parse_probe_arg` (kernel/trace/trace_probe.c) does, with
//! the same errors at the same caret offsets (relative to the word).
//!
//! The parser follows the C closely, on a NUL-terminated copy of the body
//! that it cuts with NULs where the kernel does: the caret positions of
//! the kernel depend on it (for example an error after a dereference
//! `+8(...)` is reported past the `+8(`).

use super::errors::{ProbeError, ProbeErrorCode};
use super::numbers::{kstrtol, kstrtouint, kstrtoul, simple_strtoul};
use super::registers::register_offset;
use super::types::{find_fetch_type, FetchType};

/// `FETCH_INSN_MAX`: the length of a fetch program.
pub(crate) const FETCH_INSN_MAX: usize = 16;
/// `MAX_ARGSTR_LEN`: the longest argument body.
pub(crate) const MAX_ARGSTR_LEN: usize = 63;
/// `MAX_ARG_NAME_LEN`: the longest argument name.
pub(crate) const MAX_ARG_NAME_LEN: usize = 32;
/// `MAX_ARRAY_LEN`: the most elements of an array argument.
pub(crate) const MAX_ARRAY_LEN: u32 = 64;
/// `MAX_TRACE_ARGS`: the most arguments of a probe.
pub(crate) const MAX_TRACE_ARGS: usize = 128;
/// `MAX_PROBE_EVENT_SIZE`: the most bytes the arguments of a probe take
/// in the fixed part of its record.
pub(crate) const MAX_PROBE_EVENT_SIZE: usize = 3072;
/// `MAX_STRING_SIZE` (`PATH_MAX`): the longest string an argument reads.
pub(crate) const MAX_STRING_SIZE: usize = 4096;
/// `PARAM_MAX_STACK` (`THREAD_SIZE / sizeof(long)`) with x86-64's 16 KiB
/// stacks; KASAN doubles them (see [`ParseContext::param_max_stack`]).
pub(crate) const PARAM_MAX_STACK: u64 = 16384 / 8;

/// The names no argument may take (`reserved_field_names`).
const RESERVED_NAMES: [&[u8]; 8] = [
    b"common_type",
    b"common_flags",
    b"common_preempt_count",
    b"common_pid",
    b"common_tgid",
    b"__probe_ip",
    b"__probe_ret_ip",
    b"__probe_func",
];

// The kernel's TPARG_FL_* flags.
const FL_RETURN: u32 = 1 << 0;
const FL_KERNEL: u32 = 1 << 1;
const FL_FENTRY: u32 = 1 << 2;
const FL_TEVENT: u32 = 1 << 3;
const FL_USER: u32 = 1 << 4;
const FL_FPROBE: u32 = 1 << 5;
const FL_TPOINT: u32 = 1 << 6;
const FL_LOC_MASK: u32 = 0x1f;

/// What kind of probe an argument belongs to: it decides which variables
/// and registers it may use and which memory it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProbeKind {
    /// A kprobe or kretprobe event (`p`, `r`).
    Kprobe,
    /// An fprobe event (`f`).
    Fprobe,
    /// A tracepoint probe event (`t`): an fprobe on the tracepoint's stub
    /// function, whose first argument is the probe's data, not the
    /// tracepoint's.
    Tprobe,
    /// A uprobe or uretprobe event.
    Uprobe,
}

/// Where an argument is parsed: the probe it belongs to and the
/// arguments before it.
#[derive(Clone, Copy)]
pub(crate) struct ParseContext<'a> {
    /// The kind of probe.
    pub(crate) kind: ProbeKind,
    /// A return probe (`r`, `%return`).
    pub(crate) is_return: bool,
    /// A kprobe placed by symbol at a function's entry
    /// (`kprobe_on_func_entry(NULL, sym, off) == 0`: `+0`, and up to `+4`
    /// over an `endbr64`): `$argN` reads the function's arguments. False
    /// for a probe placed by address. Fprobes are always at an entry or a
    /// return.
    pub(crate) at_func_entry: bool,
    /// The arguments already parsed, in order: for duplicate names, the
    /// offset of this one and the entry data of `$argN` on return probes.
    pub(crate) previous: &'a [ArgSpec],
    /// The kernel's `PARAM_MAX_STACK`, `THREAD_SIZE / sizeof(long)`: the
    /// largest N of `$stackN` (kernel probes) and `$argN`
    /// ([`PARAM_MAX_STACK`] without KASAN).
    pub(crate) param_max_stack: u64,
}

impl ParseContext<'_> {
    /// The kernel's `ctx->flags`.
    fn flags(&self) -> u32 {
        let ret = if self.is_return { FL_RETURN } else { 0 };
        match self.kind {
            ProbeKind::Kprobe => {
                let entry = if self.at_func_entry && !self.is_return {
                    FL_FENTRY
                } else {
                    0
                };
                FL_KERNEL | ret | entry
            }
            ProbeKind::Fprobe => {
                let entry = if self.is_return { 0 } else { FL_FENTRY };
                FL_KERNEL | FL_FPROBE | ret | entry
            }
            ProbeKind::Tprobe => FL_KERNEL | FL_FPROBE | FL_FENTRY | FL_TPOINT,
            ProbeKind::Uprobe => FL_USER | ret,
        }
    }
}

impl ParseContext<'_> {
    /// Whether `$argN` may be used: at a function's entry or return
    /// (`tparg_is_function_entry` or `tparg_is_function_return`).
    pub(crate) fn has_function_args(&self) -> bool {
        let flags = self.flags();
        is_function_entry(flags) || is_function_return(flags)
    }
}

/// `tparg_is_function_entry`.
fn is_function_entry(flags: u32) -> bool {
    flags & FL_LOC_MASK == FL_KERNEL | FL_FENTRY
}

/// `tparg_is_function_return`.
fn is_function_return(flags: u32) -> bool {
    flags & FL_LOC_MASK == FL_KERNEL | FL_RETURN
}

/// One step of a fetch program (`struct fetch_insn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FetchOp {
    /// An unused slot.
    Nop,
    /// The register at this `pt_regs` offset.
    Reg(u16),
    /// The Nth entry of the stack.
    Stack(u32),
    /// The stack pointer.
    StackPointer,
    /// The return value.
    RetVal,
    /// A constant.
    Imm(u64),
    /// The current task's name.
    Comm,
    /// The Nth argument (from 0) of the function, at its entry.
    Arg(u32),
    /// The address of a file offset of the probed binary (uprobes).
    FileOffset(u64),
    /// The immediate string ([`ArgSpec::text`]).
    Data,
    /// Argument `arg` of the function, saved at its entry at `offset` of
    /// the entry data (return probes).
    EntryData {
        /// The argument, from 0.
        arg: u32,
        /// Its byte offset in the entry data.
        offset: u32,
    },
    /// Read a word at the value plus this offset.
    Deref(i32),
    /// Read a user word at the value plus this offset.
    UserDeref(i32),
    /// Store the value, `size` bytes.
    StoreRaw {
        /// Bytes stored.
        size: u8,
    },
    /// Store `size` bytes of memory at the value plus `offset`.
    StoreMem {
        /// Added to the address.
        offset: i32,
        /// Bytes stored.
        size: u8,
    },
    /// Store `size` bytes of user memory at the value plus `offset`.
    StoreUserMem {
        /// Added to the address.
        offset: i32,
        /// Bytes stored.
        size: u8,
    },
    /// Store the string at the value plus `offset`.
    StoreString {
        /// Added to the address.
        offset: i32,
    },
    /// Store the user string at the value plus `offset`.
    StoreUserString {
        /// Added to the address.
        offset: i32,
    },
    /// Store the `%pS` text of the value plus `offset`.
    StoreSymstr {
        /// Added to the address.
        offset: i32,
    },
    /// Keep a bitfield of the stored value: shift left, then right, in
    /// `basesize` bytes.
    Bitfield {
        /// The stored value's size.
        basesize: u8,
        /// Left shift.
        lshift: u8,
        /// Right shift.
        rshift: u8,
    },
    /// Repeat the store for this many elements.
    LoopArray(u32),
    /// The end of the program.
    End,
    /// The symbol of `@SYM` ([`ArgSpec::text`]); the `Imm` after it takes
    /// its address when the probe is registered.
    Symbol,
}

impl FetchOp {
    /// The offset of a dereference (which a store replacing it keeps), 0
    /// for any other step (an unused slot's is 0).
    fn deref_offset(self) -> i32 {
        match self {
            FetchOp::Deref(offset) | FetchOp::UserDeref(offset) => offset,
            _ => 0,
        }
    }
}

/// Looks up kernel symbols for `@SYM` arguments (kallsyms in the module).
pub(crate) trait SymbolLookup {
    /// The address of symbol `name`, `None` if there is none.
    fn address_of(&self, name: &str) -> Option<u64>;
}

/// A parsed fetch argument (`struct probe_arg`). It owns all its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ArgSpec {
    name: [u8; MAX_ARG_NAME_LEN],
    name_len: u8,
    body: [u8; MAX_ARGSTR_LEN],
    body_len: u8,
    text: [u8; MAX_ARGSTR_LEN],
    text_len: u8,
    array_type: [u8; 24],
    array_type_len: u8,
    /// The kind of probe it was parsed for.
    pub(crate) kind: ProbeKind,
    /// Its type.
    pub(crate) fetch_type: FetchType,
    /// The number of array elements, 0 for one value.
    pub(crate) count: u32,
    /// Its offset after the probe's own fields (`parg->offset`).
    pub(crate) offset: usize,
    /// A string (stored after the fixed part, located by a `__data_loc`).
    pub(crate) dynamic: bool,
    /// The fetch program, ended by [`FetchOp::End`].
    pub(crate) code: [FetchOp; FETCH_INSN_MAX],
}

impl ArgSpec {
    /// The argument's name.
    pub(crate) fn name(&self) -> &[u8] {
        &self.name[..usize::from(self.name_len)]
    }

    /// The name as text (a name is ASCII but for Latin-1 letters the
    /// kernel's `isalpha` takes; such a name gives "").
    pub(crate) fn name_str(&self) -> &str {
        core::str::from_utf8(self.name()).unwrap_or("")
    }

    /// The body as written (`parg->comm`): what listings show after
    /// `NAME=`.
    pub(crate) fn body(&self) -> &[u8] {
        &self.body[..usize::from(self.body_len)]
    }

    /// The immediate string of `\"...`, or the symbol of `@SYM[+-OFF]`.
    pub(crate) fn text(&self) -> &[u8] {
        &self.text[..usize::from(self.text_len)]
    }

    /// The bytes it takes in the fixed part of the record.
    pub(crate) fn size(&self) -> usize {
        self.fetch_type.size() * self.count.max(1) as usize
    }

    /// The C type its `format` field shows: the type's, or for an array
    /// `type[N]` (`parg->fmt`).
    pub(crate) fn field_type(&self) -> &str {
        if self.count == 0 {
            return self.fetch_type.format_type();
        }
        core::str::from_utf8(&self.array_type[..usize::from(self.array_type_len)]).unwrap_or("")
    }

    /// The fetch program up to its end.
    pub(crate) fn program(&self) -> &[FetchOp] {
        let end = self
            .code
            .iter()
            .position(|op| *op == FetchOp::End)
            .unwrap_or(FETCH_INSN_MAX - 1);
        &self.code[..=end]
    }

    /// Whether an existing probe's argument differs in type, count or
    /// name (`trace_probe_compare_arg_type`; a bitfield is its container
    /// type there).
    pub(crate) fn same_type(&self, other: &ArgSpec) -> bool {
        self.fetch_type == other.fetch_type
            && self.count == other.count
            && self.name() == other.name()
    }

    /// Whether a `-:` command's word names this argument
    /// (`trace_probe_match_command_args`: exactly `NAME=BODY`).
    pub(crate) fn matches_word(&self, word: &[u8]) -> bool {
        let name = self.name();
        word.len() == name.len() + 1 + self.body().len()
            && word.starts_with(name)
            && word[name.len()] == b'='
            && &word[name.len() + 1..] == self.body()
    }

    /// Gives `@SYM[+-OFF]` its address when the probe is registered
    /// (`traceprobe_update_arg`). The error is the one the kernel logs
    /// for the failed registration: `BadProbeAddr` for an unknown symbol
    /// (`-ENOENT`), `FailRegProbe` for a bad offset.
    pub(crate) fn resolve_symbols(
        &mut self,
        lookup: &dyn SymbolLookup,
    ) -> Result<(), ProbeErrorCode> {
        let text = self.text;
        let text = &text[..usize::from(self.text_len)];
        let mut i = 0;
        while i + 1 < FETCH_INSN_MAX && self.code[i] != FetchOp::End {
            if self.code[i] == FetchOp::Symbol {
                if !matches!(self.code[i + 1], FetchOp::Imm(_)) {
                    return Err(ProbeErrorCode::FailRegProbe);
                }
                // traceprobe_split_symbol_offset
                let split = text.iter().position(|&c| c == b'+' || c == b'-');
                let (name, offset) = match split {
                    Some(at) => {
                        let offset =
                            kstrtol(&text[at..], 0).map_err(|_| ProbeErrorCode::FailRegProbe)?;
                        (&text[..at], offset)
                    }
                    None => (text, 0),
                };
                let address = core::str::from_utf8(name)
                    .ok()
                    .and_then(|name| lookup.address_of(name))
                    .filter(|&a| a != 0)
                    .ok_or(ProbeErrorCode::BadProbeAddr)?;
                self.code[i + 1] = FetchOp::Imm(address.wrapping_add(offset as u64));
            }
            i += 1;
        }
        Ok(())
    }
}

/// The kernel's `isalpha` (lib/ctype.c): ASCII letters and the Latin-1
/// ones.
fn kernel_isalpha(c: u8) -> bool {
    c.is_ascii_alphabetic() || (c >= 0xc0 && c != 0xd7 && c != 0xf7)
}

/// `is_good_name`: a C identifier (with the kernel's letters).
pub(crate) fn is_good_name(name: &[u8]) -> bool {
    match name.split_first() {
        Some((&first, rest)) => {
            (kernel_isalpha(first) || first == b'_')
                && rest
                    .iter()
                    .all(|&c| kernel_isalpha(c) || c.is_ascii_digit() || c == b'_')
        }
        None => false,
    }
}

/// `traceprobe_conflict_field_name`: whether `name` is reserved or taken
/// by one of `previous`.
pub(crate) fn name_conflicts(name: &[u8], previous: &[ArgSpec]) -> bool {
    RESERVED_NAMES.contains(&name) || previous.iter().any(|arg| arg.name() == name)
}

/// The bytes the arguments take in the fixed part of the record
/// (`tp->size`).
pub(crate) fn args_size(args: &[ArgSpec]) -> usize {
    args.iter().map(ArgSpec::size).sum()
}

/// Parses argument word `word` (the `index`th argument, from 0) as the
/// kernel's `traceprobe_parse_probe_arg`. An error's position is relative
/// to the word's start.
///
/// The kernel logs two entries in one case: an fprobe's `%REG` logs
/// `BadVar` and then `BadFetchArg` at the same place (the error has both).
pub(crate) fn parse_arg(
    word: &[u8],
    index: usize,
    ctx: &ParseContext<'_>,
) -> Result<ArgSpec, ProbeError> {
    // A C string ends at its first NUL.
    let word = match word.iter().position(|&c| c == 0) {
        Some(nul) => &word[..nul],
        None => word,
    };
    let mut name = [0u8; MAX_ARG_NAME_LEN];
    let (name_len, body_at) = match word.iter().position(|&c| c == b'=') {
        Some(eq) => {
            if eq > MAX_ARG_NAME_LEN {
                return Err(ProbeError::at(ProbeErrorCode::ArgNameTooLong, 0));
            }
            if eq == 0 {
                return Err(ProbeError::at(ProbeErrorCode::NoArgName, 0));
            }
            name[..eq].copy_from_slice(&word[..eq]);
            (eq, eq + 1)
        }
        None => (generated_name(&mut name, index), 0),
    };
    let name = &name[..name_len];
    if !is_good_name(name) {
        return Err(ProbeError::at(ProbeErrorCode::BadArgName, 0));
    }
    if name_conflicts(name, ctx.previous) {
        return Err(ProbeError::at(ProbeErrorCode::UsedArgName, 0));
    }
    let mut parser = Parser::new(ctx, body_at);
    let mut spec = parser.parse_body(&word[body_at..])?;
    spec.name[..name_len].copy_from_slice(name);
    spec.name_len = name_len as u8;
    Ok(spec)
}

/// `arg<index + 1>`, the name of an argument given none.
fn generated_name(out: &mut [u8; MAX_ARG_NAME_LEN], index: usize) -> usize {
    out[..3].copy_from_slice(b"arg");
    let mut digits = [0u8; 20];
    let mut n = index + 1;
    let mut len = 0;
    loop {
        digits[len] = b'0' + (n % 10) as u8;
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for (i, d) in digits[..len].iter().rev().enumerate() {
        out[3 + i] = *d;
    }
    3 + len
}

/// What the type suffix gave (`parse_probe_arg_type`).
struct TypeSuffix {
    /// Where the type text starts in the body (after `:`), if any.
    at: Option<usize>,
    fetch_type: FetchType,
    count: u32,
}

/// The state of one body's parse: the kernel's `traceprobe_parse_context`
/// and the buffers it works in.
struct Parser<'c, 'a> {
    ctx: &'c ParseContext<'a>,
    flags: u32,
    /// The body, cut with NULs as parsing goes (`arg`).
    buf: [u8; MAX_ARGSTR_LEN + 2],
    code: [FetchOp; FETCH_INSN_MAX],
    /// `ctx->offset`: where errors point, in the word.
    offset: usize,
    text: [u8; MAX_ARGSTR_LEN],
    text_len: usize,
}

impl<'c, 'a> Parser<'c, 'a> {
    fn new(ctx: &'c ParseContext<'a>, offset: usize) -> Self {
        Parser {
            ctx,
            flags: ctx.flags(),
            buf: [0; MAX_ARGSTR_LEN + 2],
            code: [FetchOp::Nop; FETCH_INSN_MAX],
            offset,
            text: [0; MAX_ARGSTR_LEN],
            text_len: 0,
        }
    }

    fn error(&self, code: ProbeErrorCode, pos: usize) -> ProbeError {
        ProbeError::at(code, pos)
    }

    /// The byte at `at` (NUL past the end).
    fn byte(&self, at: usize) -> u8 {
        self.buf.get(at).copied().unwrap_or(0)
    }

    /// The C string at `at`.
    fn cstr(&self, at: usize) -> &[u8] {
        let rest = self.buf.get(at..).unwrap_or(&[]);
        let len = rest.iter().position(|&c| c == 0).unwrap_or(rest.len());
        &rest[..len]
    }

    fn strlen(&self, at: usize) -> usize {
        self.cstr(at).len()
    }

    fn strchr(&self, at: usize, c: u8) -> Option<usize> {
        self.cstr(at).iter().position(|&b| b == c).map(|i| at + i)
    }

    fn strrchr(&self, at: usize, c: u8) -> Option<usize> {
        self.cstr(at).iter().rposition(|&b| b == c).map(|i| at + i)
    }

    fn cut(&mut self, at: usize) {
        if let Some(b) = self.buf.get_mut(at) {
            *b = 0;
        }
    }

    fn set_text(&mut self, at: usize, len: usize) {
        let len = len.min(MAX_ARGSTR_LEN);
        let mut text = [0u8; MAX_ARGSTR_LEN];
        text[..len].copy_from_slice(&self.cstr(at)[..len]);
        self.text = text;
        self.text_len = len;
    }

    fn set_op(&mut self, at: usize, op: FetchOp) {
        if let Some(slot) = self.code.get_mut(at) {
            *slot = op;
        }
    }

    fn op(&self, at: usize) -> FetchOp {
        self.code.get(at).copied().unwrap_or(FetchOp::End)
    }

    /// `traceprobe_parse_probe_arg_body`.
    fn parse_body(&mut self, body: &[u8]) -> Result<ArgSpec, ProbeError> {
        if body.len() > MAX_ARGSTR_LEN {
            return Err(self.error(ProbeErrorCode::ArgTooLong, self.offset));
        }
        if body.is_empty() {
            return Err(self.error(ProbeErrorCode::NoArgBody, self.offset));
        }
        self.buf[..body.len()].copy_from_slice(body);
        let suffix = self.parse_type()?;
        self.code[FETCH_INSN_MAX - 1] = FetchOp::End;
        let mut code = 0;
        self.parse_probe_arg(0, &mut code, FETCH_INSN_MAX - 1)?;

        let offset = args_size(self.ctx.previous);
        let size = suffix.fetch_type.size() * suffix.count.max(1) as usize;
        if offset + size > MAX_PROBE_EVENT_SIZE {
            return Err(self.error(ProbeErrorCode::EventTooBig, self.offset));
        }
        let dynamic = self.finalize(code, &suffix)?;

        let mut spec = ArgSpec {
            name: [0; MAX_ARG_NAME_LEN],
            name_len: 0,
            body: [0; MAX_ARGSTR_LEN],
            body_len: body.len() as u8,
            text: self.text,
            text_len: self.text_len as u8,
            array_type: [0; 24],
            array_type_len: 0,
            kind: self.ctx.kind,
            fetch_type: suffix.fetch_type,
            count: suffix.count,
            offset,
            dynamic,
            code: self.code,
        };
        spec.body[..body.len()].copy_from_slice(body);
        if suffix.count != 0 {
            // "%s[%d]" of the format type and the count.
            let mut out = Cursor {
                buf: &mut spec.array_type,
                len: 0,
            };
            let _ = core::fmt::write(
                &mut out,
                format_args!("{}[{}]", suffix.fetch_type.format_type(), suffix.count),
            );
            spec.array_type_len = out.len as u8;
        }
        Ok(spec)
    }

    /// `parse_probe_arg_type`: cuts `:TYPE[N]` off the body.
    fn parse_type(&mut self) -> Result<TypeSuffix, ProbeError> {
        let mut count = 0;
        let t = self.strchr(0, b':').map(|colon| {
            self.cut(colon);
            colon + 1
        });
        if let Some(t) = t {
            if let Some(open) = self.strchr(t, b'[') {
                self.cut(open);
                let t2 = open + 1;
                match self.strchr(t2, b']') {
                    None => {
                        let end = t2 + self.strlen(t2);
                        return Err(self.error(ProbeErrorCode::ArrayNoClose, self.offset + end));
                    }
                    Some(t3) if self.byte(t3 + 1) != 0 => {
                        return Err(
                            self.error(ProbeErrorCode::BadArraySuffix, self.offset + t3 + 1)
                        );
                    }
                    Some(t3) => self.cut(t3),
                }
                count = match kstrtouint(self.cstr(t2), 0) {
                    Ok(n) if n != 0 => n,
                    _ => return Err(self.error(ProbeErrorCode::BadArrayNum, self.offset + t2)),
                };
                if count > MAX_ARRAY_LEN {
                    return Err(self.error(ProbeErrorCode::ArrayTooBig, self.offset + t2));
                }
            }
        }
        let offs = t.unwrap_or(0);
        let arg = self.cstr(0);
        let fetch_type = if self.flags & FL_TEVENT == 0
            && (arg == b"$comm" || arg == b"$COMM" || arg.starts_with(b"\\\""))
        {
            // $comm and an immediate string are strings, never arrays.
            if count != 0 || t.is_some_and(|t| self.cstr(t) != b"string") {
                return Err(self.error(ProbeErrorCode::NeedStringType, self.offset + offs));
            }
            Some(FetchType::String)
        } else {
            find_fetch_type(t.map(|t| self.cstr(t)), self.flags & FL_USER != 0)
        };
        match fetch_type {
            Some(fetch_type) => Ok(TypeSuffix {
                at: t,
                fetch_type,
                count,
            }),
            None => Err(self.error(ProbeErrorCode::BadType, self.offset + offs)),
        }
    }

    /// `parse_probe_arg`: the fetch of the argument at `arg`, written from
    /// `*pcode` on, which is left at its last step.
    fn parse_probe_arg(
        &mut self,
        arg: usize,
        pcode: &mut usize,
        end: usize,
    ) -> Result<(), ProbeError> {
        let mut code = *pcode;
        let mut arg = arg;
        match self.byte(arg) {
            b'$' => self.parse_probe_vars(arg, code)?,
            b'%' => {
                if self.flags & (FL_TEVENT | FL_FPROBE) != 0 {
                    // eprobes and fprobes have no registers; the kernel
                    // goes on to find no fetch method for the argument.
                    return Err(ProbeError::twice(
                        ProbeErrorCode::BadVar,
                        ProbeErrorCode::BadFetchArg,
                        self.offset,
                    ));
                }
                match register_offset(self.cstr(arg + 1)) {
                    Some(offset) => self.set_op(code, FetchOp::Reg(offset as u16)),
                    None => return Err(self.error(ProbeErrorCode::BadRegName, self.offset)),
                }
            }
            b'@' => {
                let mut offset: i64 = 0;
                if self.byte(arg + 1).is_ascii_digit() {
                    let address = kstrtoul(self.cstr(arg + 1), 0)
                        .map_err(|_| self.error(ProbeErrorCode::BadMemAddr, self.offset))?;
                    self.set_op(code, FetchOp::Imm(address));
                } else if self.byte(arg + 1) == b'+' {
                    if self.flags & FL_KERNEL != 0 {
                        return Err(self.error(ProbeErrorCode::FileOnKprobe, self.offset));
                    }
                    let file_offset = kstrtol(self.cstr(arg + 2), 0)
                        .map_err(|_| self.error(ProbeErrorCode::BadFileOffs, self.offset))?;
                    self.set_op(code, FetchOp::FileOffset(file_offset as u64));
                    offset = 0;
                } else {
                    if self.flags & FL_KERNEL == 0 {
                        return Err(self.error(ProbeErrorCode::SymOnUprobe, self.offset));
                    }
                    // The symbol is looked up when the probe registers.
                    self.set_op(code, FetchOp::Symbol);
                    self.set_text(arg + 1, self.strlen(arg + 1));
                    code += 1;
                    if code == end {
                        return Err(self.error(ProbeErrorCode::TooManyOps, self.offset));
                    }
                    self.set_op(code, FetchOp::Imm(0));
                }
                // These fetch from memory.
                code += 1;
                if code == end {
                    return Err(self.error(ProbeErrorCode::TooManyOps, self.offset));
                }
                *pcode = code;
                self.set_op(code, FetchOp::Deref(offset as i32));
            }
            b'+' | b'-' => {
                let mut user = false;
                if self.byte(arg + 1) == b'u' {
                    user = true;
                    self.buf[arg + 1] = self.buf[arg];
                    arg += 1;
                }
                if self.byte(arg) == b'+' {
                    arg += 1; // kstrtol() takes no '+' here
                }
                let Some(open) = self.strchr(arg, b'(') else {
                    return Err(self.error(ProbeErrorCode::DerefNeedBrace, self.offset));
                };
                self.cut(open);
                let offset = kstrtol(self.cstr(arg), 0)
                    .map_err(|_| self.error(ProbeErrorCode::BadDerefOffs, self.offset))?;
                // As the kernel: one too few for `+u`/`-u` and `+-`.
                self.offset += (open + 1 - arg) + usize::from(self.byte(arg) != b'-');
                arg = open + 1;
                let Some(close) = self.strrchr(arg, b')') else {
                    let pos = self.offset + self.strlen(arg);
                    return Err(self.error(ProbeErrorCode::DerefOpenBrace, pos));
                };
                let cur_offs = self.offset;
                self.cut(close);
                self.parse_probe_arg(arg, &mut code, end)?;
                self.offset = cur_offs;
                if matches!(self.op(code), FetchOp::Comm | FetchOp::Data) {
                    return Err(self.error(ProbeErrorCode::CommCantDeref, self.offset));
                }
                code += 1;
                if code == end {
                    return Err(self.error(ProbeErrorCode::TooManyOps, self.offset));
                }
                *pcode = code;
                // The offset is the kernel's `int`.
                let op = if user {
                    FetchOp::UserDeref(offset as i32)
                } else {
                    FetchOp::Deref(offset as i32)
                };
                self.set_op(code, op);
            }
            b'\\' => {
                if self.byte(arg + 1) == b'"' {
                    // __parse_imm_string
                    let s = arg + 2;
                    let len = self.strlen(s);
                    if len == 0 || self.byte(s + len - 1) != b'"' {
                        let pos = self.offset + 2 + len;
                        return Err(self.error(ProbeErrorCode::ImmstrNoClose, pos));
                    }
                    self.set_text(s, len - 1);
                    self.set_op(code, FetchOp::Data);
                } else {
                    let value = str_to_immediate(self.cstr(arg + 1))
                        .ok_or_else(|| self.error(ProbeErrorCode::BadImm, self.offset + 1))?;
                    self.set_op(code, FetchOp::Imm(value));
                }
            }
            // A typecast, and a BTF variable name: no BTF here.
            b'(' => return Err(self.error(ProbeErrorCode::NosupBtfarg, self.offset)),
            c if kernel_isalpha(c) || c == b'_' => {
                return Err(self.error(ProbeErrorCode::NosupBtfarg, self.offset))
            }
            _ => {}
        }
        if self.op(code) == FetchOp::Nop {
            // Parsed, but no fetch method found.
            return Err(self.error(ProbeErrorCode::BadFetchArg, self.offset));
        }
        Ok(())
    }

    /// `parse_probe_vars`: the `$` variable at `orig`, into step `code`.
    fn parse_probe_vars(&mut self, orig: usize, code: usize) -> Result<(), ProbeError> {
        let at = self.offset;
        let fail = |err| Err(ProbeError::at(err, at));
        let arg = self.cstr(orig + 1);
        let op = if arg.starts_with(b"retval") {
            if self.flags & FL_RETURN == 0 {
                return fail(ProbeErrorCode::RetvalOnProbe);
            }
            FetchOp::RetVal
        } else if let Some(rest) = arg.strip_prefix(b"stack") {
            match rest.first() {
                None => FetchOp::StackPointer,
                Some(c) if c.is_ascii_digit() => {
                    let Ok(param) = kstrtoul(rest, 10) else {
                        return fail(ProbeErrorCode::BadVar);
                    };
                    if self.flags & FL_KERNEL != 0 && param > self.ctx.param_max_stack {
                        return fail(ProbeErrorCode::BadStackNum);
                    }
                    FetchOp::Stack(param as u32)
                }
                Some(_) => return fail(ProbeErrorCode::BadVar),
            }
        } else if arg == b"comm" || arg == b"COMM" {
            FetchOp::Comm
        } else if let Some(rest) = arg.strip_prefix(b"arg") {
            let Ok(param) = kstrtoul(rest, 10) else {
                return fail(ProbeErrorCode::BadVar);
            };
            if param == 0 || param > self.ctx.param_max_stack {
                return fail(ProbeErrorCode::BadArgNum);
            }
            let param = (param - 1) as u32;
            if is_function_entry(self.flags) {
                // A tracepoint's stub has the probe data first.
                FetchOp::Arg(param + u32::from(self.flags & FL_TPOINT != 0))
            } else if is_function_return(self.flags) {
                FetchOp::EntryData {
                    arg: param,
                    offset: entry_data_offset(self.ctx.previous, param),
                }
            } else {
                return fail(ProbeErrorCode::NofentryArgs);
            }
        } else {
            return fail(ProbeErrorCode::BadVar);
        };
        self.set_op(code, op);
        Ok(())
    }

    /// `finalize_fetch_insn`: the store, bitfield and array steps after
    /// the fetch, whose last step is `code`. Whether the argument is a
    /// string.
    fn finalize(&mut self, mut code: usize, suffix: &TypeSuffix) -> Result<bool, ProbeError> {
        let fetch_type = suffix.fetch_type;
        let type_pos = self.offset + suffix.at.unwrap_or(0);
        let size = fetch_type.size() as u8;
        let last = self.op(code);
        let dynamic = fetch_type.is_string();
        if dynamic {
            let symstr = fetch_type == FetchType::Symstr;
            if symstr {
                if !matches!(
                    last,
                    FetchOp::Reg(_)
                        | FetchOp::Stack(_)
                        | FetchOp::RetVal
                        | FetchOp::Arg(_)
                        | FetchOp::Deref(_)
                ) {
                    return Err(self.error(ProbeErrorCode::BadSymstring, type_pos));
                }
            } else if !matches!(
                last,
                FetchOp::Deref(_)
                    | FetchOp::UserDeref(_)
                    | FetchOp::Imm(_)
                    | FetchOp::Comm
                    | FetchOp::Data
            ) {
                return Err(self.error(ProbeErrorCode::BadString, type_pos));
            }
            if symstr
                || matches!(last, FetchOp::Imm(_) | FetchOp::Comm | FetchOp::Data)
                || suffix.count != 0
            {
                // Keep the address itself (or, for an array, the pointer).
                code += 1;
                if self.op(code) != FetchOp::Nop {
                    return Err(self.error(ProbeErrorCode::TooManyOps, self.offset));
                }
            }
            let here = self.op(code);
            let offset = here.deref_offset();
            let op = if fetch_type == FetchType::Ustring || matches!(here, FetchOp::UserDeref(_)) {
                FetchOp::StoreUserString { offset }
            } else if symstr {
                FetchOp::StoreSymstr { offset }
            } else {
                FetchOp::StoreString { offset }
            };
            self.set_op(code, op);
        } else if let FetchOp::Deref(offset) = last {
            self.set_op(code, FetchOp::StoreMem { offset, size });
        } else if let FetchOp::UserDeref(offset) = last {
            self.set_op(code, FetchOp::StoreUserMem { offset, size });
        } else {
            code += 1;
            if self.op(code) != FetchOp::Nop {
                return Err(self.error(ProbeErrorCode::TooManyOps, self.offset));
            }
            self.set_op(code, FetchOp::StoreRaw { size });
        }
        let store = code;

        if let Some(t) = suffix.at {
            if self.byte(t) == b'b' && !self.parse_bitfield(t, &mut code, fetch_type) {
                return Err(self.error(ProbeErrorCode::BadBitfield, type_pos));
            }
        }

        if suffix.count != 0 {
            if !matches!(
                self.op(store),
                FetchOp::StoreMem { .. }
                    | FetchOp::StoreString { .. }
                    | FetchOp::StoreUserString { .. }
            ) {
                return Err(self.error(ProbeErrorCode::BadString, type_pos));
            }
            code += 1;
            if self.op(code) != FetchOp::Nop {
                return Err(self.error(ProbeErrorCode::TooManyOps, self.offset));
            }
            self.set_op(code, FetchOp::LoopArray(suffix.count));
        }
        self.set_op(code + 1, FetchOp::End);
        Ok(dynamic)
    }

    /// `__parse_bitfield_probe_arg` of the type at `t` (`b<w>@<o>/<size>`);
    /// false where the kernel refuses it.
    fn parse_bitfield(&mut self, t: usize, code: &mut usize, fetch_type: FetchType) -> bool {
        let bf = self.cstr(t);
        let (width, n) = simple_strtoul(&bf[1..], 0);
        let mut tail = 1 + n;
        if width == 0 || bf.get(tail) != Some(&b'@') {
            return false;
        }
        let start = tail + 1;
        let (bit_offset, n) = simple_strtoul(bf.get(start..).unwrap_or(&[]), 0);
        tail = start + n;
        if n == 0 || bf.get(tail) != Some(&b'/') {
            return false;
        }
        *code += 1;
        if self.op(*code) != FetchOp::Nop {
            return false;
        }
        let bits = (fetch_type.size() * 8) as u64;
        let used = width.wrapping_add(bit_offset);
        self.set_op(
            *code,
            FetchOp::Bitfield {
                basesize: fetch_type.size() as u8,
                lshift: bits.wrapping_sub(used) as u8,
                rshift: bits.wrapping_sub(width) as u8,
            },
        );
        bits >= used
    }
}

/// `str_to_immediate`: `\IMM` as unsigned, negative or `+`-signed.
fn str_to_immediate(s: &[u8]) -> Option<u64> {
    match s.first() {
        Some(c) if c.is_ascii_digit() => kstrtoul(s, 0).ok(),
        Some(b'-') => kstrtol(s, 0).ok().map(|v| v as u64),
        Some(b'+') => kstrtol(&s[1..], 0).ok().map(|v| v as u64),
        _ => None,
    }
}

/// `__store_entry_arg`: where function argument `arg` is saved in the
/// entry data of a return probe: where an earlier argument saves it, or
/// a new word after the last one.
fn entry_data_offset(previous: &[ArgSpec], arg: u32) -> u32 {
    let mut last = None;
    for op in previous.iter().flat_map(|spec| spec.code.iter()) {
        if let FetchOp::EntryData { arg: saved, offset } = *op {
            if saved == arg {
                return offset;
            }
            last = Some(last.map_or(offset, |l: u32| l.max(offset)));
        }
    }
    last.map_or(0, |l| l + 8)
}

/// The bytes of entry data a return probe saves at the function's entry
/// (`traceprobe_get_entry_data_size`), 0 if none.
pub(crate) fn entry_data_size(args: &[ArgSpec]) -> usize {
    args.iter()
        .flat_map(|spec| spec.code.iter())
        .filter_map(|op| match *op {
            FetchOp::EntryData { offset, .. } => Some(offset as usize + 8),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// A small writer into a fixed buffer.
struct Cursor<'b> {
    buf: &'b mut [u8],
    len: usize,
}

impl core::fmt::Write for Cursor<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let end = self.len + s.len();
        self.buf
            .get_mut(self.len..end)
            .ok_or(core::fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
#[path = "fetch_tests.rs"]
mod tests;
