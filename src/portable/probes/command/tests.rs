// SPDX-License-Identifier: GPL-2.0

//! Host tests of the command grammar: every branch and every error, with
//! the caret where the kernel's `__trace_probe_log_err()` puts it (the
//! lengths of the earlier words plus one space each, plus the offset in the
//! word).

use super::*;
use crate::portable::probes::listing::{KprobeAt, ListedPlace, NoArgs, ProbeArgs};
use crate::portable::probes::place::{FileLookup, FunctionEntry, SymbolCount};

/// A resolver with fixed answers that records what it was asked.
struct Kernel {
    count: SymbolCount,
    entry: FunctionEntry,
    file: FileLookup,
    fprobe: bool,
    asked: Vec<String>,
}

impl Kernel {
    fn new() -> Self {
        Kernel {
            count: SymbolCount::Unique,
            entry: FunctionEntry::Entry,
            file: FileLookup::Regular,
            fprobe: false,
            asked: Vec::new(),
        }
    }
}

impl PlaceResolver for Kernel {
    fn count_symbol(&mut self, symbol: &[u8]) -> SymbolCount {
        self.asked
            .push(format!("count {}", String::from_utf8_lossy(symbol)));
        self.count
    }
    fn function_entry(&mut self, symbol: &[u8], offset: u32) -> FunctionEntry {
        self.asked.push(format!(
            "entry {}+{offset}",
            String::from_utf8_lossy(symbol)
        ));
        self.entry
    }
    fn find_file(&mut self, path: &[u8]) -> FileLookup {
        self.asked
            .push(format!("file {}", String::from_utf8_lossy(path)));
        self.file
    }
    fn has_fprobe_events(&self) -> bool {
        self.fprobe
    }
}

fn parse(line: &str, source: Source) -> Result<Command, CommandError> {
    parse_command(line.as_bytes(), source, &mut Kernel::new())
}

fn add(line: &str, source: Source) -> ProbeCommand {
    match parse(line, source) {
        Ok(Command::Add(p)) => p,
        other => panic!("{line:?}: {other:?}"),
    }
}

fn add_with(line: &str, source: Source, k: &mut Kernel) -> ProbeCommand {
    match parse_command(line.as_bytes(), source, k) {
        Ok(Command::Add(p)) => p,
        other => panic!("{line:?}: {other:?}"),
    }
}

/// The error of `line`: (subsystem, code, caret, errno).
fn error_with(
    line: &str,
    source: Source,
    k: &mut Kernel,
) -> (Subsystem, ProbeErrorCode, usize, i32) {
    match parse_command(line.as_bytes(), source, k) {
        Err(CommandError {
            errno,
            log:
                Some(LoggedError {
                    subsystem,
                    message: LogMessage::Probe(code),
                    pos,
                    text: LoggedText::Words,
                }),
        }) => (subsystem, code, pos, errno),
        other => panic!("{line:?}: {other:?}"),
    }
}

fn error(line: &str, source: Source) -> (Subsystem, ProbeErrorCode, usize, i32) {
    error_with(line, source, &mut Kernel::new())
}

fn kerr(code: ProbeErrorCode, pos: usize) -> (Subsystem, ProbeErrorCode, usize, i32) {
    (Subsystem::TraceKprobe, code, pos, EINVAL)
}

fn uerr(code: ProbeErrorCode, pos: usize) -> (Subsystem, ProbeErrorCode, usize, i32) {
    (Subsystem::TraceUprobe, code, pos, EINVAL)
}

fn ferr(code: ProbeErrorCode, pos: usize) -> (Subsystem, ProbeErrorCode, usize, i32) {
    (Subsystem::TraceFprobe, code, pos, EINVAL)
}

fn silent(errno: i32) -> Result<Command, CommandError> {
    Err(CommandError { errno, log: None })
}

fn no_matching_type() -> Result<Command, CommandError> {
    Err(CommandError {
        errno: EINVAL,
        log: Some(LoggedError {
            subsystem: Subsystem::Dynevent,
            message: LogMessage::NoMatchingType,
            pos: 0,
            text: LoggedText::Raw,
        }),
    })
}

fn name(n: &Name) -> &str {
    core::str::from_utf8(n.as_bytes()).unwrap()
}

fn event_name(line: &str, p: &ProbeCommand) -> String {
    String::from_utf8(
        p.event_name(line.as_bytes(), b"00000000c0ffee00")
            .as_bytes()
            .to_vec(),
    )
    .unwrap()
}

fn many_args(head: &str, n: usize) -> String {
    let mut s = head.to_string();
    for i in 0..n {
        s.push_str(&format!(" a{i}=%di"));
    }
    s
}

use ProbeErrorCode as E;
use Source::{DynamicEvents as Dyn, KprobeEvents as Kp, UprobeEvents as Up};

#[test]
fn words_split_as_argv_split() {
    let line = b"  p:e\tvfs_read\xa0a=1\x0b\x0cb=2  ";
    let words: Vec<(usize, &[u8])> = Words::new(line).collect();
    assert_eq!(
        words,
        vec![
            (2, &b"p:e"[..]),
            (6, b"vfs_read"),
            (15, b"a=1"),
            (20, b"b=2")
        ]
    );
    // A comment and a NUL end the line.
    assert_eq!(Words::new(b"p:e f # a=1").count(), 2);
    assert_eq!(Words::new(b"p:e f\0a=1").count(), 2);
    assert_eq!(command_text(b"p # x"), b"p ");
}

#[test]
fn logged_command_and_carets() {
    let line = b"  p:e \t vfs_read  a=1 ";
    assert_eq!(logged_len(line), 16);
    let mut s = String::new();
    write_logged_command(line, &mut s).unwrap();
    assert_eq!(s, "p:e vfs_read a=1");
    let mut buf = [0u8; 32];
    assert_eq!(copy_logged_command(line, &mut buf), 16);
    assert_eq!(&buf[..16], b"p:e vfs_read a=1");
    let mut small = [0u8; 5];
    assert_eq!(copy_logged_command(line, &mut small), 5);
    assert_eq!(&small, b"p:e v");
    assert_eq!(logged_position(line, 0, 2), 2);
    assert_eq!(logged_position(line, 1, 3), 7);
    assert_eq!(logged_position(line, 2, 0), 13);
    // Past the last word: all words and a space each, the offset ignored.
    assert_eq!(logged_position(line, 3, 7), 17);
    assert_eq!(logged_len(b"   "), 0);
}

#[test]
fn empty_lines() {
    for source in [Kp, Up, Dyn] {
        assert_eq!(parse("", source), Ok(Command::Empty));
        assert_eq!(parse(" \t ", source), Ok(Command::Empty));
        assert_eq!(parse("# p:e vfs_read", source), Ok(Command::Empty));
    }
}

#[test]
fn kprobe_commands() {
    let line = "p:myprobe vfs_read a=%di +8(%si):u32";
    let p = add(line, Kp);
    assert_eq!(p.kind, ProbeKind::Kprobe);
    assert_eq!(name(&p.group), "kprobes");
    assert_eq!(p.event.as_ref().map(name), Some("myprobe"));
    assert_eq!(
        p.place,
        Place::Symbol {
            symbol: 10..18,
            offset: 0
        }
    );
    assert_eq!(p.maxactive, 0);
    assert!(p.flags.kernel && p.flags.fentry && !p.flags.is_return);
    assert_eq!(p.nr_args, 2);
    assert_eq!(p.subsystem(), Subsystem::TraceKprobe);
    let args: Vec<ArgWord<'_>> = p.args(line.as_bytes()).collect();
    assert_eq!(
        args,
        vec![
            ArgWord {
                index: 0,
                text: b"a=%di",
                logged_offset: 19
            },
            ArgWord {
                index: 1,
                text: b"+8(%si):u32",
                logged_offset: 25
            },
        ]
    );
    assert_eq!(p.notice, None);

    // The same in dynamic_events.
    assert_eq!(add(line, Dyn), p);

    let p = add("r:grp/ev vfs_read", Kp);
    assert_eq!(p.kind, ProbeKind::Kretprobe);
    assert_eq!(
        (name(&p.group), p.event.as_ref().map(name)),
        ("grp", Some("ev"))
    );
    assert!(p.flags.is_return && !p.flags.fentry);

    let p = add("p:grp.ev vfs_read%return", Kp);
    assert_eq!(p.kind, ProbeKind::Kretprobe);
    assert_eq!(name(&p.group), "grp");

    // Offsets and generated names.
    let line = "p vfs_read+16";
    let p = add(line, Kp);
    assert_eq!(p.event, None);
    assert_eq!(
        p.place,
        Place::Symbol {
            symbol: 2..10,
            offset: 16
        }
    );
    assert_eq!(event_name(line, &p), "p_vfs_read_16");
    let line = "r ext4:ext4_sync_fs";
    assert_eq!(event_name(line, &add(line, Kp)), "r_ext4_ext4_sync_fs_0");
    let line = "p:grp/ 0xffffffff81000000";
    let p = add(line, Kp);
    assert_eq!(p.place, Place::Address(0xffff_ffff_8100_0000));
    assert_eq!(name(&p.group), "grp");
    assert_eq!(event_name(line, &p), "p_0x00000000c0ffee00");
    // An address probe gets no entry or return flag.
    let p = add("r 0x1000", Kp);
    assert_eq!(p.kind, ProbeKind::Kretprobe);
    assert!(!p.flags.is_return && !p.flags.fentry);

    // A word with a ':' after other bytes: the event is after the first ':'
    // past the first byte, whatever is before it.
    let p = add("pfoo:bar vfs_read", Kp);
    assert_eq!(p.event.as_ref().map(name), Some("bar"));
    let p = add("rxyz vfs_read", Kp);
    assert_eq!((p.event, p.maxactive), (None, 0));
}

#[test]
fn kprobe_asks_the_kernel_in_its_order() {
    let mut k = Kernel::new();
    add_with("r:e mod:func+4", Kp, &mut k);
    assert_eq!(k.asked, vec!["count mod:func", "entry mod:func+4"]);
    let mut k = Kernel::new();
    add_with("p:e 4096", Kp, &mut k);
    assert!(k.asked.is_empty());
}

#[test]
fn maxactive() {
    assert_eq!(add("r100:e vfs_read", Kp).maxactive, 100);
    assert_eq!(add("r0x10 vfs_read", Kp).maxactive, 16);
    assert_eq!(add("r010:e vfs_read", Kp).maxactive, 8);
    assert_eq!(add("r4096 vfs_read", Kp).maxactive, 4096);
    assert_eq!(add("r5 vfs_read%return", Kp).maxactive, 5);
    assert_eq!(error("p5:e vfs_read", Kp), kerr(E::BadMaxactType, 1));
    assert_eq!(error("r0:e vfs_read", Kp), kerr(E::BadMaxact, 1));
    assert_eq!(error("r1x vfs_read", Kp), kerr(E::BadMaxact, 1));
    assert_eq!(error("r4294967296 vfs_read", Kp), kerr(E::BadMaxact, 1));
    assert_eq!(error("r4097:e vfs_read", Kp), kerr(E::MaxactTooBig, 1));
    let long = format!("r{}:e vfs_read", "1".repeat(64));
    assert_eq!(error(&long, Kp), kerr(E::BadMaxact, 1));
    // Maxactive is checked before the place: even for another parser's.
    assert_eq!(error("p5 /bin/sh:1", Dyn), kerr(E::BadMaxactType, 1));
}

#[test]
fn kprobe_place_errors_at_word_one() {
    assert_eq!(error("p:e vfs_read%ret", Kp), kerr(E::BadAddrSuffix, 4 + 8));
    assert_eq!(error("p:e vfs_read-8", Kp), kerr(E::BadProbeAddr, 4));
    assert_eq!(
        error("p:e vfs_read+0x100000000", Kp),
        kerr(E::BadProbeAddr, 4)
    );
    let mut k = Kernel::new();
    k.count = SymbolCount::NotUnique;
    assert_eq!(error_with("p:e dup", Kp, &mut k), kerr(E::NonUniqSymbol, 4));
    let mut k = Kernel::new();
    k.count = SymbolCount::Missing;
    // The place is checked before the name.
    assert_eq!(
        error_with("p:1bad nosuch", Kp, &mut k),
        kerr(E::BadProbeAddr, 7)
    );
    let mut k = Kernel::new();
    k.entry = FunctionEntry::NotEntry;
    assert_eq!(
        error_with("r:e vfs_read+8", Kp, &mut k),
        kerr(E::BadRetprobe, 4)
    );
    assert_eq!(
        error_with("p:e vfs_read+8%return", Kp, &mut k),
        kerr(E::BadRetprobe, 4)
    );
    let p = add_with("p:e vfs_read+8", Kp, &mut k);
    assert!(!p.flags.fentry);
}

#[test]
fn event_name_errors_at_word_zero() {
    assert_eq!(error("p: vfs_read", Kp), kerr(E::NoEventName, 2));
    assert_eq!(error("p:/e vfs_read", Kp), kerr(E::NoGroupName, 2));
    assert_eq!(error("p:1g/e vfs_read", Kp), kerr(E::BadGroupName, 2));
    assert_eq!(error("p:g/1e vfs_read", Kp), kerr(E::BadEventName, 4));
    assert_eq!(error("r16:g/1e vfs_read", Kp), kerr(E::BadEventName, 6));
    let long = format!("p:{} vfs_read", "e".repeat(64));
    assert_eq!(error(&long, Kp), kerr(E::EventTooLong, 2));
    let long = format!("p:{}/e vfs_read", "g".repeat(64));
    assert_eq!(error(&long, Kp), kerr(E::GroupTooLong, 2));
    let ok = format!("p:{}/{} vfs_read", "g".repeat(63), "e".repeat(63));
    assert_eq!(add(&ok, Kp).event.map(|e| e.as_bytes().len()), Some(63));
    assert_eq!(error("p:e-v vfs_read", Kp), kerr(E::BadEventName, 2));
    assert_eq!(add("p:g-1/e vfs_read", Kp).group.as_bytes(), b"g-1");
}

#[test]
fn too_many_args() {
    let p = add(&many_args("p:e vfs_read", MAX_TRACE_ARGS), Kp);
    assert_eq!(p.nr_args, 128);
    assert_eq!(
        error(&many_args("p:e vfs_read", 129), Kp),
        (Subsystem::TraceKprobe, E::TooManyArgs, 4 + 9, E2BIG)
    );
    // Names come first.
    assert_eq!(
        error(&many_args("p:1 vfs_read", 129), Kp),
        kerr(E::BadEventName, 2)
    );
    // The uprobe parser counts before it looks at the place.
    assert_eq!(
        error(&many_args("p:e nofile", 129), Up),
        (Subsystem::TraceUprobe, E::TooManyArgs, 4 + 7, E2BIG)
    );
    let mut k = Kernel::new();
    k.fprobe = true;
    assert_eq!(
        error_with(&many_args("f:e vfs_read", 129), Dyn, &mut k),
        (Subsystem::TraceFprobe, E::TooManyArgs, 4 + 9, E2BIG)
    );
}

#[test]
fn meta_args() {
    // `$arg*` without BTF: logged, yet the command goes on.
    let p = add("p:e vfs_read $arg*", Kp);
    assert_eq!(
        p.notice,
        Some(LoggedError {
            subsystem: Subsystem::TraceKprobe,
            message: LogMessage::Probe(E::NosupBtfarg),
            pos: 13,
            text: LoggedText::Words,
        })
    );
    // At the last `$arg` word.
    assert_eq!(
        add("p:e vfs_read $arg* $arg2", Kp).notice.map(|n| n.pos),
        Some(19)
    );
    assert_eq!(add("p:e vfs_read $arg1", Kp).notice, None);
    assert_eq!(add("r:e vfs_read $arg1", Kp).notice, None);
    assert_eq!(error("p:e 0x1000 $arg1", Kp), kerr(E::NofentryArgs, 11));
    let mut k = Kernel::new();
    k.entry = FunctionEntry::NotEntry;
    assert_eq!(
        error_with("p:e f+4 $arg1", Kp, &mut k),
        kerr(E::NofentryArgs, 8)
    );
    assert_eq!(error("p:e vfs_read $argx", Kp), kerr(E::BadVar, 13));
    assert_eq!(error("p:e vfs_read $arg", Kp), kerr(E::BadVar, 13));
    assert_eq!(
        error("p:e vfs_read $arg* a=1 $arg*", Kp),
        kerr(E::DoubleArgs, 23)
    );
    // Uprobes do not look.
    assert_eq!(add("p:e /bin/sh:1 $arg*", Up).notice, None);
}

#[test]
fn other_parsers_commands() {
    // kprobe_events: what the kprobe parser cancels is EINVAL, not logged.
    assert_eq!(parse("p:e /bin/sh:0x10", Kp), silent(EINVAL));
    assert_eq!(parse("f:e vfs_read", Kp), silent(EINVAL));
    assert_eq!(parse("p:e", Kp), silent(EINVAL));
    assert_eq!(parse("x vfs_read", Kp), silent(EINVAL));
    assert_eq!(parse(" -:e", Kp), silent(EINVAL));
    // uprobe_events: the same for the uprobe parser.
    assert_eq!(parse("p:e vfs_read", Up), silent(EINVAL));
    assert_eq!(parse("p:e /bin/sh", Up), silent(EINVAL));
    assert_eq!(parse("p:e /bin/sh:x1", Up), silent(EINVAL));
    assert_eq!(parse("p:e", Up), silent(EINVAL));
    // dynamic_events: no parser took it.
    assert_eq!(parse("x vfs_read", Dyn), no_matching_type());
    assert_eq!(parse("p:e", Dyn), no_matching_type());
    assert_eq!(parse("p:e /bin/sh:x1", Dyn), no_matching_type());
    assert_eq!(parse(" -:e", Dyn), no_matching_type());
    assert_eq!(parse("f:e vfs_read", Dyn), no_matching_type());
    assert_eq!(parse("e:e sched.sched_switch", Dyn), no_matching_type());
    // A kprobe place without ':' is the kprobe parser's.
    let mut k = Kernel::new();
    k.count = SymbolCount::Missing;
    assert_eq!(
        error_with("p:e /bin/sh", Dyn, &mut k),
        kerr(E::BadProbeAddr, 4)
    );
}

#[test]
fn uprobe_commands() {
    let line = "p:e /bin/sh:0x10 %ax";
    let p = add(line, Up);
    assert_eq!(p.kind, ProbeKind::Uprobe);
    assert_eq!(name(&p.group), "uprobes");
    assert_eq!(
        p.place,
        Place::File {
            path: 4..11,
            offset: 16,
            ref_ctr_offset: 0
        }
    );
    assert!(p.flags.user && !p.flags.kernel && !p.flags.is_return);
    assert_eq!(p.subsystem(), Subsystem::TraceUprobe);
    assert_eq!(p.nr_args, 1);
    assert_eq!(add(line, Dyn), p);

    let line = "r /bin/sh:10";
    let p = add(line, Up);
    assert_eq!(p.kind, ProbeKind::Uretprobe);
    assert!(p.flags.is_return);
    // Always "p_", a return probe too.
    assert_eq!(event_name(line, &p), "p_sh_0xa");
    let p = add("p:g/e /bin/sh:0x10%return(0x8)", Up);
    assert_eq!(p.kind, ProbeKind::Uretprobe);
    assert_eq!(
        p.place,
        Place::File {
            path: 6..13,
            offset: 16,
            ref_ctr_offset: 8
        }
    );
    // Only "p:"/"r:" name the event: "r5:e" does not, and has no maxactive.
    let line = "r5:e /usr/lib/libc.so.6:0x40";
    let p = add(line, Up);
    assert_eq!((p.event, p.maxactive), (None, 0));
    assert_eq!(event_name(line, &p), "p_libc_0x40");
    assert_eq!(add("pxyz /bin/sh:1", Up).event, None);
    // dynamic_events: the kprobe parser reads maxactive, then cancels.
    assert_eq!(add("r5:e /bin/sh:1", Dyn).kind, ProbeKind::Uretprobe);
}

#[test]
fn uprobe_errors() {
    assert_eq!(error("p:e /bin/sh:1z", Up), uerr(E::BadUprobeOffs, 4 + 8));
    assert_eq!(
        error("p:e /bin/sh:99999999999999999999", Up),
        (Subsystem::TraceUprobe, E::BadUprobeOffs, 12, 34)
    );
    assert_eq!(
        error("p:e /bin/sh:1%ret", Up),
        uerr(E::BadAddrSuffix, 4 + 9)
    );
    assert_eq!(
        error("p:e /bin/sh:1(2", Up),
        uerr(E::RefcntOpenBrace, 4 + 11)
    );
    assert_eq!(
        error("p:e /bin/sh:1(2)x", Up),
        uerr(E::BadRefcntSuffix, 4 + 12)
    );
    assert_eq!(error("p:e /bin/sh:1(x)", Up), uerr(E::BadRefcnt, 4 + 10));
    let mut k = Kernel::new();
    k.file = FileLookup::Failed(ENOENT);
    // The file is looked up first, before the name and the offset.
    assert_eq!(
        error_with("p:1e /nosuch:1z", Up, &mut k),
        (Subsystem::TraceUprobe, E::FileNotFound, 5, ENOENT)
    );
    assert_eq!(k.asked, vec!["file /nosuch"]);
    let mut k = Kernel::new();
    k.file = FileLookup::NotRegular;
    assert_eq!(
        error_with("p:e /bin:1", Up, &mut k),
        uerr(E::NoRegularFile, 4)
    );
    assert_eq!(error("p:1e /bin/sh:1", Up), uerr(E::BadEventName, 2));
    assert_eq!(error("p:/e /bin/sh:1", Dyn), uerr(E::NoGroupName, 2));
}

#[test]
fn fprobe_commands() {
    let mut k = Kernel::new();
    k.fprobe = true;
    let line = "f vfs_read";
    let p = add_with(line, Dyn, &mut k);
    assert_eq!(p.kind, ProbeKind::Fprobe);
    assert_eq!(name(&p.group), "fprobes");
    assert_eq!(p.place, Place::Function { symbol: 2..10 });
    assert!(p.flags.fentry && p.flags.fprobe && p.flags.kernel);
    assert_eq!(event_name(line, &p), "vfs_read__entry");
    // The resolver is not asked: fprobes resolve when they register.
    assert!(k.asked.is_empty());

    let line = "f:g/e vfs_read%return $retval";
    let p = add_with(line, Dyn, &mut k);
    assert_eq!(p.kind, ProbeKind::FprobeReturn);
    assert!(p.flags.is_return && !p.flags.fentry);
    // $retval alone makes a return fprobe.
    let line = "f mod:vfs_read r=$retval:u32";
    let p = add_with(line, Dyn, &mut k);
    assert_eq!(p.kind, ProbeKind::FprobeReturn);
    assert_eq!(event_name(line, &p), "mod_vfs_read__exit");
    assert_eq!(
        add_with("f vfs_read $retvalx", Dyn, &mut k).kind,
        ProbeKind::Fprobe
    );

    let line = "t 9p_req";
    let p = add_with(line, Dyn, &mut k);
    assert_eq!(p.kind, ProbeKind::Tprobe);
    assert_eq!(name(&p.group), "tracepoints");
    assert!(p.flags.tpoint && p.flags.fentry);
    assert_eq!(event_name(line, &p), "_9p_req");

    assert_eq!(
        error_with("f5 vfs_read", Dyn, &mut k),
        ferr(E::BadMaxact, 1)
    );
    assert_eq!(
        error_with("fx:e vfs_read", Dyn, &mut k),
        ferr(E::BadMaxact, 1)
    );
    assert_eq!(
        error_with("f:e vfs_read%ret", Dyn, &mut k),
        ferr(E::BadAddrSuffix, 12)
    );
    assert_eq!(error_with("t sched:x", Dyn, &mut k), ferr(E::BadTpName, 7));
    assert_eq!(
        error_with("t:e sched_switch%return", Dyn, &mut k),
        ferr(E::BadAddrSuffix, 16)
    );
    assert_eq!(
        error_with("t:e sched_switch a=$retval", Dyn, &mut k),
        ferr(E::RetvalOnProbe, 19)
    );
    assert_eq!(
        error_with("f:1 vfs_read", Dyn, &mut k),
        ferr(E::BadEventName, 2)
    );
    assert_eq!(
        add_with("f vfs_read $arg*", Dyn, &mut k)
            .notice
            .map(|n| (n.subsystem, n.pos)),
        Some((Subsystem::TraceFprobe, 11))
    );
    // Only in dynamic_events.
    assert_eq!(parse_command(b"f vfs_read", Kp, &mut k), silent(EINVAL));
}

fn remove(line: &str, source: Source) -> RemoveCommand {
    match parse(line, source) {
        Ok(Command::Remove(r)) => r,
        other => panic!("{line:?}: {other:?}"),
    }
}

#[test]
fn removal_commands() {
    let r = remove("-:ev", Kp);
    assert_eq!(
        r,
        RemoveCommand {
            family: Some(Family::Kprobe),
            group: None,
            event: 2..4
        }
    );
    let line = "-:grp/ev vfs_read";
    let r = remove(line, Up);
    assert_eq!(r.group_text(line.as_bytes()), Some(&b"grp"[..]));
    assert_eq!(r.event_text(line.as_bytes()), b"ev");
    assert_eq!(
        r,
        RemoveCommand {
            family: Some(Family::Uprobe),
            group: Some(2..5),
            event: 6..8
        }
    );
    let r = remove("-:grp/", Dyn);
    assert_eq!(
        r,
        RemoveCommand {
            family: None,
            group: Some(2..5),
            event: 6..6
        }
    );
    let r = remove("!p:grp/ev", Dyn);
    assert_eq!(
        r,
        RemoveCommand {
            family: None,
            group: Some(3..6),
            event: 7..9
        }
    );
    // Only '/' separates the group.
    assert_eq!(remove("-:grp.ev", Kp).group, None);
    for bad in ["-:", "-", "-x:ev", "- :ev"] {
        assert_eq!(parse(bad, Kp), silent(EINVAL), "{bad}");
        assert_eq!(parse(bad, Dyn), silent(EINVAL), "{bad}");
    }
    assert_eq!(parse("!ev", Dyn), silent(EINVAL));
    assert_eq!(parse("!:", Dyn), silent(EINVAL));
    // '!' removes only in dynamic_events.
    assert_eq!(parse("!p:e", Kp), silent(EINVAL));
}

struct Args<'a>(&'a [(&'a [u8], &'a [u8])]);

impl ProbeArgs for Args<'_> {
    fn count(&self) -> usize {
        self.0.len()
    }
    fn name(&self, i: usize) -> &[u8] {
        self.0[i].0
    }
    fn comm(&self, i: usize) -> &[u8] {
        self.0[i].1
    }
}

#[test]
fn removal_matching() {
    let args = Args(&[(b"a", b"%di"), (b"arg2", b"%si")]);
    let probe = ListedProbe {
        is_return: false,
        group: b"kprobes",
        event: b"ev",
        place: ListedPlace::Kprobe {
            maxactive: 0,
            at: KprobeAt::Symbol {
                symbol: b"vfs_read",
                offset: 0,
            },
        },
        args: &args,
    };
    let matches = |line: &str, source| remove(line, source).matches(line.as_bytes(), &probe);
    assert!(matches("-:ev", Kp));
    assert!(matches("-:kprobes/ev", Kp));
    assert!(matches("-:kprobes/", Dyn));
    assert!(matches("!p:kprobes/ev", Dyn));
    assert!(!matches("-:other/ev", Kp));
    assert!(!matches("-:ev2", Kp));
    assert!(!matches("-:ev", Up));
    assert!(matches("-:ev vfs_read", Kp));
    assert!(matches("-:ev vfs_read a=%di", Kp));
    assert!(matches("-:ev vfs_read a=%di arg2=%si", Kp));
    assert!(!matches("-:ev vfs_read a=%si", Kp));
    assert!(!matches("-:ev vfs_read %di", Kp));
    assert!(!matches("-:ev vfs_read a=%di arg2=%si x=1", Kp));
    assert!(!matches("-:ev vfs_read+0", Kp));
    let none = ListedProbe {
        args: &NoArgs,
        ..probe
    };
    assert!(!remove("-:ev vfs_read a=%di", Kp).matches(b"-:ev vfs_read a=%di", &none));
}

/// Carets the test kernel (Linux 7.2) put in `error_log`, read off its
/// `^` lines: (file, command, subsystem, caret).
#[test]
fn carets_the_kernel_logged() {
    let logged: &[(Source, &str, Subsystem, usize)] = &[
        (Kp, "p5:e vfs_read", Subsystem::TraceKprobe, 1),
        (Kp, "r1x vfs_read", Subsystem::TraceKprobe, 1),
        (Kp, "p:e vfs_read%ret", Subsystem::TraceKprobe, 12),
        (Kp, "p:e vfs_read+0x100000000", Subsystem::TraceKprobe, 4),
        (Kp, "p: vfs_read", Subsystem::TraceKprobe, 2),
        (Kp, "r16:g/1e vfs_read", Subsystem::TraceKprobe, 6),
        (Kp, "p:e 0x1000 $arg1", Subsystem::TraceKprobe, 11),
        (
            Kp,
            "p:e vfs_read $arg* a=1 $arg*",
            Subsystem::TraceKprobe,
            23,
        ),
        (Kp, "p5 /bin/sh:1", Subsystem::TraceKprobe, 1),
        (Up, "p:e /bin/sh:1%ret", Subsystem::TraceUprobe, 13),
        (Up, "p:e /bin/sh:1(2", Subsystem::TraceUprobe, 15),
        (Up, "p:e /bin/sh:1(2)%return", Subsystem::TraceUprobe, 16),
        (Up, "p:1e /bin/sh:1", Subsystem::TraceUprobe, 2),
        (Dyn, "p5 /bin/sh:1", Subsystem::TraceKprobe, 1),
        (Dyn, "p:/e /bin/sh:1", Subsystem::TraceUprobe, 2),
    ];
    for &(source, line, subsystem, caret) in logged {
        let (s, _, pos, _) = error(line, source);
        assert_eq!((s, pos), (subsystem, caret), "{line}");
    }
    // `$arg*` without BTF: the kernel logged NOSUP_BTFARG at the last `$arg`
    // word (then the argument parser's own error).
    assert_eq!(
        add("p:e vfs_read $arg* $arg2", Kp).notice.map(|n| n.pos),
        Some(19)
    );
    // Not logged at all: EINVAL alone.
    for (source, line) in [
        (Kp, "p:e /bin/sh:0x10"),
        (Kp, "x vfs_read"),
        (Kp, " -:e"),
        (Up, "p:e vfs_read"),
    ] {
        assert_eq!(parse(line, source), silent(EINVAL), "{line}");
    }
    for line in ["x vfs_read", "  -:e", "f:e vfs_read", "p:e"] {
        assert_eq!(parse(line, Dyn), no_matching_type(), "{line}");
    }
}
