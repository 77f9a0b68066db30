// SPDX-License-Identifier: GPL-2.0

//! One task's shadow stack: the real return addresses of the calls whose
//! return the function_graph tracer hooked, innermost last.
//!
//! Only the task itself pushes and pops, on whatever CPU it runs, with
//! preemption off; interrupts and NMIs on that CPU nest on the same stack,
//! strictly last in, first out, and leave it as they found it. So a push
//! reserves its frame (the depth goes up) before filling it, and a pop
//! copies its frame out before giving it back: a nested push never
//! overwrites a frame in use. Compiler fences order the steps; no other
//! CPU looks at a running task's stack.

use core::cell::{Cell, UnsafeCell};
use core::sync::atomic::{
    compiler_fence, AtomicU32, AtomicU64,
    Ordering::{Relaxed, SeqCst},
};

/// How many hooked calls a task may have pending at once; deeper calls
/// are not hooked (and counted).
pub(crate) const MAX_FRAMES: usize = 80;

/// The bytes a task's pending hooked calls may keep for their returns
/// (return probes' `$argN`, saved at the entry): a stack beside the
/// frames, each frame's bytes above those of the frames below it.
pub(crate) const MAX_FRAME_DATA: usize = 512;

/// The number of function_graph tracers that can run at once (one per
/// instance); each keeps its own per-task state.
pub(crate) const MAX_TRACERS: usize = 4;

/// A task is inside a function of `set_graph_function` (for this tracer).
pub(crate) const IN_GRAPH: u32 = 1 << 0;
/// A task is inside a function of `set_graph_notrace`: nothing is traced.
pub(crate) const NOTRACE: u32 = 1 << 1;
/// The `set_graph_function` function was entered in a hard interrupt: its
/// subtree is traced even with `funcgraph-irqs` off.
pub(crate) const GRAPH_IN_IRQ: u32 = 1 << 2;

/// The low bits of a flags word are flags, the high ones the generation
/// of the tracer run that set them.
const FLAG_BITS: u32 = 8;
const FLAG_MASK: u32 = (1 << FLAG_BITS) - 1;
const GENERATION_MASK: u32 = u32::MAX >> FLAG_BITS;

/// One hooked call.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Frame {
    /// Where the call returns to.
    pub(crate) ret: usize,
    /// The stack slot that held `ret` (the trampoline's address is there
    /// now); a return finds its frame by it.
    pub(crate) slot: usize,
    /// The traced function's call site, as its events name it.
    pub(crate) func: usize,
    /// When the call was entered, on the tracer's clock.
    pub(crate) calltime: u64,
    /// The task's time scheduled out so far ([`TaskStack::slept`]) when
    /// the call was entered.
    pub(crate) slept: u64,
    /// The tracer that hooked the call ([`MAX_TRACERS`] slots, or
    /// [`super::returns::RETURN_HOOK_TRACER`])...
    pub(crate) tracer: u8,
    /// ... in which of the slot's runs.
    pub(crate) generation: u32,
    /// What the return must do: [`Frame::RECORD`], [`Frame::ENDS_NOTRACE`],
    /// [`Frame::ENDS_GRAPH`].
    pub(crate) role: u8,
    /// Where the frame's data starts in the task's data stack (the data
    /// stack's depth when it was pushed)...
    pub(super) data_at: u16,
    /// ... and its length ([`TaskStack::push_with_data`]). Both are set by
    /// the push.
    pub(super) data_len: u16,
    /// The call's nesting level, as events show it: the number of other
    /// hooked calls pending below it. Frames of one call (hooked by
    /// several clients) share it. Set by the push.
    pub(crate) level: u16,
    /// The task's count of hooked calls ([`TaskStack::calls`]) before the
    /// push, which the return puts back. Set by the push.
    pub(super) calls_before: u16,
}

impl Frame {
    /// The return writes a `funcgraph_exit` event.
    pub(crate) const RECORD: u8 = 1 << 0;
    /// The call entered a `set_graph_notrace` function: its return ends
    /// the untraced subtree.
    pub(crate) const ENDS_NOTRACE: u8 = 1 << 1;
    /// The call entered a `set_graph_function` function: its return ends
    /// the traced subtree.
    pub(crate) const ENDS_GRAPH: u8 = 1 << 2;
}

/// A task's shadow stack.
///
/// # Invariants
///
/// `frames[..depth]` are the task's pending hooked calls; `data[..data_depth]`
/// holds their data, a frame's at `data_at..data_at + data_len`, at or
/// below `data_depth`. `calls` is at most `depth`, except while a push
/// counts a call it has not yet reserved a frame for. Only code
/// running as the owning task (or, once the task is dead, the code that
/// frees its stack; or, while the task is held asleep, the holder) touches
/// `frames` and `data`.
pub(crate) struct TaskStack {
    depth: AtomicU32,
    /// The number of distinct calls among the pending frames: the level
    /// of the next call hooked. A counter rather than a look at the top
    /// frame, which an interrupt may find reserved but not yet written.
    calls: AtomicU32,
    /// Per tracer: [`IN_GRAPH`], [`NOTRACE`], [`GRAPH_IN_IRQ`], tagged
    /// with the tracer run's generation.
    flags: [AtomicU32; MAX_TRACERS],
    /// When the task was last scheduled out (`local_clock`), 0 while it
    /// runs; kept while a function_graph tracer runs.
    sleep_start: AtomicU64,
    /// The task's time scheduled out so far, in ns (for `nosleep-time`).
    slept: AtomicU64,
    frames: UnsafeCell<[Frame; MAX_FRAMES]>,
    data_depth: AtomicU32,
    data: UnsafeCell<[u8; MAX_FRAME_DATA]>,
}

// SAFETY: `frames` is only touched by its task (the type invariant), which
// runs on one CPU at a time; everything else is atomic.
unsafe impl Sync for TaskStack {}
// SAFETY: as above.
unsafe impl Send for TaskStack {}

impl TaskStack {
    /// Makes the stack empty again, for another task. Only for a stack no
    /// task uses.
    pub(crate) fn reset(&self) {
        self.depth.store(0, Relaxed);
        self.calls.store(0, Relaxed);
        self.data_depth.store(0, Relaxed);
        self.flags.iter().for_each(|f| f.store(0, Relaxed));
        self.sleep_start.store(0, Relaxed);
        self.slept.store(0, Relaxed);
    }

    /// The task's time scheduled out so far.
    #[inline]
    pub(crate) fn slept(&self) -> u64 {
        self.slept.load(Relaxed)
    }

    /// The task is scheduled out at `now`. Only in the switch away from it.
    pub(crate) fn scheduled_out(&self, now: u64) {
        self.sleep_start.store(now, Relaxed);
    }

    /// The task is scheduled in at `now`. Only in the switch to it.
    pub(crate) fn scheduled_in(&self, now: u64) {
        let start = self.sleep_start.swap(0, Relaxed);
        if start != 0 && now > start {
            self.slept.fetch_add(now - start, Relaxed);
        }
    }

    /// The number of pending hooked frames.
    #[inline]
    pub(crate) fn depth(&self) -> usize {
        self.depth.load(Relaxed) as usize
    }

    /// The level a call entered now takes: `hooked`'s, if another client
    /// hooked the call already, else the number of hooked calls pending.
    /// Only the owning task, with preemption off.
    #[inline]
    pub(crate) fn level_of(&self, hooked: Option<u16>) -> usize {
        hooked.map_or(self.calls.load(Relaxed) as usize, usize::from)
    }

    /// Tracer `tracer`'s flags for this task, as its run `generation`
    /// left them: flags a tracer that ran before in the slot left are
    /// seen as none.
    #[inline]
    pub(crate) fn flags(&self, tracer: u8, generation: u32) -> u32 {
        let word = self
            .flags
            .get(usize::from(tracer))
            .map_or(0, |f| f.load(Relaxed));
        if word >> FLAG_BITS == generation & GENERATION_MASK {
            word & FLAG_MASK
        } else {
            0
        }
    }

    /// Sets (`on`) or clears `bits` of tracer `tracer`'s flags, for its
    /// run `generation`. A nested context changes them only in pairs that
    /// restore them, so a plain read-modify-write of the owning task is
    /// enough.
    #[inline]
    pub(crate) fn set_flags(&self, tracer: u8, generation: u32, bits: u32, on: bool) {
        if let Some(f) = self.flags.get(usize::from(tracer)) {
            let old = self.flags(tracer, generation);
            let new = if on { old | bits } else { old & !bits };
            f.store(((generation & GENERATION_MASK) << FLAG_BITS) | new, Relaxed);
        }
    }

    /// Pushes `frame` for the call whose level `hooked` keeps (`None` if
    /// no client hooked it yet), with no data; returns the call's level,
    /// or `None` when the frames are full. Only the owning task, with
    /// preemption off.
    #[inline]
    pub(crate) fn push(&self, frame: Frame, hooked: &Cell<Option<u16>>) -> Option<usize> {
        let frame = Frame {
            data_at: self.data_depth.load(Relaxed) as u16,
            data_len: 0,
            ..frame
        };
        self.push_call(frame, hooked)
    }

    /// Pushes `frame` as [`Self::push`] does, with `len` bytes of data
    /// that `fill` writes, for its return to read ([`Self::data`]);
    /// `None` when the frames or the data are full.
    #[inline]
    pub(crate) fn push_with_data(
        &self,
        frame: Frame,
        hooked: &Cell<Option<u16>>,
        len: usize,
        fill: impl FnOnce(&mut [u8]),
    ) -> Option<usize> {
        let at = self.data_depth.load(Relaxed) as usize;
        let end = at.checked_add(len).filter(|&end| end <= MAX_FRAME_DATA)?;
        // Reserve first: an interrupt from here on uses the bytes above.
        self.data_depth.store(end as u32, Relaxed);
        compiler_fence(SeqCst);
        // SAFETY: `at..end` is within the data, reserved for this call;
        // only the owning task runs this (the invariant).
        fill(unsafe { &mut (&mut *self.data.get())[at..end] });
        let frame = Frame {
            data_at: at as u16,
            data_len: len as u16,
            ..frame
        };
        let level = self.push_call(frame, hooked);
        if level.is_none() {
            self.data_depth.store(at as u32, Relaxed);
        }
        level
    }

    /// Gives `frame` its level and pushes it; the first frame of a call
    /// counts the call, before the frame is reserved, so that an
    /// interrupt from then on nests one level deeper.
    #[inline]
    fn push_call(&self, mut frame: Frame, hooked: &Cell<Option<u16>>) -> Option<usize> {
        let calls = self.calls.load(Relaxed);
        let first = hooked.get().is_none();
        frame.calls_before = calls as u16;
        frame.level = hooked.get().unwrap_or(calls as u16);
        if first {
            self.calls.store(calls + 1, Relaxed);
            compiler_fence(SeqCst);
        }
        if !self.push_frame(frame) {
            if first {
                self.calls.store(calls, Relaxed);
            }
            return None;
        }
        hooked.set(Some(frame.level));
        Some(usize::from(frame.level))
    }

    /// Reserves the next frame and writes `frame` there; false when the
    /// frames are full. The number of distinct calls never passes the
    /// number of frames, so both fit the frames' `u16`s.
    #[inline]
    fn push_frame(&self, frame: Frame) -> bool {
        let depth = self.depth();
        if depth >= MAX_FRAMES {
            return false;
        }
        // Reserve first: an interrupt from here on pushes above.
        self.depth.store(depth as u32 + 1, Relaxed);
        compiler_fence(SeqCst);
        // SAFETY: `depth` is below `MAX_FRAMES`, reserved for this call;
        // only the owning task runs this (the invariant).
        unsafe { (*self.frames.get())[depth] = frame };
        compiler_fence(SeqCst);
        true
    }

    /// The data of `frame`, a frame just popped: valid until
    /// [`Self::release`]. Only the owning task, with preemption off.
    #[inline]
    pub(crate) fn data(&self, frame: &Frame) -> &[u8] {
        let at = usize::from(frame.data_at);
        // SAFETY: the popped frame's bytes stay reserved until released
        // (`release`); only the owning task touches them (the invariant).
        let data = unsafe { &*self.data.get() };
        data.get(at..at + usize::from(frame.data_len))
            .unwrap_or(&[])
    }

    /// Gives back the place of `frame`, popped at `index`, once its return
    /// is handled: until then interrupts push above it, so that what they
    /// record nests one level deeper than the return, as in ftrace. Only
    /// the owning task, with preemption off.
    #[inline]
    pub(crate) fn release(&self, index: usize, frame: &Frame) {
        compiler_fence(SeqCst);
        self.depth.store(index as u32, Relaxed);
        self.data_depth.store(u32::from(frame.data_at), Relaxed);
    }

    /// Gives back the hooked returns of stopped tracers: the frames that
    /// `is_live` rejects are dropped, and the real return address goes
    /// back into their stack slot (if the slot, within `live_stack`, still
    /// holds `trampoline`). Returns how many frames were dropped.
    ///
    /// Frames that name one slot form a chain: a call hooked twice (or a
    /// slot reused by a later call while an older frame was left behind)
    /// has the inner frame's return address be the trampoline again, and
    /// the outermost frame's the real one. Such a group is given back
    /// whole or not at all: it stays if any of its frames is live. A slot
    /// outside `live_stack` or no longer holding `trampoline` cannot lead
    /// the task's returns to the trampoline from where it is now: its
    /// frames are dropped without touching the stack.
    ///
    /// # Safety
    ///
    /// Nothing else touches the frames or the stack meanwhile, except
    /// interrupts of the owning task that leave both as they found them:
    /// the caller is the owning task, with preemption off and not inside
    /// the return trampoline, or holds the owning task asleep.
    /// `live_stack` is the part of that task's kernel stack in use.
    pub(crate) unsafe fn give_back(
        &self,
        live_stack: core::ops::Range<usize>,
        trampoline: usize,
        is_live: impl Fn(&Frame) -> bool,
    ) -> usize {
        const WORD: usize = core::mem::size_of::<usize>();
        let depth = self.depth();
        // SAFETY: nobody else touches the frames (the contract); `depth`
        // is at most `MAX_FRAMES`.
        let frames = unsafe { &mut *self.frames.get() };
        let Some(frames) = frames.get_mut(..depth) else {
            return 0;
        };
        // Whether each frame stays; asked once per frame, as a tracer may
        // stop meanwhile.
        let mut keep = [false; MAX_FRAMES];
        for (keep, frame) in keep.iter_mut().zip(frames.iter()) {
            *keep = is_live(frame);
        }
        let mut done = [false; MAX_FRAMES];
        for i in (0..depth).rev() {
            if done.get(i).copied().unwrap_or(true) {
                continue;
            }
            let Some(slot) = frames.get(i).map(|f| f.slot) else {
                break;
            };
            // The group of `slot`, innermost `i`: any live frame keeps it;
            // the outermost frame holds the real return address.
            let mut any_live = false;
            let mut real = trampoline;
            for (k, frame) in frames.iter().enumerate().take(i + 1) {
                if frame.slot == slot {
                    any_live |= keep.get(k).copied().unwrap_or(true);
                    if real == trampoline {
                        real = frame.ret;
                    }
                }
            }
            let stays = any_live || real == trampoline;
            for (k, frame) in frames.iter().enumerate().take(i + 1) {
                if frame.slot == slot {
                    if let (Some(keep), Some(done)) = (keep.get_mut(k), done.get_mut(k)) {
                        *keep = stays;
                        *done = true;
                    }
                }
            }
            let in_stack = slot >= live_stack.start
                && slot % WORD == 0
                && slot.saturating_add(WORD) <= live_stack.end;
            if stays || !in_stack {
                continue;
            }
            let slot = slot as *mut usize;
            // SAFETY: `slot` is an aligned word of the task's stack in
            // use, which nothing else touches meanwhile (the contract).
            unsafe {
                if core::ptr::read_volatile(slot) == trampoline {
                    core::ptr::write_volatile(slot, real);
                }
            }
        }
        // Keep the frames that stay, in order; a nested push (an NMI of
        // the owning task) uses the frames above `depth`, untouched here.
        let mut kept = 0;
        for i in 0..depth {
            let Some(&frame) = frames.get(i) else {
                break;
            };
            if keep.get(i).copied().unwrap_or(true) {
                if let Some(to) = frames.get_mut(kept) {
                    *to = frame;
                }
                kept += 1;
            }
        }
        // The data of the frames kept ends with the top one's.
        let data_end = frames
            .get(..kept)
            .and_then(|f| f.last())
            .map_or(0, |f| u32::from(f.data_at) + u32::from(f.data_len));
        // The next call nests in the top frame kept.
        let calls = frames
            .get(..kept)
            .and_then(|f| f.last())
            .map_or(0, |f| u32::from(f.level) + 1);
        compiler_fence(SeqCst);
        self.depth.store(kept as u32, Relaxed);
        self.calls.store(calls, Relaxed);
        self.data_depth.store(data_end, Relaxed);
        depth - kept
    }

    /// Writes the frames to the kernel log, innermost first: for the
    /// report of a return that has none. Only the owning task.
    #[cold]
    pub(crate) fn report(&self) {
        let depth = self.depth();
        // SAFETY: only the owning task touches the frames (the invariant).
        let frames = unsafe { &*self.frames.get() };
        kernel::pr_emerg!("the task's {} function_graph frames:\n", depth);
        for frame in frames.get(..depth).unwrap_or(&[]).iter().rev() {
            kernel::pr_emerg!(
                "  slot {:#x} ret {:#x} func {:#x} tracer {} run {}\n",
                frame.slot,
                frame.ret,
                frame.func,
                frame.tracer,
                frame.generation
            );
        }
    }

    /// The real return address of a call hooked more than once, whose
    /// frame at `index` (just popped) holds the trampoline's address: the
    /// nearest frame below it for the same stack slot that holds another.
    /// Only the owning task, with preemption off.
    pub(crate) fn real_return_below(
        &self,
        index: usize,
        slot: usize,
        trampoline: usize,
    ) -> Option<usize> {
        // SAFETY: only the owning task touches the frames (the invariant);
        // the frames below a popped one are still the task's.
        let frames = unsafe { &*self.frames.get() };
        frames
            .get(..index.min(MAX_FRAMES))?
            .iter()
            .rev()
            .find(|f| f.slot == slot && f.ret != trampoline)
            .map(|f| f.ret)
    }

    /// Pops the frame of the return whose slot ends at `slot_end` (the
    /// stack pointer after the `ret`), with its depth; the frame keeps its
    /// place and data until [`Self::release`]. Frames above it
    /// (calls that never returned through the trampoline) are dropped;
    /// their number is the third value. `None` if no frame has that slot.
    /// Only the owning task, with preemption off.
    #[inline]
    pub(crate) fn pop(&self, slot_end: usize) -> Option<(Frame, usize, usize)> {
        let depth = self.depth();
        // SAFETY: only the owning task touches the frames (the invariant);
        // `depth` is at most `MAX_FRAMES`.
        let frames = unsafe { &*self.frames.get() };
        let (index, frame) = frames
            .get(..depth)?
            .iter()
            .enumerate()
            .rev()
            .find(|(_, f)| f.slot.wrapping_add(8) == slot_end)?;
        let frame = *frame;
        compiler_fence(SeqCst);
        // The frame itself and its data stay until its return is handled
        // ([`Self::release`]); the frames above and their data go.
        self.depth.store(index as u32 + 1, Relaxed);
        // The call is no longer counted (unless another client's frame of
        // it is below), nor are those of the frames dropped above.
        self.calls.store(u32::from(frame.calls_before), Relaxed);
        let data_end = u32::from(frame.data_at) + u32::from(frame.data_len);
        self.data_depth.store(data_end, Relaxed);
        Some((frame, index, depth - index - 1))
    }
}
