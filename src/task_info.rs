// SPDX-License-Identifier: GPL-2.0

//! What an instance keeps of the tasks its records name: their names
//! (`saved_cmdlines`) and thread groups (`saved_tgids`), and when it saves
//! them.
//!
//! As the kernel does (kernel/trace/trace_sched_switch.c): each record
//! committed marks its CPU (`trace_taskinfo_save`); while names or thread
//! groups are wanted, probes on `sched_switch`, `sched_wakeup` and
//! `sched_wakeup_new` save the two tasks the scheduler has in hand on a
//! marked CPU (`prev` and `next`, or the waker and the wakee) and clear the
//! mark once both are saved. So a task that calls `exec` shows by its new
//! name from its next switch on.
//!
//! Names are wanted while the function or function_graph tracer runs (the
//! kernel's `tracing_start_cmdline_record` in their `init`, whatever
//! `record-cmd` says) or while events are enabled with `record-cmd` on;
//! thread groups while events are enabled with `record-tgid` on (the
//! kernel's function tracers do not start tgid recording).
//!
//! As the kernel's `savedcmd` and `tgid_map`, there is one [`TaskInfo`]
//! for every instance: the top level makes it and the instances share it,
//! so `saved_cmdlines` (which trace-cmd reads at the top level) names the
//! tasks of every instance's records. Each instance says what it wants
//! through its own [`TaskUse`], and the probes run while any wants them.

use crate::cpu_local;
use crate::kernel_api::task::{self, TaskRef};
use crate::portable::{
    cmdlines::{self, Cmdlines, Slot, COMM_LEN, NO_CMDLINE_MAP, PID_MAP_ENTRIES},
    tgids::Tgids,
    trace_options::{self, OptionSet},
};
use crate::ring_buffer::NoPreempt;
use crate::task_events::{MeetingProbes, TaskMeetings};
use crate::try_lock::TryLock;
use core::fmt;
use core::sync::atomic::{
    AtomicBool, AtomicI32, AtomicU64, AtomicU8,
    Ordering::{Acquire, Relaxed, Release},
};
use kernel::{
    new_mutex,
    prelude::*,
    sync::{Mutex, SetOnce},
};

/// The task names, in memory of the kernel's kind (`kvmalloc`).
type NameTable = Cmdlines<KVVec<u32>, KVVec<Slot>>;

/// A name table keeping what the kernel's keeps when asked for `requested`
/// entries. May sleep.
fn name_table(requested: usize) -> Result<NameTable> {
    let map = KVVec::from_elem(NO_CMDLINE_MAP, PID_MAP_ENTRIES, GFP_KERNEL)?;
    let capacity = cmdlines::capacity_for(requested, kernel::page::PAGE_SIZE);
    let slots = KVVec::from_elem(Slot::EMPTY, capacity, GFP_KERNEL)?;
    Ok(Cmdlines::new(map, slots))
}

/// Whom a marker last named on one CPU: a pid, its name and the count of
/// name-table changes then. Only its CPU reads and writes it, with
/// preemption off.
struct NamedTask {
    pid: AtomicI32,
    comm: [AtomicU64; 2],
    renamed: AtomicU64,
}

impl NamedTask {
    fn new() -> Self {
        NamedTask {
            // No task: pid 0 is never saved.
            pid: AtomicI32::new(0),
            comm: [AtomicU64::new(0), AtomicU64::new(0)],
            renamed: AtomicU64::new(u64::MAX),
        }
    }

    /// Whether it names `pid` by the name `comm` (as
    /// [`TaskRef::comm_words`] reads it), with `renamed` changes made.
    fn holds(&self, pid: i32, comm: [u64; 2], renamed: u64) -> bool {
        self.pid.load(Relaxed) == pid
            && self.renamed.load(Relaxed) == renamed
            && self.comm[0].load(Relaxed) == comm[0]
            && self.comm[1].load(Relaxed) == comm[1]
    }

    fn set(&self, pid: i32, comm: [u64; 2], renamed: u64) {
        self.pid.store(pid, Relaxed);
        self.comm[0].store(comm[0], Relaxed);
        self.comm[1].store(comm[1], Relaxed);
        self.renamed.store(renamed, Relaxed);
    }
}

/// The probes save task names.
const SAVE_COMM: u8 = 1;
/// The probes save thread groups.
const SAVE_TGID: u8 = 2;

/// What one instance asks of the shared [`TaskInfo`] (`USE_*` bits).
///
/// # Invariants
///
/// The bits change only under the saver lock of the `TaskInfo` the
/// instance uses, which counts them in its [`Wanted`].
pub(crate) struct TaskUse(AtomicU8);

/// The instance's function or function_graph tracer runs.
const USE_TRACER: u8 = 1;
/// Some event is enabled in the instance.
const USE_EVENTS: u8 = 2;
/// The instance's `record-tgid` is on.
const USE_TGID: u8 = 4;

impl TaskUse {
    /// Nothing asked yet, for an instance whose options are `options`.
    pub(crate) fn new(options: OptionSet) -> Self {
        let tgid = options.has(trace_options::RECORD_TGID);
        TaskUse(AtomicU8::new(if tgid { USE_TGID } else { 0 }))
    }
}

/// Who wants task information saved: the kernel's `sched_cmdline_ref` and
/// `sched_tgid_ref`, counted over the instances.
#[derive(Clone, Copy)]
struct Wanted {
    /// Instances whose function or function_graph tracer runs.
    tracers: usize,
    /// Instances with some event enabled.
    events: usize,
    /// Instances with some event enabled and `record-tgid` on.
    tgid_events: usize,
    /// The top level's `record-cmd` (an option of the top level only).
    record_cmd: bool,
}

impl Wanted {
    /// What the probes save (`SAVE_*`); 0 when nothing is wanted.
    fn saving(self) -> u8 {
        let comm = self.tracers > 0 || (self.events > 0 && self.record_cmd);
        let tgid = self.tgid_events > 0;
        (if comm { SAVE_COMM } else { 0 }) | (if tgid { SAVE_TGID } else { 0 })
    }

    /// Counts an instance's `USE_*` bits in (`add`) or out.
    fn count(&mut self, bits: u8, add: bool) {
        let change = |count: &mut usize, has: bool| {
            if has {
                *count = if add {
                    count.saturating_add(1)
                } else {
                    count.saturating_sub(1)
                };
            }
        };
        let events = bits & USE_EVENTS != 0;
        change(&mut self.tracers, bits & USE_TRACER != 0);
        change(&mut self.events, events);
        change(&mut self.tgid_events, events && bits & USE_TGID != 0);
    }
}

/// The probes and why they run.
struct Saver {
    wanted: Wanted,
    probes: Option<MeetingProbes<TaskInfo>>,
}

/// The task names and thread groups of the records of every instance.
///
/// # Invariants
///
/// The probes in `saver` are registered with this value as their data;
/// they are dropped (unregistered) before it goes.
///
/// # Lock order
///
/// `saver` is taken under the instance's `control` lock or its events
/// lock, and takes only the tracepoint locks. `cmdlines` is a leaf.
#[pin_data(PinnedDrop)]
pub(crate) struct TaskInfo {
    /// Per CPU: a record was committed there since the tasks the scheduler
    /// met there were last saved (`trace_taskinfo_save`).
    pending: KVec<AtomicBool>,
    /// What the probes save now (`SAVE_*`).
    saving: AtomicU8,
    /// Taken by the probes only with `try_lock`.
    cmdlines: TryLock<NameTable>,
    /// Counts the changes of `cmdlines`, made under its lock.
    renamed: AtomicU64,
    /// Per CPU: the task a marker written there last named, and `renamed`
    /// then; while both still hold, a marker of that task leaves the table
    /// alone.
    marker_named: KVec<NamedTask>,
    /// pid → tgid, allocated when `record-tgid` is first set, as the
    /// kernel's `tgid_map` (kept from then on).
    tgids: SetOnce<Tgids<KVVec<AtomicI32>>>,
    #[pin]
    saver: Mutex<Saver>,
}

impl TaskInfo {
    /// Nothing saved yet, for `cpus` CPUs and a top level whose options
    /// are `options`.
    pub(crate) fn new(cpus: usize, options: OptionSet) -> Result<impl PinInit<Self>> {
        let names = name_table(cmdlines::DEFAULT_ENTRIES)?;
        let mut pending = KVec::with_capacity(cpus, GFP_KERNEL)?;
        let mut marker_named = KVec::with_capacity(cpus, GFP_KERNEL)?;
        for _ in 0..cpus {
            pending.push(AtomicBool::new(false), GFP_KERNEL)?;
            marker_named.push(NamedTask::new(), GFP_KERNEL)?;
        }
        let wanted = Wanted {
            tracers: 0,
            events: 0,
            tgid_events: 0,
            record_cmd: options.has(trace_options::RECORD_CMD),
        };
        Ok(pin_init!(Self {
            pending,
            saving: AtomicU8::new(0),
            cmdlines: TryLock::new(names),
            renamed: AtomicU64::new(0),
            marker_named,
            tgids: SetOnce::new(),
            saver <- new_mutex!(Saver {
                wanted,
                probes: None,
            }),
        }))
    }

    /// A record was committed on `cpu` (the CPU this runs on). Any context.
    #[inline]
    pub(crate) fn committed(&self, cpu: usize) {
        if let Some(pending) = self.pending.get(cpu) {
            pending.store(true, Relaxed);
        }
    }

    /// Saves the running task's name now (a `trace_marker` write with
    /// `record-cmd` on), unless the last marker written on this CPU named
    /// the same task by the same name and the table has not changed since.
    /// Process context.
    pub(crate) fn save_current_comm(&self) {
        let current = TaskRef::current(self);
        let (pid, words) = (current.pid(), current.comm_words());
        // Preemption off: the CPU's entry is this writer's alone.
        let _preempt_off = NoPreempt::new();
        let named = self.marker_named.get(cpu_local::processor_id());
        if named.is_some_and(|n| n.holds(pid, words, self.renamed.load(Acquire))) {
            return;
        }
        let comm = current.comm();
        let mut cmdlines = self.cmdlines.lock();
        if cmdlines.save(pid, &comm) {
            self.renamed.fetch_add(1, Release);
        }
        let renamed = self.renamed.load(Relaxed);
        drop(cmdlines);
        if let Some(named) = named {
            named.set(pid, words, renamed);
        }
    }

    /// The task name saved for `pid`, copied out of the (spin) lock so the
    /// caller may sleep while using it.
    pub(crate) fn comm(&self, pid: i32) -> Comm {
        let mut comm = Comm {
            bytes: [0; COMM_LEN],
            len: 0,
        };
        let cmdlines = self.cmdlines.lock();
        let name = cmdlines.find(pid).as_bytes();
        comm.len = name.len().min(COMM_LEN);
        comm.bytes[..comm.len].copy_from_slice(&name[..comm.len]);
        comm
    }

    /// How many task names are kept (`saved_cmdlines_size`).
    pub(crate) fn cmdlines_capacity(&self) -> usize {
        self.cmdlines.lock().capacity()
    }

    /// Keeps at least `entries` task names from now on (as many as the
    /// kernel would); the saved ones are dropped.
    pub(crate) fn set_cmdlines_capacity(&self, entries: usize) -> Result {
        let names = name_table(entries)?;
        let mut cmdlines = self.cmdlines.lock();
        let old = core::mem::replace(&mut *cmdlines, names);
        self.renamed.fetch_add(1, Release);
        drop(cmdlines);
        drop(old);
        Ok(())
    }

    /// Writes `saved_cmdlines`: `pid comm` per line.
    pub(crate) fn write_cmdlines(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        let cmdlines = self.cmdlines.lock();
        let result = cmdlines
            .entries()
            .try_for_each(|(pid, comm)| writeln!(out, "{pid} {comm}"));
        result
    }

    /// The thread group saved for `pid`, 0 when none is.
    pub(crate) fn tgid(&self, pid: i32) -> i32 {
        self.tgids.as_ref().map_or(0, |tgids| tgids.find(pid))
    }

    /// Writes `saved_tgids`: `pid tgid` per line, by pid; empty until
    /// `record-tgid` was first set.
    pub(crate) fn write_tgids(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        self.tgids
            .as_ref()
            .map_or(Ok(()), |tgids| tgids.write_saved(out))
    }

    /// Makes room for a thread group per pid, unless there is already
    /// (`record-tgid` set: the kernel's `trace_alloc_tgid_map`).
    pub(crate) fn keep_tgids(&self) -> Result {
        let _saver = self.saver.lock();
        if self.tgids.as_ref().is_some() {
            return Ok(());
        }
        let slots = task::pid_max() + 1;
        let mut table = KVVec::with_capacity(slots, GFP_KERNEL)?;
        for _ in 0..slots {
            table.push(AtomicI32::new(0), GFP_KERNEL)?;
        }
        self.tgids.populate(Tgids::new(table));
        Ok(())
    }

    /// The function or function_graph tracer of the instance using `user`
    /// starts (`true`) or stops. May sleep.
    pub(crate) fn set_tracer_running(&self, user: &TaskUse, running: bool) {
        self.update(user, |bits| with(bits, USE_TRACER, running), |_| {});
    }

    /// Whether the instance using `user` has any event enabled now. May
    /// sleep.
    pub(crate) fn set_events_enabled(&self, user: &TaskUse, any: bool) {
        self.update(user, |bits| with(bits, USE_EVENTS, any), |_| {});
    }

    /// The `record-tgid` option of the instance using `user` changed. May
    /// sleep.
    pub(crate) fn set_record_tgid(&self, user: &TaskUse, on: bool) {
        self.update(user, |bits| with(bits, USE_TGID, on), |_| {});
    }

    /// The top level's `record-cmd` changed. May sleep.
    pub(crate) fn set_record_cmd(&self, user: &TaskUse, on: bool) {
        self.update(user, |bits| bits, |wanted| wanted.record_cmd = on);
    }

    /// The instance using `user` is going: it wants nothing any more. May
    /// sleep.
    pub(crate) fn release(&self, user: &TaskUse) {
        self.update(user, |_| 0, |_| {});
    }

    /// Stops saving: the probes go, and when this returns none runs any
    /// more (not even one dropped earlier, which did not wait). May sleep.
    pub(crate) fn stop(&self) {
        let probes = {
            let mut saver = self.saver.lock();
            self.saving.store(0, Relaxed);
            saver.probes.take()
        };
        drop(probes);
        crate::task_events::wait_for_meetings();
    }

    /// Changes what `user` asks (`bits`) and what every instance does
    /// (`global`), then starts or stops the probes to match. May sleep.
    fn update(
        &self,
        user: &TaskUse,
        bits: impl FnOnce(u8) -> u8,
        global: impl FnOnce(&mut Wanted),
    ) {
        let mut saver = self.saver.lock();
        // INVARIANT: the bits change under the saver lock, counted out and
        // in again.
        let old = user.0.load(Relaxed);
        let new = bits(old);
        user.0.store(new, Relaxed);
        saver.wanted.count(old, false);
        saver.wanted.count(new, true);
        global(&mut saver.wanted);
        let saving = saver.wanted.saving();
        if saving == 0 {
            self.saving.store(0, Relaxed);
            drop(saver.probes.take());
            return;
        }
        // Published before the probes can run.
        self.saving.store(saving, Release);
        if saver.probes.is_none() {
            // SAFETY: the probes are kept in `self.saver` and dropped, and
            // waited for, before `self` goes (`stop`, from `PinnedDrop`);
            // `self` is pinned.
            match unsafe { MeetingProbes::start(self) } {
                Ok(probes) => saver.probes = Some(probes),
                // As the kernel's `tracing_sched_register`: tracing goes on,
                // without saving.
                Err(e) => pr_info!("cannot save task names: no scheduler probes ({e:?})\n"),
            }
        }
    }

    /// Saves the names of `tasks`; false when the table is busy.
    fn save_comms(&self, tasks: [TaskRef<'_>; 2]) -> bool {
        let Some(mut cmdlines) = self.cmdlines.try_lock() else {
            return false;
        };
        let mut changed = false;
        for task in tasks {
            changed |= cmdlines.save(task.pid(), &task.comm());
        }
        if changed {
            self.renamed.fetch_add(1, Release);
        }
        true
    }

    /// Saves the thread groups of `tasks`; false for a pid beyond the table.
    fn save_tgids(&self, tasks: [TaskRef<'_>; 2]) -> bool {
        let Some(tgids) = self.tgids.as_ref() else {
            return false;
        };
        // Both are tried, as the kernel does.
        let [first, second] = tasks.map(|task| tgids.save(task.pid(), task.tgid()));
        first && second
    }
}

impl TaskMeetings for TaskInfo {
    /// `tracing_record_taskinfo_sched_switch`: on a CPU that committed a
    /// record since it last saved, saves both tasks; the mark stays until
    /// everything wanted could be saved.
    fn met(&self, first: TaskRef<'_>, second: TaskRef<'_>) {
        let saving = self.saving.load(Relaxed);
        if saving == 0 {
            return;
        }
        let Some(pending) = self.pending.get(cpu_local::processor_id()) else {
            return;
        };
        if !pending.load(Relaxed) {
            return;
        }
        let mut done = true;
        if saving & SAVE_COMM != 0 {
            done &= self.save_comms([first, second]);
        }
        if saving & SAVE_TGID != 0 {
            done &= self.save_tgids([first, second]);
        }
        if done {
            pending.store(false, Relaxed);
        }
    }
}

#[pinned_drop]
impl PinnedDrop for TaskInfo {
    fn drop(self: Pin<&mut Self>) {
        // No probe may run with this value as its data any more.
        self.stop();
    }
}

/// `bits` with `bit` set or cleared.
fn with(bits: u8, bit: u8, on: bool) -> u8 {
    if on {
        bits | bit
    } else {
        bits & !bit
    }
}

/// A task name, as saved in `saved_cmdlines`.
pub(crate) struct Comm {
    bytes: [u8; COMM_LEN],
    len: usize,
}

impl Comm {
    /// The name as text.
    pub(crate) fn as_str(&self) -> &str {
        core::str::from_utf8(&self.bytes[..self.len]).unwrap_or("<...>")
    }
}
