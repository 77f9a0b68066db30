// SPDX-License-Identifier: GPL-2.0

//! One predicate, `field op value`, parsed as the kernel's `parse_pred()`
//! parses it: which field, which operator, and which of the kernel's
//! comparison functions (`enum filter_pred_fn`) compares them.

use super::cpulist::parse_cpulist;
use super::error::{ErrorKind, FilterError, EINVAL, EPERM};
use super::fields::{is_string_field, EventFields};
use super::number::{kstrtoll, kstrtoull};
use super::text::{byte_at, is_alnum, is_digit, is_name_byte, is_space};
use super::{FilterEnv, LONG_SIZE, MAX_FILTER_STR_VAL};
use crate::portable::cpumask::CpuMask;
use crate::portable::events::field::{Field, FilterType};

/// The kernel's buffer for a number (`num_buf`): 23 characters at most.
const NUM_BUF_SIZE: usize = 24;

/// The operators, in the order the kernel tries them (`<=` before `<`).
const OPERATORS: [(&[u8], CompareOp); 8] = [
    (b"~", CompareOp::Glob),
    (b"!=", CompareOp::Ne),
    (b"==", CompareOp::Eq),
    (b"<=", CompareOp::Le),
    (b"<", CompareOp::Lt),
    (b">=", CompareOp::Ge),
    (b">", CompareOp::Gt),
    (b"&", CompareOp::Band),
];

/// A predicate's operator (the kernel's `enum filter_op_ids`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CompareOp {
    /// `~`: a glob on strings.
    Glob,
    /// `!=`.
    Ne,
    /// `==`.
    Eq,
    /// `<=`.
    Le,
    /// `<`.
    Lt,
    /// `>=`.
    Ge,
    /// `>`.
    Gt,
    /// `&`: some bit in common (or a CPU in a mask).
    Band,
}

/// The size of a number field the kernel compares (1, 2, 4 or 8 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Width {
    /// `u8`/`s8`.
    One,
    /// `u16`/`s16`.
    Two,
    /// `u32`/`s32`.
    Four,
    /// `u64`/`s64`.
    Eight,
}

impl Width {
    /// The width of a field of `size` bytes; `None` for sizes the kernel has
    /// no comparison for.
    fn of(size: u32) -> Option<Self> {
        match size {
            1 => Some(Width::One),
            2 => Some(Width::Two),
            4 => Some(Width::Four),
            8 => Some(Width::Eight),
            _ => None,
        }
    }

    /// The number of bytes.
    pub(super) fn bytes(self) -> usize {
        match self {
            Width::One => 1,
            Width::Two => 2,
            Width::Four => 4,
            Width::Eight => 8,
        }
    }
}

/// How a predicate is computed (the kernel's `enum filter_pred_fn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PredFn {
    /// `FILTER_PRED_FN_NOP`: never matches.
    Nop,
    /// `FILTER_PRED_FN_8` ... `_64`: `==` (or `!=` through `not`).
    Equal(Width),
    /// `FILTER_PRED_FN_8_CPUMASK` ...: a CPU number field against a mask.
    ScalarCpumask(Width),
    /// `FILTER_PRED_FN_S8` ...: `<`, `<=`, `>`, `>=`, `&` on a signed field.
    Signed(Width),
    /// `FILTER_PRED_FN_U8` ...: the same on an unsigned field.
    Unsigned(Width),
    /// `FILTER_PRED_FN_COMM`: the current task's name.
    Comm,
    /// `FILTER_PRED_FN_STRING`: a `char[N]` in the record.
    String,
    /// `FILTER_PRED_FN_STRLOC`: a `__data_loc char[]`.
    StrLoc,
    /// `FILTER_PRED_FN_STRRELLOC`: a `__rel_loc char[]`.
    StrRelLoc,
    /// `FILTER_PRED_FN_PCHAR_USER`: a `char *` to user memory.
    PcharUser,
    /// `FILTER_PRED_FN_PCHAR`: a `char *` to kernel memory.
    Pchar,
    /// `FILTER_PRED_FN_CPU`: the CPU recording against a number.
    Cpu,
    /// `FILTER_PRED_FN_CPU_CPUMASK`: the CPU recording against a mask.
    CpuCpumask,
    /// `FILTER_PRED_FN_CPUMASK`: a cpumask field against a mask.
    Cpumask,
    /// `FILTER_PRED_FN_CPUMASK_CPU`: a cpumask field against one CPU.
    CpumaskCpu,
    /// `FILTER_PRED_FN_FUNCTION`: an address inside a function.
    Function,
}

/// How a string pattern matches (the kernel's `enum regex_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum MatchKind {
    /// `MATCH_FULL`: the whole string.
    Full,
    /// `MATCH_FRONT_ONLY`: `abc*`.
    Front,
    /// `MATCH_MIDDLE_ONLY`: `*abc*`.
    Middle,
    /// `MATCH_END_ONLY`: `*abc`.
    End,
    /// `MATCH_GLOB`: anything else with `*`, `?`, `[` or `\`.
    Glob,
}

/// The pattern of a string predicate: bytes of the filter text (the
/// kernel copies them into `regex->pattern`; they are always one run of
/// the text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Pattern {
    /// Where the pattern starts in the filter text.
    pub(super) start: usize,
    /// Its length (`regex->len`).
    pub(super) len: usize,
    /// How it matches.
    pub(super) kind: MatchKind,
}

impl Pattern {
    /// No pattern.
    const NONE: Pattern = Pattern {
        start: 0,
        len: 0,
        kind: MatchKind::Full,
    };
}

/// A parsed predicate: the kernel's `struct filter_pred`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Predicate {
    /// How it is computed.
    pub(super) func: PredFn,
    /// The operator (`CPUS{}` with one CPU turns `&` into `==`).
    pub(super) op: CompareOp,
    /// Invert the result (`!=` on numbers and strings, `~ "!..."`).
    pub(super) not: bool,
    /// The field's offset in the record.
    pub(super) offset: u32,
    /// The size of a `char[N]` field (`regex->field_len`).
    pub(super) field_len: u32,
    /// The number compared with, or a function's start.
    pub(super) val: u64,
    /// A function's end.
    pub(super) val2: u64,
    /// The mask of `CPUS{}` with more than one CPU.
    pub(super) mask: CpuMask,
    /// The string pattern.
    pub(super) pattern: Pattern,
}

impl Predicate {
    /// A predicate on a field at `offset` that matches nothing yet.
    const fn new(offset: u32, op: CompareOp) -> Self {
        Predicate {
            func: PredFn::Nop,
            op,
            not: false,
            offset,
            field_len: 0,
            val: 0,
            val2: 0,
            mask: CpuMask::empty(),
            pattern: Pattern::NONE,
        }
    }
}

/// What a predicate is parsed against.
pub(super) struct PredContext<'a, 'f> {
    /// The whole filter text: error positions count from its start.
    pub(super) text: &'a [u8],
    /// The event's fields.
    pub(super) fields: &'a EventFields<'f>,
    /// Symbols for `.function`.
    pub(super) env: &'a dyn FilterEnv,
    /// The number of bits of a `CPUS{}` list.
    pub(super) mask_bits: u32,
}

/// Parses the predicate starting at byte `start` of the text. Returns it
/// and how many bytes it took (the kernel's return value, which may reach
/// one past the end of the text).
pub(super) fn parse_pred(
    cx: &PredContext<'_, '_>,
    start: usize,
) -> Result<(Predicate, usize), FilterError> {
    let mut parser = PredParser { cx, start, i: 0 };
    let predicate = parser.parse()?;
    Ok((predicate, parser.i))
}

/// The state of `parse_pred()`: `i` counts from the predicate's start, as
/// the kernel's does.
struct PredParser<'p, 'a, 'f> {
    /// The text and the event.
    cx: &'p PredContext<'a, 'f>,
    /// Where the predicate starts in the text.
    start: usize,
    /// The byte being read, from `start`.
    i: usize,
}

impl<'a, 'f> PredParser<'_, 'a, 'f> {
    /// The byte at `i`.
    fn byte(&self) -> u8 {
        byte_at(self.cx.text, self.start + self.i)
    }

    /// The bytes from `from` to `i`, both counted from the start.
    fn taken(&self, from: usize) -> &'a [u8] {
        let text = self.cx.text;
        text.get(self.start + from..self.start + self.i)
            .unwrap_or_default()
    }

    /// The rest of the text from `i`.
    fn rest(&self) -> &'a [u8] {
        self.cx.text.get(self.start + self.i..).unwrap_or_default()
    }

    /// Skips white space.
    fn skip_spaces(&mut self) {
        while is_space(self.byte()) {
            self.i += 1;
        }
    }

    /// Takes `word` if the text goes on with it.
    fn eat(&mut self, word: &[u8]) -> bool {
        let found = self.rest().starts_with(word);
        if found {
            self.i += word.len();
        }
        found
    }

    /// The error `kind` at `i`. The kernel reports it at `pos + i`, where
    /// `pos` is one past the predicate's first byte.
    fn error(&self, kind: ErrorKind) -> FilterError {
        self.error_at(kind, self.i)
    }

    /// The error `kind` at `i` = `at`.
    fn error_at(&self, kind: ErrorKind, at: usize) -> FilterError {
        FilterError::new(kind, self.start + 1 + at, -EINVAL)
    }

    /// The whole predicate.
    fn parse(&mut self) -> Result<Predicate, FilterError> {
        let field = self.field()?;
        let ustring = self.eat(b".ustring");
        let function = self.eat(b".function");
        self.skip_spaces();
        let op = self.operator()?;
        self.skip_spaces();
        let value_start = self.i;
        let mut pred = Predicate::new(field.offset, op);
        let c = self.byte();
        if function {
            self.function_value(&field, &mut pred)?;
        } else if self.cx.fields.is_function_event {
            self.function_event_value(&field, value_start)?;
        } else if self.rest().starts_with(b"CPUS") {
            self.cpus_value(&field, &mut pred)?;
        } else if c == b'\'' || c == b'"' {
            self.string_value(&field, ustring, value_start, &mut pred)?;
        } else if is_digit(c) || c == b'-' {
            self.number_value(&field, value_start, &mut pred)?;
        } else {
            return Err(self.error(ErrorKind::InvalidValue));
        }
        Ok(pred)
    }

    /// The field name and its field. No name at all is refused without a
    /// message, the kernel returning -1 (`-EPERM`).
    fn field(&mut self) -> Result<Field<'f>, FilterError> {
        self.skip_spaces();
        let name_start = self.i;
        while is_name_byte(self.byte()) {
            self.i += 1;
        }
        if self.i == name_start {
            return Err(FilterError::unrecorded(-EPERM));
        }
        let found = self.cx.fields.find(self.taken(name_start)).copied();
        found.ok_or_else(|| self.error(ErrorKind::FieldNotFound))
    }

    /// The operator, tried in the kernel's order.
    fn operator(&mut self) -> Result<CompareOp, FilterError> {
        let rest = self.rest();
        let found = OPERATORS.iter().find(|(text, _)| rest.starts_with(text));
        let Some(&(text, op)) = found else {
            return Err(self.error(ErrorKind::InvalidOp));
        };
        self.i += text.len();
        Ok(op)
    }

    /// `field.function == NAME` or `== ADDRESS`: the field holds an address
    /// inside that function.
    fn function_value(
        &mut self,
        field: &Field<'_>,
        pred: &mut Predicate,
    ) -> Result<(), FilterError> {
        if field.size as usize != LONG_SIZE {
            return Err(self.error(ErrorKind::IllegalFieldOp));
        }
        if !matches!(pred.op, CompareOp::Eq | CompareOp::Ne) {
            return Err(self.error(ErrorKind::InvalidOp));
        }
        let address = if is_digit(self.byte()) {
            let number = self.number_text()?;
            kstrtoull(number).ok_or_else(|| self.error(ErrorKind::InvalidValue))?
        } else {
            let name_start = self.i;
            while self.byte() != 0 && !is_space(self.byte()) {
                self.i += 1;
            }
            let name = self.taken(name_start);
            let address = match name {
                [] => None,
                name => self.cx.env.symbol_address(name),
            };
            address
                .filter(|&address| address != 0)
                .ok_or_else(|| self.error(ErrorKind::NoFunction))?
        };
        let (start, end) = self
            .cx
            .env
            .function_range(address)
            .ok_or_else(|| self.error(ErrorKind::NoFunction))?;
        pred.func = PredFn::Function;
        pred.val = start;
        pred.val2 = end;
        Ok(())
    }

    /// The letters and digits of a number from `i` (after a `-` already
    /// taken), refused as too long as the kernel's `num_buf` refuses them.
    /// Returns the text from `from`.
    fn number_text_from(&mut self, from: usize) -> Result<&'a [u8], FilterError> {
        while is_alnum(self.byte()) {
            self.i += 1;
        }
        if self.i - from >= NUM_BUF_SIZE {
            return Err(self.error(ErrorKind::OperandTooLong));
        }
        Ok(self.taken(from))
    }

    /// The letters and digits of a number starting at `i`.
    fn number_text(&mut self) -> Result<&'a [u8], FilterError> {
        let from = self.i;
        self.number_text_from(from)
    }

    /// A predicate of `ftrace/function`: only `ip`, and any text up to a
    /// closing quote, or without quotes up to `)`, `&` or `|`. It matches
    /// nothing (perf gives it its meaning).
    fn function_event_value(
        &mut self,
        field: &Field<'_>,
        value_start: usize,
    ) -> Result<(), FilterError> {
        if field.name != "ip" {
            return Err(self.error(ErrorKind::IpFieldOnly));
        }
        let quote = match self.byte() {
            q @ (b'\'' | b'"') => Some(q),
            _ => None,
        };
        // The kernel steps over the value's first byte before looking, even
        // when it is the end of the text.
        self.i += 1;
        loop {
            let c = self.byte();
            let ends = match quote {
                Some(q) => c == q,
                None => matches!(c, b')' | b'&' | b'|'),
            };
            if c == 0 || ends {
                break;
            }
            self.i += 1;
        }
        let content_start = value_start + usize::from(quote.is_some());
        if self.i.saturating_sub(content_start) >= MAX_FILTER_STR_VAL {
            return Err(self.error(ErrorKind::OperandTooLong));
        }
        Ok(())
    }

    /// `field OP CPUS{list}` on a CPU number, the generic CPU field or a
    /// cpumask field.
    fn cpus_value(&mut self, field: &Field<'_>, pred: &mut Predicate) -> Result<(), FilterError> {
        let type_allowed = matches!(
            field.filter_type,
            FilterType::Cpumask | FilterType::Cpu | FilterType::Other
        );
        let op_allowed = matches!(pred.op, CompareOp::Eq | CompareOp::Ne | CompareOp::Band);
        if !type_allowed || !op_allowed {
            return Err(self.error(ErrorKind::IllegalFieldOp));
        }
        self.i += "CPUS".len();
        let brace = self.byte();
        self.i += 1;
        if brace != b'{' {
            return Err(self.error(ErrorKind::MissingBraceOpen));
        }
        let list_start = self.i;
        while self.byte() != 0 && self.byte() != b'}' {
            self.i += 1;
        }
        if self.byte() != b'}' {
            return Err(self.error(ErrorKind::MissingBraceClose));
        }
        if self.i == list_start {
            return Err(self.error(ErrorKind::InvalidCpulist));
        }
        let mask = parse_cpulist(self.taken(list_start), self.cx.mask_bits)
            .ok_or_else(|| self.error(ErrorKind::InvalidCpulist))?;
        self.i += 1;
        choose_cpus_fn(field, mask, pred);
        Ok(())
    }

    /// `field OP "string"` (or `'string'`) on a string field.
    fn string_value(
        &mut self,
        field: &Field<'_>,
        ustring: bool,
        value_start: usize,
        pred: &mut Predicate,
    ) -> Result<(), FilterError> {
        let quote = self.byte();
        match pred.op {
            CompareOp::Ne => pred.not = true,
            CompareOp::Glob | CompareOp::Eq => {}
            _ => return Err(self.error(ErrorKind::IllegalFieldOp)),
        }
        if !is_string_field(field) {
            return Err(self.error(ErrorKind::ExpectDigit));
        }
        self.i += 1;
        while self.byte() != 0 && self.byte() != quote {
            self.i += 1;
        }
        if self.byte() == 0 {
            return Err(self.error(ErrorKind::MissingQuote));
        }
        let content_start = value_start + 1;
        let len = self.i - content_start;
        if len >= MAX_FILTER_STR_VAL {
            return Err(self.error(ErrorKind::OperandTooLong));
        }
        let content = self.taken(content_start);
        if pred.op == CompareOp::Glob {
            let (pattern, not) = parse_glob(content);
            pred.pattern = Pattern {
                start: self.start + content_start + pattern.start,
                ..pattern
            };
            pred.not = not;
        } else {
            pred.pattern = Pattern {
                start: self.start + content_start,
                len,
                kind: MatchKind::Full,
            };
        }
        pred.func = match field.filter_type {
            FilterType::Comm => PredFn::Comm,
            FilterType::StaticString => {
                pred.field_len = field.size;
                PredFn::String
            }
            FilterType::DynString => PredFn::StrLoc,
            FilterType::RelDynString => PredFn::StrRelLoc,
            _ if ustring => PredFn::PcharUser,
            _ => PredFn::Pchar,
        };
        self.i += 1;
        Ok(())
    }

    /// `field OP number` on a number field or the generic CPU field.
    fn number_value(
        &mut self,
        field: &Field<'_>,
        value_start: usize,
        pred: &mut Predicate,
    ) -> Result<(), FilterError> {
        if is_string_field(field) {
            return Err(self.error(ErrorKind::ExpectString));
        }
        if pred.op == CompareOp::Glob {
            return Err(self.error(ErrorKind::IllegalFieldOp));
        }
        if self.byte() == b'-' {
            self.i += 1;
        }
        let number = self.number_text_from(value_start)?;
        let value = if field.is_signed {
            kstrtoll(number)
        } else {
            kstrtoull(number)
        };
        pred.val = value.ok_or_else(|| self.error_at(ErrorKind::IllegalIntval, value_start))?;
        if field.filter_type == FilterType::Cpu {
            pred.func = PredFn::Cpu;
        } else {
            pred.func = select_comparison_fn(pred.op, field.size, field.is_signed);
            pred.not = pred.op == CompareOp::Ne;
        }
        Ok(())
    }
}

/// Chooses how `CPUS{}` compares, as the kernel does: a mask of one CPU is
/// compared as that CPU's number (with `&` meaning `==` for numbers).
fn choose_cpus_fn(field: &Field<'_>, mask: CpuMask, pred: &mut Predicate) {
    let single = weight(&mask) == 1;
    if single {
        pred.val = u64::from(first_cpu(&mask));
    } else {
        pred.mask = mask;
    }
    let single_op = match pred.op {
        CompareOp::Band => CompareOp::Eq,
        op => op,
    };
    pred.func = match (field.filter_type, single) {
        (FilterType::Cpumask, true) => PredFn::CpumaskCpu,
        (FilterType::Cpumask, false) => PredFn::Cpumask,
        (FilterType::Cpu, true) => {
            pred.op = single_op;
            PredFn::Cpu
        }
        (FilterType::Cpu, false) => PredFn::CpuCpumask,
        (_, true) => {
            pred.op = single_op;
            pred.not = single_op == CompareOp::Ne;
            select_comparison_fn(single_op, field.size, false)
        }
        (_, false) => Width::of(field.size).map_or(PredFn::Nop, PredFn::ScalarCpumask),
    };
}

/// The number of CPUs in `mask`.
fn weight(mask: &CpuMask) -> u32 {
    mask.words().iter().map(|word| word.count_ones()).sum()
}

/// The lowest CPU in `mask` (0 when empty).
fn first_cpu(mask: &CpuMask) -> u32 {
    let mut base = 0;
    for word in mask.words() {
        if *word != 0 {
            return base + word.trailing_zeros();
        }
        base += u64::BITS;
    }
    0
}

/// The comparison for `op` on a number field (`select_comparison_fn()`):
/// `==` and `!=` by size, the others by size and sign; fields of other
/// sizes (and `~`) get no comparison and never match.
fn select_comparison_fn(op: CompareOp, size: u32, is_signed: bool) -> PredFn {
    let Some(width) = Width::of(size) else {
        return PredFn::Nop;
    };
    match op {
        CompareOp::Eq | CompareOp::Ne => PredFn::Equal(width),
        CompareOp::Glob => PredFn::Nop,
        _ if is_signed => PredFn::Signed(width),
        _ => PredFn::Unsigned(width),
    }
}

/// Sorts the text of a `~` pattern as `filter_parse_regex()` does. A
/// leading `!` inverts the match; then a leading digit makes the rest an
/// exact string; otherwise `*x`, `x*` and `*x*` match the end, the front
/// or the middle, and any other `*` or a `?`, `[` or `\` makes a glob.
/// Returns the pattern (its start counted in `content`) and the inversion.
fn parse_glob(content: &[u8]) -> (Pattern, bool) {
    let not = content.first() == Some(&b'!');
    let body_start = usize::from(not);
    let body = content.get(body_start..).unwrap_or_default();
    let whole = |kind| Pattern {
        start: body_start,
        len: body.len(),
        kind,
    };
    if body.first().copied().is_some_and(is_digit) {
        return (whole(MatchKind::Full), not);
    }
    let mut kind = MatchKind::Full;
    let mut end = body.len();
    for (k, &c) in body.iter().enumerate() {
        match c {
            b'*' if k == 0 => kind = MatchKind::End,
            b'*' if k + 1 == body.len() => {
                kind = match kind {
                    MatchKind::End => MatchKind::Middle,
                    _ => MatchKind::Front,
                };
                end = k;
                break;
            }
            b'*' | b'[' | b'?' | b'\\' => return (whole(MatchKind::Glob), not),
            _ => {}
        }
    }
    let skip = usize::from(body.first() == Some(&b'*'));
    let pattern = Pattern {
        start: body_start + skip,
        len: end.saturating_sub(skip),
        kind,
    };
    (pattern, not)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pattern's text, kind and inversion.
    fn glob(content: &[u8]) -> (&[u8], MatchKind, bool) {
        let (p, not) = parse_glob(content);
        (&content[p.start..p.start + p.len], p.kind, not)
    }

    #[test]
    fn sorts_globs_like_filter_parse_regex() {
        use MatchKind::*;
        assert_eq!(glob(b"bash"), (&b"bash"[..], Full, false));
        assert_eq!(glob(b"ba*"), (&b"ba"[..], Front, false));
        assert_eq!(glob(b"*sh"), (&b"sh"[..], End, false));
        assert_eq!(glob(b"*as*"), (&b"as"[..], Middle, false));
        assert_eq!(glob(b"b*h"), (&b"b*h"[..], Glob, false));
        assert_eq!(glob(b"*a*h"), (&b"*a*h"[..], Glob, false));
        assert_eq!(glob(b"ba?h"), (&b"ba?h"[..], Glob, false));
        assert_eq!(glob(b"[b]ash"), (&b"[b]ash"[..], Glob, false));
        assert_eq!(glob(b"a\\*"), (&b"a\\*"[..], Glob, false));
        assert_eq!(glob(b"!ba*"), (&b"ba"[..], Front, true));
        assert_eq!(glob(b"*"), (&b""[..], End, false));
        assert_eq!(glob(b"**"), (&b""[..], Middle, false));
        assert_eq!(glob(b"***"), (&b"***"[..], Glob, false));
        assert_eq!(glob(b""), (&b""[..], Full, false));
        assert_eq!(glob(b"!"), (&b""[..], Full, true));
        // A leading digit: an exact match, `*` and all.
        assert_eq!(glob(b"1*"), (&b"1*"[..], Full, false));
        assert_eq!(glob(b"!0?"), (&b"0?"[..], Full, true));
    }

    #[test]
    fn comparison_functions() {
        use CompareOp::*;
        assert_eq!(
            select_comparison_fn(Eq, 4, true),
            PredFn::Equal(Width::Four)
        );
        assert_eq!(
            select_comparison_fn(Ne, 1, false),
            PredFn::Equal(Width::One)
        );
        assert_eq!(
            select_comparison_fn(Lt, 2, true),
            PredFn::Signed(Width::Two)
        );
        assert_eq!(
            select_comparison_fn(Band, 8, false),
            PredFn::Unsigned(Width::Eight)
        );
        assert_eq!(select_comparison_fn(Gt, 3, false), PredFn::Nop);
        assert_eq!(select_comparison_fn(Eq, 0, false), PredFn::Nop);
    }
}
