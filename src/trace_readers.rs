// SPDX-License-Identifier: GPL-2.0

//! The files that read the trace buffer as text, and `trace_marker`.
//!
//! - `trace` (and `per_cpu/cpuN/trace`): the whole buffer, oldest first,
//!   all CPUs merged by time, after the kernel's header; nothing is
//!   consumed. Opening it for writing with `O_TRUNC` empties the buffer.
//! - `trace_pipe` (and `per_cpu/cpuN/trace_pipe`): consumes events as it
//!   prints them, and waits for more when the buffer is empty.
//! - `per_cpu/cpuN/trace_pipe_raw`: consumes whole pages in the binary
//!   format ([`pipe_raw`]).
//! - `trace_marker`: each write becomes a `print` event.
//!
//! - `snapshot` (and `per_cpu/cpuN/snapshot`): `trace` over the snapshot
//!   buffer; writing 0, 1 or another number frees, takes or clears it.
//!
//! File index 0 means every CPU, index `n` means CPU `n - 1`; snapshot
//! files add [`SNAPSHOT`].

/// Index flag of snapshot files.
pub(crate) const SNAPSHOT: usize = 1 << 16;

/// The longest command `snapshot` accepts.
const MAX_COMMAND: usize = 128;

mod graph_view;
mod pipe_raw;

pub(crate) use pipe_raw::TracePipeRaw;

use crate::bindings;
use crate::events::text::{EventText, TextForm};
use crate::instance::{Instance, PauseGuard};
use crate::portable::graph_output::Printed;
use crate::portable::{
    input,
    output::{self, EntryHeader},
    records::{self, SymbolStyle},
    ring_buffer::{
        format::PAGE_SIZE,
        iter::RingIter,
        ring::{Cursor, Stats},
    },
    trace_options,
};
use crate::rftracefs::Stream;
use crate::ring_buffer::TraceBuffer;
use crate::symbols::SymbolNames;
use core::fmt::{self, Write};
use graph_view::GraphView;
use kernel::{prelude::*, sync::Arc};

/// `fmt::Write` appending to a `KVec`.
struct Text<'a>(&'a mut KVec<u8>);

impl fmt::Write for Text<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0
            .extend_from_slice(s.as_bytes(), GFP_KERNEL)
            .map_err(|_| fmt::Error)
    }
}

fn fmt_result(r: fmt::Result) -> Result {
    r.map_err(|_| ENOMEM)
}

/// A page-sized buffer on the heap.
fn page_buffer() -> Result<KBox<[u8; PAGE_SIZE]>> {
    Ok(KBox::new([0u8; PAGE_SIZE], GFP_KERNEL)?)
}

/// The next event of one CPU, read ahead so CPUs can be merged by time.
struct Peeked {
    payload: KBox<[u8; PAGE_SIZE]>,
    len: usize,
    ts: u64,
    lost: u64,
    full: bool,
}

impl Peeked {
    fn new() -> Result<Self> {
        Ok(Peeked {
            payload: page_buffer()?,
            len: 0,
            ts: 0,
            lost: 0,
            full: false,
        })
    }
}

/// Reads `cpu`'s next event into the empty slot `p`, without consuming it.
fn walk_into(
    buffer: &TraceBuffer,
    cpu: usize,
    walk: &mut RingIter,
    scratch: &mut [u8; PAGE_SIZE],
    p: &mut Peeked,
) {
    let Some(ring) = buffer.cpu(cpu) else {
        return;
    };
    if let Some(ev) = walk.next(ring, scratch, &mut p.payload[..]) {
        (p.len, p.ts, p.full) = (ev.len, ev.ts, true);
    }
}

/// Consumes `cpu`'s next event into the empty slot `p`.
fn consume_into(
    buffer: &TraceBuffer,
    cpu: usize,
    cursor: &mut Cursor,
    scratch: &mut [u8; PAGE_SIZE],
    p: &mut Peeked,
) {
    let Some(ring) = buffer.cpu(cpu) else {
        return;
    };
    if let Some(ev) = ring.consume(cursor, scratch, &mut p.payload[..]) {
        (p.len, p.ts, p.lost, p.full) = (ev.len, ev.ts, ev.lost, true);
    }
}

/// The CPUs a file reads: all, or the one its index names.
fn cpus_of(buffer: &TraceBuffer, index: usize) -> core::ops::Range<usize> {
    match index & !SNAPSHOT {
        0 => 0..buffer.nr_cpus(),
        n => n - 1..n,
    }
}

/// The CPU a per-CPU file's index names.
fn cpu_of(index: usize) -> Option<usize> {
    (index & !SNAPSHOT).checked_sub(1)
}

/// What an empty `snapshot` file shows: its commands.
const SNAPSHOT_HELP: &str = "\
# Snapshot commands:
# echo 0 > snapshot : Clears and frees snapshot buffer
# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.
#                      Takes a snapshot of the main buffer.
# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)
#                      (Doesn't have to be '2' works with any number that
#                       is not a '0' or '1')
";

/// What an empty `per_cpu/cpuN/snapshot` file shows.
const SNAPSHOT_CPU_HELP: &str = "\
# Snapshot commands:
# echo 0 > snapshot : Invalid for per_cpu snapshot file.
# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.
#                      Takes a snapshot of the main buffer for this cpu.
# echo 2 > snapshot : Clears this cpu's snapshot buffer (but does not allocate)
#                      (Doesn't have to be '2' works with any number that
#                       is not a '0' or '1')
";

/// The buffer writers use now, if it is not `current`.
fn newer_buffer(instance: &Instance, current: &Arc<TraceBuffer>) -> Option<Arc<TraceBuffer>> {
    let live = instance.buffer();
    (!Arc::ptr_eq(&live, current)).then_some(live)
}

/// Whether file `index` would find unread events in the live buffer.
fn has_unread(instance: &Instance, index: usize) -> bool {
    instance.with_live_buffer(|buffer, _| {
        cpus_of(buffer, index).any(|cpu| buffer.cpu(cpu).is_some_and(|r| r.has_unread()))
    })
}

/// Picks the CPU whose peeked event is oldest.
fn oldest(peeked: &[(usize, Peeked)]) -> Option<usize> {
    peeked
        .iter()
        .enumerate()
        .filter(|(_, (_, p))| p.full)
        .min_by_key(|(_, (_, p))| p.ts)
        .map(|(i, _)| i)
}

/// The time stamp of the oldest peeked event other than `i`'s: the event
/// printed after `i`'s, as far as the read-ahead knows.
fn next_ts(peeked: &[(usize, Peeked)], i: usize) -> Option<u64> {
    peeked
        .iter()
        .enumerate()
        .filter(|&(j, (_, p))| j != i && p.full)
        .map(|(_, (_, p))| p.ts)
        .min()
}

/// The kernel release, as `uname -r` shows it.
fn kernel_release() -> &'static str {
    // SAFETY: `init_uts_ns` is a kernel global that lives forever; its
    // release string is set at build time and never written.
    let release = unsafe { &*core::ptr::addr_of!(bindings::init_uts_ns.name.release) };
    // SAFETY: `c_char` and `u8` have the same size and alignment.
    let bytes =
        unsafe { core::slice::from_raw_parts(release.as_ptr().cast::<u8>(), release.len()) };
    let len = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let original = &bytes[..len];
    core::str::from_utf8(original).unwrap_or("")
}

/// The preemption model, named as the kernel's `preempt_model_str` does
/// for a kernel built without dynamic preemption (with it, the mode chosen
/// at boot is not visible to modules, and `PREEMPT(dynamic)` is shown).
fn preempt_model() -> &'static str {
    if cfg!(CONFIG_PREEMPT_DYNAMIC) {
        "PREEMPT(dynamic)"
    } else if cfg!(CONFIG_PREEMPT_RT) {
        "PREEMPT_RT"
    } else if cfg!(CONFIG_PREEMPT_LAZY) {
        "PREEMPTLAZY"
    } else if cfg!(CONFIG_PREEMPT_BUILD) {
        "PREEMPT"
    } else if cfg!(CONFIG_PREEMPT_VOLUNTARY_BUILD) {
        "VOLUNTARY"
    } else {
        "NONE"
    }
}

/// What a reader prints records with, kept for the whole read.
struct Printers {
    /// The printer of kernel events.
    events: EventText,
    /// The names of code addresses.
    symbols: SymbolNames,
}

impl Printers {
    fn new() -> Self {
        Printers {
            events: EventText::new(),
            symbols: SymbolNames::new(),
        }
    }
}

/// Appends the line of one event, in the form the options ask for: `bin`
/// before `hex` before `raw` before the default text, as ftrace.
/// With `latency` (the buffer's start time, when `latency-format` is on),
/// the default text uses the latency columns, timed from that start; they
/// also need the time stamp of the event printed next (`next_ts`).
fn render(
    instance: &Instance,
    printers: &mut Printers,
    cpu: usize,
    p: &Peeked,
    next_ts: Option<u64>,
    latency: Option<u64>,
    text: &mut KVec<u8>,
) -> Result {
    if p.lost > 0 {
        fmt_result(writeln!(Text(text), "CPU:{cpu} [LOST {} EVENTS]", p.lost))?;
    }
    let record = &p.payload[..p.len];
    let Some(header) = EntryHeader::from_bytes(record) else {
        return Ok(());
    };
    let options = instance.options();
    let context = options.has(trace_options::CONTEXT_INFO);
    let (pid, cpu32) = (header.pid, cpu as u32);
    // Kernel events print through the kernel's own functions.
    let kernel_event = records::functions(header.kind).is_none();
    let sym_addr = options.has(trace_options::SYM_ADDR);
    let Printers { events, symbols } = printers;
    let mut event_body = |form: TextForm, text: &mut KVec<u8>| {
        events.write(
            record,
            header.kind,
            (cpu32, p.ts),
            (form, sym_addr),
            &*symbols,
            text,
        )
    };
    if options.has(trace_options::BIN) {
        if context {
            text.extend_from_slice(&records::bin_context(pid, cpu32, p.ts), GFP_KERNEL)?;
        }
        if kernel_event {
            if let Some(done) = event_body(TextForm::Binary, text) {
                return done;
            }
        }
        let mut sink = |bytes: &[u8]| {
            text.extend_from_slice(bytes, GFP_KERNEL)
                .map_err(|_| fmt::Error)
        };
        return fmt_result(records::write_bin_body(&mut sink, &header, record));
    }
    let mut out = Text(text);
    if options.has(trace_options::HEX) {
        if context {
            fmt_result(records::write_hex_context(&mut out, pid, cpu32, p.ts))?;
        }
        if kernel_event {
            if let Some(done) = event_body(TextForm::Hex, text) {
                return done;
            }
        }
        return fmt_result(records::write_hex_body(&mut Text(text), &header, record));
    }
    if options.has(trace_options::RAW) {
        if context {
            fmt_result(write!(out, "{pid} {cpu} {} ", p.ts))?;
        }
        if kernel_event {
            if let Some(done) = event_body(TextForm::Raw, text) {
                return done;
            }
        }
        return fmt_result(records::write_raw_body(&mut Text(text), &header, record));
    }
    let style = SymbolStyle {
        offset: options.has(trace_options::SYM_OFFSET),
        address: options.has(trace_options::SYM_ADDR),
    };
    if let (true, Some(start)) = (context, latency) {
        let times = output::LatencyTimes {
            ts: p.ts,
            next_ts: next_ts.unwrap_or(p.ts),
            start,
            in_ns: instance.clock().in_ns(),
        };
        let comm = instance.tasks().comm(pid);
        fmt_result(output::write_latency_context(
            &mut out,
            comm.as_str(),
            &header,
            cpu32,
            times,
        ))?;
    } else if context {
        let comm = instance.tasks().comm(pid);
        let style = output::ContextStyle {
            irq_info: options.has(trace_options::IRQ_INFO),
            tgid: options.has(trace_options::RECORD_TGID),
            ts_in_ns: instance.clock().in_ns(),
        };
        let tgid = if style.tgid {
            instance.tasks().tgid(pid)
        } else {
            0
        };
        fmt_result(output::write_context(
            &mut out,
            comm.as_str(),
            tgid,
            &header,
            cpu32,
            p.ts,
            style,
        ))?;
    }
    if kernel_event {
        if let Some(done) = event_body(TextForm::Trace, text) {
            return done;
        }
    }
    let cx = records::PrintContext {
        symbols: &*symbols,
        style,
        print_parent: options.has(trace_options::PRINT_PARENT),
    };
    fmt_result(records::write_text_body(
        &mut Text(text),
        &header,
        record,
        &cx,
    ))
}

/// `trace`: a non-consuming, merged walk.
pub(crate) struct TraceFile {
    instance: Arc<Instance>,
    /// The buffer shown; `None` for a snapshot file while none is allocated.
    buffer: Option<Arc<TraceBuffer>>,
    index: usize,
    /// `latency-format` was on when the file was opened (as in ftrace,
    /// the choice holds for the whole read).
    latency: bool,
    header_done: bool,
    sources: KVec<(usize, Peeked)>,
    walks: KVec<RingIter>,
    scratch: KVec<KBox<[u8; PAGE_SIZE]>>,
    /// With `latency-format`: a page to look one event ahead on a CPU
    /// into, for the delay mark.
    spare: Option<KBox<[u8; PAGE_SIZE]>>,
    /// The function_graph form, when that tracer was current at open.
    graph: Option<GraphView>,
    /// The printers of records.
    printers: Printers,
    /// Recording held off while `trace` is read (`pause-on-trace`).
    _pause: Option<PauseGuard>,
}

/// The time stamp of the event after the one peeked on `cpu`, whose walk
/// and page are `walk` and `scratch`, if any.
fn peek_same_cpu(
    buffer: &TraceBuffer,
    cpu: usize,
    (walk, scratch): (&RingIter, &[u8; PAGE_SIZE]),
    spare: Option<&mut KBox<[u8; PAGE_SIZE]>>,
) -> Option<u64> {
    walk.peek_ts(buffer.cpu(cpu)?, scratch, spare?)
}

impl TraceFile {
    fn stats(&self) -> Stats {
        let Some(buffer) = &self.buffer else {
            return Stats::default();
        };
        match cpu_of(self.index) {
            None => buffer.total_stats(),
            Some(cpu) => buffer.cpu(cpu).map(|r| r.stats()).unwrap_or_default(),
        }
    }

    fn write_header(&self, text: &mut KVec<u8>) -> Result {
        let s = self.stats();
        let entries = s.written.saturating_sub(s.overrun + s.read);
        let irq_info = self.instance.options().has(trace_options::IRQ_INFO);
        let tracer = self.instance.tracer_name();
        // An empty snapshot shows how to use it instead of the columns.
        let empty = |b: &Arc<TraceBuffer>| {
            cpus_of(b, self.index).all(|cpu| b.cpu(cpu).is_none_or(|r| !r.has_unread()))
        };
        if self.index & SNAPSHOT != 0 && self.buffer.as_ref().is_none_or(empty) {
            let state = if self.buffer.is_some() {
                "allocated"
            } else {
                "freed"
            };
            let help = match cpu_of(self.index) {
                None => SNAPSHOT_HELP,
                Some(_) => SNAPSHOT_CPU_HELP,
            };
            return fmt_result(write!(
                Text(text),
                "# tracer: {tracer}\n#\n#\n# * Snapshot is {state} *\n#\n{help}"
            ));
        }
        let options = self.instance.options();
        let latency = (self.latency && options.has(trace_options::CONTEXT_INFO)).then(|| {
            (!self.buffer.as_ref().is_none_or(empty)).then(|| output::LatencyHeader {
                tracer,
                release: kernel_release(),
                entries,
                written: s.written,
                preempt_model: preempt_model(),
                online_cpus: crate::instance::online_cpus(),
                cpu: self.instance.header_cpu(),
            })
        });
        if self.graph.is_some() {
            return graph_view::write_header(&self.instance, latency, text);
        }
        if !options.has(trace_options::CONTEXT_INFO) {
            // Without context, ftrace shows no columns to explain.
            return fmt_result(write!(Text(text), "# tracer: {tracer}\n#\n"));
        }
        if let Some(latency) = latency {
            fmt_result(write!(Text(text), "# tracer: {tracer}\n#\n"))?;
            let Some(header) = latency else {
                return Ok(());
            };
            return fmt_result(output::write_latency_header(&mut Text(text), &header));
        }
        fmt_result(output::write_trace_header(
            &mut Text(text),
            tracer,
            entries,
            s.written,
            crate::instance::online_cpus(),
            irq_info,
            options.has(trace_options::RECORD_TGID),
        ))
    }
}

impl Stream for TraceFile {
    fn open(
        instance: &Arc<Instance>,
        index: usize,
        write_only: bool,
        truncate: bool,
    ) -> Result<Self> {
        let snapshot = index & SNAPSHOT != 0;
        if truncate && !snapshot {
            instance.clear(cpu_of(index));
        }
        let buffer = if snapshot {
            instance.snapshot()
        } else {
            Some(instance.buffer())
        };
        // As ftrace: reading `trace` (not `snapshot`) stops recording
        // until the file is closed, so a walk behind busy writers ends.
        let pause =
            (!write_only && !snapshot && instance.options().has(trace_options::PAUSE_ON_TRACE))
                .then(|| instance.pause());
        let mut this = TraceFile {
            _pause: pause,
            instance: instance.clone(),
            buffer: buffer.clone(),
            index,
            latency: instance.options().has(trace_options::LATENCY_FORMAT),
            header_done: false,
            sources: KVec::new(),
            walks: KVec::new(),
            scratch: KVec::new(),
            spare: None,
            graph: None,
            printers: Printers::new(),
        };
        if this.latency {
            this.spare = Some(page_buffer()?);
        }
        if let (false, Some(buffer)) = (write_only, &buffer) {
            for cpu in cpus_of(buffer, index) {
                this.sources.push((cpu, Peeked::new()?), GFP_KERNEL)?;
                this.walks.push(RingIter::new(), GFP_KERNEL)?;
                this.scratch.push(page_buffer()?, GFP_KERNEL)?;
            }
            this.graph = GraphView::open(instance, this.sources.len(), buffer.time_start())?;
        }
        Ok(this)
    }

    fn fill(&mut self, text: &mut KVec<u8>, want: usize, _nonblock: bool) -> Result {
        if !self.header_done {
            self.header_done = true;
            self.write_header(text)?;
        }
        let Some(buffer) = &self.buffer else {
            return Ok(());
        };
        while text.len() < want {
            for (i, (cpu, peeked)) in self.sources.iter_mut().enumerate() {
                if peeked.full || self.graph.as_mut().is_some_and(|g| g.take_ahead(i, peeked)) {
                    continue;
                }
                walk_into(
                    buffer,
                    *cpu,
                    &mut self.walks[i],
                    &mut self.scratch[i],
                    peeked,
                );
            }
            let Some(i) = oldest(&self.sources) else {
                break;
            };
            let mut next = next_ts(&self.sources, i);
            if self.latency {
                // The kernel's delay mark is to the next event of any
                // CPU, this one's included.
                let same = peek_same_cpu(
                    buffer,
                    self.sources[i].0,
                    (&self.walks[i], &self.scratch[i]),
                    self.spare.as_mut(),
                );
                next = match (next, same) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
            }
            let start = self.buffer.as_ref().map_or(0, |b| b.time_start());
            let latency = self.latency.then_some(start);
            let (cpu, peeked) = &mut self.sources[i];
            let printed = match self.graph.as_mut() {
                Some(graph) => {
                    if let Some(ahead) = graph.empty_ahead(i) {
                        walk_into(
                            buffer,
                            *cpu,
                            &mut self.walks[i],
                            &mut self.scratch[i],
                            ahead,
                        );
                    }
                    graph.print(
                        &self.instance,
                        (i, *cpu),
                        peeked,
                        &self.printers.symbols,
                        text,
                    )?
                }
                None => Printed::Unhandled,
            };
            if printed == Printed::Unhandled {
                render(
                    &self.instance,
                    &mut self.printers,
                    *cpu,
                    peeked,
                    next,
                    latency,
                    text,
                )?;
            }
            peeked.full = false;
        }
        Ok(())
    }

    /// A write to `trace` (after the `O_TRUNC` of `echo > trace`) is
    /// accepted and ignored, as in ftrace. A write to `snapshot` is a
    /// command: 0 frees the snapshot, 1 takes one, any other number clears
    /// it; per CPU, 1 swaps only that CPU's ring and 0 is refused (the
    /// snapshot buffer is freed as a whole).
    fn write(&mut self, data: &[u8], len: usize) -> Result<usize> {
        if self.index & SNAPSHOT == 0 {
            return Ok(data.len());
        }
        if len > MAX_COMMAND {
            return Err(EINVAL);
        }
        let cpu = cpu_of(self.index);
        match (input::parse_u64(data).map_err(|_| EINVAL)?, cpu) {
            (0, Some(_)) => return Err(EINVAL),
            (0, None) => self.instance.free_snapshot(),
            (1, cpu) => self.instance.take_snapshot(cpu)?,
            (_, cpu) => self.instance.clear_snapshot(cpu),
        }
        Ok(data.len())
    }
}

/// `trace_pipe`: a consuming, merged, blocking read.
pub(crate) struct TracePipe {
    instance: Arc<Instance>,
    buffer: Arc<TraceBuffer>,
    index: usize,
    /// `latency-format` was on when the file was opened.
    latency: bool,
    sources: KVec<(usize, Peeked)>,
    cursors: KVec<Cursor>,
    /// One scratch page per CPU: a cursor reads its page's later events
    /// from the copy it made (see `CpuRing::consume`).
    scratch: KVec<KBox<[u8; PAGE_SIZE]>>,
    /// The function_graph form, when that tracer was current at open.
    graph: Option<GraphView>,
    /// The printers of records.
    printers: Printers,
}

impl TracePipe {
    /// Consumes one event into each empty read-ahead slot.
    fn refill(&mut self) {
        for (i, (cpu, peeked)) in self.sources.iter_mut().enumerate() {
            if peeked.full || self.graph.as_mut().is_some_and(|g| g.take_ahead(i, peeked)) {
                continue;
            }
            consume_into(
                &self.buffer,
                *cpu,
                &mut self.cursors[i],
                &mut self.scratch[i],
                peeked,
            );
        }
    }
}

impl Stream for TracePipe {
    fn open(
        instance: &Arc<Instance>,
        index: usize,
        _write_only: bool,
        _truncate: bool,
    ) -> Result<Self> {
        let buffer = instance.buffer();
        let mut this = TracePipe {
            instance: instance.clone(),
            buffer: buffer.clone(),
            index,
            latency: instance.options().has(trace_options::LATENCY_FORMAT),
            sources: KVec::new(),
            cursors: KVec::new(),
            scratch: KVec::new(),
            graph: None,
            printers: Printers::new(),
        };
        for cpu in cpus_of(&buffer, index) {
            this.sources.push((cpu, Peeked::new()?), GFP_KERNEL)?;
            this.cursors.push(Cursor::new(), GFP_KERNEL)?;
            this.scratch.push(page_buffer()?, GFP_KERNEL)?;
        }
        this.graph = GraphView::open(instance, this.sources.len(), buffer.time_start())?;
        Ok(this)
    }

    fn fill(&mut self, text: &mut KVec<u8>, want: usize, nonblock: bool) -> Result {
        loop {
            while text.len() < want {
                self.refill();
                let Some(i) = oldest(&self.sources) else {
                    break;
                };
                let next = next_ts(&self.sources, i);
                let latency = self.latency.then_some(self.buffer.time_start());
                let (cpu, peeked) = &mut self.sources[i];
                let printed = match self.graph.as_mut() {
                    Some(graph) => {
                        if let Some(ahead) = graph.empty_ahead(i) {
                            let (cursor, scratch) = (&mut self.cursors[i], &mut self.scratch[i]);
                            consume_into(&self.buffer, *cpu, cursor, scratch, ahead);
                        }
                        graph.print(
                            &self.instance,
                            (i, *cpu),
                            peeked,
                            &self.printers.symbols,
                            text,
                        )?
                    }
                    None => Printed::Unhandled,
                };
                if printed == Printed::Unhandled {
                    render(
                        &self.instance,
                        &mut self.printers,
                        *cpu,
                        peeked,
                        next,
                        latency,
                        text,
                    )?;
                }
                peeked.full = false;
            }
            if !text.is_empty() {
                return Ok(());
            }
            // Drained a buffer that was replaced (resize, snapshot): go on
            // with the one writers use now.
            if let Some(live) = newer_buffer(&self.instance, &self.buffer) {
                self.buffer = live;
                self.cursors.iter_mut().for_each(|c| *c = Cursor::new());
                continue;
            }
            if nonblock {
                return Err(EAGAIN);
            }
            let (instance, index) = (&self.instance, self.index);
            instance
                .readers()
                .wait_until(&|| Self::readable(instance, index))?;
        }
    }

    fn readable(instance: &Instance, index: usize) -> bool {
        has_unread(instance, index)
    }
}

/// `trace_marker` (index 0): writes become `print` events;
/// `trace_marker_raw` (index 1): writes become `raw_data` events. An open
/// file keeps no state: writes go to [`Stream::write_shared`].
pub(crate) struct TraceMarker;

impl Stream for TraceMarker {
    fn open(
        _instance: &Arc<Instance>,
        _index: usize,
        _write_only: bool,
        _truncate: bool,
    ) -> Result<Self> {
        Ok(TraceMarker)
    }

    const SHARED_WRITE: bool = true;

    fn write_shared(
        instance: &Arc<Instance>,
        index: usize,
        data: &[u8],
        len: usize,
    ) -> Result<usize> {
        if index == 1 {
            // A raw write is one binary record: never cut it.
            if len > data.len() {
                return Err(EINVAL);
            }
            instance.record_raw_data(data)?;
            Ok(data.len())
        } else {
            // A text longer than a record holds is cut; the writer is told
            // how much was taken, and writes the rest again.
            instance.record_print(data)
        }
    }
}

/// `free_buffer`: when it is closed, the buffer shrinks to its minimum
/// (two pages per CPU), as ftrace frees it; what is written is ignored.
pub(crate) struct FreeBuffer {
    instance: Arc<Instance>,
}

impl Stream for FreeBuffer {
    fn open(
        instance: &Arc<Instance>,
        _index: usize,
        _write_only: bool,
        _truncate: bool,
    ) -> Result<Self> {
        Ok(FreeBuffer {
            instance: instance.clone(),
        })
    }

    fn write(&mut self, data: &[u8], _len: usize) -> Result<usize> {
        Ok(data.len())
    }
}

impl Drop for FreeBuffer {
    fn drop(&mut self) {
        let nr_cpus = self.instance.buffer().nr_cpus();
        let mut pages = KVec::new();
        if pages.resize(nr_cpus, 2, GFP_KERNEL).is_ok() {
            // Shrinking cannot need more memory than the buffer had; if
            // even that fails, the buffer simply stays as it was.
            let _ = self.instance.resize(&pages);
        }
    }
}
