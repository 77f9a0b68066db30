// SPDX-License-Identifier: GPL-2.0

//! The shadow stacks of all tasks, keyed by task.
//!
//! The module cannot add a field to `task_struct`, so a task's
//! [`TaskStack`] is found through an open-addressing table keyed by the
//! task's address. The recording path only ever looks up the current task,
//! without locks: a key is published (release) after its stack pointer,
//! and a slot, once used, never becomes empty again (a freed task leaves a
//! tombstone), so a probe that meets an empty slot has seen every slot its
//! key could be in.
//!
//! Stacks are made for every existing task when a function_graph tracer
//! starts ([`TaskStacks::attach_all`]) and for each new task at fork
//! (`sched_process_fork`, before the child first runs), from a pool that a
//! work item refills: fork runs with preemption off, where nothing is
//! allocated. A task's stack is freed at `sched_process_free`, after the
//! task's last context switch (it will never run again), and before its
//! `task_struct` can be reused for another task. The idle tasks, which
//! never fork and are not in the task list, use one stack per CPU.
//!
//! A task without a stack (the pool was empty, or the table's probe
//! window full) is not hooked; such calls are counted in `no_stack`.
//!
//! # Pending frames and unloading
//!
//! A hooked call returns through the module's return trampoline, possibly
//! long after its tracer stopped (a task sleeping inside). `pending`
//! counts the hooked calls that have not returned, and unloading waits
//! until it is zero ([`TaskStacks::wait_until_returned`]).
//!
//! So that a task sleeping inside a traced function does not hold that up
//! for as long as it sleeps, a stopped tracer's hooked returns are given
//! back: the real return address goes back into the task's stack slot and
//! the frame is dropped. A task may only be edited so while nothing else
//! runs on its stack and it is not inside the return trampoline (half-way
//! through a return that already left the slot): when a tracer stops,
//! every task the scheduler can hold asleep ([`crate::held_task`]) is done
//! at once; after that, while no tracer runs, each task does its own as it
//! goes to sleep (in `sched_switch`, when not preempted), and the task
//! that unloads the module does its own. Tasks that keep running inside a
//! traced function are waited for until they return or sleep.

use super::shadow::TaskStack;
use super::tracer::{hooked_by_running_tracer, trampoline};
use crate::bindings;
use crate::cpu_local;
use crate::held_task::{with_sleeping, SleepingTask};
use crate::ring_buffer::NoPreempt;
use crate::task_events::{TaskEvents, TaskSwitch};
use core::ffi::c_void;
use core::sync::atomic::{
    AtomicBool, AtomicIsize, AtomicPtr, AtomicU64, AtomicUsize,
    Ordering::{Acquire, Relaxed, Release, SeqCst},
};
use kernel::{
    alloc::VVec,
    new_spinlock, new_work,
    prelude::*,
    sync::{Arc, SpinLock},
    time::{delay::fsleep, Delta},
    workqueue::{impl_has_work, Work, WorkItem},
};

/// Slots in the table (a power of two): room for many more tasks than a
/// test machine runs, so that probes stay short.
const TABLE_SLOTS: usize = 1 << 14;

/// The most slots a lookup or insertion looks at.
const MAX_PROBE: usize = 64;

/// A slot never used.
const EMPTY: usize = 0;

/// A slot whose task was freed.
const TOMBSTONE: usize = 1;

/// The pool is refilled when it falls below this many stacks...
const POOL_LOW: usize = 16;

/// ... up to this many.
const POOL_TARGET: usize = 64;

/// One slot of the table.
struct Slot {
    /// The task's address, [`EMPTY`] or [`TOMBSTONE`].
    key: AtomicUsize,
    /// The task's stack (from `KBox::into_raw`) while `key` is a task.
    stack: AtomicPtr<TaskStack>,
}

/// Stacks made ahead for forks.
type Pool = KVec<KBox<TaskStack>>;

/// Every task's shadow stack.
///
/// # Invariants
///
/// A slot whose key is a task owns the stack it points at; it is freed
/// only when that task is freed or when the whole table goes (no hooked
/// call pending, no tracer running). `idle` has one stack per possible
/// CPU.
#[pin_data(PinnedDrop)]
pub(crate) struct TaskStacks {
    table: VVec<Slot>,
    idle: KVec<KBox<TaskStack>>,
    /// Insertions (fork, the walk at start) and the pool.
    #[pin]
    pool: SpinLock<Pool>,
    #[pin]
    refill: Work<TaskStacks>,
    /// Hooked calls not yet returned (nor given back).
    pending: AtomicIsize,
    /// No graph tracer runs: tasks give back their hooked returns as
    /// they go to sleep.
    stopped: AtomicBool,
    /// Calls not hooked because their task had no stack.
    pub(crate) no_stack: AtomicU64,
    /// Calls not hooked because their task's stack was full.
    pub(crate) full: AtomicU64,
    /// Hooked calls that never came back through the trampoline (their
    /// task died inside, or the stack was unwound past them).
    pub(crate) abandoned: AtomicU64,
}

// SAFETY: the slots' stacks are owned by the table (the invariant); the
// rest is atomic or locked.
unsafe impl Send for TaskStacks {}
// SAFETY: as above.
unsafe impl Sync for TaskStacks {}

impl_has_work! {
    impl HasWork<Self> for TaskStacks { self.refill }
}

impl WorkItem for TaskStacks {
    type Pointer = Arc<TaskStacks>;

    /// Refills the pool, in process context.
    fn run(this: Arc<TaskStacks>) {
        let have = this.pool.lock().len();
        let mut made: Pool = KVec::new();
        for _ in have..POOL_TARGET {
            let Ok(stack) = new_stack() else {
                break;
            };
            if made.push(stack, GFP_KERNEL).is_err() {
                break;
            }
        }
        let mut pool = this.pool.lock();
        while let Some(stack) = made.pop() {
            if pool.push(stack, GFP_ATOMIC).is_err() {
                break;
            }
        }
    }
}

/// Where a task's key starts probing.
#[inline]
fn home(task: usize) -> usize {
    // Fibonacci hashing of the address; task structs are large and
    // aligned, so the low bits alone would collide.
    (task as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) as usize
        >> (64 - TABLE_SLOTS.trailing_zeros())
}

impl TaskStacks {
    /// An empty table with a full pool and the idle tasks' stacks.
    pub(crate) fn new() -> Result<Arc<Self>> {
        let mut table = VVec::with_capacity(TABLE_SLOTS, GFP_KERNEL)?;
        for _ in 0..TABLE_SLOTS {
            table.push(
                Slot {
                    key: AtomicUsize::new(EMPTY),
                    stack: AtomicPtr::new(core::ptr::null_mut()),
                },
                GFP_KERNEL,
            )?;
        }
        let cpus = crate::instance::nr_cpu_ids();
        let mut idle = KVec::with_capacity(cpus, GFP_KERNEL)?;
        for _ in 0..cpus {
            idle.push(new_stack()?, GFP_KERNEL)?;
        }
        let pool = stacks(POOL_TARGET)?;
        Arc::pin_init(
            pin_init!(Self {
                table,
                idle,
                pool <- new_spinlock!(pool),
                refill <- new_work!("rftrace::graph::refill"),
                pending: AtomicIsize::new(0),
                stopped: AtomicBool::new(true),
                no_stack: AtomicU64::new(0),
                full: AtomicU64::new(0),
                abandoned: AtomicU64::new(0),
            }),
            GFP_KERNEL,
        )
    }

    /// The stack of the current task, if it has one. Any context, with
    /// preemption off (`cpu` is the current CPU).
    #[inline]
    pub(crate) fn current(&self, cpu: usize) -> Option<&TaskStack> {
        let task = cpu_local::current_task();
        if let Some(stack) = self.find(task) {
            return Some(stack);
        }
        // SAFETY: plain read of the current task's flags.
        if unsafe { bindings::rft_current_is_idle() } {
            return self.idle.get(cpu).map(|s| &**s);
        }
        None
    }

    /// The stack of `task`, if it has one in the table.
    #[inline]
    fn find(&self, task: usize) -> Option<&TaskStack> {
        let mask = TABLE_SLOTS - 1;
        let mut i = home(task);
        for _ in 0..MAX_PROBE {
            let slot = self.table.get(i)?;
            match slot.key.load(Acquire) {
                EMPTY => return None,
                key if key == task => {
                    let stack = slot.stack.load(Relaxed);
                    // SAFETY: a slot keyed by a live task owns its stack
                    // until that task is freed (the invariant); callers
                    // look up live tasks only.
                    return (!stack.is_null()).then(|| unsafe { &*stack });
                }
                _ => i = (i + 1) & mask,
            }
        }
        None
    }

    /// Gives `task` a stack from `pool` unless it has one. Returns whether
    /// it has one now.
    fn attach(&self, pool: &mut Pool, task: usize) -> bool {
        let mask = TABLE_SLOTS - 1;
        let mut i = home(task);
        let mut free = None;
        for _ in 0..MAX_PROBE {
            let Some(slot) = self.table.get(i) else {
                break;
            };
            match slot.key.load(Acquire) {
                key if key == task => return true,
                EMPTY => {
                    free = free.or(Some(slot));
                    break;
                }
                TOMBSTONE => free = free.or(Some(slot)),
                _ => {}
            }
            i = (i + 1) & mask;
        }
        let (Some(slot), Some(stack)) = (free, pool.pop()) else {
            return false;
        };
        stack.reset();
        slot.stack.store(KBox::into_raw(stack), Relaxed);
        slot.key.store(task, Release);
        true
    }

    /// Frees the stack of `task`, which will never run again.
    fn detach(&self, task: usize) {
        let mask = TABLE_SLOTS - 1;
        let mut i = home(task);
        for _ in 0..MAX_PROBE {
            let Some(slot) = self.table.get(i) else {
                return;
            };
            match slot.key.load(Acquire) {
                EMPTY => return,
                key if key == task => {
                    let stack = slot.stack.swap(core::ptr::null_mut(), Relaxed);
                    slot.key.store(TOMBSTONE, Release);
                    if stack.is_null() {
                        return;
                    }
                    // SAFETY: the slot owned the stack (the invariant) and
                    // gave it up above; its task is gone, so nobody else
                    // uses it.
                    let stack = unsafe { KBox::from_raw(stack) };
                    let left = stack.depth();
                    drop(stack);
                    if left > 0 {
                        self.abandoned.fetch_add(left as u64, Relaxed);
                        self.returned(left as isize);
                    }
                    return;
                }
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Gives every task in the task list a stack, as far as the pool
    /// reaches after growing it for them. Process context. The fork probe
    /// must already be registered, so that no task is missed.
    pub(crate) fn attach_all(&self) -> Result {
        let tasks = for_each_thread(|_| {});
        let extra = stacks(tasks + POOL_TARGET)?;
        {
            let mut pool = self.pool.lock();
            for stack in extra {
                pool.push(stack, GFP_ATOMIC)?;
            }
        }
        let mut missed = 0u64;
        for_each_thread(|task| {
            if !self.attach(&mut self.pool.lock(), task) {
                missed += 1;
            }
        });
        self.no_stack.fetch_add(missed, Relaxed);
        Ok(())
    }

    /// A hooked call was made.
    #[inline]
    pub(crate) fn hooked(&self) {
        self.pending.fetch_add(1, SeqCst);
    }

    /// `n` hooked calls returned, were abandoned or given back. Any
    /// context.
    #[inline]
    pub(crate) fn returned(&self, n: isize) {
        self.pending.fetch_sub(n, SeqCst);
    }

    /// Whether graph tracers run (`false` once the last one stopped, its
    /// client unlisted). Under the graph tracers' lock.
    pub(crate) fn set_running(&self, running: bool) {
        self.stopped.store(!running, SeqCst);
    }

    /// Gives back the hooked returns of stopped tracers in every task that
    /// sleeps (see [`TaskStack::give_back`]), so that unloading need not
    /// wait for them. Tasks that run or wait to run are left alone: they
    /// may be inside the return trampoline. Process context; the stopped
    /// tracers' clients are unlisted.
    pub(crate) fn give_back_sleeping(&self) {
        let mut given = 0;
        for_each_thread(|task| {
            let Some(stack) = self.find(task) else {
                return;
            };
            if stack.depth() == 0 {
                return;
            }
            let mut give = |sleeping: &SleepingTask| {
                // SAFETY: the task is held asleep; `live_stack` is its
                // stack in use. Interrupts are off: stopped tracers'
                // clients are not freed meanwhile.
                given += unsafe {
                    stack.give_back(
                        sleeping.live_stack(),
                        trampoline(),
                        hooked_by_running_tracer,
                    )
                };
            };
            // SAFETY: the task list walk holds the RCU read lock, so the
            // task (and its stack in the table, freed only after a grace
            // period past the task's end) stays.
            unsafe { with_sleeping(task as *mut bindings::task_struct, &mut give) };
        });
        if given > 0 {
            self.returned(given as isize);
        }
    }

    /// Gives back the current task's hooked returns of stopped tracers.
    ///
    /// # Safety
    ///
    /// Preemption is off (`cpu` is the current CPU), and the current task
    /// is not inside the return trampoline: it called this from its own
    /// code (or the scheduler, from its own code).
    unsafe fn give_back_own(&self, cpu: usize) {
        let Some(stack) = self.current(cpu) else {
            return;
        };
        if stack.depth() == 0 {
            return;
        }
        // Every pending slot is above this frame.
        let here = 0u8;
        let live = core::ptr::addr_of!(here) as usize..cpu_local::current_stack_end();
        // SAFETY: this is the owning task, with preemption off, not inside
        // the return trampoline (the contract); interrupts nest on its
        // stack and leave it as they found it; `live` is its stack in use.
        let given = unsafe { stack.give_back(live, trampoline(), hooked_by_running_tracer) };
        if given > 0 {
            self.returned(given as isize);
        }
    }

    /// Waits until no hooked call is pending: for unload, after the last
    /// tracer stopped. Meanwhile sleeping tasks, and this one, give back
    /// their hooked returns; what is left are calls of tasks running
    /// inside traced functions, which return or sleep soon. Says in the
    /// kernel log what it waits for if that takes long.
    pub(crate) fn wait_until_returned(&self) {
        const WARN_AFTER: u32 = 1000;
        let mut rounds = 0u32;
        loop {
            {
                let _preempt_off = NoPreempt::new();
                // SAFETY: preemption is off; this is the module's own code.
                unsafe { self.give_back_own(cpu_local::processor_id()) };
            }
            self.give_back_sleeping();
            let left = self.pending.load(SeqCst);
            if left <= 0 {
                return;
            }
            if rounds == WARN_AFTER {
                pr_warn!(
                    "unloading waits for {} traced calls of running tasks to return\n",
                    left
                );
            }
            rounds = rounds.saturating_add(1);
            fsleep(Delta::from_millis(10));
        }
    }

    /// Waits for the work items; for teardown, after the probes are gone.
    pub(crate) fn quiesce(&self) {
        crate::kernel_api::workqueue::flush(&self.refill);
    }

    /// Asks for a refill if the pool runs low.
    fn refill_if_low(self: &Arc<Self>, left: usize) {
        if left < POOL_LOW {
            let queue = crate::kernel_api::workqueue::default_queue();
            // Already queued is fine: the queued run refills.
            let _ = queue.enqueue(self.clone());
        }
    }
}

#[pinned_drop]
impl PinnedDrop for TaskStacks {
    fn drop(self: Pin<&mut Self>) {
        for slot in self.table.iter() {
            let stack = slot.stack.swap(core::ptr::null_mut(), Relaxed);
            if !stack.is_null() {
                // SAFETY: the slot owned it; nothing runs on any stack any
                // more when the table goes (the invariant).
                drop(unsafe { KBox::from_raw(stack) });
            }
        }
    }
}

/// The probes' view: `Arc<TaskStacks>` so that a fork can queue a refill.
pub(crate) struct StackEvents(pub(crate) Arc<TaskStacks>);

impl TaskEvents for StackEvents {
    fn forked(&self, _parent: *mut bindings::task_struct, child: *mut bindings::task_struct) {
        let stacks = &self.0;
        let left = {
            let mut pool = stacks.pool.lock();
            if !stacks.attach(&mut pool, child as usize) {
                stacks.no_stack.fetch_add(1, Relaxed);
            }
            pool.len()
        };
        stacks.refill_if_low(left);
    }

    fn freed(&self, task: *mut bindings::task_struct) {
        self.0.detach(task as usize);
    }
}

impl TaskSwitch for StackEvents {
    /// Keeps each task's time scheduled out, for `nosleep-time`; a task
    /// that goes to sleep with no tracer running gives back its hooked
    /// returns.
    fn switched(
        &self,
        preempted: bool,
        _prev: *mut bindings::task_struct,
        next: *mut bindings::task_struct,
    ) {
        let stacks = &self.0;
        // SAFETY: local_clock may be called from any context.
        let now = unsafe { bindings::rft_local_clock() };
        let cpu = cpu_local::processor_id();
        // `prev` is still the current task.
        if let Some(stack) = stacks.current(cpu) {
            stack.scheduled_out(now);
        }
        if !preempted && stacks.stopped.load(Relaxed) {
            // SAFETY: interrupts are off in `sched_switch`; `prev` called
            // the scheduler itself, which the trampoline never does.
            unsafe { stacks.give_back_own(cpu) };
        }
        if let Some(stack) = stacks.find(next as usize) {
            stack.scheduled_in(now);
        }
    }
}

/// An empty stack, made in place: a stack is too large to build on the
/// kernel stack first.
fn new_stack() -> Result<KBox<TaskStack>> {
    let stack = KBox::<TaskStack>::new_uninit(GFP_KERNEL | __GFP_ZERO)?;
    // SAFETY: zeroed memory is an empty `TaskStack`: its fields are atomic
    // integers and plain integer frames, all valid as zero (depth 0).
    Ok(unsafe { stack.assume_init() })
}

/// `n` empty stacks.
fn stacks(n: usize) -> Result<Pool> {
    let mut pool = KVec::with_capacity(n, GFP_KERNEL)?;
    for _ in 0..n {
        pool.push(new_stack()?, GFP_KERNEL)?;
    }
    Ok(pool)
}

/// Calls `f` with the address of every task in the task list (under RCU:
/// `f` must not sleep); returns how many there were.
fn for_each_thread(mut f: impl FnMut(usize)) -> usize {
    struct Walk<'a> {
        f: &'a mut dyn FnMut(usize),
        count: usize,
    }
    /// # Safety
    ///
    /// `arg` is the `Walk` of this call.
    unsafe extern "C" fn visit(task: *mut bindings::task_struct, arg: *mut c_void) {
        // SAFETY: `arg` is the `Walk` below, alive for the call.
        let walk = unsafe { &mut *arg.cast::<Walk<'_>>() };
        walk.count += 1;
        (walk.f)(task as usize);
    }
    let mut walk = Walk {
        f: &mut f,
        count: 0,
    };
    // SAFETY: `visit` only touches `walk`, alive for the call.
    unsafe { bindings::rft_for_each_thread(Some(visit), core::ptr::from_mut(&mut walk).cast()) };
    walk.count
}
