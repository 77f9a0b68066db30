// SPDX-License-Identifier: GPL-2.0

//! What a probe hit offers its fetch programs
//! ([`crate::portable::probes::exec::FetchEnv`]): the hit's registers, the
//! current task, and memory reads that never fault.

use super::hit::Hit;
use super::recorder::Space as ProbeSpace;
use crate::kernel_api::kallsyms::{self, Form};
use crate::kernel_api::nofault::{self, Space as MemorySpace};
use crate::kernel_api::user_memory;
use crate::portable::probes::exec::{FetchEnv, Space};

/// The fetch environment of one hit.
pub(crate) struct HitEnv<'a> {
    hit: &'a Hit<'a>,
    space: ProbeSpace,
    /// A uprobe's offset in its file, for `@+OFFSET`.
    file_offset: u64,
}

impl<'a> HitEnv<'a> {
    /// The environment of `hit`, a hit of a probe in `space`.
    pub(crate) fn new(hit: &'a Hit<'a>, space: ProbeSpace, file_offset: u64) -> Self {
        HitEnv {
            hit,
            space,
            file_offset,
        }
    }
}

/// The memory space of a read.
fn memory(space: Space) -> MemorySpace {
    match space {
        Space::Kernel => MemorySpace::Kernel,
        Space::User => MemorySpace::User,
    }
}

impl FetchEnv for HitEnv<'_> {
    fn register(&self, offset: usize) -> u64 {
        self.hit.regs.at_offset(offset).unwrap_or(0)
    }

    fn stack_pointer(&self) -> u64 {
        self.hit.regs.sp()
    }

    fn stack_entry(&self, n: u32) -> u64 {
        match self.space {
            ProbeSpace::Kernel => self.hit.regs.kernel_stack_nth(n as usize).unwrap_or(0),
            ProbeSpace::User => {
                let address = self.hit.regs.sp().wrapping_add(u64::from(n) * 8);
                let mut word = [0u8; 8];
                if nofault::copy(address as usize, MemorySpace::User, &mut word) {
                    u64::from_le_bytes(word)
                } else {
                    0
                }
            }
        }
    }

    fn return_value(&self) -> u64 {
        self.hit.regs.return_value()
    }

    fn argument(&self, n: u32) -> u64 {
        self.hit.regs.kernel_argument(n as usize).unwrap_or(0)
    }

    fn entry_data(&self, offset: u32) -> u64 {
        let at = offset as usize;
        self.hit
            .entry_data
            .get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u64::from_le_bytes)
    }

    fn comm(&self) -> [u8; 16] {
        crate::kernel_api::task::current_comm()
    }

    fn read(&self, space: Space, addr: u64, buf: &mut [u8]) -> bool {
        if space == Space::User && self.space == ProbeSpace::User {
            // A uprobe's own task, preemptible: pages may be faulted in,
            // as the kernel's uprobe fetches do.
            return user_memory::read(addr as usize, buf);
        }
        nofault::copy(addr as usize, memory(space), buf)
    }

    fn symbol_text(&self, addr: u64, out: &mut [u8]) -> usize {
        kallsyms::with_symbol(addr as usize, Form::WithOffset, |text| {
            let n = text.len().min(out.len());
            out[..n].copy_from_slice(&text[..n]);
            text.len()
        })
    }

    fn task_size(&self) -> u64 {
        user_memory::task_size_max()
    }

    fn file_offset_base(&self) -> u64 {
        // `translate_user_vaddr`: the hit address less the probe's
        // offset in its file.
        (self.hit.addr as u64).wrapping_sub(self.file_offset)
    }
}
