// SPDX-License-Identifier: GPL-2.0

//! The fields of a trace event as the kernel describes them
//! (`struct ftrace_event_field`): what the `format` file shows and what
//! filters compare.

/// How a filter compares a field (the kernel's `enum filter_type`, same
/// order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FilterType {
    /// A number of `size` bytes (or a pointer, or anything else).
    Other,
    /// A `char name[N]` array inside the record.
    StaticString,
    /// A `__data_loc char[]`: a `u32` of offset (low 16 bits) and length
    /// (high 16 bits) from the record's start.
    DynString,
    /// A `__rel_loc char[]`: as `DynString`, the offset counted from the
    /// end of the `u32` itself.
    RelDynString,
    /// A `char *` pointing at a string outside the record.
    PtrString,
    /// An address compared as the function that holds it (`.function`).
    TraceFn,
    /// A `__data_loc cpumask_t` or `cpumask_t` field.
    Cpumask,
    /// The generic `COMM`/`comm`: the current task's name.
    Comm,
    /// The generic `CPU`/`cpu`/`common_cpu`: the CPU recording.
    Cpu,
    /// The generic `stacktrace`/`STACKTRACE`.
    Stacktrace,
}

impl FilterType {
    /// The kernel's value of this type (`filter_type` of a field).
    pub(crate) fn from_kernel(value: i32) -> Self {
        match value {
            1 => Self::StaticString,
            2 => Self::DynString,
            3 => Self::RelDynString,
            4 => Self::PtrString,
            5 => Self::TraceFn,
            6 => Self::Cpumask,
            7 => Self::Comm,
            8 => Self::Cpu,
            9 => Self::Stacktrace,
            _ => Self::Other,
        }
    }
}

/// One field of an event's record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Field<'a> {
    /// The C type as the `format` file shows it (`unsigned int`,
    /// `char[16]`, `__data_loc char[]`).
    pub(crate) type_name: &'a str,
    /// The field's name.
    pub(crate) name: &'a str,
    /// Its offset in the record, from the start of the common fields.
    pub(crate) offset: u32,
    /// Its size in bytes.
    pub(crate) size: u32,
    /// Whether it is a signed number.
    pub(crate) is_signed: bool,
    /// How filters compare it.
    pub(crate) filter_type: FilterType,
    /// The number of elements of an array field, 0 otherwise.
    pub(crate) len: u32,
}

/// The fields every event record starts with, in the order the `format`
/// file lists them (the kernel's `ftrace_common_fields`).
pub(crate) const COMMON_FIELDS: [Field<'static>; 4] = [
    Field::number("unsigned short", "common_type", 0, 2, false),
    Field::number("unsigned char", "common_flags", 2, 1, false),
    Field::number("unsigned char", "common_preempt_count", 3, 1, false),
    Field::number("int", "common_pid", 4, 4, true),
];

impl Field<'static> {
    const fn number(
        type_name: &'static str,
        name: &'static str,
        offset: u32,
        size: u32,
        is_signed: bool,
    ) -> Self {
        Field {
            type_name,
            name,
            offset,
            size,
            is_signed,
            filter_type: FilterType::Other,
            len: 0,
        }
    }
}
