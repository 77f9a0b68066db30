// SPDX-License-Identifier: GPL-2.0

//! The event filter language, as the kernel's `trace_events_filter.c`
//! parses and runs it.
//!
//! ```text
//! ((sig >= 10 && sig < 15) || sig == 17) && comm != bash
//! prev_comm ~ "*sh*" && !(prev_pid == 0)
//! call_site.function == kmem_cache_free
//! filename.ustring ~ "*passwd"
//! target_cpu & CPUS{2-5,8}
//! ```
//!
//! A write to a `filter` file goes through [`text::classify_write`]: `0`
//! clears the filter, anything else is parsed by [`program::parse`] into
//! caller-provided storage of [`program::ops_needed`] slots. A refusal is a
//! [`error::FilterError`]: the kernel's message, position and errno, which
//! [`error::write_event_filter_file`] shows the way the kernel's `filter`
//! file does and which `error_log` records under
//! [`error::ERROR_LOG_LOCATION`]. A parsed [`program::Program`] decides per
//! record, without allocating, whether the record is kept.
//!
//! Fields are the event's own, the generic `CPU`, `cpu`, `common_cpu`,
//! `COMM`, `comm`, `stacktrace`, `STACKTRACE` and the common fields
//! ([`fields::EventFields::find`]). Everything the kernel's parser and
//! matchers do is done the same way here, quirks included: the positions
//! it reports (one past where one would expect inside a predicate), the
//! errnos it returns (`-1`, `-2` and `-3` among them), `~ "*x"` on a
//! `char[N]` field comparing with the end of the array, and `stacktrace`
//! comparisons that parse but never match.

pub(crate) mod error;
pub(crate) mod fields;
pub(crate) mod program;
pub(crate) mod text;

mod cpulist;
mod eval;
mod number;
mod predicate;
#[cfg(test)]
mod tests;

/// The longest string value plus one (`MAX_FILTER_STR_VAL`): a quoted
/// value of this many bytes is refused as too long.
pub(crate) const MAX_FILTER_STR_VAL: usize = 256;

/// The buffer the kernel copies a `char *` field's string into
/// (`USTRING_BUF_SIZE`): a longer string is cut to one byte less.
pub(crate) const USTRING_BUF_SIZE: usize = 1024;

/// The length of a task's name with its NUL (`TASK_COMM_LEN`): `COMM`
/// compares that many bytes of the current task's name.
pub(crate) const TASK_COMM_LEN: usize = 16;

/// The size of a C `long` and of a pointer: `.function` wants fields of
/// this size, and `char *` fields hold addresses of it.
pub(crate) const LONG_SIZE: usize = core::mem::size_of::<usize>();

/// Writes to a `filter` file of this many bytes or more are refused with
/// `EINVAL` before parsing (`cnt >= PAGE_SIZE`).
pub(crate) const WRITE_LIMIT: usize = 4096;

/// Where a `char *` field points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AddressSpace {
    /// Kernel memory (`strncpy_from_kernel_nofault()`).
    Kernel,
    /// User memory: the field was named with `.ustring`
    /// (`strncpy_from_user_nofault()`).
    User,
}

/// What filters need from the kernel.
pub(crate) trait FilterEnv {
    /// The kernel's `nr_cpu_ids`: `CPUS{}` lists may name CPUs below it
    /// (and below [`crate::portable::cpumask::MAX_CPUS`]), and cpumask
    /// comparisons look at that many bits.
    fn nr_cpu_ids(&self) -> u32;

    /// The address of the symbol `name` (`kallsyms_lookup_name()`), for
    /// `field.function == name`; `None` (or 0) when there is none.
    fn symbol_address(&self, name: &[u8]) -> Option<u64>;

    /// The function holding `address` as `[start, end)`
    /// (`kallsyms_lookup_size_offset()`: `address - offset` and that plus
    /// `size`); `None` when no symbol holds it.
    fn function_range(&self, address: u64) -> Option<(u64, u64)>;

    /// Copies the string at `address` without faulting, as the kernel's
    /// `strncpy_from_*_nofault()` into a [`USTRING_BUF_SIZE`] buffer
    /// (per CPU: this runs while a record is filtered), and returns what
    /// `compare` says of the bytes copied, up to the NUL and at most
    /// [`USTRING_BUF_SIZE`] - 1 of them. `None` when the copy faults.
    fn with_string(
        &self,
        address: u64,
        space: AddressSpace,
        compare: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Option<bool>;
}

/// What a record is filtered with besides its bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RecordContext<'a> {
    /// The CPU recording it (`raw_smp_processor_id()`).
    pub(crate) cpu: u32,
    /// The current task's name, [`TASK_COMM_LEN`] bytes padded with NULs
    /// (`current->comm`).
    pub(crate) comm: &'a [u8],
}
