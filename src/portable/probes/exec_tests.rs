// SPDX-License-Identifier: GPL-2.0

//! Tests of running fetch programs into records, on a fake probe hit.

use super::super::fetch::{parse_arg, ArgSpec, ParseContext, ProbeKind};
use super::super::layout::{head_size, record_size};
use super::*;

/// A probe hit: registers, a task name, memory regions and symbols.
pub(crate) struct FakeEnv {
    pub(crate) regs: [u64; 21],
    pub(crate) comm: [u8; 16],
    pub(crate) memory: Vec<(Space, u64, Vec<u8>)>,
    pub(crate) entry: Vec<u64>,
    pub(crate) base: u64,
    pub(crate) task_size: u64,
}

impl FakeEnv {
    pub(crate) fn new() -> Self {
        let mut comm = [0u8; 16];
        comm[..4].copy_from_slice(b"bash");
        FakeEnv {
            regs: [0; 21],
            comm,
            memory: Vec::new(),
            entry: Vec::new(),
            base: 0,
            task_size: 0,
        }
    }

    pub(crate) fn set(&mut self, offset: usize, value: u64) {
        self.regs[offset / 8] = value;
    }

    pub(crate) fn map(&mut self, space: Space, addr: u64, bytes: &[u8]) {
        self.memory.push((space, addr, bytes.to_vec()));
    }
}

impl FetchEnv for FakeEnv {
    fn register(&self, offset: usize) -> u64 {
        self.regs[offset / 8]
    }
    fn stack_pointer(&self) -> u64 {
        self.regs[152 / 8]
    }
    fn stack_entry(&self, n: u32) -> u64 {
        let mut word = [0u8; 8];
        let sp = self.stack_pointer() + 8 * u64::from(n);
        if self.read(Space::Kernel, sp, &mut word) {
            u64::from_le_bytes(word)
        } else {
            0
        }
    }
    fn return_value(&self) -> u64 {
        self.regs[80 / 8]
    }
    fn argument(&self, n: u32) -> u64 {
        match super::super::registers::argument_slot(n) {
            super::super::registers::ArgumentSlot::Register(o) => self.register(o),
            super::super::registers::ArgumentSlot::Stack(k) => self.stack_entry(k),
        }
    }
    fn entry_data(&self, offset: u32) -> u64 {
        self.entry[offset as usize / 8]
    }
    fn comm(&self) -> [u8; 16] {
        self.comm
    }
    fn read(&self, space: Space, addr: u64, buf: &mut [u8]) -> bool {
        for (s, base, bytes) in &self.memory {
            if *s != space || addr < *base {
                continue;
            }
            let at = (addr - base) as usize;
            if let Some(src) = bytes.get(at..at + buf.len()) {
                buf.copy_from_slice(src);
                return true;
            }
        }
        false
    }
    fn symbol_text(&self, addr: u64, out: &mut [u8]) -> usize {
        let text = if addr == 0xffff_ffff_8100_0010 {
            "vfs_read+0x10/0x100".to_string()
        } else {
            format!("{addr:#x}")
        };
        let n = text.len().min(out.len());
        out[..n].copy_from_slice(&text.as_bytes()[..n]);
        text.len()
    }
    fn task_size(&self) -> u64 {
        self.task_size
    }
    fn file_offset_base(&self) -> u64 {
        self.base
    }
}

pub(crate) fn parse_all(kind: ProbeKind, is_return: bool, words: &[&str]) -> Vec<ArgSpec> {
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let ctx = ParseContext {
            kind,
            is_return,
            at_func_entry: true,
            previous: &out,
            param_max_stack: super::super::fetch::PARAM_MAX_STACK,
        };
        let spec = parse_arg(w.as_bytes(), i, &ctx).unwrap_or_else(|e| panic!("{w}: {e:?}"));
        out.push(spec);
    }
    out
}

/// A record of `args` fetched from `env`.
pub(crate) fn record(args: &[ArgSpec], env: &FakeEnv, is_return: bool) -> Vec<u8> {
    let dynamic = dynamic_size(args, env);
    let mut record = vec![0xaau8; record_size(args, is_return, dynamic)];
    store_args(args, env, &mut record, head_size(is_return), dynamic);
    record
}

fn u32_at(record: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(record[at..at + 4].try_into().unwrap())
}

fn u64_at(record: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(record[at..at + 8].try_into().unwrap())
}

/// The string a `__data_loc` at `at` locates, with its length field.
fn string_at(record: &[u8], at: usize) -> (u32, Vec<u8>) {
    let loc = u32_at(record, at);
    let (len, offs) = ((loc >> 16) as usize, (loc & 0xffff) as usize);
    (len as u32, record[offs..offs + len].to_vec())
}

const DI: usize = 112;
const SI: usize = 104;
const BX: usize = 40;

#[test]
fn numbers_and_memory() {
    let mut env = FakeEnv::new();
    env.set(DI, 0x1000);
    env.set(SI, 0x1234_5678_9abc_def0);
    env.map(
        Space::Kernel,
        0x1000,
        &[1, 2, 3, 4, 5, 6, 7, 8, 0x10, 0x20, 0, 0, 0, 0, 0, 0],
    );
    let args = parse_all(
        ProbeKind::Kprobe,
        false,
        &[
            "%si:u16",
            "+8(%di):u16",
            "%si",
            "\\-2:s8",
            "+1(%di):u8[3]",
            "@0x1000:u32",
        ],
    );
    let r = record(&args, &env, false);
    assert_eq!(r.len(), 16 + 2 + 2 + 8 + 1 + 3 + 4);
    assert_eq!(&r[16..18], &0xdef0u16.to_le_bytes());
    assert_eq!(&r[18..20], &0x2010u16.to_le_bytes());
    assert_eq!(u64_at(&r, 20), 0x1234_5678_9abc_def0);
    assert_eq!(r[28], 0xfe);
    assert_eq!(&r[29..32], &[2, 3, 4]);
    assert_eq!(u32_at(&r, 32), 0x0403_0201);
}

#[test]
fn faults_leave_zeros() {
    let mut env = FakeEnv::new();
    env.set(BX, 0xdead_0000);
    let args = parse_all(
        ProbeKind::Kprobe,
        false,
        &["+0(%bx):u32", "+4(+0(%bx)):u64"],
    );
    let r = record(&args, &env, false);
    assert_eq!(&r[16..], &[0; 12]);
}

#[test]
fn strings_follow_the_fixed_part() {
    let mut env = FakeEnv::new();
    env.set(DI, 0x2000);
    env.set(BX, 0xdead_0000);
    env.map(Space::Kernel, 0x2000, b"hello\0");
    env.map(Space::User, 0x7000, b"user\0");
    env.set(SI, 0x7000);
    let args = parse_all(
        ProbeKind::Kprobe,
        false,
        &[
            "+0(%di):string",
            "$comm",
            "\\\"imm\"",
            "+0(%bx):string",
            "+0(%si):ustring",
            "+2(%di):string",
        ],
    );
    let r = record(&args, &env, false);
    let fixed = 16 + 6 * 4;
    assert_eq!(r.len(), fixed + 6 + 5 + 4 + 5 + 4);
    assert_eq!(string_at(&r, 16), (6, b"hello\0".to_vec()));
    assert_eq!(u32_at(&r, 16) & 0xffff, fixed as u32);
    assert_eq!(string_at(&r, 20), (5, b"bash\0".to_vec()));
    assert_eq!(string_at(&r, 24), (4, b"imm\0".to_vec()));
    // A fault: length 0, at where the next string goes.
    assert_eq!(u32_at(&r, 28), (fixed + 15) as u32);
    assert_eq!(string_at(&r, 32), (5, b"user\0".to_vec()));
    assert_eq!(string_at(&r, 36), (4, b"llo\0".to_vec()));
}

#[test]
fn kprobes_read_user_memory_below_task_size() {
    let mut env = FakeEnv::new();
    env.task_size = 0x7fff_ffff_f000;
    env.set(SI, 0x7000);
    env.map(Space::User, 0x7000, b"user\0");
    env.set(DI, 0xffff_8880_0000_1000);
    env.map(
        Space::Kernel,
        0xffff_8880_0000_1000,
        &0x7000u64.to_le_bytes(),
    );
    env.set(BX, 0x9000);
    let args = parse_all(
        ProbeKind::Kprobe,
        false,
        &[
            "+0(%si):string",
            "+0(%si):u8[2]",
            "+0(+0(%di)):u8",
            "+0(%di):u8",
            "+0(%bx):string",
        ],
    );
    let r = record(&args, &env, false);
    assert_eq!(string_at(&r, 16), (5, b"user\0".to_vec()));
    assert_eq!(&r[20..23], b"usu");
    assert_eq!(r[23], 0);
    // A user string that faults measures 0 (strnlen_user_nofault).
    assert_eq!(r.len(), 16 + 4 + 2 + 1 + 1 + 4 + 5);
    assert_eq!(u32_at(&r, 24) >> 16, 0);
}

#[test]
fn arrays_of_strings_follow_pointers() {
    let mut env = FakeEnv::new();
    env.set(DI, 0x3000);
    let mut pointers = Vec::new();
    pointers.extend_from_slice(&0x4000u64.to_le_bytes());
    pointers.extend_from_slice(&0x5000u64.to_le_bytes());
    env.map(Space::Kernel, 0x3000, &pointers);
    env.map(Space::Kernel, 0x4000, b"ab\0");
    env.map(Space::Kernel, 0x5000, b"cde\0");
    let args = parse_all(ProbeKind::Kprobe, false, &["+0(%di):string[2]", "%di:u8"]);
    let r = record(&args, &env, false);
    assert_eq!(r.len(), 16 + 8 + 1 + 3 + 4);
    assert_eq!(string_at(&r, 16), (3, b"ab\0".to_vec()));
    assert_eq!(string_at(&r, 20), (4, b"cde\0".to_vec()));
    assert_eq!(u32_at(&r, 20) & 0xffff, 16 + 9 + 3);
    assert_eq!(r[24], 0);
}

#[test]
fn bitfields_are_shifted_out() {
    let mut env = FakeEnv::new();
    env.set(DI, 0b1011_0110);
    env.set(SI, 0x8000_0001);
    let args = parse_all(
        ProbeKind::Kprobe,
        false,
        &["%di:b4@2/8", "%si:b1@31/32", "%si:b8@0/32"],
    );
    let r = record(&args, &env, false);
    assert_eq!(r[16], 0b1101);
    assert_eq!(u32_at(&r, 17), 1);
    assert_eq!(u32_at(&r, 21), 1);
}

#[test]
fn symbols_and_symstr() {
    let mut env = FakeEnv::new();
    env.set(DI, 0xffff_ffff_8100_0010);
    env.set(SI, 0x2000);
    env.map(Space::Kernel, 0x2000, b"xy\0");
    let args = parse_all(
        ProbeKind::Kprobe,
        false,
        &["%di:symbol", "%di:symstr", "+0(%si):string"],
    );
    let r = record(&args, &env, false);
    assert_eq!(u64_at(&r, 16), 0xffff_ffff_8100_0010);
    let fixed = 16 + 8 + 4 + 4;
    // The symbol's text with its NUL is measured, but the kernel keeps
    // the room left as its length and puts the next string on its NUL.
    assert_eq!(r.len(), fixed + 20 + 3);
    assert_eq!(u32_at(&r, 24), (23 << 16) | fixed as u32);
    assert_eq!(&r[fixed..fixed + 19], b"vfs_read+0x10/0x100");
    assert_eq!(u32_at(&r, 28), (3 << 16) | (fixed + 19) as u32);
    assert_eq!(&r[fixed + 19..fixed + 22], b"xy\0");
}

#[test]
fn entry_data_carries_arguments_to_the_return() {
    let mut entry_env = FakeEnv::new();
    entry_env.set(DI, 11);
    entry_env.set(SI, 22);
    let args = parse_all(
        ProbeKind::Kprobe,
        true,
        &["$arg2", "$arg1", "again=$arg2", "$retval"],
    );
    let size = super::super::fetch::entry_data_size(&args);
    assert_eq!(size, 16);
    let mut saved = vec![0u8; size];
    store_entry_data(&args, &entry_env, &mut saved);
    let mut env = FakeEnv::new();
    env.entry = saved
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    env.set(80, 99);
    let r = record(&args, &env, true);
    assert_eq!(u64_at(&r, 24), 22);
    assert_eq!(u64_at(&r, 32), 11);
    assert_eq!(u64_at(&r, 40), 22);
    assert_eq!(u64_at(&r, 48), 99);
}

#[test]
fn uprobes_read_user_memory() {
    let mut env = FakeEnv::new();
    env.base = 0x5555_0000;
    env.map(Space::User, 0x5555_0010, &[7, 0, 0, 0]);
    env.set(DI, 0x6000);
    env.map(Space::User, 0x6000, b"path\0");
    env.set(152, 0x7ff0);
    env.map(Space::Kernel, 0x7ff8, &42u64.to_le_bytes());
    let args = parse_all(
        ProbeKind::Uprobe,
        false,
        &[
            "@+0x10:u32",
            "+0(%di):string",
            "$comm",
            "\\\"imm\"",
            "$stack1",
        ],
    );
    let r = record(&args, &env, false);
    assert_eq!(u32_at(&r, 16), 7);
    assert_eq!(string_at(&r, 20), (5, b"path\0".to_vec()));
    assert_eq!(string_at(&r, 24), (5, b"bash\0".to_vec()));
    // A uprobe cannot read its own immediate string.
    assert_eq!(u32_at(&r, 28) >> 16, 0);
    assert_eq!(u64_at(&r, 32), 42);
    assert_eq!(r.len(), 16 + 4 + 4 + 4 + 4 + 8 + 10);
}

#[test]
fn an_immediate_string_array_stops_after_the_first() {
    // `\IMM:string[2]`: the loop steps back onto the immediate, which the
    // store stage refuses (-EILSEQ), so nothing is measured.
    let mut env = FakeEnv::new();
    env.map(Space::Kernel, 0x2000, b"ab\0");
    let args = parse_all(ProbeKind::Kprobe, false, &["\\0x2000:string[2]"]);
    assert_eq!(dynamic_size(&args, &env), 0);
    let r = record(&args, &env, false);
    assert_eq!(r.len(), 24);
    assert_eq!(u32_at(&r, 16) >> 16, 0);
}

#[test]
fn long_kernel_strings_are_cut_at_max_string_size() {
    let mut env = FakeEnv::new();
    env.set(DI, 0x10000);
    env.map(Space::Kernel, 0x10000, &[b'a'; 5000]);
    let args = parse_all(ProbeKind::Kprobe, false, &["+0(%di):string"]);
    assert_eq!(dynamic_size(&args, &env), MAX_STRING_SIZE);
    let r = record(&args, &env, false);
    let (len, bytes) = string_at(&r, 16);
    assert_eq!(len as usize, MAX_STRING_SIZE);
    assert_eq!(bytes.last(), Some(&0));
}
