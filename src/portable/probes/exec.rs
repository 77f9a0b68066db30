// SPDX-License-Identifier: GPL-2.0

//! Running fetch programs at a probe hit into a record, as the kernel's
//! `process_fetch_insn` (trace_kprobe.c, trace_uprobe.c),
//! `process_fetch_insn_bottom`, `__get_data_size` and `store_trace_args`
//! (trace_probe_tmpl.h) do: first the size of the strings, then each
//! argument at its offset and the strings after the fixed part, each
//! located by a `__data_loc` word (`len << 16 | offset` from the record's
//! start).
//!
//! Faults: a fault while fetching or dereferencing leaves the argument as
//! it was (the kernel leaves the ring buffer's old bytes; here the
//! argument area is zeroed first, so it reads 0); a fault of the last
//! memory read of a number is ignored by the kernel (its bytes are
//! whatever the copy left; here 0); a string that faults gets a
//! `__data_loc` of length 0, which prints `(fault)`.

use super::fetch::{args_size, ArgSpec, FetchOp, ProbeKind, MAX_STRING_SIZE};

/// Which address space a read is from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Space {
    /// Kernel memory (`copy_from_kernel_nofault`).
    Kernel,
    /// The current task's memory (`copy_from_user_nofault`, or
    /// `copy_from_user` in a uprobe's handler).
    User,
}

/// What a probe hit offers its fetch programs: its registers, the current
/// task and memory reads that never fault.
pub(crate) trait FetchEnv {
    /// The register at this `pt_regs` byte offset (`regs_get_register`).
    fn register(&self, offset: usize) -> u64;
    /// The stack pointer (`kernel_stack_pointer`, `user_stack_pointer`).
    fn stack_pointer(&self) -> u64;
    /// The Nth word of the stack: `regs_get_kernel_stack_nth` (0 outside
    /// the stack) or `get_user_stack_nth` for uprobes.
    fn stack_entry(&self, n: u32) -> u64;
    /// The return value (`regs_return_value`).
    fn return_value(&self) -> u64;
    /// Argument `n` (from 0) at a function's entry
    /// (`regs_get_kernel_argument`, see `registers::argument_slot`).
    fn argument(&self, n: u32) -> u64;
    /// The word at `offset` of the entry data a return probe saved at the
    /// function's entry (see [`store_entry_data`]).
    fn entry_data(&self, offset: u32) -> u64;
    /// The current task's name, NUL-padded.
    fn comm(&self) -> [u8; 16];
    /// Reads `buf.len()` bytes at `addr`; false if any faults.
    fn read(&self, space: Space, addr: u64, buf: &mut [u8]) -> bool;
    /// The size of the NUL-terminated string at `addr` with its NUL,
    /// looking at most at `max` bytes: `Some(max + 1)` when none of them
    /// is NUL, `None` on a fault before.
    fn string_length(&self, space: Space, addr: u64, max: usize) -> Option<usize> {
        let mut byte = [0u8; 1];
        for len in 0..max {
            if !self.read(space, addr.wrapping_add(len as u64), &mut byte) {
                return None;
            }
            if byte[0] == 0 {
                return Some(len + 1);
            }
        }
        Some(max + 1)
    }
    /// Copies the string at `addr` into `buf`, up to and with its NUL or
    /// until `buf` is full: how many bytes were copied, `None` on a fault
    /// before.
    fn copy_string(&self, space: Space, addr: u64, buf: &mut [u8]) -> Option<usize> {
        let len = buf.len();
        for (i, slot) in buf.iter_mut().enumerate() {
            let mut byte = [0u8; 1];
            if !self.read(space, addr.wrapping_add(i as u64), &mut byte) {
                return None;
            }
            *slot = byte[0];
            if byte[0] == 0 {
                return Some(i + 1);
            }
        }
        Some(len)
    }
    /// Writes `sprint_symbol`'s text for `addr` (`name+0x1c/0x80 [mod]`,
    /// or `0x...` for no symbol), without a NUL, into `out` as far as it
    /// fits; returns the text's whole length.
    fn symbol_text(&self, addr: u64, out: &mut [u8]) -> usize;
    /// `TASK_SIZE` of the current task: a kprobe's kernel reads below it
    /// read user memory (see `Run::space`).
    fn task_size(&self) -> u64;
    /// For `@+OFFSET` of a uprobe: the address file offset 0 of the probed
    /// binary is mapped at (`translate_user_vaddr`: the hit address less
    /// the probe's file offset).
    fn file_offset_base(&self) -> u64;
}

// The errnos process_fetch_insn can return.
const EFAULT: i64 = -14;
const ENOMEM: i64 = -12;
const EILSEQ: i64 = -84;
const E2BIG: i64 = -7;

/// `make_data_loc`.
pub(crate) const fn make_data_loc(len: u32, offset: u32) -> u32 {
    (len << 16) | (offset & 0xffff)
}

/// What stage 1 produced besides a number: the kernel points at
/// `current->comm` or at its copy of an immediate string (a uprobe marks
/// `$comm` with `FETCH_TOKEN_COMM`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Token {
    Number,
    Comm,
    Data,
}

/// Where a string comes from.
enum Source<'a> {
    Memory(Space, u64),
    Local(&'a [u8]),
    /// A uprobe reading a kernel address with `strncpy_from_user`.
    Fault,
}

/// One program's run (`process_fetch_insn`), into `record` when `store`
/// (the kernel's `dest != NULL`) or only measuring its strings.
struct Run<'r, 'e> {
    arg: &'r ArgSpec,
    env: &'e dyn FetchEnv,
    record: &'r mut [u8],
    store: bool,
}

impl<'r> Run<'r, '_> {
    fn user(&self) -> bool {
        self.arg.kind == ProbeKind::Uprobe
    }

    fn op(&self, pc: usize) -> FetchOp {
        self.arg.code.get(pc).copied().unwrap_or(FetchOp::End)
    }

    fn read_u32(&self, at: usize) -> u32 {
        self.record
            .get(at..at + 4)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u32::from_le_bytes)
    }

    fn write_u32(&mut self, at: usize, value: u32) {
        if let Some(slot) = self.record.get_mut(at..at + 4) {
            slot.copy_from_slice(&value.to_le_bytes());
        }
    }

    /// Stage 1, then the rest.
    fn process(&mut self, dest: usize) -> i64 {
        let mut pc = 0;
        let mut token = Token::Number;
        let val = loop {
            match self.op(pc) {
                FetchOp::Reg(offset) => break self.env.register(usize::from(offset)),
                FetchOp::Stack(n) => break self.env.stack_entry(n),
                FetchOp::StackPointer => break self.env.stack_pointer(),
                FetchOp::RetVal => break self.env.return_value(),
                FetchOp::Arg(n) if !self.user() => break self.env.argument(n),
                FetchOp::EntryData { offset, .. } if !self.user() => {
                    break self.env.entry_data(offset)
                }
                FetchOp::FileOffset(offset) if self.user() => {
                    break self.env.file_offset_base().wrapping_add(offset)
                }
                // A place holder: the address is in the next step.
                FetchOp::Symbol if !self.user() => pc += 1,
                FetchOp::Imm(value) => break value,
                FetchOp::Comm => {
                    token = Token::Comm;
                    break 0;
                }
                FetchOp::Data => {
                    token = Token::Data;
                    break 0;
                }
                _ => return EILSEQ,
            }
        };
        self.bottom(pc + 1, val, token, dest)
    }

    /// Reads the word a dereference loads.
    fn load_word(&self, space: Space, addr: u64) -> Option<u64> {
        let mut word = [0u8; 8];
        self.env
            .read(space, addr, &mut word)
            .then(|| u64::from_le_bytes(word))
    }

    /// The space a read of `addr` goes to: uprobes read user memory only;
    /// a kprobe's user steps read user memory, and so do its kernel steps
    /// below `TASK_SIZE` (x86 has `ARCH_HAS_NON_OVERLAPPING_ADDRESS_SPACE`:
    /// `probe_mem_read`, `fetch_store_strlen` and `fetch_store_string` of
    /// trace_probe_kernel.h turn to their user forms there).
    fn space(&self, user: bool, addr: u64) -> Space {
        if user || self.user() || addr < self.env.task_size() {
            Space::User
        } else {
            Space::Kernel
        }
    }

    /// `process_fetch_insn_bottom`, from step `pc` with value `val`.
    fn bottom(&mut self, mut pc: usize, mut val: u64, token: Token, mut dest: usize) -> i64 {
        let mut total: i64 = 0;
        let mut ret: i64 = 0;
        let mut i: u32 = 0;
        let mut loc: u32 = 0;
        let mut lval = val;
        let comm = if token == Token::Comm {
            self.env.comm()
        } else {
            [0; 16]
        };
        let uprobe_comm = self.user() && token == Token::Comm;
        'stage2: loop {
            // 2nd stage: dereference memory if needed.
            loop {
                let (user, offset) = match self.op(pc) {
                    FetchOp::Deref(offset) => (false, offset),
                    FetchOp::UserDeref(offset) => (true, offset),
                    _ => break,
                };
                lval = val;
                let addr = val.wrapping_add(i64::from(offset) as u64);
                match self.load_word(self.space(user, addr), addr) {
                    Some(word) => val = word,
                    None => return EFAULT,
                }
                pc += 1;
            }
            let s3 = pc;
            'stage3: loop {
                // 3rd stage: store the value.
                if !self.store {
                    ret = match self.op(pc) {
                        FetchOp::StoreString { offset } => {
                            self.string_size(self.source(token, &comm, val, offset, false))
                        }
                        FetchOp::StoreUserString { offset } => {
                            self.string_size(self.source(token, &comm, val, offset, true))
                        }
                        FetchOp::StoreSymstr { offset } => {
                            // fetch_store_symstrlen
                            let addr = val.wrapping_add(i64::from(offset) as u64);
                            self.env.symbol_text(addr, &mut []) as i64 + 1
                        }
                        _ => return EILSEQ,
                    };
                    pc += 1;
                } else {
                    match self.op(pc) {
                        FetchOp::StoreRaw { size } => self.store_raw(dest, val, size),
                        FetchOp::StoreMem { offset, size } => {
                            self.store_mem(dest, false, val, offset, size)
                        }
                        FetchOp::StoreUserMem { offset, size } => {
                            self.store_mem(dest, true, val, offset, size)
                        }
                        FetchOp::StoreString { offset } => {
                            loc = self.read_u32(dest);
                            let source = self.source(token, &comm, val, offset, false);
                            ret = self.store_string(dest, source, uprobe_comm);
                        }
                        FetchOp::StoreUserString { offset } => {
                            loc = self.read_u32(dest);
                            let source = self.source(token, &comm, val, offset, true);
                            ret = self.store_string(dest, source, uprobe_comm);
                        }
                        FetchOp::StoreSymstr { offset } => {
                            loc = self.read_u32(dest);
                            ret =
                                self.store_symstr(dest, val.wrapping_add(i64::from(offset) as u64));
                        }
                        _ => return EILSEQ,
                    }
                    pc += 1;
                    // 4th stage: modify the stored value.
                    if let FetchOp::Bitfield {
                        basesize,
                        lshift,
                        rshift,
                    } = self.op(pc)
                    {
                        self.apply_bitfield(dest, basesize, lshift, rshift);
                        pc += 1;
                    }
                }

                // The last stage: loop on an array.
                if let FetchOp::LoopArray(count) = self.op(pc) {
                    if ret < 0 {
                        ret = 0;
                    }
                    total += ret;
                    i += 1;
                    if i < count {
                        pc = s3;
                        let s3_op = self.op(s3);
                        if !matches!(
                            s3_op,
                            FetchOp::StoreString { .. } | FetchOp::StoreUserString { .. }
                        ) {
                            let size = u64::from(store_size(s3_op));
                            dest += size as usize;
                            val = val.wrapping_add(size);
                            continue 'stage3;
                        }
                        // An array of string pointers: the next pointer.
                        pc = pc.saturating_sub(1);
                        val = lval.wrapping_add(8);
                        if self.store {
                            dest += 4;
                            let next = update_data_loc(loc, ret);
                            self.write_u32(dest, next);
                        }
                        continue 'stage2;
                    }
                    pc += 1;
                    ret = total;
                }
                return if self.op(pc) == FetchOp::End {
                    ret
                } else {
                    EILSEQ
                };
            }
        }
    }

    /// Where the string of a string store at `val + offset` is (`user_op`:
    /// a user string store): memory, or the bytes of `$comm` or of an
    /// immediate string. A uprobe's immediate string is a kernel address
    /// its `strncpy_from_user` cannot read: it faults, as in the kernel.
    fn source<'b>(
        &self,
        token: Token,
        comm: &'b [u8; 16],
        val: u64,
        offset: i32,
        user_op: bool,
    ) -> Source<'b>
    where
        'r: 'b,
    {
        let arg: &'r ArgSpec = self.arg;
        match token {
            Token::Number => {
                let addr = val.wrapping_add(i64::from(offset) as u64);
                Source::Memory(self.space(user_op, addr), addr)
            }
            Token::Comm => Source::Local(until_nul(comm)),
            Token::Data if self.user() => Source::Fault,
            Token::Data => Source::Local(arg.text()),
        }
    }

    /// The dynamic size of a string (`fetch_store_strlen` and its user and
    /// uprobe forms).
    fn string_size(&self, source: Source<'_>) -> i64 {
        match source {
            Source::Local(bytes) => bytes.len() as i64 + 1,
            Source::Fault => 0,
            Source::Memory(space, addr) => {
                let len = self.env.string_length(space, addr, MAX_STRING_SIZE);
                if self.user() {
                    // strnlen_user: 0 on a fault or past MAX_STRING_SIZE.
                    match len {
                        Some(l) if l <= MAX_STRING_SIZE => l as i64,
                        _ => 0,
                    }
                } else if space == Space::User {
                    // strnlen_user_nofault: 0 on a fault, MAX + 1 if longer.
                    len.map_or(0, |l| l as i64)
                } else {
                    // A byte at a time, at most MAX_STRING_SIZE.
                    len.map_or(EFAULT, |l| l.min(MAX_STRING_SIZE) as i64)
                }
            }
        }
    }

    /// `fetch_store_string` (and its user and uprobe forms): copies the
    /// string where the `__data_loc` at `dest` points, at most its length,
    /// and sets that length to the bytes used (0 on a fault).
    fn store_string(&mut self, dest: usize, source: Source<'_>, uprobe_comm: bool) -> i64 {
        let loc = self.read_u32(dest);
        let maxlen = (loc >> 16) as usize;
        let at = (loc & 0xffff) as usize;
        if maxlen == 0 {
            return ENOMEM;
        }
        let env = self.env;
        let end = (at + maxlen).min(self.record.len());
        let Some(dst) = self.record.get_mut(at..end) else {
            return ENOMEM;
        };
        let copied = match source {
            Source::Fault => None,
            // strscpy of a uprobe's $comm: -E2BIG when it does not fit.
            Source::Local(bytes) if uprobe_comm && bytes.len() >= dst.len() => None,
            Source::Local(bytes) => Some(copy_local(bytes, dst)),
            Source::Memory(space, addr) => env.copy_string(space, addr, dst),
        };
        let ret = match copied {
            Some(n) => {
                let n = n.min(dst.len());
                if n > 0 && n == dst.len() && dst[n - 1] != 0 {
                    // Too long: the last byte becomes the NUL.
                    dst[n - 1] = 0;
                }
                n as i64
            }
            None if uprobe_comm => E2BIG,
            None => EFAULT,
        };
        let len = if ret < 0 { 0 } else { ret as u32 };
        self.write_u32(dest, make_data_loc(len, at as u32));
        ret
    }

    /// `fetch_store_symstring`: writes the symbol text with its NUL where
    /// the `__data_loc` points and returns its length without the NUL,
    /// leaving the `__data_loc` as it was, as the kernel does (so its
    /// length is the room that was left, and a string after it starts on
    /// its NUL).
    fn store_symstr(&mut self, dest: usize, addr: u64) -> i64 {
        let loc = self.read_u32(dest);
        let maxlen = (loc >> 16) as usize;
        let at = (loc & 0xffff) as usize;
        if maxlen == 0 {
            return ENOMEM;
        }
        let env = self.env;
        let Some(out) = self.record.get_mut(at..) else {
            return ENOMEM;
        };
        let len = env.symbol_text(addr, out).min(out.len());
        if let Some(nul) = out.get_mut(len) {
            *nul = 0;
        }
        len as i64
    }

    /// `fetch_store_raw`.
    fn store_raw(&mut self, dest: usize, val: u64, size: u8) {
        let size = usize::from(size).min(8);
        if let Some(slot) = self.record.get_mut(dest..dest + size) {
            slot.copy_from_slice(&val.to_le_bytes()[..size]);
        }
    }

    /// `probe_mem_read` of the last step: a fault is not reported (the
    /// bytes read 0 here).
    fn store_mem(&mut self, dest: usize, user: bool, val: u64, offset: i32, size: u8) {
        let addr = val.wrapping_add(i64::from(offset) as u64);
        let space = self.space(user, addr);
        let env = self.env;
        if let Some(slot) = self.record.get_mut(dest..dest + usize::from(size)) {
            if !env.read(space, addr, slot) {
                slot.fill(0);
            }
        }
    }

    /// `fetch_apply_bitfield`.
    fn apply_bitfield(&mut self, dest: usize, basesize: u8, lshift: u8, rshift: u8) {
        let size = usize::from(basesize);
        let Some(slot) = self.record.get_mut(dest..dest + size) else {
            return;
        };
        let mut bytes = [0u8; 8];
        bytes[..size].copy_from_slice(slot);
        let value = u64::from_le_bytes(bytes);
        let bits = (size * 8) as u32;
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        // Shifts as C does them on the stored type (by its width or more
        // gives 0 here).
        let shl = |v: u64, s: u8| v.checked_shl(u32::from(s)).unwrap_or(0) & mask;
        let shr = |v: u64, s: u8| v.checked_shr(u32::from(s)).unwrap_or(0);
        let value = shr(shl(value, lshift), rshift);
        slot.copy_from_slice(&value.to_le_bytes()[..size]);
    }
}

/// The bytes up to the first NUL.
fn until_nul(bytes: &[u8]) -> &[u8] {
    let len = bytes.iter().position(|&c| c == 0).unwrap_or(bytes.len());
    &bytes[..len]
}

/// Copies `bytes` and a NUL into `dst` as far as they fit; the bytes
/// copied.
fn copy_local(bytes: &[u8], dst: &mut [u8]) -> usize {
    let n = bytes.len().min(dst.len());
    dst[..n].copy_from_slice(&bytes[..n]);
    if n < dst.len() {
        dst[n] = 0;
        n + 1
    } else {
        n
    }
}

/// The `size` of a store step.
fn store_size(op: FetchOp) -> u8 {
    match op {
        FetchOp::StoreRaw { size }
        | FetchOp::StoreMem { size, .. }
        | FetchOp::StoreUserMem { size, .. } => size,
        _ => 4,
    }
}

/// `update_data_loc`: the room after `consumed` bytes.
fn update_data_loc(loc: u32, consumed: i64) -> u32 {
    let consumed = consumed as u32;
    let maxlen = loc >> 16;
    let offset = loc & 0xffff;
    make_data_loc(maxlen.wrapping_sub(consumed), offset.wrapping_add(consumed))
}

/// `__get_data_size`: the bytes the strings of `args` take.
pub(crate) fn dynamic_size(args: &[ArgSpec], env: &dyn FetchEnv) -> usize {
    let mut size = 0;
    for arg in args.iter().filter(|arg| arg.dynamic) {
        let mut run = Run {
            arg,
            env,
            record: &mut [],
            store: false,
        };
        let len = run.process(0);
        if len > 0 {
            size += len as usize;
        }
    }
    size
}

/// `store_trace_args`: fetches every argument into `record` (a whole
/// record: the arguments start at `head_size`, their strings after them,
/// `dynamic` bytes of room, as [`dynamic_size`] measured). The argument
/// area is zeroed first.
pub(crate) fn store_args(
    args: &[ArgSpec],
    env: &dyn FetchEnv,
    record: &mut [u8],
    head_size: usize,
    dynamic: usize,
) {
    if let Some(area) = record.get_mut(head_size..) {
        area.fill(0);
    }
    let mut dyndata = head_size + args_size(args);
    let mut maxlen = dynamic as i64;
    for arg in args {
        let dl = head_size + arg.offset;
        let mut run = Run {
            arg,
            env,
            record: &mut *record,
            store: true,
        };
        if arg.dynamic {
            run.write_u32(dl, make_data_loc(maxlen as u32, dyndata as u32));
        }
        let ret = run.process(dl);
        if arg.dynamic && ret > 0 {
            dyndata += ret as usize;
            maxlen -= ret;
        }
    }
}

/// `store_trace_entry_data`: at a return probe's function entry, saves
/// the arguments its `$argN` read into `out` (of
/// [`super::fetch::entry_data_size`] bytes).
pub(crate) fn store_entry_data(args: &[ArgSpec], env: &dyn FetchEnv, out: &mut [u8]) {
    for op in args.iter().flat_map(|arg| arg.code.iter()) {
        if let FetchOp::EntryData { arg, offset } = *op {
            let at = offset as usize;
            if let Some(slot) = out.get_mut(at..at + 8) {
                slot.copy_from_slice(&env.argument(arg).to_le_bytes());
            }
        }
    }
}

#[cfg(test)]
#[path = "exec_tests.rs"]
pub(crate) mod tests;
