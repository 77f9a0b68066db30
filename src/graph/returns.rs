// SPDX-License-Identifier: GPL-2.0

//! Return hooks for a client other than the function_graph tracer: the
//! return probes of probe events (`r` kprobe events at a function's
//! entry). The client's entry handler, an engine client, hooks a call's
//! return as the graph tracer does ([`ReturnHook::hook`]): the real return
//! address goes on the task's shadow stack, the return trampoline into
//! the stack slot, and what the client keeps for the return (return
//! probes keep the arguments their `$argN` read) beside the frame; at the
//! return the client is called back with the return registers, the real
//! return address and what it kept.
//!
//! One such client runs at a time, besides the graph tracers; its frames
//! carry [`RETURN_HOOK_TRACER`] and its run number, so that a return of a
//! stopped hook's call goes back unreported, and a stopped hook's returns
//! of sleeping tasks are given back as the graph tracers' are.

use super::shadow::{Frame, TaskStack, MAX_TRACERS};
use super::stacks::TaskStacks;
use super::tracer::trampoline;
use crate::bindings;
use crate::fentry::{self, CallContext};
use crate::kernel_api::regs::Regs;
use core::sync::atomic::{
    AtomicPtr,
    Ordering::{Acquire, Relaxed, Release},
};
use kernel::{prelude::*, sync::Arc};

/// The tracer number of the return hook's frames, past the graph
/// tracers'.
pub(crate) const RETURN_HOOK_TRACER: u8 = MAX_TRACERS as u8;

/// What a client kept at a hooked call's entry for its return: a tag and
/// bytes, both its own ([`ReturnHook::hook`]).
pub(crate) struct Kept<'a> {
    pub(crate) tag: u64,
    pub(crate) bytes: &'a [u8],
}

/// Told of the returns a [`ReturnHook`] hooked.
pub(crate) trait ReturnClient: Send + Sync {
    /// The call hooked for `func` returns to `ret`, with `regs` at the
    /// return: `ax` and `dx` as the function left them, `sp` just above
    /// its return address, `ip` the return address; the other registers
    /// read as 0. `kept`: what the client kept at the entry. Preemption
    /// is off, inside the engine's recursion guard.
    fn on_return(&self, func: usize, ret: usize, regs: &Regs, kept: Kept<'_>);

    /// A hooked return could not be reported: this context was already
    /// inside the engine (a recursion).
    fn on_missed(&self, func: usize);
}

/// The running hook's client and run number.
struct Listed {
    client: Arc<dyn ReturnClient>,
    generation: u32,
}

/// The running hook, null when none runs.
static LISTED: AtomicPtr<Listed> = AtomicPtr::new(core::ptr::null_mut());

/// The running return hook.
///
/// # Invariants
///
/// `listed` (from `KBox::into_raw`) is what `LISTED` points at until
/// [`ReturnHook::stop`].
pub(crate) struct ReturnHook {
    listed: *mut Listed,
    generation: u32,
    stacks: Arc<TaskStacks>,
}

// SAFETY: the raw pointer is only read, and freed by `stop` after a grace
// period; the client is `Send + Sync`.
unsafe impl Send for ReturnHook {}
// SAFETY: as above.
unsafe impl Sync for ReturnHook {}

impl ReturnHook {
    /// Starts hooking returns for `client`, giving every task a shadow
    /// stack. `EBUSY` if another hook runs. Process context.
    pub(crate) fn start(client: Arc<dyn ReturnClient>) -> Result<Self> {
        let runtime = super::runtime().ok_or(ENODEV)?;
        let (generation, stacks) = runtime.take_return_hook()?;
        let listed = match KBox::new(Listed { client, generation }, GFP_KERNEL) {
            Ok(listed) => KBox::into_raw(listed),
            Err(_) => {
                runtime.release_return_hook();
                return Err(ENOMEM);
            }
        };
        LISTED.store(listed, Release);
        Ok(ReturnHook {
            listed,
            generation,
            stacks,
        })
    }

    /// Hooks the return of the call whose return address is at `regs.sp`
    /// (an engine client's registers at a site), reported for `func`,
    /// keeping `tag` and `len` bytes that `fill` writes for the return
    /// ([`Kept`]). Returns false (counting why) when the task has no
    /// shadow stack or a full one. In the dispatch `cx` of the call.
    pub(crate) fn hook(
        &self,
        (regs, func, cx): (&bindings::pt_regs, usize, &CallContext<'_>),
        (tag, len): (u64, usize),
        fill: impl FnOnce(&mut [u8]),
    ) -> bool {
        let Some(stack) = self.stacks.current(cx.cpu) else {
            self.stacks.no_stack.fetch_add(1, Relaxed);
            return false;
        };
        let slot = regs.sp;
        // SAFETY: the entry trampoline set `sp` to the stack slot that
        // holds the function's return address.
        let ret = unsafe { core::ptr::read(slot as *const usize) };
        // The graph tracers' times are not kept: the tag takes their place.
        let frame = Frame {
            ret,
            slot,
            func,
            calltime: tag,
            tracer: RETURN_HOOK_TRACER,
            generation: self.generation,
            ..Frame::default()
        };
        if stack
            .push_with_data(frame, &cx.hooked_level, len, fill)
            .is_none()
        {
            self.stacks.full.fetch_add(1, Relaxed);
            return false;
        }
        self.stacks.hooked();
        // SAFETY: as above; the frame holds the real return address.
        unsafe { core::ptr::write(slot as *mut usize, trampoline()) };
        true
    }

    /// Stops the hook: once this returns the client is no longer called.
    /// Returns hooked meanwhile go back unreported (those of sleeping
    /// tasks are given back at once). Process context.
    pub(crate) fn stop(self) {
        LISTED.store(core::ptr::null_mut(), Release);
        // Returns run with preemption off: after this none reads `listed`.
        fentry::wait_for_dispatchers();
        if let Some(runtime) = super::runtime() {
            runtime.release_return_hook();
        }
        // SAFETY: made by `KBox::into_raw` in `start` (the invariant), no
        // longer listed nor read.
        drop(unsafe { KBox::from_raw(self.listed) });
    }
}

/// The running hook, for the return path (preemption or interrupts off).
#[inline]
fn listed() -> Option<&'static Listed> {
    let listed = LISTED.load(Acquire);
    // SAFETY: a listed hook is freed only a grace period after it is
    // unlisted; callers hold preemption or interrupts off.
    (!listed.is_null()).then(|| unsafe { &*listed })
}

/// Whether the hook run that hooked `frame` still runs.
#[inline]
pub(super) fn hooked_by_running_hook(frame: &Frame) -> bool {
    listed().is_some_and(|l| l.generation == frame.generation)
}

/// The return of a call the hook hooked, `frame`, just popped from
/// `stack` at `index`, with the stack pointer after the `ret` and the
/// return value: tells the client if its run still goes on. Returns where
/// the call returns to (`frame.ret`).
pub(super) fn returned(
    stack: &TaskStack,
    frame: &Frame,
    index: usize,
    slot_end: usize,
    retval: [usize; 2],
) -> usize {
    let Some(listed) = listed().filter(|l| l.generation == frame.generation) else {
        return frame.ret;
    };
    // A call hooked again after this hook (by a graph tracer): the real
    // return address is in the frame of the earlier hook.
    let real = if frame.ret == trampoline() {
        stack
            .real_return_below(index, frame.slot, trampoline())
            .unwrap_or(frame.ret)
    } else {
        frame.ret
    };
    let regs = bindings::pt_regs {
        ax: retval[0],
        dx: retval[1],
        sp: slot_end,
        ip: real,
        ..Default::default()
    };
    let kept = || Kept {
        tag: frame.calltime,
        bytes: stack.data(frame),
    };
    let told = fentry::guarded(|_| {
        listed
            .client
            .on_return(frame.func, real, Regs::from_raw(&regs), kept())
    });
    if told.is_none() {
        listed.client.on_missed(frame.func);
    }
    frame.ret
}
