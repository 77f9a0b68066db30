// SPDX-License-Identifier: GPL-2.0

//! The x86-64 registers a fetch argument names (`%REG`), as
//! `regs_query_register_offset` (arch/x86/kernel/ptrace.c) knows them, with
//! their byte offsets in `struct pt_regs`; and where
//! `regs_get_kernel_argument` finds a function's arguments.

/// `regoffset_table` of x86-64: name and offset in `pt_regs`.
const REGISTERS: [(&[u8], usize); 21] = [
    (b"r15", 0),
    (b"r14", 8),
    (b"r13", 16),
    (b"r12", 24),
    (b"r11", 48),
    (b"r10", 56),
    (b"r9", 64),
    (b"r8", 72),
    (b"bx", 40),
    (b"cx", 88),
    (b"dx", 96),
    (b"si", 104),
    (b"di", 112),
    (b"bp", 32),
    (b"ax", 80),
    (b"orig_ax", 120),
    (b"ip", 128),
    (b"cs", 136),
    (b"flags", 144),
    (b"sp", 152),
    (b"ss", 160),
];

/// `MAX_REG_OFFSET`: the offset of the last register (`ss`).
pub(crate) const MAX_REG_OFFSET: usize = 160;

/// The `pt_regs` offset of register `name` (`regs_query_register_offset`),
/// `None` for a name the kernel does not know.
pub(crate) fn register_offset(name: &[u8]) -> Option<usize> {
    REGISTERS
        .iter()
        .find(|(known, _)| *known == name)
        .map(|&(_, offset)| offset)
}

/// Where argument `n` (from 0) of a function is at its entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ArgumentSlot {
    /// In the register at this `pt_regs` offset.
    Register(usize),
    /// In this entry of the stack (`regs_get_kernel_stack_nth`; entry 0 is
    /// the return address).
    Stack(u32),
}

/// `regs_get_kernel_argument`: the first six arguments are in di, si, dx,
/// cx, r8 and r9, the others on the stack after the return address.
pub(crate) fn argument_slot(n: u32) -> ArgumentSlot {
    const ARGUMENT_OFFSETS: [usize; 6] = [112, 104, 96, 88, 72, 64];
    match ARGUMENT_OFFSETS.get(n as usize) {
        Some(&offset) => ArgumentSlot::Register(offset),
        None => ArgumentSlot::Stack(n - (ARGUMENT_OFFSETS.len() as u32 - 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_have_their_pt_regs_offsets() {
        assert_eq!(register_offset(b"r15"), Some(0));
        assert_eq!(register_offset(b"bp"), Some(32));
        assert_eq!(register_offset(b"ax"), Some(80));
        assert_eq!(register_offset(b"di"), Some(112));
        assert_eq!(register_offset(b"ss"), Some(MAX_REG_OFFSET));
        assert_eq!(register_offset(b"rax"), None);
        assert_eq!(register_offset(b"ds"), None);
        assert_eq!(register_offset(b""), None);
    }

    #[test]
    fn arguments_are_in_registers_then_on_the_stack() {
        assert_eq!(argument_slot(0), ArgumentSlot::Register(112));
        assert_eq!(argument_slot(5), ArgumentSlot::Register(64));
        assert_eq!(argument_slot(6), ArgumentSlot::Stack(1));
        assert_eq!(argument_slot(7), ArgumentSlot::Stack(2));
    }
}
