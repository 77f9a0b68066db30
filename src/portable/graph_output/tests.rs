// SPDX-License-Identifier: GPL-2.0

//! Host tests of the function_graph printer: event sequences as a reader
//! hands them over, compared with what the kernel's printer makes of them.

use super::super::output::{EntryHeader, FLAG_HARDIRQ, FLAG_IRQS_OFF};
use super::super::records::function::{encode_function, FUNCTION_RECORD_SIZE, TYPE_FUNCTION};
use super::super::records::graph::{
    encode_graph_entry, encode_graph_exit, GraphExit, GRAPH_ENTRY_RECORD_SIZE,
    GRAPH_EXIT_RECORD_SIZE, TYPE_GRAPH_ENT, TYPE_GRAPH_RET,
};
use super::super::records::{
    encode_print, encode_raw_data, print_record_size, raw_data_record_size, PrintContext,
    SymbolStyle, Symbols, TYPE_PRINT, TYPE_RAW_DATA,
};
use super::super::trace_options::{self as options, OptionSet};
use super::*;

/// The kernel functions the tests call, at made-up addresses.
struct TestSymbols;

impl TestSymbols {
    /// Name and start of each function; each is 0x100 long.
    const TABLE: [(&'static str, u64); 9] = [
        ("vfs_read", 0xffff_ffff_8140_0000),
        ("rw_verify_area", 0xffff_ffff_8140_0100),
        ("new_sync_read", 0xffff_ffff_8140_0200),
        ("ext4_file_read_iter", 0xffff_ffff_8140_0300),
        ("irq_enter_rcu", 0xffff_ffff_8140_0400),
        ("schedule", 0xffff_ffff_8140_0500),
        ("tracing_mark_write", 0xffff_ffff_8140_0600),
        ("sysvec_apic_timer_interrupt", 0xffff_ffff_8200_0000),
        ("asm_common_interrupt", 0xffff_ffff_8200_0100),
    ];
}

impl Symbols for TestSymbols {
    fn write_symbol(
        &self,
        out: &mut dyn fmt::Write,
        address: u64,
        offset: bool,
    ) -> Option<fmt::Result> {
        let (name, start) = Self::TABLE
            .into_iter()
            .find(|&(_, start)| address.wrapping_sub(start) < 0x100)?;
        Some(if offset {
            write!(out, "{name}+{:#x}/0x100", address - start)
        } else {
            out.write_str(name)
        })
    }
}

/// The start of a test function.
fn sym(name: &str) -> u64 {
    TestSymbols::TABLE
        .into_iter()
        .find(|&(n, _)| n == name)
        .map_or(0, |(_, start)| start)
}

/// The irq-entry text: where the two interrupt functions are.
const IRQ_ENTRY: Range<u64> = 0xffff_ffff_8200_0000..0xffff_ffff_8200_1000;

/// Saved commands, as the module's comm lookup names them.
fn comm(pid: i32, out: &mut dyn fmt::Write) -> fmt::Result {
    out.write_str(match pid {
        0 => "<idle>",
        87 => "systemd-journald",
        1234 => "bash",
        4242 | 1_234_567 => "kworker/u8:2",
        _ => "<...>",
    })
}

/// The context of the tests: four CPUs, the buffer started at 1 ms.
fn context<'a>(style: SymbolStyle) -> GraphContext<'a> {
    GraphContext {
        print: PrintContext {
            symbols: &TestSymbols,
            style,
            print_parent: true,
        },
        comm: &comm,
        irq_entry: IRQ_ENTRY,
        nr_cpu_ids: 4,
        time_start: 1_000_000,
    }
}

/// The flags of the default options.
fn defaults() -> GraphFlags {
    GraphFlags::from_options(OptionSet::defaults())
}

/// An event as a reader holds it.
#[derive(Clone)]
struct Ev {
    cpu: u32,
    ts: u64,
    record: Vec<u8>,
}

fn header(kind: u16, pid: i32) -> EntryHeader {
    EntryHeader {
        kind,
        flags: 0,
        preempt_count: 0,
        pid,
    }
}

/// An entry of `func` at `depth`.
fn ent(cpu: u32, ts: u64, pid: i32, func: &str, depth: u64) -> Ev {
    let mut record = vec![0u8; GRAPH_ENTRY_RECORD_SIZE];
    encode_graph_entry(&mut record, header(TYPE_GRAPH_ENT, pid), sym(func), depth);
    Ev { cpu, ts, record }
}

/// A return from `func` at `depth` after `took` ns, returning `retval`.
fn ret_val(cpu: u32, ts: u64, pid: i32, func: &str, depth: u32, took: u64, retval: u64) -> Ev {
    let exit = GraphExit {
        func: sym(func),
        retval,
        depth,
        overrun: 3,
        calltime: ts - took,
        rettime: ts,
    };
    let mut record = vec![0u8; GRAPH_EXIT_RECORD_SIZE];
    encode_graph_exit(&mut record, header(TYPE_GRAPH_RET, pid), &exit);
    Ev { cpu, ts, record }
}

/// A return from `func` at `depth` after `took` ns, returning 0.
fn ret(cpu: u32, ts: u64, pid: i32, func: &str, depth: u32, took: u64) -> Ev {
    ret_val(cpu, ts, pid, func, depth, took, 0)
}

/// A `trace_marker` write.
fn print(cpu: u32, ts: u64, pid: i32, text: &[u8]) -> Ev {
    let mut record = vec![0u8; print_record_size(text)];
    encode_print(
        &mut record,
        header(TYPE_PRINT, pid),
        sym("tracing_mark_write"),
        text,
    );
    Ev { cpu, ts, record }
}

/// Prints `events` as a reader does: in order, each with the next event of
/// its CPU as the look-ahead, dropping a look-ahead the printer used, and
/// one state per CPU. What the printer leaves to the reader shows as
/// `<ordinary N>` (N the type).
fn run_with(events: &[Ev], flags: &GraphFlags, cx: &GraphContext<'_>) -> String {
    let mut states = [GraphCpuState::new(); 4];
    let mut dropped = vec![false; events.len()];
    let mut out = String::new();
    for (i, e) in events.iter().enumerate() {
        if dropped[i] {
            continue;
        }
        let ev = GraphEvent {
            cpu: e.cpu,
            ts: e.ts,
            record: &e.record,
        };
        let next_index = (i + 1..events.len()).find(|&j| events[j].cpu == e.cpu);
        let next = next_index.map(|j| GraphEvent {
            cpu: events[j].cpu,
            ts: events[j].ts,
            record: &events[j].record,
        });
        let state = &mut states[e.cpu as usize];
        match write_graph_event(&mut out, state, &ev, next.as_ref(), flags, cx) {
            Ok(Printed::This) => {}
            Ok(Printed::ThisAndNext) => {
                if let Some(j) = next_index {
                    dropped[j] = true;
                }
            }
            Ok(Printed::Unhandled) => {
                let kind = EntryHeader::from_bytes(&e.record).map_or(0, |h| h.kind);
                out.push_str(&format!("<ordinary {kind}>\n"));
            }
            Err(_) => out.push_str("<error>\n"),
        }
    }
    out
}

/// [`run_with`] in the tests' context.
fn run(events: &[Ev], flags: &GraphFlags) -> String {
    run_with(events, flags, &context(SymbolStyle::default()))
}

/// A read of a file through `vfs_read` on CPU 1, as `bash`: a leaf, a
/// nested call with a leaf, the returns.
fn vfs_read_tree() -> Vec<Ev> {
    vec![
        ent(1, 100_000, 1234, "vfs_read", 0),
        ent(1, 100_200, 1234, "rw_verify_area", 1),
        ret(1, 100_612, 1234, "rw_verify_area", 1, 412),
        ent(1, 100_700, 1234, "new_sync_read", 1),
        ent(1, 100_800, 1234, "ext4_file_read_iter", 2),
        ret(1, 103_145, 1234, "ext4_file_read_iter", 2, 2_345),
        ret_val(1, 116_378, 1234, "new_sync_read", 1, 15_678, 0x1000),
        ret_val(1, 120_100, 1234, "vfs_read", 0, 20_100, 0xffff_fff2),
    ]
}

fn with(flags: GraphFlags, f: impl FnOnce(&mut GraphFlags)) -> GraphFlags {
    let mut flags = flags;
    f(&mut flags);
    flags
}

#[test]
fn flags_follow_the_options() {
    let flags = defaults();
    assert!(flags.cpu && flags.overhead && flags.duration && flags.irqs);
    assert!(flags.context_info);
    assert!(!flags.overrun && !flags.proc && !flags.abstime && !flags.tail);
    assert!(!flags.retval && !flags.retval_hex && !flags.latency_format);
    assert!(!flags.rel_time);
    let set = OptionSet::defaults()
        .with(options::FUNCGRAPH_PROC, true)
        .with(options::FUNCGRAPH_CPU, false)
        .with(options::LATENCY_FORMAT, true)
        .with(options::FUNCGRAPH_RETVAL_HEX, true);
    let flags = GraphFlags::from_options(set);
    assert!(flags.proc && !flags.cpu && flags.latency_format && flags.retval_hex);
}

/// `lines`, each ended with a newline.
fn lines(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn call_tree_with_default_options() {
    assert_eq!(
        run(&vfs_read_tree(), &defaults()),
        lines(&[
            " 1)               |  vfs_read() {",
            " 1)   0.412 us    |    rw_verify_area();",
            " 1)               |    new_sync_read() {",
            " 1)   2.345 us    |      ext4_file_read_iter();",
            " 1) + 15.678 us   |    }",
            " 1) + 20.100 us   |  }",
        ])
    );
}

#[test]
fn options_change_the_columns() {
    let tree = vfs_read_tree();
    let no_cpu = with(defaults(), |f| f.cpu = false);
    assert_eq!(
        run(&tree[..3], &no_cpu),
        lines(&[
            "              |  vfs_read() {",
            "  0.412 us    |    rw_verify_area();",
        ])
    );
    let no_duration = with(defaults(), |f| f.duration = false);
    assert_eq!(
        run(&tree[..3], &no_duration),
        lines(&[" 1) vfs_read() {", " 1)   rw_verify_area();"])
    );
    let no_overhead = with(defaults(), |f| f.overhead = false);
    assert_eq!(
        run(&tree[6..], &no_overhead),
        lines(&[
            " 1)   15.678 us   |    } /* new_sync_read */",
            " 1)   20.100 us   |  } /* vfs_read */",
        ])
    );
    let proc = with(defaults(), |f| f.proc = true);
    assert_eq!(
        run(&tree[..3], &proc),
        lines(&[
            " 1)   bash-1234    |               |  vfs_read() {",
            " 1)   bash-1234    |   0.412 us    |    rw_verify_area();",
        ])
    );
    let abstime = with(defaults(), |f| f.abstime = true);
    let late = [ent(2, 12_345_678_901, 1234, "vfs_read", 0)];
    assert_eq!(
        run(&late, &abstime),
        lines(&["   12.345678 |   2)               |  vfs_read() {"])
    );
    let rel_time = with(defaults(), |f| f.rel_time = true);
    let at = [ent(0, 5_123_456, 1234, "vfs_read", 0)];
    assert_eq!(
        run(&at, &rel_time),
        lines(&["     4123 us |   0)               |  vfs_read() {"])
    );
    // Without context-info only the tree is left.
    let bare = with(defaults(), |f| f.context_info = false);
    assert_eq!(
        run(&tree, &bare),
        lines(&[
            "vfs_read() {",
            "  rw_verify_area();",
            "  new_sync_read() {",
            "    ext4_file_read_iter();",
            "  }",
            "}",
        ])
    );
}

#[test]
fn the_cpu_column_is_as_wide_as_the_largest_cpu() {
    let mut cx = context(SymbolStyle::default());
    cx.nr_cpu_ids = 128;
    let events = [ent(3, 0, 1234, "vfs_read", 0)];
    assert_eq!(
        run_with(&events, &defaults(), &cx),
        "   3)               |  vfs_read() {\n"
    );
    cx.nr_cpu_ids = 0;
    assert_eq!(
        run_with(&events, &defaults(), &cx),
        " 3)               |  vfs_read() {\n"
    );
}

#[test]
fn closing_braces_name_their_function_when_asked_or_unmatched() {
    let tail = with(defaults(), |f| f.tail = true);
    assert_eq!(
        run(&vfs_read_tree(), &tail),
        lines(&[
            " 1)               |  vfs_read() {",
            " 1)   0.412 us    |    rw_verify_area();",
            " 1)               |    new_sync_read() {",
            " 1)   2.345 us    |      ext4_file_read_iter();",
            " 1) + 15.678 us   |    } /* new_sync_read */",
            " 1) + 20.100 us   |  } /* vfs_read */",
        ])
    );
    // The trace starts inside a call: its returns have no entry in view.
    let tree = vfs_read_tree();
    assert_eq!(
        run(&tree[4..], &defaults()),
        lines(&[
            " 1)   2.345 us    |      ext4_file_read_iter();",
            " 1) + 15.678 us   |    } /* new_sync_read */",
            " 1) + 20.100 us   |  } /* vfs_read */",
        ])
    );
    // A return whose depth holds another entry is unmatched too.
    let crossed = [
        ent(0, 0, 1234, "vfs_read", 0),
        ent(0, 10, 1234, "schedule", 1),
        ret(0, 2_000, 1234, "new_sync_read", 1, 1_990),
    ];
    assert!(run(&crossed, &defaults()).ends_with("|    } /* new_sync_read */\n"));
    // Too deep to be remembered: taken as matching.
    let deep = [ret(0, 2_000, 1234, "new_sync_read", 50, 1_000)];
    assert_eq!(
        run(&deep, &defaults()),
        format!(" 0)   1.000 us    |  {:100}}}\n", "")
    );
}

#[test]
fn a_leaf_needs_the_same_task_and_function_next() {
    // Another task's return of the same function, or the function entered
    // again, is not the leaf's return.
    let events = [
        ent(0, 0, 1234, "schedule", 0),
        ret(0, 900, 4242, "schedule", 0, 100),
        ent(0, 1_000, 1234, "vfs_read", 0),
        ent(0, 1_100, 1234, "vfs_read", 1),
    ];
    let out = run(&events, &defaults());
    assert_eq!(
        out,
        lines(&[
            " 0)               |  schedule() {",
            " ------------------------------------------",
            " 0)   bash-1234    =>  kworker-4242 ",
            " ------------------------------------------",
            "",
            " 0)   0.100 us    |  }",
            " ------------------------------------------",
            " 0)  kworker-4242  =>   bash-1234   ",
            " ------------------------------------------",
            "",
            " 0)               |  vfs_read() {",
            " 0)               |    vfs_read() {",
        ])
    );
    // No look-ahead (the end of the buffer so far): not a leaf.
    let last = [ent(0, 0, 1234, "schedule", 0)];
    assert_eq!(
        run(&last, &defaults()),
        " 0)               |  schedule() {\n"
    );
}

#[test]
fn a_task_switch_prints_the_switch_block() {
    let events = [
        ent(0, 0, 0, "schedule", 0),
        ret(0, 1_000, 0, "schedule", 0, 1_000),
        ent(0, 2_000, 1234, "vfs_read", 0),
        ent(0, 3_000, 87, "vfs_read", 0),
        ent(0, 4_000, 1_234_567, "vfs_read", 0),
    ];
    let proc = with(defaults(), |f| f.proc = true);
    assert_eq!(
        run(&events, &proc),
        lines(&[
            " 0)    <idle>-0    |   1.000 us    |  schedule();",
            " ------------------------------------------",
            " 0)    <idle>-0    =>   bash-1234   ",
            " ------------------------------------------",
            "",
            " 0)   bash-1234    |               |  vfs_read() {",
            " ------------------------------------------",
            " 0)   bash-1234    =>   systemd-87  ",
            " ------------------------------------------",
            "",
            " 0)   systemd-87   |               |  vfs_read() {",
            " ------------------------------------------",
            " 0)   systemd-87   => kworker-1234567",
            " ------------------------------------------",
            "",
            " 0) kworker-1234567 |               |  vfs_read() {",
        ])
    );
    // Each CPU has its own last task; the block shows even without
    // context-info.
    let bare = with(defaults(), |f| f.context_info = false);
    let events = [
        ent(0, 0, 1234, "vfs_read", 0),
        ent(1, 10, 87, "vfs_read", 0),
        ent(0, 20, 0, "schedule", 1),
    ];
    assert_eq!(
        run(&events, &bare),
        lines(&[
            "vfs_read() {",
            "vfs_read() {",
            " ------------------------------------------",
            " 0)   bash-1234    =>    <idle>-0   ",
            " ------------------------------------------",
            "",
            "  schedule() {",
        ])
    );
}

/// `vfs_read` interrupted by the timer on CPU 0.
fn interrupted_read() -> Vec<Ev> {
    vec![
        ent(0, 0, 1234, "vfs_read", 0),
        ent(0, 100, 1234, "sysvec_apic_timer_interrupt", 1),
        ent(0, 200, 1234, "irq_enter_rcu", 2),
        ret(0, 500, 1234, "irq_enter_rcu", 2, 300),
        print(0, 550, 1234, b"in irq\n"),
        ret(0, 5_100, 1234, "sysvec_apic_timer_interrupt", 1, 5_000),
        ret(0, 9_000, 1234, "vfs_read", 0, 9_000),
    ]
}

#[test]
fn interrupts_are_marked() {
    assert_eq!(
        run(&interrupted_read(), &defaults()),
        lines(&[
            " 0)               |  vfs_read() {",
            " 0)   ==========> |",
            " 0)               |    sysvec_apic_timer_interrupt() {",
            " 0)   0.300 us    |      irq_enter_rcu();",
            " 0)               |      /* in irq */",
            " 0)   5.000 us    |    }",
            " 0)   <========== |",
            " 0)   9.000 us    |  }",
        ])
    );
    // The markers have the columns of the line, without a duration.
    let flags = with(defaults(), |f| {
        f.proc = true;
        f.abstime = true;
        f.duration = false;
    });
    let leaf = [
        ent(0, 1_500_000_000, 1234, "asm_common_interrupt", 0),
        ret(0, 1_500_001_000, 1234, "asm_common_interrupt", 0, 1_000),
    ];
    assert_eq!(
        run(&leaf, &flags),
        lines(&[
            "    1.500000 |   0)   bash-1234    | ==========>",
            "    1.500000 |   0)   bash-1234    | asm_common_interrupt();",
            "    1.500000 |   0)   bash-1234    | <==========",
        ])
    );
    let bare = with(defaults(), |f| f.context_info = false);
    assert_eq!(
        run(&leaf, &bare),
        lines(&["==========>", "asm_common_interrupt();", "<=========="])
    );
}

#[test]
fn without_funcgraph_irqs_interrupts_are_left_out() {
    let no_irqs = with(defaults(), |f| f.irqs = false);
    // Comments are not skipped (and indent from the depth before the
    // interrupt), as in the kernel.
    assert_eq!(
        run(&interrupted_read(), &no_irqs),
        lines(&[
            " 0)               |  vfs_read() {",
            " 0)               |  /* in irq */",
            " 0)   9.000 us    |  }",
        ])
    );
    // An interrupt's return whose entry was lost is printed, marker
    // included; what follows is not skipped.
    let lost_entry = [
        ret(0, 5_100, 1234, "sysvec_apic_timer_interrupt", 1, 5_000),
        ent(0, 6_000, 1234, "schedule", 0),
    ];
    assert_eq!(
        run(&lost_entry, &no_irqs),
        lines(&[
            " 0)   5.000 us    |    } /* sysvec_apic_timer_interrupt */",
            " 0)   <========== |",
            " 0)               |  schedule() {",
        ])
    );
    // A return from above the interrupt's depth ends the skipping too.
    let lost_return = [
        ent(0, 100, 1234, "sysvec_apic_timer_interrupt", 1),
        ent(0, 200, 1234, "irq_enter_rcu", 2),
        ret(0, 9_000, 1234, "vfs_read", 0, 9_000),
        ent(0, 9_500, 1234, "schedule", 0),
    ];
    assert_eq!(
        run(&lost_return, &no_irqs),
        " 0)               |  schedule() {\n"
    );
}

#[test]
fn overruns() {
    let flags = with(defaults(), |f| f.overrun = true);
    let tree = vfs_read_tree();
    assert_eq!(
        run(&tree[..3], &flags),
        lines(&[
            " 1)               |  vfs_read() {",
            " 1)   0.412 us    |    rw_verify_area();",
        ])
    );
    assert_eq!(
        run(&tree[7..], &flags),
        lines(&[" 1) + 20.100 us   |  } /* vfs_read */", " (Overruns: 3)"])
    );
}

#[test]
fn return_values() {
    let flags = with(defaults(), |f| f.retval = true);
    assert_eq!(
        run(&vfs_read_tree(), &flags),
        lines(&[
            " 1)               |  vfs_read() {",
            " 1)   0.412 us    |    rw_verify_area(); /* ret=0x0 */",
            " 1)               |    new_sync_read() {",
            " 1)   2.345 us    |      ext4_file_read_iter(); /* ret=0x0 */",
            " 1) + 15.678 us   |    } /* new_sync_read ret=0x1000 */",
            " 1) + 20.100 us   |  } /* vfs_read ret=-14 */",
        ])
    );
    let hex = with(flags, |f| f.retval_hex = true);
    let tree = vfs_read_tree();
    assert_eq!(
        run(&tree[7..], &hex),
        " 1) + 20.100 us   |  } /* vfs_read ret=0xfffffff2 */\n"
    );
    // Hex alone changes nothing.
    let hex_only = with(defaults(), |f| f.retval_hex = true);
    assert_eq!(
        run(&tree[7..], &hex_only),
        " 1) + 20.100 us   |  } /* vfs_read */\n"
    );
    let value = |retval: u64| {
        let leaf = [
            ent(0, 0, 1234, "schedule", 0),
            ret_val(0, 1_000, 1234, "schedule", 0, 1_000, retval),
        ];
        run(&leaf, &flags)
    };
    let line = |v: &str| format!(" 0)   1.000 us    |  schedule(); /* ret={v} */\n");
    assert_eq!(value(0xffff_ffff_ffff_ffea), line("-22"));
    assert_eq!(value(0xffff_f001), line("-4095"));
    assert_eq!(value(0xffff_f000), line("0xfffff000"));
    assert_eq!(value(0xffff_ffff_ffff_f000), line("0xfffffffffffff000"));
    assert_eq!(value(0x8000_0000), line("0x80000000"));
    assert_eq!(value(0x1_ffff_fff2), line("0x1fffffff2"));
    assert_eq!(value(1), line("0x1"));
}

#[test]
fn duration_marks_and_widths() {
    let took = |ns: u64| {
        let leaf = [
            ent(0, 0, 1234, "schedule", 0),
            ret(0, ns, 1234, "schedule", 0, ns),
        ];
        let out = run(&leaf, &defaults());
        out.strip_prefix(" 0) ")
            .and_then(|s| s.strip_suffix("schedule();\n"))
            .map(str::to_owned)
            .unwrap_or(out)
    };
    assert_eq!(took(0), "  0.000 us    |  ");
    assert_eq!(took(10_000), "  10.000 us   |  ");
    assert_eq!(took(10_001), "+ 10.001 us   |  ");
    assert_eq!(took(100_000), "+ 100.000 us  |  ");
    assert_eq!(took(100_001), "! 100.001 us  |  ");
    assert_eq!(took(1_000_000), "! 1000.000 us |  ");
    assert_eq!(took(1_000_001), "# 1000.001 us |  ");
    assert_eq!(took(10_000_001), "* 10000.00 us |  ");
    assert_eq!(took(12_345_789), "* 12345.78 us |  ");
    assert_eq!(took(100_000_001), "@ 100000.0 us |  ");
    assert_eq!(took(123_456_789), "@ 123456.7 us |  ");
    assert_eq!(took(1_000_000_000), "@ 1000000 us  |  ");
    assert_eq!(took(1_000_000_001), "$ 1000000 us  |  ");
    assert_eq!(took(12_345_678_901), "$ 12345678 us |  ");
    // Too long for the column: it widens.
    assert_eq!(took(123_456_789_012_345), "$ 123456789012 us |  ");
    assert_eq!(took(u64::MAX), "$ 18446744073709551 us |  ");
}

#[test]
fn other_events_are_comments_at_the_depth_reached() {
    let tree = vfs_read_tree();
    let mut events = vec![print(1, 50_000, 1234, b"before\n")];
    events.extend_from_slice(&tree[..1]);
    events.push(print(1, 100_100, 1234, b"in vfs_read\n"));
    events.extend_from_slice(&tree[1..4]);
    events.push(print(1, 100_750, 1234, b"in new_sync_read\n"));
    events.extend_from_slice(&tree[4..6]);
    events.push(print(1, 103_200, 1234, b"two\nlines\n"));
    events.push(tree[6].clone());
    events.push(print(1, 116_400, 1234, b"no newline"));
    assert_eq!(
        run(&events, &defaults()),
        lines(&[
            " 1)               |  /* before */",
            " 1)               |  vfs_read() {",
            " 1)               |  /* in vfs_read */",
            " 1)   0.412 us    |    rw_verify_area();",
            " 1)               |    new_sync_read() {",
            " 1)               |      /* in new_sync_read */",
            " 1)   2.345 us    |      ext4_file_read_iter();",
            " 1)               |      /* two",
            "lines */",
            " 1) + 15.678 us   |    }",
            " 1)               |  /* no newline */",
        ])
    );
    // Without context-info, only the indentation.
    let bare = with(defaults(), |f| f.context_info = false);
    assert_eq!(
        run(&events[3..7], &bare),
        lines(&[
            "  rw_verify_area();",
            "  new_sync_read() {",
            "    /* in new_sync_read */"
        ])
    );
}

#[test]
fn comments_use_the_events_text() {
    let data = [0x2a, 0, 0, 0, 0xde, 0xad];
    let mut record = vec![0u8; raw_data_record_size(&data)];
    encode_raw_data(&mut record, header(TYPE_RAW_DATA, 1234), &data);
    let raw = Ev {
        cpu: 0,
        ts: 0,
        record,
    };
    assert_eq!(
        run(&[raw], &defaults()),
        " 0)               |  /* # 2a buf: de ad */\n"
    );
    // A print record shows its text alone; the sym options do not apply.
    let offset = SymbolStyle {
        offset: true,
        address: true,
    };
    let marker = [print(0, 0, 1234, b"hi\n")];
    assert_eq!(
        run_with(&marker, &defaults(), &context(offset)),
        " 0)               |  /* hi */\n"
    );
}

#[test]
fn function_and_unknown_records_are_left_to_the_reader() {
    let mut record = vec![0u8; FUNCTION_RECORD_SIZE];
    encode_function(
        &mut record,
        header(TYPE_FUNCTION, 1234),
        sym("schedule"),
        sym("vfs_read"),
    );
    let function = Ev {
        cpu: 0,
        ts: 0,
        record,
    };
    let mut record = header(99, 1234).to_bytes().to_vec();
    record.extend_from_slice(&[0; 8]);
    let unknown = Ev {
        cpu: 0,
        ts: 0,
        record,
    };
    let events = [ent(0, 0, 42, "vfs_read", 0), function, unknown];
    // The function record prints nothing, not even the switch block; the
    // unknown one has begun its comment when the kernel gives it up.
    assert_eq!(
        run(&events, &defaults()),
        lines(&[
            " 0)               |  vfs_read() {",
            "<ordinary 1>",
            " ------------------------------------------",
            " 0)    <...>-42    =>   bash-1234   ",
            " ------------------------------------------",
            "",
            " 0)               |  /* <ordinary 99>",
        ])
    );
}

#[test]
fn latency_format_adds_the_flags_column() {
    let flags = with(defaults(), |f| f.latency_format = true);
    let mut events = vfs_read_tree();
    EntryHeader::set_context(&mut events[0].record, FLAG_IRQS_OFF, 1);
    EntryHeader::set_context(&mut events[1].record, FLAG_IRQS_OFF | FLAG_HARDIRQ, 0x12);
    assert_eq!(
        run(&events[..3], &flags),
        lines(&[
            " 1)  d..1. |               |  vfs_read() {",
            " 1)  d.h21 |   0.412 us    |    rw_verify_area();",
        ])
    );
}

/// The header for `flags`.
fn header_text(flags: &GraphFlags) -> String {
    let mut s = String::new();
    assert!(write_graph_header(&mut s, flags).is_ok());
    s
}

#[test]
fn headers() {
    assert_eq!(
        header_text(&defaults()),
        lines(&[
            "# CPU  DURATION                  FUNCTION CALLS",
            "# |     |   |                     |   |   |   |",
        ])
    );
    let proc = with(defaults(), |f| f.proc = true);
    assert_eq!(
        header_text(&proc),
        lines(&[
            "# CPU  TASK/PID         DURATION                  FUNCTION CALLS",
            "# |     |    |           |   |                     |   |   |   |",
        ])
    );
    let abstime = with(defaults(), |f| f.abstime = true);
    assert_eq!(
        header_text(&abstime),
        lines(&[
            "#     TIME        CPU  DURATION                  FUNCTION CALLS",
            "#      |          |     |   |                     |   |   |   |",
        ])
    );
    let none = with(defaults(), |f| {
        f.cpu = false;
        f.duration = false;
    });
    assert_eq!(
        header_text(&none),
        lines(&[
            "#               FUNCTION CALLS",
            "#               |   |   |   |"
        ])
    );
    let bare = with(defaults(), |f| f.context_info = false);
    assert_eq!(header_text(&bare), "");
}

#[test]
fn latency_headers() {
    let latency = with(defaults(), |f| f.latency_format = true);
    assert_eq!(
        header_text(&latency),
        lines(&[
            "#      _-----=> irqs-off        ",
            "#     / _----=> need-resched    ",
            "#    | / _---=> hardirq/softirq ",
            "#    || / _--=> preempt-depth   ",
            "#    ||| /                      ",
            "# CPU||||     DURATION                  FUNCTION CALLS",
            "# |  ||||      |   |                     |   |   |   |",
        ])
    );
    // The legend moves right by at most 37 columns.
    let wide = with(latency, |f| {
        f.abstime = true;
        f.rel_time = true;
        f.proc = true;
    });
    let text = header_text(&wide);
    assert!(text.starts_with(&format!("#{:37}  _-----=> irqs-off        \n", "")));
    assert!(text
        .contains("\n#     TIME          REL TIME      CPU  TASK/PID       ||||     DURATION   "));
}

#[test]
fn short_and_malformed_records_do_not_panic() {
    let good = vfs_read_tree();
    let mut events = vec![
        Ev {
            cpu: 0,
            ts: 0,
            record: vec![10, 0, 0],
        },
        Ev {
            cpu: 0,
            ts: 0,
            record: good[0].record[..20].to_vec(),
        },
        Ev {
            cpu: 0,
            ts: 0,
            record: good[2].record[..40].to_vec(),
        },
    ];
    // An entry whose look-ahead is a cut return is no leaf.
    events.push(ent(0, 0, 1234, "rw_verify_area", 1));
    events.push(Ev {
        cpu: 0,
        ts: 0,
        record: good[2].record[..47].to_vec(),
    });
    // Absurd depths: bounded indentation, no overflow.
    events.push(ent(0, 0, 1234, "schedule", u64::MAX / 2));
    events.push(ent(0, 0, 1234, "schedule", 1 << 63));
    events.push(ret(0, 10, 1234, "schedule", u32::MAX, 10));
    events.push(ret(0, 10, 1234, "schedule", i32::MAX as u32, 10));
    events.push(print(0, 0, 1234, b"x\n"));
    let out = run(&events, &defaults());
    let printed: Vec<&str> = out.lines().collect();
    // (`<ordinary 0>`: the harness's name for a record with no header.)
    assert_eq!(
        printed[..4],
        [
            "<ordinary 0>",
            "<ordinary 10>",
            "<ordinary 9>",
            " 0)               |    rw_verify_area() {"
        ]
    );
    assert_eq!(printed[4], "<ordinary 9>");
    assert_eq!(
        printed[5].len(),
        " 0)               |  ".len() + 2048 + "schedule() {".len()
    );
    // A negative depth (its return's too) does not indent.
    assert_eq!(printed[6], " 0)   0.010 us    |  schedule();");
    assert!(printed[7].ends_with("  }") && printed[7].len() < 2100);
    assert!(printed[8].ends_with("/* x */") && printed[8].len() < 2100);
    assert_eq!(printed.len(), 9);
    // A record too short for a header is the reader's.
    let mut state = GraphCpuState::new();
    let ev = GraphEvent {
        cpu: 0,
        ts: 0,
        record: &[],
    };
    let cx = context(SymbolStyle::default());
    let mut s = String::new();
    assert_eq!(
        write_graph_event(&mut s, &mut state, &ev, None, &defaults(), &cx),
        Ok(Printed::Unhandled)
    );
    assert!(s.is_empty() && state == GraphCpuState::new());
}

/// `e` as the printer takes it.
fn event(e: &Ev) -> GraphEvent<'_> {
    GraphEvent {
        cpu: e.cpu,
        ts: e.ts,
        record: &e.record,
    }
}

/// A sink that fails once it holds `room` bytes.
struct Full {
    text: String,
    room: usize,
}

impl fmt::Write for Full {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.text.len() + s.len() > self.room {
            return Err(fmt::Error);
        }
        self.text.push_str(s);
        Ok(())
    }
}

#[test]
fn a_failed_write_leaves_the_state_for_a_retry() {
    let cx = context(SymbolStyle::default());
    let first = ent(0, 0, 0, "schedule", 0);
    let second = ent(0, 10, 1234, "vfs_read", 1);
    let mut state = GraphCpuState::new();
    let mut s = String::new();
    let flags = defaults();
    assert_eq!(
        write_graph_event(&mut s, &mut state, &event(&first), None, &flags, &cx),
        Ok(Printed::This)
    );
    let before = state;
    let mut full = Full {
        text: String::new(),
        room: 60,
    };
    assert!(write_graph_event(&mut full, &mut state, &event(&second), None, &flags, &cx).is_err());
    assert_eq!(state, before);
    s.clear();
    assert_eq!(
        write_graph_event(&mut s, &mut state, &event(&second), None, &flags, &cx),
        Ok(Printed::This)
    );
    assert!(s.starts_with(" ------"));
    assert!(s.ends_with(" 0)               |    vfs_read() {\n"));
}
