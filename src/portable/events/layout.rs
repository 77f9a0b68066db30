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

/// `sizeof` the fixed part of a record of `fields` (after the 8 bytes of
/// common fields): the end of the last field, rounded up to the largest
/// alignment among the fields (4 at least, the common fields').
pub(crate) fn fixed_size<'a>(fields: impl Iterator<Item = Field<'a>>) -> u32 {
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
    end.next_multiple_of(align)
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
        assert_eq!(fixed_size(switch.iter().copied()), 64);
        // An 8-byte field makes the tail padding reach 8.
        let padded = [field("u64", 8, 8, 0), field("int", 16, 4, 0)];
        assert_eq!(fixed_size(padded.iter().copied()), 24);
        // Only 4-byte fields and smaller: aligned to 4.
        let small = [field("int", 8, 4, 0), field("char[3]", 12, 3, 3)];
        assert_eq!(fixed_size(small.iter().copied()), 16);
        // A location word does not count as an 8-byte field.
        let loc = [field("__data_loc char[]", 8, 4, 0)];
        assert_eq!(fixed_size(loc.iter().copied()), 12);
    }

    #[test]
    fn dynamic_arrays_add_their_length() {
        let fields = [
            field("__data_loc char[]", 8, 4, 0),
            field("pid_t", 12, 4, 0),
        ];
        let fixed = fixed_size(fields.iter().copied());
        assert_eq!(fixed, 16);
        let mut sample = [0u8; 28];
        // "bash\0" at 16, 5 bytes; perf padded the record to 28.
        sample[8..12].copy_from_slice(&((5u32 << 16) | 16).to_le_bytes());
        assert_eq!(record_len(fields.iter().copied(), fixed, &sample), 21);
        // Never more than the sample.
        assert_eq!(record_len(fields.iter().copied(), fixed, &sample[..18]), 18);
    }
}
