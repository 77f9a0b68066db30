// SPDX-License-Identifier: GPL-2.0

//! The length of an event's record as the kernel's tracefs writes it,
//! found from its fields: perf hands over records padded so that their
//! size plus 4 is a multiple of 8, and the kernel's own are not padded.
//!
//! The kernel reserves `sizeof(struct trace_event_raw_<event>)` plus the
//! lengths of its dynamic arrays (`__data_loc`, `__rel_loc`, whose high 16
//! bits are the length).

use super::field::Field;

/// Whether `field` is a dynamic array's location word.
fn is_dynamic(field: &Field<'_>) -> bool {
    field.type_name.starts_with("__data_loc") || field.type_name.starts_with("__rel_loc")
}

/// Where the dynamic data of a record of `fields` starts: `sizeof` the
/// fixed part (after the 8 bytes of common fields), the end of the last
/// field rounded up to the largest alignment among the fields (4 at least,
/// the common fields'). A syscall event's record is not a C structure
/// (`packed`): its dynamic data follows its last field directly.
pub(crate) fn fixed_size<'a>(fields: impl Iterator<Item = Field<'a>>, packed: bool) -> u32 {
    let (mut end, mut align) = (8u32, 4u32);
    for field in fields {
        end = end.max(field.offset.saturating_add(field.size));
        if is_dynamic(&field) {
            continue;
        }
        let element = field.size.checked_div(field.len).unwrap_or(field.size);
        if element.is_power_of_two() {
            align = align.max(element.min(8));
        }
    }
    if packed {
        end
    } else {
        end.next_multiple_of(align)
    }
}

/// The length of the record in `sample`: the fixed part plus every
/// dynamic array's length, at most the sample's.
pub(crate) fn record_len<'a>(
    fields: impl Iterator<Item = Field<'a>>,
    fixed_size: u32,
    sample: &[u8],
) -> usize {
    let mut len = fixed_size as usize;
    for field in fields.filter(is_dynamic) {
        let at = field.offset as usize;
        if let Some(&[a, b, c, d]) = sample.get(at..at + 4) {
            len += (u32::from_le_bytes([a, b, c, d]) >> 16) as usize;
        }
    }
    len.min(sample.len())
}

/// Calls `gap` with each byte range `[start, end)` between the common
/// fields and the end of the last field that no field covers: padding,
/// which the kernel's records hold as zeros and perf's scratch buffer as
/// whatever an earlier record left there. The padding after the last
/// field is left alone: a syscall event's dynamic data starts there.
pub(crate) fn for_each_gap<'a>(
    fields: impl Iterator<Item = Field<'a>> + Clone,
    mut gap: impl FnMut(u32, u32),
) {
    let fixed_size = fields
        .clone()
        .map(|f| f.offset.saturating_add(f.size))
        .max()
        .unwrap_or(8);
    let covered = |start: u32, end: u32| {
        fields
            .clone()
            .any(|f| f.offset < end && f.offset.saturating_add(f.size) > start)
    };
    let mut pos = 8u32;
    while pos < fixed_size {
        // The next field start at or after `pos`, or the end.
        let next = fields
            .clone()
            .filter(|f| f.offset.saturating_add(f.size) > pos)
            .map(|f| f.offset.max(pos))
            .min()
            .unwrap_or(fixed_size)
            .min(fixed_size);
        if next > pos && !covered(pos, next) {
            gap(pos, next);
        }
        // Past the field (or fields) starting at `next`.
        pos = fields
            .clone()
            .filter(|f| f.offset <= next && f.offset.saturating_add(f.size) > next)
            .map(|f| f.offset.saturating_add(f.size))
            .max()
            .unwrap_or(fixed_size)
            .max(next + 1)
            .min(fixed_size.max(next + 1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::portable::events::field::FilterType;

    fn field(type_name: &'static str, offset: u32, size: u32, len: u32) -> Field<'static> {
        Field {
            type_name,
            name: "f",
            offset,
            size,
            is_signed: false,
            filter_type: FilterType::Other,
            len,
        }
    }

    #[test]
    fn fixed_part_is_aligned_to_its_widest_field() {
        // sched_switch: char[16] at 8, pid_t at 24, int at 28, long at 32,
        // char[16] at 40, pid_t at 56, int at 60: 64 bytes.
        let switch = [
            field("char[16]", 8, 16, 16),
            field("pid_t", 24, 4, 0),
            field("int", 28, 4, 0),
            field("long", 32, 8, 0),
            field("char[16]", 40, 16, 16),
            field("pid_t", 56, 4, 0),
            field("int", 60, 4, 0),
        ];
        assert_eq!(fixed_size(switch.iter().copied(), false), 64);
        // An 8-byte field makes the tail padding reach 8.
        let padded = [field("u64", 8, 8, 0), field("int", 16, 4, 0)];
        assert_eq!(fixed_size(padded.iter().copied(), false), 24);
        // Only 4-byte fields and smaller: aligned to 4.
        let small = [field("int", 8, 4, 0), field("char[3]", 12, 3, 3)];
        assert_eq!(fixed_size(small.iter().copied(), false), 16);
        // A location word does not count as an 8-byte field.
        let loc = [field("__data_loc char[]", 8, 4, 0)];
        assert_eq!(fixed_size(loc.iter().copied(), false), 12);
    }

    fn gaps(fields: &[Field<'static>]) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for_each_gap(fields.iter().copied(), |a, b| out.push((a, b)));
        out
    }

    #[test]
    fn padding_between_and_after_fields() {
        // sys_enter_openat: the int at 8, then longs from 16, then the
        // location word of the file name.
        let openat = [
            field("int", 8, 4, 0),
            field("int", 16, 8, 0),
            field("const char *", 24, 8, 0),
            field("int", 32, 8, 0),
            field("umode_t", 40, 8, 0),
            field("__data_loc char[]", 48, 4, 0),
        ];
        // Its file name follows the location word, at 52.
        assert_eq!(fixed_size(openat.iter().copied(), true), 52);
        assert_eq!(gaps(&openat), vec![(12, 16)]);
        // No padding: no gap; the tail padding is not a gap.
        let dense = [field("int", 8, 4, 0), field("int", 12, 4, 0)];
        assert_eq!(gaps(&dense), vec![]);
        let tail = [field("u64", 8, 8, 0), field("int", 16, 4, 0)];
        assert_eq!(gaps(&tail), vec![]);
        // Fields out of order and overlapping (a union) are still covered.
        let odd = [
            field("u64", 16, 8, 0),
            field("int", 8, 4, 0),
            field("char[2]", 8, 2, 2),
        ];
        assert_eq!(gaps(&odd), vec![(12, 16)]);
    }

    #[test]
    fn dynamic_arrays_add_their_length() {
        let fields = [
            field("__data_loc char[]", 8, 4, 0),
            field("pid_t", 12, 4, 0),
        ];
        let fixed = fixed_size(fields.iter().copied(), false);
        assert_eq!(fixed, 16);
        let mut sample = [0u8; 28];
        // "bash\0" at 16, 5 bytes; perf padded the record to 28.
        sample[8..12].copy_from_slice(&((5u32 << 16) | 16).to_le_bytes());
        assert_eq!(record_len(fields.iter().copied(), fixed, &sample), 21);
        // Never more than the sample.
        assert_eq!(record_len(fields.iter().copied(), fixed, &sample[..18]), 18);
    }
}
