// SPDX-License-Identifier: GPL-2.0

//! Event filters in the kernel: a parsed program of the filter language
//! (`portable::events::filter`) for one event, and what the language
//! needs from the kernel (symbols, strings read without faulting).

use super::catalog::Event;
use crate::kernel_api::{kallsyms, nofault, task};
use crate::ksyms;
use crate::portable::events::field::Field;
use crate::portable::events::filter::error::FilterError;
use crate::portable::events::filter::fields::EventFields;
use crate::portable::events::filter::program::{self, Op, Program};
use crate::portable::events::filter::{AddressSpace, FilterEnv, RecordContext, USTRING_BUF_SIZE};
use kernel::{prelude::*, str::CStr};

/// A parsed filter of one event.
pub(crate) struct EventFilter {
    text: KVec<u8>,
    ops: KVec<Op>,
    program: Program,
}

impl EventFilter {
    /// Parses `text` for `event`. May sleep.
    pub(crate) fn parse(text: &[u8], event: &Event) -> Result<Self, FilterError> {
        let no_memory = FilterError::unrecorded(-(ENOMEM.to_errno().abs()));
        let mut fields: KVec<Field<'_>> = KVec::new();
        for field in event.fields() {
            fields.push(field, GFP_KERNEL).map_err(|_| no_memory)?;
        }
        let mut ops = KVec::new();
        ops.resize(program::ops_needed(text), Op::EMPTY, GFP_KERNEL)
            .map_err(|_| no_memory)?;
        let event_fields = EventFields {
            fields: &fields,
            is_function_event: false,
        };
        let program = program::parse(text, &event_fields, &KernelEnv, &mut ops)?;
        let mut owned = KVec::new();
        owned
            .extend_from_slice(text, GFP_KERNEL)
            .map_err(|_| no_memory)?;
        Ok(EventFilter {
            text: owned,
            ops,
            program,
        })
    }

    /// The text it was parsed from.
    pub(crate) fn text(&self) -> &[u8] {
        &self.text
    }

    /// Whether `record`, recorded on `cpu`, passes. Any context.
    pub(crate) fn matches(&self, record: &[u8], cpu: u32) -> bool {
        let comm = task::current_comm();
        let cx = RecordContext { cpu, comm: &comm };
        self.program
            .matches(&self.ops, &self.text, record, &cx, &KernelEnv)
    }
}

/// The kernel side of the filter language.
struct KernelEnv;

impl FilterEnv for KernelEnv {
    fn nr_cpu_ids(&self) -> u32 {
        crate::instance::nr_cpu_ids() as u32
    }

    fn symbol_address(&self, name: &[u8]) -> Option<u64> {
        let mut buf = [0u8; 256];
        buf.get_mut(..name.len())?.copy_from_slice(name);
        if name.contains(&0) {
            return None;
        }
        let name = CStr::from_bytes_with_nul(buf.get(..=name.len())?).ok()?;
        ksyms::address_of(name).map(|a| a as u64)
    }

    fn function_range(&self, address: u64) -> Option<(u64, u64)> {
        kallsyms::with_symbol(address as usize, kallsyms::Form::WithOffset, |text| {
            symbol_range(address, text)
        })
    }

    fn with_string(
        &self,
        address: u64,
        space: AddressSpace,
        compare: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Option<bool> {
        let mut buf = [0u8; USTRING_BUF_SIZE];
        let len = copy_string(address as usize, space, &mut buf[..USTRING_BUF_SIZE - 1])?;
        Some(compare(&buf[..len]))
    }
}

/// The function `address` is in, from kallsyms' `name+0xOFF/0xSIZE
/// [module]` for it.
fn symbol_range(address: u64, text: &[u8]) -> Option<(u64, u64)> {
    let plus = text.iter().rposition(|&b| b == b'+')?;
    let rest = text.get(plus + 1..)?;
    let rest = rest.split(|&b| b == b' ').next()?;
    let mut parts = rest.split(|&b| b == b'/');
    let offset = hex(parts.next()?)?;
    let size = hex(parts.next()?)?;
    let start = address.checked_sub(offset)?;
    Some((start, start.checked_add(size)?))
}

/// Reads `0x`-prefixed hex digits.
fn hex(text: &[u8]) -> Option<u64> {
    let digits = text.strip_prefix(b"0x")?;
    let text = core::str::from_utf8(digits).ok()?;
    u64::from_str_radix(text, 16).ok()
}

/// Copies the string at `address` into `out` up to its NUL (or `out`'s
/// end) without faulting, in pieces that do not cross 64-byte boundaries
/// (so never into a page the string does not reach); its length, `None`
/// when the memory cannot be read.
fn copy_string(address: usize, space: AddressSpace, out: &mut [u8]) -> Option<usize> {
    let mut done = 0;
    while done < out.len() {
        let at = address.checked_add(done)?;
        let piece = (64 - at % 64).min(out.len() - done);
        let dst = out.get_mut(done..done + piece)?;
        let space = match space {
            AddressSpace::Kernel => nofault::Space::Kernel,
            AddressSpace::User => nofault::Space::User,
        };
        if !nofault::copy(at, space, dst) {
            return None;
        }
        if let Some(nul) = dst.iter().position(|&b| b == 0) {
            return Some(done + nul);
        }
        done += piece;
    }
    Some(done)
}
