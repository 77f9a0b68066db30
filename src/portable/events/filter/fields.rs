// SPDX-License-Identifier: GPL-2.0

//! The fields a filter can name: the event's own, the generic ones every
//! event has (`CPU`, `COMM`, ...) and the common ones every record starts
//! with.

use crate::portable::events::field::{Field, FilterType, COMMON_FIELDS};

/// The event a filter is parsed for.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EventFields<'f> {
    /// The event's own fields (not the common ones), in the order its
    /// `format` file lists them.
    pub(crate) fields: &'f [Field<'f>],
    /// Whether this is `ftrace/function`, for which the kernel parses
    /// filters its own way (`ftrace_event_is_function()`): only `ip`, with
    /// any operator and a string, quoted or not, that matches nothing. Only
    /// a subsystem write to `events/ftrace/filter` parses a filter for it.
    pub(crate) is_function_event: bool,
}

/// The fields every event has besides its record (the kernel's
/// `ftrace_generic_fields`): they compare the CPU and the task recording,
/// not the record.
pub(crate) const GENERIC_FIELDS: [Field<'static>; 7] = [
    generic("int", "CPU", true, FilterType::Cpu),
    generic("int", "cpu", true, FilterType::Cpu),
    generic("int", "common_cpu", true, FilterType::Cpu),
    generic("char *", "COMM", false, FilterType::Comm),
    generic("char *", "comm", false, FilterType::Comm),
    generic("char *", "stacktrace", false, FilterType::Stacktrace),
    generic("char *", "STACKTRACE", false, FilterType::Stacktrace),
];

/// A generic field (`__generic_field()`): offset and size 0.
const fn generic(
    type_name: &'static str,
    name: &'static str,
    is_signed: bool,
    filter_type: FilterType,
) -> Field<'static> {
    Field {
        type_name,
        name,
        offset: 0,
        size: 0,
        is_signed,
        filter_type,
        len: 0,
    }
}

impl<'f> EventFields<'f> {
    /// Finds a field by name as `trace_find_event_field()` does: the
    /// event's fields first (the last defined first, as the kernel's list
    /// holds them), then the generic ones, then the common ones.
    pub(crate) fn find(&self, name: &[u8]) -> Option<&Field<'f>> {
        let named = |field: &&Field<'_>| field.name.as_bytes() == name;
        self.fields
            .iter()
            .rev()
            .find(named)
            .or_else(|| GENERIC_FIELDS.iter().find(named))
            .or_else(|| COMMON_FIELDS.iter().find(named))
    }
}

/// How the kernel compares a field of C type `type_name` that its event
/// declares as `FILTER_OTHER` (`filter_assign_type()`).
// The module reads the kernel's own `filter_type` of each field; this
// is for fields built without one (the host tests).
#[allow(dead_code)]
pub(crate) fn filter_assign_type(type_name: &str) -> FilterType {
    let has_char = type_name.contains("char");
    if type_name.contains("__data_loc") {
        if has_char {
            return FilterType::DynString;
        }
        if type_name.contains("cpumask_t") {
            return FilterType::Cpumask;
        }
    }
    if type_name.contains("__rel_loc") && has_char {
        return FilterType::RelDynString;
    }
    if type_name.contains('[') && has_char {
        return FilterType::StaticString;
    }
    if type_name == "char *" || type_name == "const char *" {
        return FilterType::PtrString;
    }
    FilterType::Other
}

/// Whether a filter compares `field` as a string (`is_string_field()`).
pub(super) fn is_string_field(field: &Field<'_>) -> bool {
    matches!(
        field.filter_type,
        FilterType::DynString
            | FilterType::RelDynString
            | FilterType::StaticString
            | FilterType::PtrString
            | FilterType::Comm
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assigns_types_like_the_kernel() {
        assert_eq!(
            filter_assign_type("__data_loc char[]"),
            FilterType::DynString
        );
        assert_eq!(
            filter_assign_type("__data_loc cpumask_t"),
            FilterType::Cpumask
        );
        assert_eq!(filter_assign_type("__data_loc u8[]"), FilterType::Other);
        assert_eq!(
            filter_assign_type("__rel_loc char[]"),
            FilterType::RelDynString
        );
        assert_eq!(filter_assign_type("char[16]"), FilterType::StaticString);
        assert_eq!(
            filter_assign_type("unsigned char[6]"),
            FilterType::StaticString
        );
        assert_eq!(filter_assign_type("char *"), FilterType::PtrString);
        assert_eq!(filter_assign_type("const char *"), FilterType::PtrString);
        assert_eq!(filter_assign_type("char"), FilterType::Other);
        assert_eq!(filter_assign_type("unsigned long"), FilterType::Other);
    }

    #[test]
    fn event_fields_come_first_then_generic_then_common() {
        let own = [
            Field {
                type_name: "int",
                name: "cpu",
                offset: 8,
                size: 4,
                is_signed: true,
                filter_type: FilterType::Other,
                len: 0,
            },
            Field {
                type_name: "int",
                name: "x",
                offset: 12,
                size: 4,
                is_signed: true,
                filter_type: FilterType::Other,
                len: 0,
            },
        ];
        let fields = EventFields {
            fields: &own,
            is_function_event: false,
        };
        assert_eq!(fields.find(b"cpu").map(|f| f.offset), Some(8));
        assert_eq!(
            fields.find(b"CPU").map(|f| f.filter_type),
            Some(FilterType::Cpu)
        );
        assert_eq!(
            fields.find(b"common_cpu").map(|f| f.filter_type),
            Some(FilterType::Cpu)
        );
        assert_eq!(fields.find(b"common_pid").map(|f| f.offset), Some(4));
        assert_eq!(
            fields.find(b"STACKTRACE").map(|f| f.filter_type),
            Some(FilterType::Stacktrace)
        );
        assert!(fields.find(b"Comm").is_none());
        assert!(fields.find(b"").is_none());
    }
}
