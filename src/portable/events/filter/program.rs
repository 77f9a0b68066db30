// SPDX-License-Identifier: GPL-2.0

//! The filter as a program of predicates and branches, built and run as
//! the kernel's `predicate_parse()` and `filter_match_preds()` do.
//!
//! Each entry computes its predicate and, when the result equals its
//! `when_to_branch`, jumps to the entry after `target`; running past the
//! last entry means the record matches, a jump to `target == len` means it
//! does not. `&&` binds tighter than `||`, and a `!` before a predicate or
//! a parenthesis inverts it; see the long comment before the kernel's
//! `predicate_parse()` for how the three passes below build this.
//!
//! The parser works in storage the caller provides (an array of [`Op`]):
//! entries at the front, and at the back the parser's stack of open
//! parentheses, packed [`FRAMES_PER_OP`] to an `Op`.

use super::error::{ErrorKind, FilterError, EINVAL, ENOMEM, EPERM};
use super::eval::EvalContext;
use super::fields::EventFields;
use super::predicate::{parse_pred, PredContext, Predicate};
use super::text::{byte_at, c_string, calc_stack, is_space, StackSizes};
use super::{FilterEnv, RecordContext};
use crate::portable::cpumask::MAX_CPUS;

/// How many parenthesis frames one [`Op`] holds.
const FRAMES_PER_OP: usize = 64;

/// A frame's bit: the inversion in force inside the parenthesis.
const INVERT: u8 = 1;
/// A frame's bit: an `&&` waits for the predicate after it.
const PROCESS_AND: u8 = 2;
/// A frame's bit: an `||` waits for the predicates after it.
const PROCESS_OR: u8 = 4;

/// One slot of a filter program's storage.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Op(Slot);

/// What a slot holds.
#[derive(Clone, Copy, Debug)]
enum Slot {
    /// Nothing yet.
    Empty,
    /// A program entry.
    Entry(Entry),
    /// Frames of the parser's parenthesis stack.
    Frames([u8; FRAMES_PER_OP]),
}

impl Op {
    /// An empty slot, to fill storage with before parsing.
    pub(crate) const EMPTY: Op = Op(Slot::Empty);
}

/// A program entry (the kernel's `struct prog_entry` with its predicate).
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// The predicate.
    pred: Predicate,
    /// Where to jump, less one; -1 and the indexes of other entries while
    /// the program is built.
    target: i32,
    /// The result that makes it jump.
    when_to_branch: bool,
    /// The inversion in force before the predicate (`inverts[N]`).
    invert: bool,
}

/// A parsed filter: how many entries of its storage form the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Program {
    /// The number of entries.
    len: usize,
    /// The kernel's `nr_cpu_ids` when the filter was parsed.
    nr_cpu_ids: u32,
}

/// Where the parser puts entries and frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    /// Entries the kernel allows (`nr_preds + 2`).
    entries: usize,
    /// Frames the parser may push (`nr_parens + 2`: the kernel's bound
    /// lets the stack grow one past the `nr_parens` it allocates).
    frames: usize,
}

impl Layout {
    /// The layout for what `calc_stack()` counted.
    fn of(sizes: StackSizes) -> Self {
        Layout {
            entries: sizes.preds + 2,
            frames: sizes.parens + 2,
        }
    }

    /// The number of [`Op`] slots it takes.
    fn slots(&self) -> usize {
        self.entries + self.frames.div_ceil(FRAMES_PER_OP)
    }
}

/// How many [`Op`] slots [`parse`] needs for `text`: the predicates the
/// kernel allows (its estimate plus two) and the parenthesis stack. Zero
/// when the text is refused before any is needed.
pub(crate) fn ops_needed(text: &[u8]) -> usize {
    match calc_stack(c_string(text)) {
        Ok(sizes) if sizes.preds > 0 => Layout::of(sizes).slots(),
        _ => 0,
    }
}

/// Parses `text` (as [`super::classify_write`] leaves it) for the event of
/// `fields` into `ops`, which needs [`ops_needed`] slots, as the kernel's
/// `process_preds()` does.
pub(crate) fn parse(
    text: &[u8],
    fields: &EventFields<'_>,
    env: &dyn FilterEnv,
    ops: &mut [Op],
) -> Result<Program, FilterError> {
    let text = c_string(text);
    let sizes = calc_stack(text)?;
    if sizes.preds == 0 {
        return Err(FilterError::unrecorded(-EINVAL));
    }
    let layout = Layout::of(sizes);
    if ops.len() < layout.slots() {
        return Err(FilterError::unrecorded(-ENOMEM));
    }
    let (entries, frame_slots) = ops.split_at_mut(layout.entries);
    let nr_cpu_ids = env.nr_cpu_ids();
    let cx = PredContext {
        text,
        fields,
        env,
        mask_bits: nr_cpu_ids.min(MAX_CPUS as u32),
    };
    let mut builder = Builder {
        cx,
        entries: Entries(entries),
        frames: Frames(frame_slots),
        nr_parens: sizes.parens,
        len: 0,
    };
    let len = builder.first_pass()?;
    let mut entries = builder.entries;
    entries.finish(len)?;
    Ok(Program { len, nr_cpu_ids })
}

impl Program {
    /// Whether `record` passes the filter (`filter_match_preds()`).
    /// `text` must be the text the program was parsed from: string
    /// patterns are read from it.
    pub(crate) fn matches(
        &self,
        ops: &[Op],
        text: &[u8],
        record: &[u8],
        ctx: &RecordContext<'_>,
        env: &dyn FilterEnv,
    ) -> bool {
        let cx = EvalContext {
            text: c_string(text),
            record,
            ctx,
            env,
            nr_cpu_ids: self.nr_cpu_ids,
        };
        let mut i = 0;
        while i < self.len {
            let Some(Op(Slot::Entry(entry))) = ops.get(i) else {
                return false;
            };
            if entry.pred.evaluate(&cx) == entry.when_to_branch {
                // Built so that targets lie in (i, len].
                i = entry.target as usize;
            }
            i += 1;
        }
        i == self.len
    }
}

/// The program's entries while it is built.
struct Entries<'o>(&'o mut [Op]);

impl Entries<'_> {
    /// Entry `index`.
    fn get(&self, index: i32) -> Result<&Entry, FilterError> {
        match usize::try_from(index).ok().and_then(|i| self.0.get(i)) {
            Some(Op(Slot::Entry(entry))) => Ok(entry),
            _ => Err(broken()),
        }
    }

    /// Entry `index`, to change.
    fn get_mut(&mut self, index: i32) -> Result<&mut Entry, FilterError> {
        match usize::try_from(index).ok().and_then(|i| self.0.get_mut(i)) {
            Some(Op(Slot::Entry(entry))) => Ok(entry),
            _ => Err(broken()),
        }
    }

    /// Stores entry `index`.
    fn put(&mut self, index: usize, entry: Entry) -> Result<(), FilterError> {
        let slot = self.0.get_mut(index).ok_or_else(broken)?;
        *slot = Op(Slot::Entry(entry));
        Ok(())
    }

    /// `update_preds()`: the entry entry `n` points to gets `n` as its
    /// target and branches on `invert`; `n` takes over its old target.
    fn update(&mut self, n: usize, invert: bool) -> Result<(), FilterError> {
        let n = index_i32(n)?;
        let t = self.get(n)?.target;
        let s = self.get(t)?.target;
        let entry_t = self.get_mut(t)?;
        entry_t.when_to_branch = invert;
        entry_t.target = n;
        self.get_mut(n)?.target = s;
        Ok(())
    }

    /// The branch of entry `index` of a program of `len` entries, with
    /// the kernel's two terminal entries after them (TRUE: target 1, FALSE:
    /// target 0, both branching on 0).
    fn branch_of(&self, index: i32, len: i32) -> Result<(bool, i32), FilterError> {
        match index - len {
            0 => Ok((false, 1)),
            1 => Ok((false, 0)),
            _ => self.get(index).map(|e| (e.when_to_branch, e.target)),
        }
    }

    /// The kernel's step 13 and its second and third passes: the last
    /// entry jumps to FALSE when its result is false, jumps to an entry
    /// that branches alike go straight to that entry's target, and the
    /// inversions fold into `when_to_branch`.
    fn finish(&mut self, len: usize) -> Result<(), FilterError> {
        let n = index_i32(len)?;
        let last = self.get_mut(n - 1)?;
        last.target = n;
        last.when_to_branch = false;
        for i in (0..n - 1).rev() {
            let (when, target) = {
                let entry = self.get(i)?;
                (entry.when_to_branch, entry.target)
            };
            let (target_when, target_target) = self.branch_of(target, n)?;
            if when == target_when {
                self.get_mut(i)?.target = target_target;
            }
        }
        for i in 0..n {
            let entry = self.get_mut(i)?;
            entry.when_to_branch ^= entry.invert;
            // The kernel WARNs and refuses a program that would not move
            // forward; a target past `len` cannot come out of the passes.
            if entry.target <= i || entry.target > n {
                return Err(FilterError::unrecorded(-EINVAL));
            }
        }
        Ok(())
    }
}

/// The parser's stack of open parentheses.
struct Frames<'o>(&'o mut [Op]);

impl Frames<'_> {
    /// The byte of frame `index`.
    fn slot(&mut self, index: usize) -> Option<&mut u8> {
        let op = self.0.get_mut(index / FRAMES_PER_OP)?;
        if !matches!(op.0, Slot::Frames(_)) {
            *op = Op(Slot::Frames([0; FRAMES_PER_OP]));
        }
        match &mut op.0 {
            Slot::Frames(frames) => frames.get_mut(index % FRAMES_PER_OP),
            _ => None,
        }
    }

    /// Frame `index`.
    fn get(&mut self, index: usize) -> Result<u8, FilterError> {
        self.slot(index).map(|frame| *frame).ok_or_else(broken)
    }

    /// Sets frame `index`.
    fn set(&mut self, index: usize, value: u8) -> Result<(), FilterError> {
        *self.slot(index).ok_or_else(broken)? = value;
        Ok(())
    }
}

/// The state of the first pass.
struct Builder<'o, 'a, 'f> {
    /// The text and the event.
    cx: PredContext<'a, 'f>,
    /// The program.
    entries: Entries<'o>,
    /// The stack of open parentheses.
    frames: Frames<'o>,
    /// The nesting `calc_stack()` found.
    nr_parens: usize,
    /// The entries stored so far (`N`).
    len: usize,
}

/// Where the first pass is in the text.
struct Cursor {
    /// The next byte to read (`ptr`).
    ptr: usize,
    /// The top of the parenthesis stack.
    top: usize,
    /// Whether the next predicate is inverted.
    invert: bool,
}

impl Builder<'_, '_, '_> {
    /// The kernel's first pass: reads predicates, `!`, parentheses, `&&`
    /// and `||`, and chains the entries. Returns the number of entries.
    fn first_pass(&mut self) -> Result<usize, FilterError> {
        let text = self.cx.text;
        let mut at = Cursor {
            ptr: 0,
            top: 0,
            invert: false,
        };
        self.frames.set(0, 0)?;
        while byte_at(text, at.ptr) != 0 {
            let next = at.ptr;
            at.ptr += 1;
            let c = byte_at(text, next);
            if is_space(c) {
                continue;
            }
            if c == b'(' {
                if at.top > self.nr_parens {
                    return Err(FilterError::unrecorded(-EINVAL));
                }
                at.top += 1;
                self.frames.set(at.top, u8::from(at.invert))?;
                continue;
            }
            if c == b'!' && !matches!(byte_at(text, next + 1), b'=' | b'~') {
                at.invert = !at.invert;
                continue;
            }
            self.predicate(next, &mut at)?;
            if self.after_predicate(&mut at)? {
                break;
            }
        }
        self.check_end(&at)?;
        Ok(self.len)
    }

    /// Parses the predicate at `next` into a new entry.
    fn predicate(&mut self, next: usize, at: &mut Cursor) -> Result<(), FilterError> {
        if self.len >= self.entries.0.len() {
            return Err(FilterError::new(ErrorKind::TooManyPreds, next, -EPERM));
        }
        let (pred, taken) = parse_pred(&self.cx, next)?;
        let entry = Entry {
            pred,
            target: index_i32(self.len)? - 1,
            when_to_branch: false,
            invert: at.invert,
        };
        self.entries.put(self.len, entry)?;
        at.ptr = next + taken;
        self.len += 1;
        Ok(())
    }

    /// Reads what follows a predicate: `)`, `&&`, `||` or the end, and
    /// chains the entries for it. Returns whether the text has ended.
    fn after_predicate(&mut self, at: &mut Cursor) -> Result<bool, FilterError> {
        let text = self.cx.text;
        loop {
            let next = at.ptr;
            at.ptr += 1;
            let c = byte_at(text, next);
            if is_space(c) {
                continue;
            }
            match c {
                b')' | 0 => {}
                b'&' | b'|' if byte_at(text, next + 1) == c => at.ptr += 1,
                _ => return Err(FilterError::new(ErrorKind::TooManyPreds, next, -EPERM)),
            }
            let mut frame = self.frames.get(at.top)?;
            at.invert = frame & INVERT != 0;
            let last = self.len - 1;
            if frame & PROCESS_AND != 0 {
                self.entries.update(last, at.invert)?;
                frame &= !PROCESS_AND;
            }
            if c == b'&' {
                self.frames.set(at.top, frame | PROCESS_AND)?;
                return Ok(false);
            }
            if frame & PROCESS_OR != 0 {
                self.entries.update(last, !at.invert)?;
                frame &= !PROCESS_OR;
            }
            self.frames.set(at.top, frame)?;
            if c == b'|' {
                self.frames.set(at.top, frame | PROCESS_OR)?;
                return Ok(false);
            }
            if c == 0 {
                return Ok(true);
            }
            if at.top == 0 {
                return Err(FilterError::new(ErrorKind::TooManyClose, at.ptr, -EPERM));
            }
            at.top -= 1;
        }
    }

    /// The checks after the text: every `(` closed, and some predicate.
    fn check_end(&self, at: &Cursor) -> Result<(), FilterError> {
        if at.top != 0 {
            return Err(FilterError::new(ErrorKind::TooManyOpen, at.ptr, -EPERM));
        }
        if self.len == 0 {
            return Err(FilterError::new(ErrorKind::NoFilter, at.ptr, -EINVAL));
        }
        Ok(())
    }
}

/// `index` as the kernel's `int`.
fn index_i32(index: usize) -> Result<i32, FilterError> {
    i32::try_from(index).map_err(|_| broken())
}

/// A program the passes could not have built: refused as the kernel's
/// `WARN_ON()` refuses it.
fn broken() -> FilterError {
    FilterError::unrecorded(-EINVAL)
}
