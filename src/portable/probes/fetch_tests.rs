// SPDX-License-Identifier: GPL-2.0

//! Tests of the fetch argument parser against the kernel's grammar,
//! errors and caret offsets.

use super::*;
use ProbeErrorCode::*;

fn ctx(kind: ProbeKind, is_return: bool, at_func_entry: bool) -> ParseContext<'static> {
    ParseContext {
        kind,
        is_return,
        at_func_entry,
        previous: &[],
        param_max_stack: PARAM_MAX_STACK,
    }
}

fn kprobe() -> ParseContext<'static> {
    ctx(ProbeKind::Kprobe, false, true)
}

fn parse(word: &str, c: &ParseContext<'_>) -> ArgSpec {
    match parse_arg(word.as_bytes(), 0, c) {
        Ok(spec) => spec,
        Err(e) => panic!("{word}: {e:?}"),
    }
}

fn fails(word: &str, c: &ParseContext<'_>) -> (ProbeErrorCode, usize) {
    match parse_arg(word.as_bytes(), 0, c) {
        Ok(spec) => panic!("{word} parsed: {spec:?}"),
        Err(e) => (e.code, e.pos),
    }
}

fn ops(word: &str, c: &ParseContext<'_>) -> Vec<FetchOp> {
    parse(word, c).program().to_vec()
}

use FetchOp::*;

#[test]
fn a_register_is_stored_raw_as_x64() {
    let spec = parse("%di", &kprobe());
    assert_eq!(spec.name(), b"arg1");
    assert_eq!(spec.body(), b"%di");
    assert_eq!(spec.fetch_type, FetchType::X64);
    assert_eq!(spec.program(), &[Reg(112), StoreRaw { size: 8 }, End]);
    assert!(!spec.dynamic);
    assert_eq!(spec.size(), 8);
    assert_eq!(spec.field_type(), "u64");
}

#[test]
fn names_are_given_or_generated() {
    let spec = parse("count=%ax:u32", &kprobe());
    assert_eq!(spec.name(), b"count");
    assert_eq!(spec.body(), b"%ax:u32");
    let spec = parse_arg(b"%ax", 127, &kprobe()).unwrap();
    assert_eq!(spec.name(), b"arg128");
    let long = "abcdefghijabcdefghijabcdefghijab=%ax";
    assert_eq!(parse(long, &kprobe()).name().len(), 32);
}

#[test]
fn dereferences_nest() {
    let c = kprobe();
    assert_eq!(
        ops("+8(%di):u16", &c),
        [Reg(112), StoreMem { offset: 8, size: 2 }, End]
    );
    assert_eq!(
        ops("+u8(%di):u16", &c),
        [Reg(112), StoreUserMem { offset: 8, size: 2 }, End]
    );
    assert_eq!(
        ops("-8(+16(%sp)):s32", &c),
        [
            Reg(152),
            Deref(16),
            StoreMem {
                offset: -8,
                size: 4
            },
            End
        ]
    );
    assert_eq!(
        ops("-u8(+16(%sp)):s32", &c),
        [
            Reg(152),
            Deref(16),
            StoreUserMem {
                offset: -8,
                size: 4
            },
            End
        ]
    );
    // The kernel takes the last ')' and ignores what follows it.
    assert_eq!(
        ops("+0(%di)xyz", &c),
        [Reg(112), StoreMem { offset: 0, size: 8 }, End]
    );
    // The offset is the kernel's int.
    assert_eq!(
        ops("+0x100000008(%di):u8", &c),
        [Reg(112), StoreMem { offset: 8, size: 1 }, End]
    );
}

#[test]
fn memory_and_symbols() {
    let c = kprobe();
    assert_eq!(
        ops("@0x1000", &c),
        [Imm(0x1000), StoreMem { offset: 0, size: 8 }, End]
    );
    let spec = parse("@jiffies+8:u64", &c);
    assert_eq!(spec.text(), b"jiffies+8");
    assert_eq!(
        spec.program(),
        [Symbol, Imm(0), StoreMem { offset: 0, size: 8 }, End]
    );
    let u = ctx(ProbeKind::Uprobe, false, false);
    assert_eq!(
        ops("@+0x10:u32", &u),
        [FileOffset(0x10), StoreMem { offset: 0, size: 4 }, End]
    );
    assert_eq!(ops("@+-16:u32", &u)[0], FileOffset(-16i64 as u64));
}

struct Table;

impl SymbolLookup for Table {
    fn address_of(&self, name: &str) -> Option<u64> {
        (name == "jiffies").then_some(0xffff_ffff_8100_0000)
    }
}

#[test]
fn symbols_resolve_at_registration() {
    let c = kprobe();
    let mut spec = parse("@jiffies+8:u64", &c);
    assert_eq!(spec.resolve_symbols(&Table), Ok(()));
    assert_eq!(spec.code[1], Imm(0xffff_ffff_8100_0008));
    let mut spec = parse("@jiffies-0x10", &c);
    assert_eq!(spec.resolve_symbols(&Table), Ok(()));
    assert_eq!(spec.code[1], Imm(0xffff_ffff_80ff_fff0));
    let mut spec = parse("+4(@jiffies):u32", &c);
    assert_eq!(spec.resolve_symbols(&Table), Ok(()));
    assert_eq!(
        spec.program(),
        [
            Symbol,
            Imm(0xffff_ffff_8100_0000),
            Deref(0),
            StoreMem { offset: 4, size: 4 },
            End
        ]
    );
    let mut spec = parse("@nosuch", &c);
    assert_eq!(spec.resolve_symbols(&Table), Err(BadProbeAddr));
    let mut spec = parse("@jiffies+x", &c);
    assert_eq!(spec.resolve_symbols(&Table), Err(FailRegProbe));
    let mut spec = parse("@", &c);
    assert_eq!(spec.resolve_symbols(&Table), Err(BadProbeAddr));
}

#[test]
fn variables() {
    let c = kprobe();
    assert_eq!(ops("$stack", &c), [StackPointer, StoreRaw { size: 8 }, End]);
    assert_eq!(ops("$stack3", &c), [Stack(3), StoreRaw { size: 8 }, End]);
    assert_eq!(ops("$stack2048", &c)[0], Stack(2048));
    assert_eq!(ops("$arg1", &c), [Arg(0), StoreRaw { size: 8 }, End]);
    assert_eq!(ops("$arg7:u32", &c), [Arg(6), StoreRaw { size: 4 }, End]);
    let r = ctx(ProbeKind::Kprobe, true, true);
    assert_eq!(ops("$retval", &r), [RetVal, StoreRaw { size: 8 }, End]);
    // str_has_prefix: anything after "retval" is taken.
    assert_eq!(ops("$retvalue", &r)[0], RetVal);
    let spec = parse("$comm", &c);
    assert_eq!(spec.fetch_type, FetchType::String);
    assert!(spec.dynamic);
    assert_eq!(spec.program(), [Comm, StoreString { offset: 0 }, End]);
    assert_eq!(ops("$COMM:string", &c)[0], Comm);
    let u = ctx(ProbeKind::Uprobe, false, false);
    // No stack limit for uprobes; the index is the kernel's unsigned int.
    assert_eq!(ops("$stack99999", &u)[0], Stack(99999));
    assert_eq!(ops("$stack4294967297", &u)[0], Stack(1));
}

#[test]
fn return_probes_save_arguments_at_entry() {
    let r = ctx(ProbeKind::Kprobe, true, true);
    let first = parse("$arg2", &r);
    assert_eq!(first.program()[0], EntryData { arg: 1, offset: 0 });
    let previous = [first];
    let r2 = ParseContext {
        previous: &previous,
        ..r
    };
    let second = parse_arg(b"$arg1", 1, &r2).unwrap();
    assert_eq!(second.program()[0], EntryData { arg: 0, offset: 8 });
    let again = parse_arg(b"x=+0($arg2):u8", 1, &r2).unwrap();
    assert_eq!(again.program()[0], EntryData { arg: 1, offset: 0 });
    let both = [previous[0], second];
    assert_eq!(entry_data_size(&both), 16);
    assert_eq!(entry_data_size(&[parse("%ax", &r)]), 0);
    let f = ctx(ProbeKind::Fprobe, true, false);
    assert_eq!(ops("$arg1", &f)[0], EntryData { arg: 0, offset: 0 });
    let f = ctx(ProbeKind::Fprobe, false, false);
    assert_eq!(ops("$arg1", &f)[0], Arg(0));
    // A tracepoint probe's $arg1 is the stub's second argument.
    let t = ctx(ProbeKind::Tprobe, false, false);
    assert_eq!(ops("$arg1", &t)[0], Arg(1));
    assert_eq!(ops("$arg3", &t)[0], Arg(3));
    assert_eq!(fails("%ax", &t), (BadVar, 0));
}

#[test]
fn immediates() {
    let c = kprobe();
    assert_eq!(ops("\\123", &c), [Imm(123), StoreRaw { size: 8 }, End]);
    assert_eq!(ops("\\0x10:u8", &c), [Imm(16), StoreRaw { size: 1 }, End]);
    assert_eq!(ops("\\-1:s8", &c)[0], Imm(u64::MAX));
    assert_eq!(ops("\\+5", &c)[0], Imm(5));
    let spec = parse("\\\"hello world\"", &c);
    assert_eq!(spec.fetch_type, FetchType::String);
    assert_eq!(spec.text(), b"hello world");
    assert_eq!(spec.program(), [Data, StoreString { offset: 0 }, End]);
    assert_eq!(parse("s=\\\"a\":string", &c).text(), b"a");
    // An immediate address read as a string.
    assert_eq!(
        ops("\\0x1000:string", &c),
        [Imm(0x1000), StoreString { offset: 0 }, End]
    );
}

#[test]
fn strings() {
    let c = kprobe();
    assert_eq!(
        ops("+0(%di):string", &c),
        [Reg(112), StoreString { offset: 0 }, End]
    );
    assert_eq!(
        ops("+8(%di):ustring", &c),
        [Reg(112), StoreUserString { offset: 8 }, End]
    );
    assert_eq!(
        ops("+u0(%di):string", &c),
        [Reg(112), StoreUserString { offset: 0 }, End]
    );
    assert_eq!(
        ops("@0x1000:string", &c),
        [Imm(0x1000), StoreString { offset: 0 }, End]
    );
    assert_eq!(
        ops("%di:symstr", &c),
        [Reg(112), StoreSymstr { offset: 0 }, End]
    );
    assert_eq!(
        ops("+0(%di):symstr", &c),
        [Reg(112), Deref(0), StoreSymstr { offset: 0 }, End]
    );
    assert_eq!(ops("%di:symbol", &c), [Reg(112), StoreRaw { size: 8 }, End]);
    let spec = parse("+0(%di):string", &c);
    assert_eq!(spec.field_type(), "__data_loc char[]");
    assert_eq!(spec.size(), 4);
}

#[test]
fn bitfields_and_arrays() {
    let c = kprobe();
    assert_eq!(
        ops("+0(%di):b4@2/8", &c),
        [
            Reg(112),
            StoreMem { offset: 0, size: 1 },
            Bitfield {
                basesize: 1,
                lshift: 2,
                rshift: 4
            },
            End
        ]
    );
    assert_eq!(
        ops("%di:b1@31/32", &c),
        [
            Reg(112),
            StoreRaw { size: 4 },
            Bitfield {
                basesize: 4,
                lshift: 0,
                rshift: 31
            },
            End
        ]
    );
    let spec = parse("+0(%di):u8[4]", &c);
    assert_eq!(
        spec.program(),
        [Reg(112), StoreMem { offset: 0, size: 1 }, LoopArray(4), End]
    );
    assert_eq!(spec.field_type(), "u8[4]");
    assert_eq!(spec.size(), 4);
    let spec = parse("+0(%di):string[2]", &c);
    assert_eq!(
        spec.program(),
        [
            Reg(112),
            Deref(0),
            StoreString { offset: 0 },
            LoopArray(2),
            End
        ]
    );
    assert_eq!(spec.field_type(), "__data_loc char[][2]");
    assert_eq!(spec.size(), 8);
    // With an array, a user dereference keeps the kernel's string store.
    assert_eq!(
        ops("+u0(%di):string[2]", &c),
        [
            Reg(112),
            UserDeref(0),
            StoreString { offset: 0 },
            LoopArray(2),
            End
        ]
    );
    assert_eq!(
        ops("+0(%di):b4@0/8[3]", &c),
        [
            Reg(112),
            StoreMem { offset: 0, size: 1 },
            Bitfield {
                basesize: 1,
                lshift: 4,
                rshift: 4
            },
            LoopArray(3),
            End
        ]
    );
    assert_eq!(parse("+0(%di):x64[64]", &c).size(), 512);
}

#[test]
fn name_errors_point_at_the_word() {
    let c = kprobe();
    assert_eq!(
        fails("abcdefghijabcdefghijabcdefghijabc=%ax", &c),
        (ArgNameTooLong, 0)
    );
    assert_eq!(fails("=%ax", &c), (NoArgName, 0));
    assert_eq!(fails("1a=%ax", &c), (BadArgName, 0));
    assert_eq!(fails("a-b=%ax", &c), (BadArgName, 0));
    assert_eq!(fails("common_pid=%ax", &c), (UsedArgName, 0));
    assert_eq!(fails("__probe_ip=%ax", &c), (UsedArgName, 0));
    assert_eq!(fails("__probe_ret_ip=%ax", &c), (UsedArgName, 0));
    assert_eq!(fails("common_tgid=%ax", &c), (UsedArgName, 0));
    let previous = [parse("x=%ax", &c), parse("arg2=%di", &c)];
    let c2 = ParseContext {
        previous: &previous,
        ..c
    };
    assert_eq!(fails("x=%bx", &c2), (UsedArgName, 0));
    // The generated name "arg2" is taken.
    assert_eq!(
        parse_arg(b"%si", 1, &c2).map_err(|e| (e.code, e.pos)),
        Err((UsedArgName, 0))
    );
    // A bad name is reported before a bad body.
    assert_eq!(fails("1=$foo", &c), (BadArgName, 0));
}

#[test]
fn body_errors() {
    let c = kprobe();
    let long = format!("a={}", "1".repeat(64));
    assert_eq!(fails(&long, &c), (ArgTooLong, 2));
    assert_eq!(fails("a=", &c), (NoArgBody, 2));
    assert_eq!(fails("a=$foo", &c), (BadVar, 2));
    assert_eq!(fails("a=$retval", &c), (RetvalOnProbe, 2));
    assert_eq!(fails("$stack2049", &c), (BadStackNum, 0));
    assert_eq!(fails("$stackx", &c), (BadVar, 0));
    assert_eq!(fails("$stack1x", &c), (BadVar, 0));
    assert_eq!(fails("$arg0", &c), (BadArgNum, 0));
    assert_eq!(fails("$arg2049", &c), (BadArgNum, 0));
    assert_eq!(fails("$arg", &c), (BadVar, 0));
    assert_eq!(fails("$argx", &c), (BadVar, 0));
    assert_eq!(fails("$comm1", &c), (BadVar, 0));
    let not_entry = ctx(ProbeKind::Kprobe, false, false);
    assert_eq!(fails("v=$arg1", &not_entry), (NofentryArgs, 2));
    let u = ctx(ProbeKind::Uprobe, true, false);
    assert_eq!(fails("$arg1", &u), (NofentryArgs, 0));
    assert_eq!(fails("%rax", &c), (BadRegName, 0));
    assert_eq!(fails("a=%", &c), (BadRegName, 2));
    let f = ctx(ProbeKind::Fprobe, false, false);
    assert_eq!(fails("%ax", &f), (BadVar, 0));
    // Logged twice by the kernel: "no fetch method" follows.
    let e = parse_arg(b"r=%ax", 0, &f).unwrap_err();
    assert_eq!((e.code, e.pos, e.also), (BadVar, 2, Some(BadFetchArg)));
    assert_eq!(parse_arg(b"$foo", 0, &f).unwrap_err().also, None);
    assert_eq!(fails("@0xz", &c), (BadMemAddr, 0));
    assert_eq!(fails("@+10", &c), (FileOnKprobe, 0));
    let u = ctx(ProbeKind::Uprobe, false, false);
    assert_eq!(fails("@+zz", &u), (BadFileOffs, 0));
    assert_eq!(fails("a=@sym", &u), (SymOnUprobe, 2));
    assert_eq!(fails("+8%di", &c), (DerefNeedBrace, 0));
    assert_eq!(fails("+x(%di)", &c), (BadDerefOffs, 0));
    assert_eq!(fails("a=+8(%di", &c), (DerefOpenBrace, 8));
    assert_eq!(fails("+0($comm)", &c), (CommCantDeref, 3));
    assert_eq!(fails("+0(\\\"ab\")", &c), (CommCantDeref, 3));
    assert_eq!(fails("a=\\\"abc", &c), (ImmstrNoClose, 7));
    assert_eq!(fails("\\\"", &c), (ImmstrNoClose, 2));
    assert_eq!(fails("\\xyz", &c), (BadImm, 1));
    assert_eq!(fails("a=\\", &c), (BadImm, 3));
    assert_eq!(fails("(int)%di", &c), (NosupBtfarg, 0));
    assert_eq!(fails("a=foo", &c), (NosupBtfarg, 2));
    assert_eq!(fails("_x", &not_entry), (NosupBtfarg, 0));
    assert_eq!(fails("123", &c), (BadFetchArg, 0));
    assert_eq!(fails("a=+0()", &c), (BadFetchArg, 5));
    assert_eq!(fails(":u8", &c), (BadFetchArg, 0));
}

#[test]
fn errors_inside_dereferences_point_inside() {
    let c = kprobe();
    // "+8(" is three bytes: the inner argument starts at 3.
    assert_eq!(fails("+8(%rax)", &c), (BadRegName, 3));
    assert_eq!(fails("-8(%rax)", &c), (BadRegName, 3));
    assert_eq!(fails("+8(+16(%rax))", &c), (BadRegName, 7));
    // The kernel counts one byte too few after "+u" and "-u".
    assert_eq!(fails("+u8(%rax)", &c), (BadRegName, 3));
    assert_eq!(fails("-u8(%rax)", &c), (BadRegName, 3));
    assert_eq!(fails("a=+8($foo)", &c), (BadVar, 5));
    assert_eq!(fails("+8(+4(%di)", &c), (DerefOpenBrace, 9));
}

#[test]
fn type_errors() {
    let c = kprobe();
    assert_eq!(fails("%di:u128", &c), (BadType, 4));
    assert_eq!(fails("a=%di:xx", &c), (BadType, 6));
    assert_eq!(fails("%di:", &c), (BadType, 4));
    assert_eq!(fails("$comm:u8", &c), (NeedStringType, 6));
    assert_eq!(fails("$comm:string[2]", &c), (NeedStringType, 6));
    assert_eq!(fails("\\\"a\":u32", &c), (NeedStringType, 5));
    // The ':' inside an immediate string cuts it.
    assert_eq!(fails("\\\"a:b\"", &c), (NeedStringType, 4));
    assert_eq!(fails("+0(%di):u8[4", &c), (ArrayNoClose, 12));
    assert_eq!(fails("+0(%di):u8[4]x", &c), (BadArraySuffix, 13));
    assert_eq!(fails("+0(%di):u8[0]", &c), (BadArrayNum, 11));
    assert_eq!(fails("+0(%di):u8[x]", &c), (BadArrayNum, 11));
    assert_eq!(fails("+0(%di):u8[65]", &c), (ArrayTooBig, 11));
    assert_eq!(fails("%di:string", &c), (BadString, 4));
    assert_eq!(fails("$stack:string", &c), (BadString, 7));
    assert_eq!(fails("%di:u8[2]", &c), (BadString, 4));
    // After a dereference the kernel's caret is off by its prefix.
    assert_eq!(fails("+u0(%di):u8[2]", &c), (BadString, 12));
    assert_eq!(fails("+0(%di):symstr[2]", &c), (BadString, 11));
    assert_eq!(fails("\\1:symstr", &c), (BadSymstring, 3));
    assert_eq!(fails("$stack:symstr", &c), (BadSymstring, 7));
    assert_eq!(fails("+u0(%di):symstr", &c), (BadSymstring, 12));
    let r = ctx(ProbeKind::Kprobe, true, true);
    assert_eq!(fails("$arg1:symstr", &r), (BadSymstring, 6));
    let u = ctx(ProbeKind::Uprobe, false, false);
    assert_eq!(fails("%ax:symbol", &u), (BadType, 4));
    assert_eq!(fails("%ax:symstr", &u), (BadType, 4));
    assert_eq!(fails("%di:b4@6/8", &c), (BadBitfield, 4));
    assert_eq!(fails("%di:b4/8", &c), (BadBitfield, 4));
    assert_eq!(fails("%di:b4@/8", &c), (BadBitfield, 4));
    assert_eq!(fails("%di:b0@0/8", &c), (BadBitfield, 4));
    assert_eq!(fails("%di:b9@0/8", &c), (BadBitfield, 4));
    assert_eq!(fails("+0(%di):b9@0/8", &c), (BadBitfield, 11));
    assert_eq!(fails("%di:b4@0/12", &c), (BadType, 4));
}

fn nested(depth: usize, leaf: &str) -> String {
    format!("{}{leaf}{}", "+0(".repeat(depth), ")".repeat(depth))
}

#[test]
fn programs_hold_sixteen_steps() {
    let c = kprobe();
    let spec = parse(&nested(14, "%di"), &c);
    assert_eq!(spec.program().len(), FETCH_INSN_MAX);
    assert_eq!(fails(&nested(15, "%di"), &c), (TooManyOps, 3));
    // '@' takes two steps.
    assert_eq!(parse(&nested(13, "@1"), &c).program().len(), FETCH_INSN_MAX);
    assert_eq!(
        fails(&format!("{}:symstr", nested(13, "@1")), &c),
        (TooManyOps, 3)
    );
}

#[test]
fn events_hold_3072_bytes_of_arguments() {
    let c = kprobe();
    let mut previous = Vec::new();
    for i in 0..6 {
        let ctx = ParseContext {
            previous: &previous,
            ..c
        };
        let spec = parse_arg(b"+0(%di):x64[64]", i, &ctx).unwrap();
        assert_eq!(spec.offset, i * 512);
        previous.push(spec);
    }
    assert_eq!(args_size(&previous), 3072);
    let full = ParseContext {
        previous: &previous,
        ..c
    };
    let e = parse_arg(b"a=%di:u8", 6, &full).unwrap_err();
    assert_eq!((e.code, e.pos), (EventTooBig, 2));
}

#[test]
fn comparing_and_matching_arguments() {
    let c = kprobe();
    let a = parse("x=+0(%di):b4@0/8", &c);
    let b = parse("x=%ax:u8", &c);
    assert!(a.same_type(&b));
    assert!(!a.same_type(&parse("y=%ax:u8", &c)));
    assert!(!a.same_type(&parse("x=%ax:s8", &c)));
    assert!(a.matches_word(b"x=+0(%di):b4@0/8"));
    assert!(!a.matches_word(b"x=+0(%di)"));
    assert!(!a.matches_word(b"x"));
    let generated = parse("%ax", &c);
    assert!(generated.matches_word(b"arg1=%ax"));
}

#[test]
fn good_names() {
    assert!(is_good_name(b"_a1"));
    assert!(is_good_name(b"\xe9t\xe9"));
    assert!(!is_good_name(b"\xd7"));
    assert!(!is_good_name(b""));
    assert!(!is_good_name(b"a.b"));
}

/// Where a reference word was written in the kernel.
#[derive(Clone, Copy)]
enum Where {
    KprobeEntry,
    Kretprobe,
    Uprobe,
}
const KPROBE_ENTRY: Where = Where::KprobeEntry;
const KRETPROBE: Where = Where::Kretprobe;
const UPROBE: Where = Where::Uprobe;

/// Words written to the test kernel's own `kprobe_events` and
/// `uprobe_events` (`p:kprobes/t vfs_read WORD`, `r:kprobes/t vfs_read
/// WORD`, `p:uprobes/t /bin/sh:0x1000 WORD`) and what its `error_log`
/// said: the message and the caret's offset in the word (`None`: taken).
const KERNEL_REFERENCE: &[(Where, &str, Option<(&str, usize)>)] = &[
    (KPROBE_ENTRY, "%rax", Some(("Invalid register name", 0))),
    (KPROBE_ENTRY, "a=%", Some(("Invalid register name", 2))),
    (KPROBE_ENTRY, "@0xz", Some(("Invalid memory address", 0))),
    (
        KPROBE_ENTRY,
        "@+10",
        Some(("File offset is not available with kprobe", 0)),
    ),
    (
        KPROBE_ENTRY,
        "+8%di",
        Some(("Dereference needs a brace", 0)),
    ),
    (
        KPROBE_ENTRY,
        "+x(%di)",
        Some(("Invalid dereference offset", 0)),
    ),
    (
        KPROBE_ENTRY,
        "a=+8(%di",
        Some(("Dereference brace is not closed", 8)),
    ),
    (
        KPROBE_ENTRY,
        "+0($comm)",
        Some(("$comm can not be dereferenced", 3)),
    ),
    (
        KPROBE_ENTRY,
        "a=\\\"abc",
        Some(("String is not closed with '\"'", 7)),
    ),
    (KPROBE_ENTRY, "\\xyz", Some(("Invalid immediate value", 1))),
    (KPROBE_ENTRY, "a=\\", Some(("Invalid immediate value", 3))),
    (
        KPROBE_ENTRY,
        "(int)%di",
        Some(("BTF is not available or not supported", 0)),
    ),
    (
        KPROBE_ENTRY,
        "a=foo",
        Some(("BTF is not available or not supported", 2)),
    ),
    (KPROBE_ENTRY, "123", Some(("Invalid fetch argument", 0))),
    (KPROBE_ENTRY, "a=+0()", Some(("Invalid fetch argument", 5))),
    (KPROBE_ENTRY, ":u8", Some(("Invalid fetch argument", 0))),
    (KPROBE_ENTRY, "+8(%rax)", Some(("Invalid register name", 3))),
    (
        KPROBE_ENTRY,
        "+u8(%rax)",
        Some(("Invalid register name", 3)),
    ),
    (
        KPROBE_ENTRY,
        "-u8(%rax)",
        Some(("Invalid register name", 3)),
    ),
    (
        KPROBE_ENTRY,
        "a=+8($foo)",
        Some(("Invalid $-variable specified", 5)),
    ),
    (
        KPROBE_ENTRY,
        "+8(+4(%di)",
        Some(("Dereference brace is not closed", 9)),
    ),
    (
        KPROBE_ENTRY,
        "%di:u128",
        Some(("Unknown type is specified", 4)),
    ),
    (KPROBE_ENTRY, "%di:", Some(("Unknown type is specified", 4))),
    (
        KPROBE_ENTRY,
        "$comm:u8",
        Some(("$comm and immediate-string only accepts string type", 6)),
    ),
    (
        KPROBE_ENTRY,
        "$comm:string[2]",
        Some(("$comm and immediate-string only accepts string type", 6)),
    ),
    (
        KPROBE_ENTRY,
        "\\\"a\":u32",
        Some(("$comm and immediate-string only accepts string type", 5)),
    ),
    (
        KPROBE_ENTRY,
        "\\\"a:b\"",
        Some(("$comm and immediate-string only accepts string type", 4)),
    ),
    (
        KPROBE_ENTRY,
        "+0(%di):u8[4",
        Some(("Array is not closed", 12)),
    ),
    (
        KPROBE_ENTRY,
        "+0(%di):u8[4]x",
        Some(("Array has wrong suffix", 13)),
    ),
    (
        KPROBE_ENTRY,
        "+0(%di):u8[0]",
        Some(("Invalid array size", 11)),
    ),
    (
        KPROBE_ENTRY,
        "+0(%di):u8[65]",
        Some(("Array number is too big", 11)),
    ),
    (
        KPROBE_ENTRY,
        "%di:string",
        Some(("String accepts only memory argument", 4)),
    ),
    (
        KPROBE_ENTRY,
        "%di:u8[2]",
        Some(("String accepts only memory argument", 4)),
    ),
    (
        KPROBE_ENTRY,
        "+u0(%di):u8[2]",
        Some(("String accepts only memory argument", 12)),
    ),
    (
        KPROBE_ENTRY,
        "+0(%di):symstr[2]",
        Some(("String accepts only memory argument", 11)),
    ),
    (
        KPROBE_ENTRY,
        "\\1:symstr",
        Some(("Symbol String doesn't accept data/userdata", 3)),
    ),
    (
        KPROBE_ENTRY,
        "+u0(%di):symstr",
        Some(("Symbol String doesn't accept data/userdata", 12)),
    ),
    (KPROBE_ENTRY, "%di:b4@6/8", Some(("Invalid bitfield", 4))),
    (KPROBE_ENTRY, "%di:b4/8", Some(("Invalid bitfield", 4))),
    (
        KPROBE_ENTRY,
        "+0(%di):b9@0/8",
        Some(("Invalid bitfield", 11)),
    ),
    (
        KPROBE_ENTRY,
        "%di:b4@0/12",
        Some(("Unknown type is specified", 4)),
    ),
    (
        KPROBE_ENTRY,
        "+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(%di)))))))))))))))",
        Some(("Dereference is too much nested", 3)),
    ),
    (
        KPROBE_ENTRY,
        "+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(@1))))))))))))):symstr",
        Some(("Dereference is too much nested", 3)),
    ),
    (
        KPROBE_ENTRY,
        "$stack2049",
        Some(("Invalid stack number", 0)),
    ),
    (
        KPROBE_ENTRY,
        "$stack1x",
        Some(("Invalid $-variable specified", 0)),
    ),
    (KPROBE_ENTRY, "$arg0", Some(("Invalid argument number", 0))),
    (
        KPROBE_ENTRY,
        "$arg",
        Some(("Invalid $-variable specified", 0)),
    ),
    (KPROBE_ENTRY, "v=$arg1", None),
    (
        KPROBE_ENTRY,
        "$retval",
        Some(("$retval is not available on probe", 0)),
    ),
    (
        KPROBE_ENTRY,
        "abcdefghijabcdefghijabcdefghijabc=%ax",
        Some(("Argument name is too long", 0)),
    ),
    (
        KPROBE_ENTRY,
        "=%ax",
        Some(("Argument name is not specified", 0)),
    ),
    (
        KPROBE_ENTRY,
        "1a=%ax",
        Some((
            "Argument name must follow the same rules as C identifiers",
            0,
        )),
    ),
    (
        KPROBE_ENTRY,
        "common_pid=%ax",
        Some(("This argument name is already used", 0)),
    ),
    (
        KPROBE_ENTRY,
        "1=$foo",
        Some((
            "Argument name must follow the same rules as C identifiers",
            0,
        )),
    ),
    (
        KPROBE_ENTRY,
        "a=1111111111111111111111111111111111111111111111111111111111111111",
        Some(("Argument expression is too long", 2)),
    ),
    (KPROBE_ENTRY, "a=", Some(("No argument expression", 2))),
    (KPROBE_ENTRY, "+0(%di)xyz", None),
    (
        KPROBE_ENTRY,
        "$retvalue",
        Some(("$retval is not available on probe", 0)),
    ),
    (KPROBE_ENTRY, "v=$arg1", None),
    (KPROBE_ENTRY, "$arg1", None),
    (
        KRETPROBE,
        "$arg1:symstr",
        Some(("Symbol String doesn't accept data/userdata", 6)),
    ),
    (KRETPROBE, "$retvalx", None),
    (UPROBE, "@+zz", Some(("Invalid file offset value", 0))),
    (
        UPROBE,
        "a=@sym",
        Some(("Symbol is not available with uprobe", 2)),
    ),
    (UPROBE, "%ax:symbol", Some(("Unknown type is specified", 4))),
    (
        UPROBE,
        "$arg1",
        Some(("$arg* can be used only on function entry or exit", 0)),
    ),
    (UPROBE, "$stack99999", None),
];

#[test]
fn words_the_kernel_took_or_refused() {
    for &(place, word, expected) in KERNEL_REFERENCE {
        let c = match place {
            Where::KprobeEntry => kprobe(),
            Where::Kretprobe => ctx(ProbeKind::Kprobe, true, true),
            Where::Uprobe => ctx(ProbeKind::Uprobe, false, false),
        };
        let got = parse_arg(word.as_bytes(), 0, &c)
            .err()
            .map(|e| (e.code.message(), e.pos));
        assert_eq!(got, expected, "{word}");
    }
}

#[test]
fn arg_star_fails_on_its_own_after_the_meta_argument_notice() {
    // The kernel logs "BTF is not available or not supported" (the
    // meta-argument step, `command::check_meta_args`) and then, parsing
    // the word, "Invalid $-variable specified", both at 0.
    assert_eq!(fails("$arg*", &kprobe()), (BadVar, 0));
}

#[test]
fn the_stack_limit_is_the_kernels_thread_size() {
    let kasan = ParseContext {
        param_max_stack: 32768 / 8,
        ..kprobe()
    };
    assert_eq!(ops("$stack4096", &kasan)[0], Stack(4096));
    assert_eq!(fails("$stack4097", &kasan), (BadStackNum, 0));
    assert_eq!(ops("$arg4096", &kasan)[0], Arg(4095));
    assert_eq!(fails("$arg4097", &kasan), (BadArgNum, 0));
}
