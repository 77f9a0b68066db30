// SPDX-License-Identifier: GPL-2.0

//! The record of a probe event: the common fields, the probe's own words
//! (`__probe_ip`, or `__probe_func` and `__probe_ret_ip` for a return
//! probe: `struct kprobe_trace_entry_head`, `kretprobe_trace_entry_head`,
//! and `SIZEOF_TRACE_ENTRY` of uprobes, all the same), then the arguments
//! packed at the offsets the parser gave them (no alignment), then the
//! strings.

use super::fetch::{args_size, ArgSpec};

/// `sizeof(struct trace_entry)`: the common fields.
pub(crate) const TRACE_ENTRY_SIZE: usize = 8;

/// The bytes before the arguments: the common fields and one word
/// (`ip`), or two for a return probe (`func`, `ret_ip`).
pub(crate) const fn head_size(is_return: bool) -> usize {
    TRACE_ENTRY_SIZE + if is_return { 16 } else { 8 }
}

/// Where argument `arg`'s field is in the record.
pub(crate) fn field_offset(arg: &ArgSpec, is_return: bool) -> usize {
    head_size(is_return) + arg.offset
}

/// The size of a record whose strings take `dynamic` bytes (what the
/// kernel reserves: `sizeof(*entry) + tp->size + dsize`).
pub(crate) fn record_size(args: &[ArgSpec], is_return: bool, dynamic: usize) -> usize {
    head_size(is_return) + args_size(args) + dynamic
}

/// The probe's own words of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Head {
    /// An entry probe: the probed address (kprobes) or the user address
    /// hit (uprobes).
    Entry {
        /// `__probe_ip`.
        ip: u64,
    },
    /// A return probe.
    Return {
        /// `__probe_func`: the probed function.
        func: u64,
        /// `__probe_ret_ip`: where it returned to.
        ret_ip: u64,
    },
}

impl Head {
    /// Writes the words after the common fields of `record`.
    pub(crate) fn store(self, record: &mut [u8]) {
        let mut put = |at: usize, value: u64| {
            if let Some(slot) = record.get_mut(at..at + 8) {
                slot.copy_from_slice(&value.to_le_bytes());
            }
        };
        match self {
            Head::Entry { ip } => put(TRACE_ENTRY_SIZE, ip),
            Head::Return { func, ret_ip } => {
                put(TRACE_ENTRY_SIZE, func);
                put(TRACE_ENTRY_SIZE + 8, ret_ip);
            }
        }
    }

    /// Reads the words of a record of an entry or return probe.
    pub(crate) fn load(record: &[u8], is_return: bool) -> Option<Head> {
        let get = |at: usize| -> Option<u64> {
            let bytes = record.get(at..at + 8)?;
            Some(u64::from_le_bytes(bytes.try_into().ok()?))
        };
        Some(if is_return {
            Head::Return {
                func: get(TRACE_ENTRY_SIZE)?,
                ret_ip: get(TRACE_ENTRY_SIZE + 8)?,
            }
        } else {
            Head::Entry {
                ip: get(TRACE_ENTRY_SIZE)?,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fetch::{parse_arg, ParseContext, ProbeKind};
    use super::*;

    fn args(words: &[&str]) -> Vec<ArgSpec> {
        let mut out = Vec::new();
        for (i, w) in words.iter().enumerate() {
            let ctx = ParseContext {
                kind: ProbeKind::Kprobe,
                is_return: false,
                at_func_entry: true,
                previous: &out,
                param_max_stack: super::super::fetch::PARAM_MAX_STACK,
            };
            let spec = parse_arg(w.as_bytes(), i, &ctx).unwrap();
            out.push(spec);
        }
        out
    }

    #[test]
    fn arguments_are_packed_after_the_head() {
        let a = args(&[
            "%ax:u8",
            "%bx:u64",
            "+0(%di):string",
            "+0(%si):u16[3]",
            "%cx:s32",
        ]);
        let offsets: Vec<_> = a.iter().map(|x| field_offset(x, false)).collect();
        assert_eq!(offsets, [16, 17, 25, 29, 35]);
        assert_eq!(field_offset(&a[0], true), 24);
        assert_eq!(record_size(&a, false, 10), 16 + 23 + 10);
        assert_eq!(head_size(false), 16);
        assert_eq!(head_size(true), 24);
    }

    #[test]
    fn heads_round_trip() {
        let mut record = [0u8; 24];
        Head::Return { func: 1, ret_ip: 2 }.store(&mut record);
        assert_eq!(&record[8..16], &1u64.to_le_bytes());
        assert_eq!(
            Head::load(&record, true),
            Some(Head::Return { func: 1, ret_ip: 2 })
        );
        Head::Entry { ip: 7 }.store(&mut record);
        assert_eq!(Head::load(&record, false), Some(Head::Entry { ip: 7 }));
        assert_eq!(Head::load(&record[..10], false), None);
    }
}
