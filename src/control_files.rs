// SPDX-License-Identifier: GPL-2.0

//! The control files of an instance: what each shows and what a write does.
//!
//! Each file is an [`Attribute`]: a show function, and for writable files a
//! store function that parses the write (with the parsers of
//! [`crate::portable`]) and applies it. Refused writes are explained in
//! `error_log` by the file system glue.

use crate::full_waiters;
use crate::function_files::{AvailableFunctions, FilterFile};
use crate::instance::{self, Instance};
use crate::portable::ring_buffer::format;
use crate::portable::{
    cmdlines,
    cpumask::CpuMask,
    input::{self, InputError},
    printk_formats, readme, records,
    trace_clock::{self, TraceClock},
    trace_options, tracer_name,
};
use crate::rftracefs::{stream_fops, Attribute, Dir, OpTable};
use crate::ring_buffer;
use crate::trace_readers::{FreeBuffer, TraceFile, TraceMarker, TracePipe, TracePipeRaw, SNAPSHOT};
use crate::tracer;
use kernel::{prelude::*, str::CString, sync::Arc};

/// Read-only files.
pub(crate) const READ_ONLY: u16 = 0o440;
/// Read-write files.
pub(crate) const READ_WRITE: u16 = 0o640;
/// Write-only files.
const WRITE_ONLY: u16 = 0o220;
/// The longest write a one-value file accepts.
const MAX_VALUE_WRITE: usize = 128;
/// The longest write `tracing_cpumask` accepts (enough for `MAX_CPUS` bits).
const MAX_MASK_WRITE: usize = 256;

/// The control files only the top level has, as in the kernel (its task
/// names and formats are global): name, permissions, behaviour.
const TOP_LEVEL_FILES: &[(&str, u16, &Attribute)] = &[
    ("README", READ_ONLY, &README),
    ("saved_cmdlines", READ_ONLY, &SAVED_CMDLINES),
    ("saved_cmdlines_size", READ_WRITE, &SAVED_CMDLINES_SIZE),
    ("saved_tgids", READ_ONLY, &SAVED_TGIDS),
    ("printk_formats", READ_ONLY, &PRINTK_FORMATS),
];

/// The control files of every instance: name, permissions, behaviour.
const FILES: &[(&str, u16, &Attribute)] = &[
    ("tracing_on", READ_WRITE, &TRACING_ON),
    ("available_tracers", READ_ONLY, &AVAILABLE_TRACERS),
    ("current_tracer", READ_WRITE, &CURRENT_TRACER),
    ("trace_options", READ_WRITE, &TRACE_OPTIONS),
    ("tracing_cpumask", READ_WRITE, &TRACING_CPUMASK),
    ("error_log", READ_WRITE, &ERROR_LOG),
    ("buffer_size_kb", READ_WRITE, &BUFFER_SIZE_KB),
    ("buffer_total_size_kb", READ_ONLY, &BUFFER_TOTAL_SIZE_KB),
    ("buffer_percent", READ_WRITE, &BUFFER_PERCENT),
    ("trace_clock", READ_WRITE, &TRACE_CLOCK),
];

/// The clocks, the current one in brackets; writing a name switches.
static TRACE_CLOCK: Attribute = Attribute {
    show: |inst, _, out| trace_clock::write_list(out, inst.clock()),
    store: Some(|inst, _, text| {
        inst.set_clock(TraceClock::parse(text)?);
        Ok(())
    }),
    max_write: MAX_VALUE_WRITE,
    truncate: None,
};

/// Parses a size in KiB for a ring and returns the pages it needs.
fn parse_size_kb(text: &[u8]) -> Result<usize, InputError> {
    let kb = input::parse_u64(text)?;
    let bytes = kb
        .checked_mul(1024)
        .filter(|b| *b > 0)
        .ok_or(InputError::BadNumber)?;
    let bytes = usize::try_from(bytes).map_err(|_| InputError::BadNumber)?;
    Ok(ring_buffer::pages_for(bytes))
}

/// Resizes to `pages`, explaining a failure.
fn resize(inst: &Instance, pages: &[usize]) -> Result<(), InputError> {
    inst.resize(pages).map_err(|_| InputError::NoMemory)
}

/// Size of each CPU's buffer in KiB (event data, whole pages), or `X` when
/// they differ; writing sets every CPU's size. Contents are dropped.
static BUFFER_SIZE_KB: Attribute = Attribute {
    show: |inst, _, out| {
        let buffer = inst.buffer();
        let first = buffer.data_size(0);
        if (0..buffer.nr_cpus()).all(|cpu| buffer.data_size(cpu) == first) {
            writeln!(out, "{}", first / 1024)
        } else {
            writeln!(out, "X")
        }
    },
    store: Some(|inst, _, text| {
        let pages = parse_size_kb(text)?;
        let mut all = KVec::new();
        for _ in 0..inst.buffer().nr_cpus() {
            all.push(pages, GFP_KERNEL)
                .map_err(|_| InputError::NoMemory)?;
        }
        resize(inst, &all)
    }),
    max_write: MAX_VALUE_WRITE,
    truncate: None,
};

/// Sum of all CPUs' buffer sizes in KiB.
static BUFFER_TOTAL_SIZE_KB: Attribute = Attribute::read_only(|inst, _, out| {
    let buffer = inst.buffer();
    let total: usize = (0..buffer.nr_cpus()).map(|cpu| buffer.data_size(cpu)).sum();
    writeln!(out, "{}", total / 1024)
});

/// `buffer_percent`: how full, in percent of its pages, a CPU's ring gets
/// before a `poll` or `splice` of its `trace_pipe_raw` wakes (0: at any
/// data); 0 to 100, read as the kernel's `kstrtoul(.., 10, ..)`.
static BUFFER_PERCENT: Attribute = Attribute {
    show: |inst, _, out| writeln!(out, "{}", inst.full_readers().percent()),
    store: Some(|inst, _, text| {
        let percent = u32::try_from(input::parse_kstrtoul(text)?)
            .ok()
            .filter(|p| *p <= full_waiters::MAX_PERCENT)
            .ok_or(InputError::BadNumber)?;
        inst.full_readers().set_percent(percent);
        Ok(())
    }),
    max_write: MAX_VALUE_WRITE,
    truncate: None,
};

/// `per_cpu/cpuN/buffer_size_kb`: one CPU's size.
static CPU_BUFFER_SIZE_KB: Attribute = Attribute {
    show: |inst, cpu, out| writeln!(out, "{}", inst.buffer().data_size(cpu) / 1024),
    store: Some(|inst, cpu, text| {
        let pages = parse_size_kb(text)?;
        let mut all = KVec::new();
        all.extend_from_slice(inst.buffer().pages(), GFP_KERNEL)
            .map_err(|_| InputError::NoMemory)?;
        *all.get_mut(cpu).ok_or(InputError::UnknownValue)? = pages;
        resize(inst, &all)
    }),
    max_write: MAX_VALUE_WRITE,
    truncate: None,
};

/// How many task names are kept; writing N from 1 to 32768 keeps at least
/// N, as many as the kernel would.
static SAVED_CMDLINES_SIZE: Attribute = Attribute {
    show: |inst, _, out| writeln!(out, "{}", inst.tasks().cmdlines_capacity()),
    store: Some(|inst, _, text| {
        let entries = input::parse_u64(text)?;
        let entries = usize::try_from(entries)
            .ok()
            .filter(|n| (1..=cmdlines::MAX_ENTRIES).contains(n))
            .ok_or(InputError::BadNumber)?;
        inst.tasks()
            .set_cmdlines_capacity(entries)
            .map_err(|_| InputError::NoMemory)
    }),
    max_write: MAX_VALUE_WRITE,
    truncate: None,
};

/// `pid comm` for every task name saved.
static SAVED_CMDLINES: Attribute =
    Attribute::read_only(|inst, _, out| inst.tasks().write_cmdlines(out));

/// `pid tgid` for every thread group saved (`record-tgid`).
static SAVED_TGIDS: Attribute = Attribute::read_only(|inst, _, out| inst.tasks().write_tgids(out));

/// The strings trace events record pointers to, each after its address
/// (the kernel's, read from the kernel).
static PRINTK_FORMATS: Attribute = Attribute::read_only(|_, _, out| {
    crate::kernel_api::printk_formats::try_for_each(|address, format| {
        printk_formats::write_format_line(out, address, format)
    })
});

static TRACE_FOPS: OpTable<crate::bindings::file_operations> = OpTable(stream_fops::<TraceFile>());
static TRACE_PIPE_FOPS: OpTable<crate::bindings::file_operations> =
    OpTable(stream_fops::<TracePipe>());
static TRACE_PIPE_RAW_FOPS: OpTable<crate::bindings::file_operations> =
    OpTable(stream_fops::<TracePipeRaw>());
static FREE_BUFFER_FOPS: OpTable<crate::bindings::file_operations> =
    OpTable(stream_fops::<FreeBuffer>());
static TRACE_MARKER_FOPS: OpTable<crate::bindings::file_operations> =
    OpTable(stream_fops::<TraceMarker>());
static AVAILABLE_FUNCTIONS_FOPS: OpTable<crate::bindings::file_operations> =
    OpTable(stream_fops::<AvailableFunctions>());
static FILTER_FOPS: OpTable<crate::bindings::file_operations> =
    OpTable(stream_fops::<FilterFile>());

/// Creates the control files of `instance` in `dir`: those of the top
/// level, or of an instance under `instances/` (which, as the kernel's,
/// lacks the files of global state).
pub(crate) fn populate(dir: &Dir, instance: &Arc<Instance>) -> Result {
    let top = instance.is_top();
    for &(name, permissions, attr) in FILES {
        dir.file(name, permissions, attr, instance, 0)?;
    }
    if top {
        for &(name, permissions, attr) in TOP_LEVEL_FILES {
            dir.file(name, permissions, attr, instance, 0)?;
        }
    }
    dir.stream_file("trace", READ_WRITE, &TRACE_FOPS, instance, 0)?;
    dir.stream_file("trace_pipe", READ_ONLY, &TRACE_PIPE_FOPS, instance, 0)?;
    dir.stream_file("trace_marker", WRITE_ONLY, &TRACE_MARKER_FOPS, instance, 0)?;
    dir.stream_file(
        "trace_marker_raw",
        WRITE_ONLY,
        &TRACE_MARKER_FOPS,
        instance,
        1,
    )?;
    dir.stream_file("snapshot", READ_WRITE, &TRACE_FOPS, instance, SNAPSHOT)?;
    dir.stream_file("free_buffer", 0o200, &FREE_BUFFER_FOPS, instance, 0)?;
    populate_function_files(dir, instance)?;
    let options = dir.dir("options")?;
    for (index, option) in all_option_files().enumerate() {
        if top || !trace_options::TOP_LEVEL_ONLY.contains(option) {
            options.file(option.name, READ_WRITE, &OPTION_FILE, instance, index)?;
        }
    }
    let events = dir.dir("events")?;
    events.file("header_page", READ_ONLY, &HEADER_PAGE, instance, 0)?;
    events.file("header_event", READ_ONLY, &HEADER_EVENT, instance, 0)?;
    let ftrace = events.dir("ftrace")?;
    for (name, kind) in records::event_types() {
        let event = ftrace.dir(name)?;
        event.file(
            "format",
            READ_ONLY,
            &EVENT_FORMAT,
            instance,
            usize::from(kind),
        )?;
        // As in the kernel, only the events perf can use have an `id` file.
        if kind == records::TYPE_PRINT || kind == records::function::TYPE_FUNCTION {
            event.file("id", READ_ONLY, &EVENT_ID, instance, usize::from(kind))?;
        }
    }
    // SAFETY: `events` is a directory of the super block being filled,
    // which `kill_sb` detaches from the event tree before tearing it down.
    unsafe { crate::events::files::populate(dir, events, instance)? };
    if top {
        // Probe events are defined at the top level only, as the kernel's.
        crate::probes::files::populate(dir, instance)?;
    }
    let per_cpu = dir.dir("per_cpu")?;
    for cpu in 0..instance.buffer().nr_cpus() {
        let name = CString::try_from_fmt(fmt!("cpu{cpu}"))?;
        let cpu_dir = per_cpu.dir(name.to_str().map_err(|_| EINVAL)?)?;
        cpu_dir.stream_file("trace", READ_WRITE, &TRACE_FOPS, instance, cpu + 1)?;
        cpu_dir.stream_file("trace_pipe", READ_ONLY, &TRACE_PIPE_FOPS, instance, cpu + 1)?;
        cpu_dir.stream_file(
            "trace_pipe_raw",
            READ_ONLY,
            &TRACE_PIPE_RAW_FOPS,
            instance,
            cpu + 1,
        )?;
        cpu_dir.stream_file(
            "snapshot",
            READ_WRITE,
            &TRACE_FOPS,
            instance,
            SNAPSHOT | (cpu + 1),
        )?;
        cpu_dir.file("stats", READ_ONLY, &CPU_STATS, instance, cpu)?;
        cpu_dir.file(
            "buffer_size_kb",
            READ_WRITE,
            &CPU_BUFFER_SIZE_KB,
            instance,
            cpu,
        )?;
    }
    Ok(())
}

/// The longest write a pid filter accepts.
pub(crate) const MAX_PIDS_WRITE: usize = 4096;

/// `set_ftrace_pid` (index 0) and `set_ftrace_notrace_pid` (1): pids, one
/// per line, or `no pid` while the list is not in use; a write adds pids,
/// all or none; `>` empties the list first.
static PID_FILTER: Attribute = Attribute {
    show: |inst, index, out| {
        let set = inst.function_pids().set(index);
        if set.is_active() {
            set.write_pids(out)
        } else {
            out.write_str("no pid\n")
        }
    },
    store: Some(|inst, index, text| inst.function_pids().write(index, text)),
    max_write: MAX_PIDS_WRITE,
    truncate: Some(|inst, index| {
        inst.function_pids().clear(index);
        Ok(())
    }),
};

/// `max_graph_depth`: how deep function_graph follows calls, 0 for no
/// limit (a decimal number, read strictly as the kernel's
/// `kstrtoul(.., 10, ..)`: no blanks around it).
static MAX_GRAPH_DEPTH: Attribute = Attribute {
    show: |inst, _, out| writeln!(out, "{}", inst.max_graph_depth()),
    store: Some(|inst, _, text| {
        let depth = input::parse_kstrtoul(text)?;
        inst.set_max_graph_depth(u32::try_from(depth).map_err(|_| InputError::BadNumber)?);
        Ok(())
    }),
    max_write: MAX_VALUE_WRITE,
    truncate: None,
};

/// The function tracers' files.
fn populate_function_files(dir: &Dir, instance: &Arc<Instance>) -> Result {
    if instance.is_top() {
        // The kernel's lists of functions, and its function_graph filters
        // and depth, are global: files of the top level only.
        let list = &AVAILABLE_FUNCTIONS_FOPS;
        dir.stream_file("available_filter_functions", READ_ONLY, list, instance, 0)?;
        dir.stream_file(
            "available_filter_functions_addrs",
            READ_ONLY,
            list,
            instance,
            1,
        )?;
        dir.stream_file("enabled_functions", READ_ONLY, list, instance, 2)?;
        dir.stream_file("set_graph_function", READ_WRITE, &FILTER_FOPS, instance, 2)?;
        dir.stream_file("set_graph_notrace", READ_WRITE, &FILTER_FOPS, instance, 3)?;
        dir.file("max_graph_depth", READ_WRITE, &MAX_GRAPH_DEPTH, instance, 0)?;
    }
    dir.stream_file("set_ftrace_filter", READ_WRITE, &FILTER_FOPS, instance, 0)?;
    dir.stream_file("set_ftrace_notrace", READ_WRITE, &FILTER_FOPS, instance, 1)?;
    dir.file("set_ftrace_pid", READ_WRITE, &PID_FILTER, instance, 0)?;
    dir.file(
        "set_ftrace_notrace_pid",
        READ_WRITE,
        &PID_FILTER,
        instance,
        1,
    )?;
    Ok(())
}

/// `events/ftrace/<event>/format` of the record type the index names.
static EVENT_FORMAT: Attribute = Attribute::read_only(|_, kind, out| {
    let kind = u16::try_from(kind).map_err(|_| core::fmt::Error)?;
    records::write_format(out, kind).unwrap_or(Ok(()))
});

/// `events/ftrace/<event>/id`: the record type id.
static EVENT_ID: Attribute = Attribute::read_only(|_, kind, out| writeln!(out, "{kind}"));

static HEADER_PAGE: Attribute = Attribute::read_only(|_, _, out| format::write_header_page(out));
static HEADER_EVENT: Attribute = Attribute::read_only(|_, _, out| format::write_header_event(out));

/// `per_cpu/cpuN/stats`, in ftrace's format.
static CPU_STATS: Attribute = Attribute::read_only(|inst, cpu, out| {
    let buffer = inst.buffer();
    let Some(ring) = buffer.cpu(cpu) else {
        return Ok(());
    };
    let s = ring.stats();
    let (bytes, oldest) = ring.bytes_and_oldest();
    let secs = |ns: u64| (ns / 1000 / 1_000_000, ns / 1000 % 1_000_000);
    writeln!(
        out,
        "entries: {}",
        s.written.saturating_sub(s.overrun + s.read)
    )?;
    writeln!(out, "overrun: {}", s.overrun)?;
    writeln!(out, "commit overrun: {}", s.commit_overrun)?;
    writeln!(out, "bytes: {bytes}")?;
    let (sec, usec) = secs(oldest);
    writeln!(out, "oldest event ts: {sec:5}.{usec:06}")?;
    let (sec, usec) = secs(inst.now());
    writeln!(out, "now ts: {sec:5}.{usec:06}")?;
    writeln!(out, "dropped events: {}", s.dropped)?;
    writeln!(out, "read events: {}", s.read)
});

static README: Attribute = Attribute::read_only(|_, _, out| out.write_str(readme::TEXT));

static TRACING_ON: Attribute = Attribute {
    show: |inst, _, out| writeln!(out, "{}", u8::from(inst.tracing_on())),
    store: Some(|inst, _, text| {
        inst.set_tracing_on(input::parse_switch(text)?);
        Ok(())
    }),
    max_write: MAX_VALUE_WRITE,
    truncate: None,
};

static AVAILABLE_TRACERS: Attribute = Attribute::read_only(|_, _, out| {
    for (i, name) in tracer::names().iter().enumerate() {
        let sep = if i + 1 == tracer::ALL.len() {
            "\n"
        } else {
            " "
        };
        write!(out, "{name}{sep}")?;
    }
    Ok(())
});

static CURRENT_TRACER: Attribute = Attribute {
    show: |inst, _, out| writeln!(out, "{}", inst.tracer_name()),
    store: Some(|inst, _, text| {
        let index = tracer_name::parse(text, &tracer::names())?;
        let tracer = tracer::ALL.get(index).ok_or(InputError::UnknownValue)?;
        inst.set_tracer(tracer)
    }),
    max_write: tracer_name::MAX_TRACER_NAME,
    truncate: None,
};

/// Every file of `options/`: the general options, then every tracer's.
fn all_option_files() -> impl Iterator<Item = &'static trace_options::TraceOption> {
    Iterator::chain(trace_options::ALL.iter(), trace_options::TRACER_OPTIONS)
}

/// The general options, then those of the current tracer, as ftrace lists
/// them; a write sets one of them.
static TRACE_OPTIONS: Attribute = Attribute {
    show: |inst, _, out| {
        let set = inst.options();
        for option in Iterator::chain(trace_options::ALL.iter(), inst.tracer().options) {
            let prefix = if set.has(*option) { "" } else { "no" };
            writeln!(out, "{prefix}{}", option.name)?;
        }
        Ok(())
    },
    store: Some(|inst, _, text| {
        let (option, on) = trace_options::parse_setting(text, inst.tracer().options)?;
        inst.set_option(option, on)
    }),
    max_write: MAX_VALUE_WRITE,
    truncate: None,
};

static OPTION_FILE: Attribute = Attribute {
    show: |inst, index, out| {
        let on = all_option_files()
            .nth(index)
            .is_some_and(|o| inst.options().has(*o));
        writeln!(out, "{}", u8::from(on))
    },
    store: Some(|inst, index, text| {
        let on = input::parse_flag(text)?;
        let option = all_option_files()
            .nth(index)
            .ok_or(InputError::UnknownValue)?;
        inst.set_option(*option, on)
    }),
    max_write: MAX_VALUE_WRITE,
    truncate: None,
};

static TRACING_CPUMASK: Attribute = Attribute {
    show: |inst, _, out| writeln!(out, "{}", inst.cpumask().display(instance::nr_cpu_ids())),
    store: Some(|inst, _, text| {
        inst.set_cpumask(CpuMask::parse(text, instance::nr_cpu_ids())?);
        Ok(())
    }),
    max_write: MAX_MASK_WRITE,
    truncate: None,
};

/// Any write clears the log, as in ftrace; the written text is not read.
static ERROR_LOG: Attribute = Attribute {
    show: |inst, _, out| inst.write_errors(out),
    store: Some(|inst, _, _| {
        inst.clear_errors();
        Ok(())
    }),
    max_write: 0,
    truncate: Some(|inst, _| {
        inst.clear_errors();
        Ok(())
    }),
};
