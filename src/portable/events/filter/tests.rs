// SPDX-License-Identifier: GPL-2.0

//! Host tests of the filter language: filters parsed for a test event and
//! run on records built here, and the errors, positions and file texts of
//! refused filters.
//!
//! None of the expected error positions, errnos or file texts come from
//! running a kernel: each was derived by reading `trace_events_filter.c`
//! (7.2) and is explained next to its case. Inside a predicate the kernel
//! reports `pos + i`, where `pos` is one past the predicate's first byte
//! and `i` counts from that byte, so a position there is one more than the
//! index one might expect.

use super::error::{
    write_error_text, write_event_filter_file, write_subsystem_filter_file, ErrorKind, FilterError,
    DEFAULT_SYS_FILTER_MESSAGE, ERROR_LOG_LOCATION,
};
use super::fields::EventFields;
use super::program::{ops_needed, parse, Op, Program};
use super::text::{classify_write, FilterWrite};
use super::{AddressSpace, FilterEnv, RecordContext, TASK_COMM_LEN};
use crate::portable::error_log::ErrorLog;
use crate::portable::events::field::{Field, FilterType};

/// A field of the test event.
const fn field(
    type_name: &'static str,
    name: &'static str,
    offset: u32,
    size: u32,
    is_signed: bool,
    filter_type: FilterType,
) -> Field<'static> {
    Field {
        type_name,
        name,
        offset,
        size,
        is_signed,
        filter_type,
        len: 0,
    }
}

use FilterType::{Cpumask, DynString, Other, PtrString, RelDynString, StaticString};

/// The test event: a field of each kind.
const FIELDS: [Field<'static>; 19] = [
    field("s8", "s8", 8, 1, true, Other),
    field("u8", "u8", 9, 1, false, Other),
    field("s16", "s16", 10, 2, true, Other),
    field("u16", "u16", 12, 2, false, Other),
    field("s32", "s32", 16, 4, true, Other),
    field("u32", "u32", 20, 4, false, Other),
    field("s64", "s64", 24, 8, true, Other),
    field("u64", "u64", 32, 8, false, Other),
    field("char[16]", "name", 40, 16, false, StaticString),
    field("__data_loc char[]", "dstr", 56, 4, false, DynString),
    field("__rel_loc char[]", "rstr", 60, 4, false, RelDynString),
    field("const char *", "pstr", 64, 8, false, PtrString),
    field("unsigned long", "call_site", 72, 8, false, Other),
    field("__data_loc cpumask_t", "mask", 80, 4, false, Cpumask),
    field("int", "target_cpu", 84, 4, true, Other),
    field("u8[3]", "odd", 88, 3, false, Other),
    field("unsigned short", "cpu16", 92, 2, false, Other),
    field("int", "sig", 16, 4, true, Other),
    field("void *", "ptr", 72, 8, false, Other),
];

/// The fixed part of a test record.
const RECORD_SIZE: usize = 96;

/// The test event.
const EVENT: EventFields<'static> = EventFields {
    fields: &FIELDS,
    is_function_event: false,
};

/// `ftrace/function`'s fields.
const FUNCTION_FIELDS: [Field<'static>; 2] = [
    field("unsigned long", "ip", 8, 8, false, Other),
    field("unsigned long", "parent_ip", 16, 8, false, Other),
];

/// `ftrace/function`.
const FUNCTION_EVENT: EventFields<'static> = EventFields {
    fields: &FUNCTION_FIELDS,
    is_function_event: true,
};

/// The range of `schedule`.
const SCHEDULE: (u64, u64) = (0x1000, 0x1100);
/// The range of `vfs_read` (its symbol address is 0x10 into it).
const VFS_READ: (u64, u64) = (0x2000, 0x2080);
/// A `char *` to a kernel string.
const KERNEL_STRING: u64 = 0x5000;
/// A `char *` to a user string.
const USER_STRING: u64 = 0x7000;
/// A `char *` to a kernel string of 1024 bytes.
const LONG_STRING: u64 = 0x6000;

/// Symbols, strings and 8 CPUs.
struct TestEnv {
    long_string: Vec<u8>,
}

impl TestEnv {
    /// The environment.
    fn new() -> Self {
        // 1023 `a` and a `b` the copy leaves out.
        let mut long_string = vec![b'a'; 1023];
        long_string.extend_from_slice(b"b\0");
        TestEnv { long_string }
    }
}

impl FilterEnv for TestEnv {
    fn nr_cpu_ids(&self) -> u32 {
        8
    }

    fn symbol_address(&self, name: &[u8]) -> Option<u64> {
        match name {
            b"schedule" => Some(SCHEDULE.0),
            b"vfs_read" => Some(VFS_READ.0 + 0x10),
            b"zero" => Some(0),
            _ => None,
        }
    }

    fn function_range(&self, address: u64) -> Option<(u64, u64)> {
        [SCHEDULE, VFS_READ]
            .into_iter()
            .find(|&(start, end)| (start..end).contains(&address))
    }

    fn with_string(
        &self,
        address: u64,
        space: AddressSpace,
        compare: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Option<bool> {
        let bytes: &[u8] = match (space, address) {
            (AddressSpace::Kernel, KERNEL_STRING) => b"/etc/passwd\0",
            (AddressSpace::User, USER_STRING) => b"/home/me/.ssh/id\0",
            (AddressSpace::Kernel, LONG_STRING) => &self.long_string,
            _ => return None,
        };
        Some(compare(bytes))
    }
}

/// A record of the test event.
#[derive(Clone)]
struct Rec(Vec<u8>);

impl Rec {
    /// A record with every field 0.
    fn new() -> Self {
        Rec(vec![0; RECORD_SIZE])
    }

    /// Stores `bytes` at `offset`.
    fn put(mut self, offset: usize, bytes: &[u8]) -> Self {
        self.0[offset..offset + bytes.len()].copy_from_slice(bytes);
        self
    }

    /// Stores `value` in the number field `name` (the event's or a common one).
    fn num(self, name: &str, value: u64) -> Self {
        let f = FIELDS
            .iter()
            .chain(super::super::field::COMMON_FIELDS.iter())
            .find(|f| f.name == name)
            .unwrap();
        let bytes = value.to_le_bytes();
        self.put(f.offset as usize, &bytes[..f.size as usize])
    }

    /// Stores `text` in the `char[16]` field, padded with NULs.
    fn name(self, text: &[u8]) -> Self {
        let mut array = [0u8; 16];
        array[..text.len()].copy_from_slice(text);
        self.put(40, &array)
    }

    /// Appends `data` and points the `__data_loc` at 56 to it.
    fn dstr(mut self, data: &[u8]) -> Self {
        let at = self.0.len() as u32;
        self.0.extend_from_slice(data);
        let item = ((data.len() as u32) << 16) | at;
        self.put(56, &item.to_le_bytes())
    }

    /// Appends `data` and points the `__rel_loc` at 60 to it.
    fn rstr(mut self, data: &[u8]) -> Self {
        let at = self.0.len() as u32 - 64;
        self.0.extend_from_slice(data);
        let item = ((data.len() as u32) << 16) | at;
        self.put(60, &item.to_le_bytes())
    }

    /// Appends a cpumask of `cpus` and points the field at 80 to it.
    fn mask(mut self, cpus: &[u32]) -> Self {
        let at = self.0.len() as u32;
        let mut bits = 0u64;
        for cpu in cpus {
            bits |= 1 << cpu;
        }
        self.0.extend_from_slice(&bits.to_le_bytes());
        self.put(80, &((8 << 16) | at).to_le_bytes())
    }
}

/// A task name as `current->comm` holds it.
fn comm(name: &[u8]) -> [u8; TASK_COMM_LEN] {
    let mut comm = [0u8; TASK_COMM_LEN];
    comm[..name.len()].copy_from_slice(name);
    comm
}

/// Parses `text` for `event` into storage of the size asked for.
fn compile_for(text: &str, event: &EventFields<'_>) -> Result<(Program, Vec<Op>), FilterError> {
    let mut ops = vec![Op::EMPTY; ops_needed(text.as_bytes())];
    let program = parse(text.as_bytes(), event, &TestEnv::new(), &mut ops)?;
    Ok((program, ops))
}

/// Parses `text` for the test event.
fn compile(text: &str) -> Result<(Program, Vec<Op>), FilterError> {
    compile_for(text, &EVENT)
}

/// Whether `rec`, recorded on CPU `cpu` by `task`, passes `text`.
fn run_on(text: &str, rec: &Rec, cpu: u32, task: &[u8]) -> bool {
    let (program, ops) = compile(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
    let comm = comm(task);
    let ctx = RecordContext { cpu, comm: &comm };
    program.matches(&ops, text.as_bytes(), &rec.0, &ctx, &TestEnv::new())
}

/// Whether `rec`, recorded on CPU 3 by `bash`, passes `text`.
fn run(text: &str, rec: &Rec) -> bool {
    run_on(text, rec, 3, b"bash")
}

/// Asserts what each filter makes of `rec`.
fn expect(rec: &Rec, cases: &[(&str, bool)]) {
    for &(text, expected) in cases {
        assert_eq!(run(text, rec), expected, "{text}");
    }
}

/// Asserts that `text`, parsed for `event`, is refused with `message` at
/// `pos`, the write returning `errno`.
fn assert_refused_for(event: &EventFields<'_>, text: &str, message: &str, pos: usize, errno: i32) {
    match compile_for(text, event) {
        Ok(_) => panic!("{text}: accepted"),
        Err(e) => assert_eq!(
            (e.message(), e.pos, e.errno),
            (message, pos, errno),
            "{text}"
        ),
    }
}

/// Asserts that `text` is refused with `message` at `pos`, the write
/// returning `errno`.
fn assert_refused(text: &str, message: &str, pos: usize, errno: i32) {
    assert_refused_for(&EVENT, text, message, pos, errno);
}

/// What the event's `filter` file shows after `text` was refused.
fn filter_file_after(text: &str) -> String {
    let error = compile(text).err().unwrap();
    let mut out = String::new();
    write_event_filter_file(&mut out, Some(text.as_bytes()), Some(&error)).unwrap();
    out
}

#[test]
fn every_operator_on_every_number_size() {
    // (field, value stored, [(filter, expected)])
    let rec = Rec::new()
        .num("s8", (-5i64) as u64)
        .num("u8", 200)
        .num("s16", (-300i64) as u64)
        .num("u16", 60000)
        .num("s32", (-70000i64) as u64)
        .num("u32", 4_000_000_000)
        .num("s64", (-5_000_000_000i64) as u64)
        .num("u64", u64::MAX - 1);
    expect(
        &rec,
        &[
            ("s8 == -5", true),
            ("s8 != -5", false),
            ("s8 < -4", true),
            ("s8 < -5", false),
            ("s8 <= -5", true),
            ("s8 > -6", true),
            ("s8 > -5", false),
            ("s8 >= -5", true),
            ("s8 >= 0", false),
            ("s8 & 1", true),
            ("s8 & 4", false),
            ("u8 == 200", true),
            ("u8 != 200", false),
            ("u8 < 201", true),
            ("u8 <= 199", false),
            ("u8 > 127", true),
            ("u8 >= 200", true),
            ("u8 & 0x08", true),
            ("u8 & 0x07", false),
            ("s16 == -300", true),
            ("s16 < -299", true),
            ("s16 > 0", false),
            ("s16 >= -300", true),
            ("s16 <= -301", false),
            ("s16 != 300", true),
            ("s16 & 0x8000", true),
            ("u16 == 60000", true),
            ("u16 > 32767", true),
            ("u16 < 60000", false),
            ("u16 <= 60000", true),
            ("u16 >= 60001", false),
            ("u16 & 0x20", true),
            ("u16 != 60000", false),
            ("s32 == -70000", true),
            ("s32 < 0", true),
            ("s32 <= -70001", false),
            ("s32 > -70001", true),
            ("s32 >= -69999", false),
            ("s32 != -70000", false),
            ("s32 & 0x80000000", true),
            ("u32 == 4000000000", true),
            ("u32 > 2147483647", true),
            ("u32 < 4000000001", true),
            ("u32 <= 3999999999", false),
            ("u32 >= 4000000000", true),
            ("u32 != 4000000000", false),
            ("u32 & 1", false),
            ("s64 == -5000000000", true),
            ("s64 < -4999999999", true),
            ("s64 <= -5000000001", false),
            ("s64 > -5000000001", true),
            ("s64 >= 0", false),
            ("s64 != -5000000000", false),
            ("s64 & 0x4000000000000000", true),
            ("u64 == 18446744073709551614", true),
            ("u64 > 9223372036854775807", true),
            ("u64 < 18446744073709551615", true),
            ("u64 <= 0", false),
            ("u64 >= 0xfffffffffffffffe", true),
            ("u64 != 0xfffffffffffffffe", false),
            ("u64 & 1", false),
            ("u64 & 2", true),
        ],
    );
}

#[test]
fn number_forms_and_truncation() {
    let rec = Rec::new()
        .num("u8", 200)
        .num("u16", 60000)
        .num("u32", 4_000_000_000)
        .num("s8", (-1i64) as u64)
        .num("common_pid", 42);
    expect(
        &rec,
        &[
            ("u32 == 0xee6b2800", true),
            ("u32 == 0XEE6B2800", true),
            ("u16 == 0165140", true),
            ("common_pid == 42", true),
            ("common_pid == 052", true),
            ("common_type == 0", true),
            // The value is cut to the field's size, as C casts it.
            ("u8 == 456", true),
            ("u8 < 0x100", false),
            ("s8 == 255", true),
            ("s8 == -0x1", true),
            // Unsigned fields take no sign.
            ("u8 > 0", true),
        ],
    );
}

#[test]
fn sizes_without_a_comparison_never_match() {
    let rec = Rec::new();
    expect(
        &rec,
        &[
            ("odd == 0", false),
            ("odd != 0", false),
            ("odd < 1", false),
            ("!(odd == 0)", true),
            ("stacktrace == 0", false),
            ("STACKTRACE != 0", false),
        ],
    );
}

#[test]
fn static_strings() {
    let rec = Rec::new().name(b"bash");
    expect(
        &rec,
        &[
            ("name == \"bash\"", true),
            ("name == 'bash'", true),
            ("name != \"bash\"", false),
            ("name == \"bas\"", false),
            ("name == \"bashx\"", false),
            ("name ~ \"bash\"", true),
            ("name ~ \"ba*\"", true),
            ("name ~ \"*as*\"", true),
            ("name ~ \"b?sh\"", true),
            ("name ~ \"[ab]ash\"", true),
            ("name ~ \"b*h\"", true),
            ("name ~ \"!ba*\"", false),
            ("name ~ \"!zz*\"", true),
            ("name ~ \"*\"", true),
            ("name ~ \"**\"", true),
            // `*x` compares with the end of the array, not of the string.
            ("name ~ \"*sh\"", false),
            // `.ustring` means nothing to a `char[N]`.
            ("name.ustring == \"bash\"", true),
        ],
    );
    let full = Rec::new().name(b"0123456789abcdef");
    expect(
        &full,
        &[
            ("name == \"0123456789abcdef\"", true),
            // `*x` expects the NUL in the array's last byte.
            ("name ~ \"*cdef\"", false),
            ("name ~ \"*bcde\"", true),
            ("name ~ \"*\"", true),
            // A leading digit: compared whole, `*` and all.
            ("name ~ \"01*\"", false),
        ],
    );
    // A leading digit makes `~` an exact comparison.
    let digits = Rec::new().name(b"1*");
    expect(
        &digits,
        &[("name ~ \"1*\"", true), ("name ~ \"!1*\"", false)],
    );
}

#[test]
fn data_loc_and_rel_loc_strings() {
    let rec = Rec::new().dstr(b"/usr/bin/bash\0").rstr(b"kworker/0:1\0");
    expect(
        &rec,
        &[
            ("dstr == \"/usr/bin/bash\"", true),
            ("dstr != \"/usr/bin/bash\"", false),
            ("dstr == \"/usr/bin\"", false),
            ("dstr ~ \"*bash\"", true),
            ("dstr ~ \"/usr*\"", true),
            ("dstr ~ \"*bin*\"", true),
            ("dstr ~ \"/usr/*/bash\"", true),
            ("dstr ~ \"/usr/?in/*\"", true),
            ("dstr ~ \"*zsh\"", false),
            ("rstr == \"kworker/0:1\"", true),
            ("rstr ~ \"kworker/*\"", true),
            ("rstr ~ \"*:1\"", true),
            ("rstr ~ \"*er/0*\"", true),
            ("rstr ~ \"kworker/[0-9]:?\"", true),
            ("rstr != \"kworker/0:1\"", false),
        ],
    );
    // `*x*` looks at all `len` bytes, past the NUL.
    let padded = Rec::new().dstr(b"ab\0xyz\0");
    expect(
        &padded,
        &[
            ("dstr == \"ab\"", true),
            ("dstr ~ \"*yz*\"", true),
            // `*x` ends before the last byte of `len`, NUL or not.
            ("dstr ~ \"*yz\"", true),
            ("dstr ~ \"*ab\"", false),
        ],
    );
    // A length of 0 reads up to the NUL, except for `*x` and globs.
    let unsized_loc = Rec::new().dstr(b"abc\0").put(58, &[0, 0]);
    expect(
        &unsized_loc,
        &[
            ("dstr == \"abc\"", true),
            ("dstr ~ \"ab*\"", true),
            ("dstr ~ \"*bc*\"", true),
            ("dstr ~ \"*bc\"", false),
            ("dstr ~ \"a?c\"", false),
            ("dstr ~ \"*\"", false),
        ],
    );
}

#[test]
fn pointer_strings() {
    let rec = Rec::new().num("pstr", KERNEL_STRING);
    expect(
        &rec,
        &[
            ("pstr == \"/etc/passwd\"", true),
            ("pstr != \"/etc/passwd\"", false),
            ("pstr ~ \"*passwd\"", true),
            ("pstr ~ \"/etc/*\"", true),
            ("pstr ~ \"*tc/pa*\"", true),
            ("pstr ~ \"/e?c/*\"", true),
            // Read from user space, the pointer gives no string at all.
            ("pstr.ustring == \"/etc/passwd\"", false),
            ("pstr.ustring != \"/etc/passwd\"", false),
        ],
    );
    let user = Rec::new().num("pstr", USER_STRING);
    expect(
        &user,
        &[
            ("pstr.ustring ~ \"*.ssh*\"", true),
            ("pstr.ustring == \"/home/me/.ssh/id\"", true),
            ("pstr == \"/home/me/.ssh/id\"", false),
        ],
    );
    // An unreadable string matches nothing, not even `!=`.
    let bad = Rec::new().num("pstr", 0xdead);
    expect(
        &bad,
        &[("pstr != \"x\"", false), ("!(pstr == \"x\")", true)],
    );
    // Only 1023 bytes are copied: the final `b` is not seen.
    let long = Rec::new().num("pstr", LONG_STRING);
    expect(
        &long,
        &[
            ("pstr ~ \"*b\"", false),
            ("pstr ~ \"*a\"", true),
            ("pstr ~ \"*b*\"", false),
            ("pstr ~ \"a*\"", true),
        ],
    );
}

#[test]
fn comm_and_cpu() {
    let rec = Rec::new();
    let cases = [
        ("comm == \"bash\"", true),
        ("COMM == 'bash'", true),
        ("comm != \"bash\"", false),
        ("comm ~ \"ba*\"", true),
        ("comm ~ \"*as*\"", true),
        ("comm ~ \"b[a-z]sh\"", true),
        // `*x` looks at the end of the 16-byte name.
        ("comm ~ \"*sh\"", false),
        ("cpu == 3", true),
        ("CPU != 3", false),
        ("common_cpu < 4", true),
        ("cpu <= 2", false),
        ("cpu > 2", true),
        ("cpu >= 4", false),
        // `&` on the CPU never matches; values are C ints.
        ("cpu & 1", false),
        ("cpu == -1", false),
        ("cpu == 4294967299", true),
    ];
    expect(&rec, &cases);
    assert!(run_on("comm ~ \"*sh\"", &rec, 3, b"0123456789abcsh"));
    assert!(!run_on("cpu == 3", &rec, 4, b"bash"));
}

#[test]
fn function_addresses() {
    let inside = Rec::new().num("call_site", 0x1080);
    let at_end = Rec::new().num("call_site", 0x1100);
    let cases = [
        "call_site.function == schedule",
        "call_site.function == 0x1010",
        "call_site.function == 4096",
        "call_site.function != vfs_read",
    ];
    for text in cases {
        assert!(run(text, &inside), "{text}");
    }
    assert!(!run("call_site.function == schedule", &at_end));
    assert!(run("call_site.function != schedule", &at_end));
    // vfs_read's symbol address is inside it: the range starts at its start.
    let vfs = Rec::new().num("call_site", VFS_READ.0);
    assert!(run("call_site.function == vfs_read", &vfs));
    assert!(run("ptr.function == schedule", &inside));
}

#[test]
fn cpus_lists() {
    let rec = Rec::new()
        .num("target_cpu", 5)
        .num("cpu16", 9)
        .num("s64", 0x1_0000_0005)
        .mask(&[1, 2]);
    expect(
        &rec,
        &[
            // The recording CPU (3).
            ("cpu & CPUS{2-4}", true),
            ("cpu & CPUS{4-6}", false),
            ("cpu == CPUS{2-4}", false),
            ("cpu != CPUS{2-4}", true),
            ("CPU & CPUS{3}", true),
            ("cpu == CPUS{3}", true),
            ("cpu != CPUS{3}", false),
            ("cpu & CPUS{0-7:2/4}", false),
            // A number field holding a CPU.
            ("target_cpu & CPUS{1,5}", true),
            ("target_cpu & CPUS{1,6}", false),
            ("target_cpu == CPUS{1,5}", false),
            ("target_cpu != CPUS{1,5}", true),
            ("target_cpu & CPUS{5}", true),
            ("target_cpu == CPUS{5}", true),
            ("target_cpu != CPUS{5}", false),
            ("target_cpu & CPUS{N}", false),
            // Past nr_cpu_ids (8): no match, `!=` included.
            ("cpu16 & CPUS{1,5}", false),
            ("cpu16 != CPUS{1,5}", false),
            // Only the low 32 bits of the field are the CPU.
            ("s64 & CPUS{4-5}", true),
            // A cpumask field.
            ("mask & CPUS{2,6}", true),
            ("mask & CPUS{3,6}", false),
            ("mask == CPUS{1-2}", true),
            ("mask != CPUS{1-2}", false),
            ("mask == CPUS{1-3}", false),
            ("mask & CPUS{2}", true),
            ("mask == CPUS{2}", false),
            ("mask != CPUS{2}", true),
            ("mask & CPUS{4}", false),
            ("mask & CPUS{all}", true),
            // Sizes without a comparison never match.
            ("odd & CPUS{1,2}", false),
        ],
    );
    let one = Rec::new().mask(&[2]);
    expect(
        &one,
        &[
            ("mask == CPUS{2}", true),
            ("mask != CPUS{2}", false),
            ("mask == CPUS{2,3}", false),
        ],
    );
}

/// The fields `A` to `G` stand for in the truth tables, and how each is set
/// to true (the field holds 1) or false (0).
const TRUTH_FIELDS: [&str; 7] = ["u8", "u16", "u32", "u64", "s8", "s16", "s32"];

/// The filter for an expression over `A` to `G`.
fn with_fields(expression: &str) -> String {
    let mut text = String::new();
    for c in expression.chars() {
        match c {
            'A'..='G' => {
                let index = c as usize - 'A' as usize;
                text.push_str(&format!("{} == 1", TRUTH_FIELDS[index]));
            }
            c => text.push(c),
        }
    }
    text
}

#[test]
// The expected values are written as the filters are, not simplified.
#[allow(clippy::nonminimal_bool)]
fn precedence_parentheses_and_not() {
    type Expected = fn(&[bool; 7]) -> bool;
    let cases: [(&str, Expected); 14] = [
        ("A || B && C", |v| v[0] || (v[1] && v[2])),
        ("A && B || C && D", |v| (v[0] && v[1]) || (v[2] && v[3])),
        ("(A || B) && C", |v| (v[0] || v[1]) && v[2]),
        ("!A && B", |v| !v[0] && v[1]),
        ("!(A && B) || C", |v| !(v[0] && v[1]) || v[2]),
        ("!(A || !(B && !C)) || D", |v| {
            !(v[0] || !(v[1] && !v[2])) || v[3]
        }),
        ("!!A", |v| v[0]),
        ("((A))", |v| v[0]),
        ("A&&B||C", |v| (v[0] && v[1]) || v[2]),
        ("A || B || C && D && !E", |v| {
            v[0] || v[1] || (v[2] && v[3] && !v[4])
        }),
        // The example of the kernel's `predicate_parse()` comment.
        ("A && !(!B || (C && G)) || D || E && !F", |v| {
            (v[0] && !(!v[1] || (v[2] && v[6]))) || v[3] || (v[4] && !v[5])
        }),
        ("(A || (B && (C || !(D && E)))) && !(F || G)", |v| {
            (v[0] || (v[1] && (v[2] || !(v[3] && v[4])))) && !(v[5] || v[6])
        }),
        // A trailing `&&` or `||` is accepted and ignored.
        ("A &&", |v| v[0]),
        ("A || B ||", |v| v[0] || v[1]),
    ];
    for (expression, expected) in cases {
        let text = with_fields(expression);
        let (program, ops) = compile(&text).unwrap();
        for bits in 0..128u32 {
            let values: [bool; 7] = core::array::from_fn(|k| bits & (1 << k) != 0);
            let mut rec = Rec::new();
            for (name, value) in TRUTH_FIELDS.iter().zip(values) {
                rec = rec.num(name, u64::from(value));
            }
            let comm = comm(b"x");
            let ctx = RecordContext {
                cpu: 0,
                comm: &comm,
            };
            let got = program.matches(&ops, text.as_bytes(), &rec.0, &ctx, &TestEnv::new());
            assert_eq!(got, expected(&values), "{expression} with {values:?}");
        }
    }
}

#[test]
fn deep_nesting_uses_several_frame_slots() {
    let depth = 300;
    let text = format!("{}u8 == 1{}", "(".repeat(depth), ")".repeat(depth));
    let one = Rec::new().num("u8", 1);
    assert!(run(&text, &one));
    assert!(!run(&text, &Rec::new()));
    let text = format!("{}u8 == 1{}", "!(".repeat(depth + 1), ")".repeat(depth + 1));
    assert!(!run(&text, &one));
    assert!(run(&text, &Rec::new()));
}

#[test]
fn storage_is_sized_by_ops_needed() {
    let text = b"u8 == 1 && (u16 == 2 || s8 < 0)";
    let needed = ops_needed(text);
    assert!(needed > 0);
    let mut ops = vec![Op::EMPTY; needed - 1];
    let error = parse(text, &EVENT, &TestEnv::new(), &mut ops).err();
    assert_eq!(error, Some(FilterError::unrecorded(-12)));
    let mut ops = vec![Op::EMPTY; needed + 5];
    assert!(parse(text, &EVENT, &TestEnv::new(), &mut ops).is_ok());
    // Refused before any storage is needed.
    assert_eq!(ops_needed(b""), 0);
    assert_eq!(ops_needed(b"(u8 == 1"), 0);
    assert_eq!(ops_needed(b"()"), 0);
}

#[test]
fn writes_of_zero_clear() {
    assert_eq!(classify_write(b"0\n"), FilterWrite::Clear);
    assert_eq!(classify_write(b" 0"), FilterWrite::Clear);
    let FilterWrite::Set(text) = classify_write(b"u8 == 0\n") else {
        panic!("not a filter");
    };
    assert!(run(core::str::from_utf8(text).unwrap(), &Rec::new()));
}

#[test]
fn function_event_takes_only_ip() {
    let rec = Rec::new();
    for text in [
        "ip == schedule",
        "ip ~ sched*",
        "ip & x y",
        "(ip < x) || ip > y",
    ] {
        let (program, ops) = compile_for(text, &FUNCTION_EVENT).unwrap();
        let comm = comm(b"x");
        let ctx = RecordContext {
            cpu: 0,
            comm: &comm,
        };
        // The predicates are NOPs: nothing matches.
        assert!(!program.matches(&ops, text.as_bytes(), &rec.0, &ctx, &TestEnv::new()));
    }
    // The kernel stops at a closing quote without taking it: the quote
    // then follows the predicate (at 10).
    assert_refused_for(&FUNCTION_EVENT, "ip != 'x y'", TOO_MANY_PREDS, 10, -1);
}

// One test per message the kernel records; `pos` is what the kernel's
// `lasterr_pos` would be, derived by reading its parser.

/// `FILT_ERR_INVALID_OP`.
const INVALID_OP: &str = "Invalid operator";
/// `FILT_ERR_TOO_MANY_OPEN`.
const TOO_MANY_OPEN: &str = "Too many '('";
/// `FILT_ERR_TOO_MANY_CLOSE`.
const TOO_FEW_OPEN: &str = "Too few '('";
/// `FILT_ERR_MISSING_QUOTE`.
const MISSING_QUOTE: &str = "Missing matching quote";
/// `FILT_ERR_MISSING_BRACE_OPEN`.
const MISSING_BRACE_OPEN: &str = "Missing '{'";
/// `FILT_ERR_MISSING_BRACE_CLOSE`.
const MISSING_BRACE_CLOSE: &str = "Missing '}'";
/// `FILT_ERR_OPERAND_TOO_LONG`.
const OPERAND_TOO_LONG: &str = "Operand too long";
/// `FILT_ERR_EXPECT_STRING`.
const EXPECT_STRING: &str = "Expecting string field";
/// `FILT_ERR_EXPECT_DIGIT`.
const EXPECT_DIGIT: &str = "Expecting numeric field";
/// `FILT_ERR_ILLEGAL_FIELD_OP`.
const ILLEGAL_FIELD_OP: &str = "Illegal operation for field type";
/// `FILT_ERR_FIELD_NOT_FOUND`.
const FIELD_NOT_FOUND: &str = "Field not found";
/// `FILT_ERR_ILLEGAL_INTVAL`.
const ILLEGAL_INTVAL: &str = "Illegal integer value";
/// `FILT_ERR_BAD_SUBSYS_FILTER`.
const BAD_SUBSYS_FILTER: &str = "Couldn't find or set field in one of a subsystem's events";
/// `FILT_ERR_TOO_MANY_PREDS`.
const TOO_MANY_PREDS: &str = "Too many terms in predicate expression";
/// `FILT_ERR_INVALID_CPULIST`.
const INVALID_CPULIST: &str = "Invalid cpulist";
/// `FILT_ERR_IP_FIELD_ONLY`.
const IP_FIELD_ONLY: &str = "Only 'ip' field is supported for function trace";
/// `FILT_ERR_INVALID_VALUE`.
const INVALID_VALUE: &str = "Invalid value (did you forget quotes)?";
/// `FILT_ERR_NO_FUNCTION`.
const NO_FUNCTION: &str = "Function not found";
/// `FILT_ERR_NO_FILTER`.
const NO_FILTER: &str = "No filter found";

#[test]
fn invalid_operator() {
    // "s32 = 1": the name ends at 3, the operator is looked for at i = 4;
    // the kernel reports pos (1) + i.
    assert_refused("s32 = 1", INVALID_OP, 5, -22);
    assert_refused("s32 1", INVALID_OP, 5, -22);
    // An unknown suffix is where the operator should be (i = 3).
    assert_refused("s32.bogus == 1", INVALID_OP, 4, -22);
    // 7.2 has no `.cpumask` suffix: `CPUS{}` goes with the plain field.
    assert_refused("target_cpu.cpumask & CPUS{1}", INVALID_OP, 11, -22);
    // `.function` takes `==` and `!=` only, checked at the value (i = 21).
    assert_refused("call_site.function < schedule", INVALID_OP, 22, -22);
}

#[test]
fn too_many_open() {
    // calc_stack(): the `(` that no `)` closes, found walking back.
    assert_refused("s32 == 1 && (u8 == 1", TOO_MANY_OPEN, 12, -2);
    assert_refused("x(((u8 == 1)", TOO_MANY_OPEN, 2, -2);
    // The walk never looks at byte 0 and falls back to it.
    assert_refused("(s32 == 1", TOO_MANY_OPEN, 0, -2);
    assert_refused("((s32 == 1)", TOO_MANY_OPEN, 0, -2);
}

#[test]
fn too_few_open() {
    // calc_stack(): the unmatched `)` itself.
    assert_refused("s32 == 1)", TOO_FEW_OPEN, 8, -1);
    assert_refused("(s32 == 1)) || (u8 == 1", TOO_FEW_OPEN, 10, -1);
}

#[test]
fn missing_quote() {
    // calc_stack(): the opening quote of the unclosed string.
    assert_refused("name == \"bash", MISSING_QUOTE, 8, -3);
    assert_refused("name == 'a' || name == 'b", MISSING_QUOTE, 23, -3);
}

#[test]
fn missing_brace_open() {
    // After `CPUS` (i = 10) the kernel steps past the byte it expected to
    // be `{` before reporting: pos (1) + 11.
    assert_refused("cpu & CPUS[1]", MISSING_BRACE_OPEN, 12, -22);
    assert_refused("cpu & CPUS", MISSING_BRACE_OPEN, 12, -22);
}

#[test]
fn missing_brace_close() {
    // The list runs to the end of the text, i = 12.
    assert_refused("cpu & CPUS{1", MISSING_BRACE_CLOSE, 13, -22);
}

#[test]
fn operand_too_long() {
    // 25 digits from 7 end at 32 (23 is the most `num_buf` holds).
    assert_refused(
        "u64 == 1234567890123456789012345",
        OPERAND_TOO_LONG,
        33,
        -22,
    );
    assert!(compile("u64 == 00000000000000000000001").is_ok());
    // 256 bytes between quotes: reported at the closing quote, i = 265.
    let long = format!("name == \"{}\"", "a".repeat(256));
    assert_refused(&long, OPERAND_TOO_LONG, 266, -22);
    let fits = format!("name == \"{}\"", "a".repeat(255));
    assert!(compile(&fits).is_ok());
    // 24 digits for `.function`, ending at 46.
    assert_refused(
        "call_site.function == 123456789012345678901234",
        OPERAND_TOO_LONG,
        47,
        -22,
    );
    // The function event's unquoted string, from 6 to the end at 262.
    let long = format!("ip == {}", "a".repeat(256));
    assert_refused_for(&FUNCTION_EVENT, &long, OPERAND_TOO_LONG, 263, -22);
}

#[test]
fn expect_string() {
    // A number for a string field, at the value (i = 8).
    assert_refused("name == 1", EXPECT_STRING, 9, -22);
    assert_refused("comm == -1", EXPECT_STRING, 9, -22);
    assert_refused("pstr ~ 1", EXPECT_STRING, 8, -22);
}

#[test]
fn expect_digit() {
    // A string for a number field, at the opening quote (i = 7).
    assert_refused("s32 == \"x\"", EXPECT_DIGIT, 8, -22);
    assert_refused("cpu == 'x'", EXPECT_DIGIT, 8, -22);
    assert_refused("mask ~ 'x'", EXPECT_DIGIT, 8, -22);
    assert_refused("stacktrace == \"x\"", EXPECT_DIGIT, 15, -22);
}

#[test]
fn illegal_field_op() {
    // Operators strings do not take, at the value (i = 7).
    assert_refused("name < \"x\"", ILLEGAL_FIELD_OP, 8, -22);
    assert_refused("name & 'x'", ILLEGAL_FIELD_OP, 8, -22);
    // `~` on a number (i = 6).
    assert_refused("s32 ~ 5", ILLEGAL_FIELD_OP, 7, -22);
    // `.function` on a field that is not a long (i = 16).
    assert_refused("s32.function == schedule", ILLEGAL_FIELD_OP, 17, -22);
    assert_refused("cpu.function == schedule", ILLEGAL_FIELD_OP, 17, -22);
    // `CPUS{}` with other operators or on other fields.
    assert_refused("cpu < CPUS{1}", ILLEGAL_FIELD_OP, 7, -22);
    assert_refused("cpu ~ CPUS{1}", ILLEGAL_FIELD_OP, 7, -22);
    assert_refused("name & CPUS{1}", ILLEGAL_FIELD_OP, 8, -22);
    assert_refused("comm == CPUS{1}", ILLEGAL_FIELD_OP, 9, -22);
}

#[test]
fn field_not_found() {
    // The name ends at 6.
    assert_refused("nosuch == 1", FIELD_NOT_FOUND, 7, -22);
    // Leading blanks count: the predicate starts at 2.
    assert_refused("  nosuch == 1", FIELD_NOT_FOUND, 9, -22);
    // The second predicate starts at 12.
    assert_refused("s32 == 1 && nosuch == 2", FIELD_NOT_FOUND, 19, -22);
    // The documentation's example: `dsig` starts at 28 and is 4 long.
    assert_refused(
        "((sig >= 10 && sig < 15) || dsig == 17) && comm != bash",
        FIELD_NOT_FOUND,
        33,
        -22,
    );
    // Digits make names too; names are case-sensitive.
    assert_refused("1 == s32", FIELD_NOT_FOUND, 2, -22);
    assert_refused("Comm == 'x'", FIELD_NOT_FOUND, 5, -22);
}

#[test]
fn illegal_intval() {
    // Reported at the start of the value (i = 6 or 7), not its end.
    assert_refused("u8 == -1", ILLEGAL_INTVAL, 7, -22);
    assert_refused("u8 == 08", ILLEGAL_INTVAL, 7, -22);
    assert_refused("s8 == 0x", ILLEGAL_INTVAL, 7, -22);
    assert_refused("s8 == 12ab", ILLEGAL_INTVAL, 7, -22);
    assert_refused("s8 == -", ILLEGAL_INTVAL, 7, -22);
    assert_refused("s64 == 9223372036854775808", ILLEGAL_INTVAL, 8, -22);
    assert_refused("s64 & 0x8000000000000000", ILLEGAL_INTVAL, 7, -22);
    assert_refused("u64 == 18446744073709551616", ILLEGAL_INTVAL, 8, -22);
}

#[test]
fn bad_subsys_filter() {
    // Whatever refused the filter for an event of the subsystem.
    let error = FilterError::subsystem_event();
    assert_eq!(
        (error.message(), error.pos, error.errno),
        (BAD_SUBSYS_FILTER, 0, 0)
    );
    assert_eq!(error.log_message(), BAD_SUBSYS_FILTER);
}

#[test]
fn too_many_preds() {
    // After a predicate only `)`, `&&`, `||` or the end may come: reported
    // at the offending byte itself, with the kernel's -1.
    assert_refused("s32 == 1 u8 == 2", TOO_MANY_PREDS, 9, -1);
    assert_refused("s32 == 1 & u8 == 2", TOO_MANY_PREDS, 9, -1);
    assert_refused("s32 == 1 | u8 == 2", TOO_MANY_PREDS, 9, -1);
    assert_refused("name == 'x'y", TOO_MANY_PREDS, 11, -1);
    // A quote hides predicates from calc_stack(), which counts one and so
    // allows three; the fourth `ip`, at 35, is one too many.
    assert_refused_for(
        &FUNCTION_EVENT,
        "ip == a'b || ip == x || ip == y || ip == z || ip == c'd",
        TOO_MANY_PREDS,
        35,
        -1,
    );
}

#[test]
fn invalid_cpulist() {
    // Empty: at the `}` (i = 11).
    assert_refused("cpu & CPUS{}", INVALID_CPULIST, 12, -22);
    // CPU 9 of 8, and a malformed range: at the `}`.
    assert_refused("cpu & CPUS{9}", INVALID_CPULIST, 13, -22);
    assert_refused("cpu & CPUS{1-x}", INVALID_CPULIST, 15, -22);
    assert_refused("mask == CPUS{3-1}", INVALID_CPULIST, 17, -22);
}

#[test]
fn ip_field_only() {
    // "parent_ip == 1" on ftrace/function: at the value, i = 13.
    assert_refused_for(&FUNCTION_EVENT, "parent_ip == 1", IP_FIELD_ONLY, 14, -22);
}

#[test]
fn invalid_value() {
    // Bare words for string fields, at the word (i = 8).
    assert_refused("name == bash", INVALID_VALUE, 9, -22);
    assert_refused("s32 == +1", INVALID_VALUE, 8, -22);
    // The documentation's example with a known field: `comm` starts at 42,
    // `bash` 8 bytes later.
    assert_refused(
        "((sig >= 10 && sig < 15) || sig == 17) && comm != bash",
        INVALID_VALUE,
        51,
        -22,
    );
    // A number for `.function` that is not one, reported at its end (26).
    assert_refused("call_site.function == 0xzz", INVALID_VALUE, 27, -22);
}

#[test]
fn no_function() {
    // Reported at the end of the name (28), which runs to white space.
    assert_refused("call_site.function == nosuch", NO_FUNCTION, 29, -22);
    assert_refused("(call_site.function == schedule)", NO_FUNCTION, 33, -22);
    // A symbol the lookup gives 0 for, an address in no function, and an
    // empty name, which is not looked up.
    assert_refused("call_site.function == zero", NO_FUNCTION, 27, -22);
    assert_refused("call_site.function == 0x10", NO_FUNCTION, 27, -22);
    assert_refused("call_site.function ==", NO_FUNCTION, 22, -22);
}

#[test]
fn no_filter() {
    // Only `!`: no predicate, reported at the end of the text.
    assert_refused("!", NO_FILTER, 1, -22);
    assert_refused(" ! ! ", NO_FILTER, 5, -22);
}

#[test]
fn refusals_without_a_message() {
    // No field name at all: nothing recorded, and the kernel's -1.
    for text in ["== 1", "s32 == 1 && && u8 == 1", "( ! )", "!= 1", "&&"] {
        assert_refused(text, "No error", 0, -1);
    }
    // Nothing counted as a predicate: -EINVAL.
    for text in ["", "()", "( )"] {
        assert_refused(text, "No error", 0, -22);
    }
    let error = compile("== 1").err().unwrap();
    assert_eq!(error.kind, ErrorKind::None);
    assert_eq!(error.log_kind(), ErrorKind::Errno);
}

#[test]
fn the_kernel_messages() {
    use ErrorKind::*;
    let table = [
        (None, "No error"),
        (InvalidOp, "Invalid operator"),
        (TooManyOpen, "Too many '('"),
        (TooManyClose, "Too few '('"),
        (MissingQuote, "Missing matching quote"),
        (MissingBraceOpen, "Missing '{'"),
        (MissingBraceClose, "Missing '}'"),
        (OperandTooLong, "Operand too long"),
        (ExpectString, "Expecting string field"),
        (ExpectDigit, "Expecting numeric field"),
        (IllegalFieldOp, "Illegal operation for field type"),
        (FieldNotFound, "Field not found"),
        (IllegalIntval, "Illegal integer value"),
        (
            BadSubsysFilter,
            "Couldn't find or set field in one of a subsystem's events",
        ),
        (TooManyPreds, "Too many terms in predicate expression"),
        (InvalidFilter, "Meaningless filter expression"),
        (InvalidCpulist, "Invalid cpulist"),
        (
            IpFieldOnly,
            "Only 'ip' field is supported for function trace",
        ),
        (InvalidValue, "Invalid value (did you forget quotes)?"),
        (NoFunction, "Function not found"),
        (Errno, "Error"),
        (NoFilter, "No filter found"),
    ];
    for (kind, message) in table {
        assert_eq!(FilterError::new(kind, 0, -22).message(), message);
    }
}

#[test]
fn event_filter_file_texts() {
    let mut out = String::new();
    write_event_filter_file(&mut out, Option::None, Option::None).unwrap();
    assert_eq!(out, "none\n");
    out.clear();
    write_event_filter_file(&mut out, Some(b"s32 == 1"), Option::None).unwrap();
    assert_eq!(out, "s32 == 1\n");

    // The documentation's example, with the caret where 7.2 puts it.
    let text = "((sig >= 10 && sig < 15) || dsig == 17) && comm != bash";
    assert_eq!(
        filter_file_after(text),
        format!(
            "{text}\n{}^\nparse_error: Field not found\n\n",
            " ".repeat(33)
        )
    );
    // At 0 the caret is the first byte of its line.
    assert_eq!(
        filter_file_after("(s32 == 1"),
        "(s32 == 1\n^\nparse_error: Too many '('\n\n"
    );
    assert_eq!(
        filter_file_after("s32 = 1"),
        "s32 = 1\n     ^\nparse_error: Invalid operator\n\n"
    );
    // Past the end: under the end.
    assert_eq!(
        filter_file_after("cpu & CPUS{1"),
        "cpu & CPUS{1\n            ^\nparse_error: Missing '}'\n\n"
    );
    // No message recorded.
    assert_eq!(filter_file_after("== 1"), "== 1\nError: (0)\n\n");
}

#[test]
fn subsystem_filter_file_texts() {
    let mut out = String::new();
    write_subsystem_filter_file(&mut out, Option::None).unwrap();
    assert_eq!(out, format!("{DEFAULT_SYS_FILTER_MESSAGE}\n"));
    assert!(out.starts_with("### global filter ###\n# Use this"));
    assert!(out.ends_with("an error message will be displayed here\n"));
    // An event the subsystem's filter did not parse for.
    out.clear();
    let error = FilterError::subsystem_event();
    write_event_filter_file(&mut out, Some(b"nosuch == 1"), Some(&error)).unwrap();
    assert_eq!(
        out,
        "nosuch == 1\n^\nparse_error: Couldn't find or set field in one of a subsystem's events\n\n"
    );
    assert_eq!(error.errno, 0);
    // A subsystem write no event took.
    out.clear();
    write_subsystem_filter_file(&mut out, Some((b"x == 1", &error))).unwrap();
    assert_eq!(
        out,
        "x == 1\n^\nparse_error: Couldn't find or set field in one of a subsystem's events\n\n"
    );
}

#[test]
fn long_texts_lose_what_the_trace_seq_cannot_hold() {
    let error = |pos| FilterError::new(ErrorKind::FieldNotFound, pos, -22);
    let show = |text: &str, error: FilterError| {
        let mut out = String::new();
        write_event_filter_file(&mut out, Some(text.as_bytes()), Some(&error)).unwrap();
        out
    };
    // 4000 + 4002 + 30 bytes fit in 8156.
    let text = "x".repeat(4000);
    let shown = show(&text, error(4000));
    assert!(shown.ends_with("^\nparse_error: Field not found\n\n"));
    assert_eq!(shown.len(), 4000 + 4002 + 30 + 1);
    // 4070 + 4072 fit, the message does not.
    let text = "x".repeat(4070);
    let shown = show(&text, error(5000));
    assert_eq!(shown, format!("{text}\n{}^\n", " ".repeat(4070)));
    // 4095 + 4097 do not: only the text is kept.
    let text = "x".repeat(4095);
    assert_eq!(show(&text, error(4095)), format!("{text}\n"));
    // 4095 + 4060 bytes are kept, and then the newline no longer fits: the
    // file reads empty.
    assert_eq!(show(&text, error(4058)), "");
    let mut stored = String::new();
    write_error_text(&mut stored, text.as_bytes(), &error(4058)).unwrap();
    assert_eq!(stored.len(), 8155);
}

#[test]
fn error_log_entries() {
    let text = "s32 == 1 && nosuch == 2";
    let error = compile(text).err().unwrap();
    assert_eq!(ERROR_LOG_LOCATION, "event filter parse error");
    let mut log = ErrorLog::new();
    log.record(
        1_000_000_000,
        ERROR_LOG_LOCATION,
        error.log_message(),
        text.as_bytes(),
        error.log_pos(),
    );
    let mut out = String::new();
    log.write_entry(0, &mut out).unwrap();
    assert_eq!(
        out,
        format!(
            "[    1.000000] event filter parse error: error: Field not found\n  Command: {text}\n{}^\n",
            " ".repeat(11 + 19)
        )
    );
    // Nothing recorded: `Error` at 0.
    let unrecorded = compile("== 1").err().unwrap();
    assert_eq!(unrecorded.log_message(), "Error");
    assert_eq!(unrecorded.log_kind(), ErrorKind::Errno);
    assert_eq!(unrecorded.log_pos(), 0);
}
