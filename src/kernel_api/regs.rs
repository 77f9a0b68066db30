// SPDX-License-Identifier: GPL-2.0

//! The registers a probe hit sees (`struct pt_regs`), read by the fetch
//! arguments of probe events.

use crate::bindings;
use kernel::types::Opaque;

/// How many words a kernel stack holds (`THREAD_SIZE / 8`): the deepest
/// `$stackN` a kprobe may read.
pub(crate) const STACK_WORDS: u64 = bindings::RFT_THREAD_SIZE as u64 / 8;

/// The saved registers of a probe hit, kernel or user.
#[repr(transparent)]
pub(crate) struct Regs(Opaque<bindings::pt_regs>);

impl Regs {
    /// The registers `regs` points at, for as long as the borrow.
    pub(crate) fn from_raw(regs: &bindings::pt_regs) -> &Regs {
        // SAFETY: `Regs` is a transparent wrapper of `pt_regs`, and the
        // borrow keeps the registers alive and unchanged.
        unsafe { &*core::ptr::from_ref(regs).cast::<Regs>() }
    }

    /// The raw registers.
    pub(crate) fn as_raw(&self) -> &bindings::pt_regs {
        // SAFETY: made from a shared borrow of a `pt_regs` (`from_raw`).
        unsafe { &*self.0.get() }
    }

    /// The 8-byte slot at byte `offset` of `pt_regs` (the offsets
    /// `regs_query_register_offset` gives), `None` past its end or off a
    /// slot boundary.
    pub(crate) fn at_offset(&self, offset: usize) -> Option<u64> {
        let size = core::mem::size_of::<bindings::pt_regs>();
        if offset % 8 != 0 || offset + 8 > size {
            return None;
        }
        // SAFETY: `pt_regs` is all 8-byte slots on x86-64 and `offset` is
        // a slot inside it.
        Some(unsafe { self.0.get().cast::<u8>().add(offset).cast::<u64>().read() })
    }

    /// The instruction pointer.
    pub(crate) fn ip(&self) -> u64 {
        self.as_raw().ip as u64
    }

    /// The stack pointer.
    pub(crate) fn sp(&self) -> u64 {
        self.as_raw().sp as u64
    }

    /// The return value register.
    pub(crate) fn return_value(&self) -> u64 {
        self.as_raw().ax as u64
    }

    /// The `n`th word of the kernel stack at `sp`
    /// (`regs_get_kernel_stack_nth`): `None` past the stack the current
    /// context runs on (the `THREAD_SIZE` block of the current stack
    /// pointer) or if it cannot be read.
    pub(crate) fn kernel_stack_nth(&self, n: usize) -> Option<u64> {
        let address = n
            .checked_mul(8)
            .and_then(|off| (self.sp() as usize).checked_add(off))?;
        let block = !(bindings::RFT_THREAD_SIZE - 1);
        // SAFETY: reads the stack pointer register.
        let here = unsafe { bindings::rft_current_stack_pointer() } as usize;
        if address & block != here & block {
            return None;
        }
        let mut word = [0u8; 8];
        crate::kernel_api::nofault::copy(
            address,
            crate::kernel_api::nofault::Space::Kernel,
            &mut word,
        )
        .then(|| u64::from_ne_bytes(word))
    }

    /// The `n`th argument (from 0) of a function entered with these
    /// registers (`regs_get_kernel_argument`, x86-64): `di`, `si`, `dx`,
    /// `cx`, `r8`, `r9`, then the stack above the return address.
    pub(crate) fn kernel_argument(&self, n: usize) -> Option<u64> {
        let regs = self.as_raw();
        let in_register = [regs.di, regs.si, regs.dx, regs.cx, regs.r8, regs.r9];
        match in_register.get(n) {
            Some(&value) => Some(value as u64),
            // The return address is at `sp`: stack arguments follow it.
            None => self.kernel_stack_nth(n - in_register.len() + 1),
        }
    }
}
