// SPDX-License-Identifier: GPL-2.0

//! Probes on the scheduler's task tracepoints: `sched_process_fork` (a
//! task made a child, before the child first runs), `sched_process_free`
//! (a task's last reference is about to go: it will never run again) and
//! `sched_switch`.
//!
//! Users are the pid filters' `function-fork` option, the
//! function_graph tracer's shadow stacks and the saving of task names and
//! thread groups ([`TaskMeetings`]: `sched_switch`, `sched_wakeup` and
//! `sched_wakeup_new`).

use crate::bindings;
use crate::kernel_api::task::TaskRef;
use core::ffi::c_void;
use core::marker::PhantomData;
use kernel::{c_str, prelude::*, str::CStr};

/// What a user of [`TaskEventProbes`] does on each event. Both are called
/// from tracepoints: with preemption off, and for `freed` possibly from an
/// RCU callback; neither may sleep.
pub(crate) trait TaskEvents: Sync {
    /// `parent` forked `child`; `child` has not run yet.
    fn forked(&self, parent: *mut bindings::task_struct, child: *mut bindings::task_struct);
    /// `task` is being freed and will never run again.
    fn freed(&self, task: *mut bindings::task_struct);
}

/// Both probes, registered with a `T` as their data.
///
/// # Invariants
///
/// While registered, `data` points at a `T` that outlives the
/// registration (the owner drops the probes first).
pub(crate) struct TaskEventProbes<T: TaskEvents> {
    fork: *mut bindings::tracepoint,
    free: *mut bindings::tracepoint,
    data: *const T,
    _events: PhantomData<T>,
}

// SAFETY: the tracepoints are kernel objects; `data` is `Sync`.
unsafe impl<T: TaskEvents> Send for TaskEventProbes<T> {}
// SAFETY: as above.
unsafe impl<T: TaskEvents> Sync for TaskEventProbes<T> {}

impl<T: TaskEvents> TaskEventProbes<T> {
    /// Starts calling `data` on forks and frees.
    ///
    /// # Safety
    ///
    /// `data` must outlive the returned value.
    pub(crate) unsafe fn start(data: &T) -> Result<Self> {
        let fork =
            crate::kernel_api::tracepoint::find(c_str!("sched_process_fork")).ok_or(ENOENT)?;
        let free =
            crate::kernel_api::tracepoint::find(c_str!("sched_process_free")).ok_or(ENOENT)?;
        let data: *const T = data;
        // SAFETY: the probe's signature is the tracepoint's, with the data
        // pointer first; `data` outlives the registration (the caller's
        // guarantee).
        let ret = unsafe {
            bindings::tracepoint_probe_register(
                fork,
                fork_probe::<T> as *mut c_void,
                data.cast_mut().cast(),
            )
        };
        if ret != 0 {
            return Err(Error::from_errno(ret));
        }
        // SAFETY: as above.
        let ret = unsafe {
            bindings::tracepoint_probe_register(
                free,
                free_probe::<T> as *mut c_void,
                data.cast_mut().cast(),
            )
        };
        if ret != 0 {
            // SAFETY: registered just above with the same arguments.
            unsafe {
                bindings::tracepoint_probe_unregister(
                    fork,
                    fork_probe::<T> as *mut c_void,
                    data.cast_mut().cast(),
                );
                bindings::rft_tracepoint_synchronize_unregister();
            }
            return Err(Error::from_errno(ret));
        }
        Ok(TaskEventProbes {
            fork,
            free,
            data,
            _events: PhantomData,
        })
    }
}

impl<T: TaskEvents> Drop for TaskEventProbes<T> {
    /// Unregisters both probes; when this returns none runs any more.
    fn drop(&mut self) {
        let data = self.data.cast_mut().cast();
        // SAFETY: registered in `start` with these arguments; after the
        // synchronization no probe runs with `data` any more.
        unsafe {
            bindings::tracepoint_probe_unregister(self.fork, fork_probe::<T> as *mut c_void, data);
            bindings::tracepoint_probe_unregister(self.free, free_probe::<T> as *mut c_void, data);
            bindings::rft_tracepoint_synchronize_unregister();
        }
    }
}

/// `sched_process_fork` probe.
///
/// # Safety
///
/// Called by the tracepoint with the `T` given at registration and live
/// tasks.
unsafe extern "C" fn fork_probe<T: TaskEvents>(
    data: *mut c_void,
    parent: *mut bindings::task_struct,
    child: *mut bindings::task_struct,
) {
    // SAFETY: registered with a live `T` (the `TaskEventProbes`
    // invariant).
    let events = unsafe { &*data.cast::<T>() };
    events.forked(parent, child);
}

/// `sched_process_free` probe.
///
/// # Safety
///
/// As [`fork_probe`].
unsafe extern "C" fn free_probe<T: TaskEvents>(
    data: *mut c_void,
    task: *mut bindings::task_struct,
) {
    // SAFETY: as in `fork_probe`.
    let events = unsafe { &*data.cast::<T>() };
    events.freed(task);
}

/// What a user of [`SwitchProbe`] does at each context switch: called
/// from the scheduler with interrupts off, on the CPU that switches, while
/// `prev` is still current; it may not sleep.
pub(crate) trait TaskSwitch: Sync {
    /// The CPU switches from `prev` to `next`.
    /// `preempted`: `prev` was preempted, rather than calling the
    /// scheduler itself.
    fn switched(
        &self,
        preempted: bool,
        prev: *mut bindings::task_struct,
        next: *mut bindings::task_struct,
    );
}

/// A probe on `sched_switch`, registered with a `T` as its data.
///
/// # Invariants
///
/// While registered, `data` points at a `T` that outlives the
/// registration.
pub(crate) struct SwitchProbe<T: TaskSwitch> {
    switch: *mut bindings::tracepoint,
    data: *const T,
}

// SAFETY: the tracepoint is a kernel object; `data` is `Sync`.
unsafe impl<T: TaskSwitch> Send for SwitchProbe<T> {}
// SAFETY: as above.
unsafe impl<T: TaskSwitch> Sync for SwitchProbe<T> {}

impl<T: TaskSwitch> SwitchProbe<T> {
    /// Starts calling `data` at every context switch.
    ///
    /// # Safety
    ///
    /// `data` must outlive the returned value.
    pub(crate) unsafe fn start(data: &T) -> Result<Self> {
        let switch = crate::kernel_api::tracepoint::find(c_str!("sched_switch")).ok_or(ENOENT)?;
        let data: *const T = data;
        // SAFETY: the probe's signature is the tracepoint's, with the data
        // pointer first; `data` outlives the registration.
        let ret = unsafe {
            bindings::tracepoint_probe_register(
                switch,
                switch_probe::<T> as *mut c_void,
                data.cast_mut().cast(),
            )
        };
        if ret != 0 {
            return Err(Error::from_errno(ret));
        }
        Ok(SwitchProbe { switch, data })
    }
}

impl<T: TaskSwitch> Drop for SwitchProbe<T> {
    /// Unregisters the probe; when this returns it runs no more.
    fn drop(&mut self) {
        // SAFETY: registered in `start` with these arguments.
        unsafe {
            bindings::tracepoint_probe_unregister(
                self.switch,
                switch_probe::<T> as *mut c_void,
                self.data.cast_mut().cast(),
            );
            bindings::rft_tracepoint_synchronize_unregister();
        }
    }
}

/// `sched_switch` probe.
///
/// # Safety
///
/// Called by the tracepoint with the `T` given at registration and live
/// tasks.
unsafe extern "C" fn switch_probe<T: TaskSwitch>(
    data: *mut c_void,
    preempt: bool,
    prev: *mut bindings::task_struct,
    next: *mut bindings::task_struct,
    _prev_state: u32,
) {
    // SAFETY: registered with a live `T` (the `SwitchProbe` invariant).
    let events = unsafe { &*data.cast::<T>() };
    events.switched(preempt, prev, next);
}

/// What a user of [`MeetingProbes`] does when the scheduler has two tasks
/// in hand: at a context switch (from `first` to `second`, on the CPU that
/// switches, interrupts off) and at a wake-up (`first` wakes `second`,
/// from the waker's context, preemption off). It may not sleep.
pub(crate) trait TaskMeetings: Sync {
    /// The scheduler has `first` and `second` in hand on this CPU.
    fn met(&self, first: TaskRef<'_>, second: TaskRef<'_>);
}

/// Probes on `sched_switch`, `sched_wakeup` and `sched_wakeup_new` (the
/// kernel's `tracing_sched_register`), registered with a `T` as their
/// data.
///
/// Dropping the probes unregisters them without waiting for the calls
/// under way, which a context switch runs at every moment: the kernel's
/// own `tracing_sched_unregister` does not wait either, and a stop of the
/// function tracer would otherwise wait for two grace periods. The owner
/// of the data calls [`wait_for_meetings`] before the data goes.
///
/// # Invariants
///
/// While registered, and until a [`wait_for_meetings`] after, `data`
/// points at a live `T`; `registered` lists each tracepoint and the probe
/// registered on it.
pub(crate) struct MeetingProbes<T: TaskMeetings> {
    registered: KVec<(*mut bindings::tracepoint, *mut c_void)>,
    data: *const T,
}

// SAFETY: the tracepoints are kernel objects; `data` is `Sync`.
unsafe impl<T: TaskMeetings> Send for MeetingProbes<T> {}
// SAFETY: as above.
unsafe impl<T: TaskMeetings> Sync for MeetingProbes<T> {}

impl<T: TaskMeetings> MeetingProbes<T> {
    /// Starts calling `data` at every context switch and wake-up.
    ///
    /// # Safety
    ///
    /// `data` must outlive the returned value and the next call of
    /// [`wait_for_meetings`] after it is dropped.
    pub(crate) unsafe fn start(data: &T) -> Result<Self> {
        let probes: [(&CStr, *mut c_void); 3] = [
            (c_str!("sched_wakeup"), wakeup_meeting::<T> as *mut c_void),
            (
                c_str!("sched_wakeup_new"),
                wakeup_meeting::<T> as *mut c_void,
            ),
            (c_str!("sched_switch"), switch_meeting::<T> as *mut c_void),
        ];
        let mut this = MeetingProbes {
            registered: KVec::with_capacity(probes.len(), GFP_KERNEL)?,
            data,
        };
        for (name, probe) in probes {
            let tp = crate::kernel_api::tracepoint::find(name).ok_or(ENOENT)?;
            // Listed first (there is room), so that no registered probe is
            // ever left out of the list.
            this.registered.push((tp, probe), GFP_KERNEL)?;
            // SAFETY: each probe's signature is its tracepoint's, with the
            // data pointer first; `data` outlives the registration (the
            // caller's guarantee). On failure, dropping `this` removes the
            // probes registered so far.
            let ret = unsafe {
                bindings::tracepoint_probe_register(tp, probe, this.data.cast_mut().cast())
            };
            if ret != 0 {
                this.registered.pop();
                return Err(Error::from_errno(ret));
            }
        }
        Ok(this)
    }
}

impl<T: TaskMeetings> Drop for MeetingProbes<T> {
    /// Unregisters the probes; calls under way may still run until the
    /// next [`wait_for_meetings`].
    fn drop(&mut self) {
        for &(tp, probe) in self.registered.iter() {
            // SAFETY: registered in `start` with these arguments.
            unsafe {
                bindings::tracepoint_probe_unregister(tp, probe, self.data.cast_mut().cast())
            };
        }
    }
}

/// Waits until no probe of a dropped [`MeetingProbes`] runs any more. May
/// sleep.
pub(crate) fn wait_for_meetings() {
    // SAFETY: process context; waits for the tracepoints' grace periods.
    unsafe { bindings::rft_tracepoint_synchronize_unregister() };
}

/// `sched_switch` probe of [`MeetingProbes`].
///
/// # Safety
///
/// Called by the tracepoint with the `T` given at registration and live
/// tasks.
unsafe extern "C" fn switch_meeting<T: TaskMeetings>(
    data: *mut c_void,
    _preempt: bool,
    prev: *mut bindings::task_struct,
    next: *mut bindings::task_struct,
    _prev_state: u32,
) {
    // SAFETY: registered with a live `T` (the `MeetingProbes` invariant);
    // both tasks live through the switch.
    let (events, prev, next) = unsafe {
        (
            &*data.cast::<T>(),
            TaskRef::from_raw(prev),
            TaskRef::from_raw(next),
        )
    };
    if let (Some(prev), Some(next)) = (prev, next) {
        events.met(prev, next);
    }
}

/// `sched_wakeup` and `sched_wakeup_new` probe of [`MeetingProbes`].
///
/// # Safety
///
/// Called by the tracepoint with the `T` given at registration and the
/// live task being woken.
unsafe extern "C" fn wakeup_meeting<T: TaskMeetings>(
    data: *mut c_void,
    wakee: *mut bindings::task_struct,
) {
    // SAFETY: registered with a live `T` (the `MeetingProbes` invariant);
    // the wakee lives through its wake-up.
    let (events, wakee) = unsafe { (&*data.cast::<T>(), TaskRef::from_raw(wakee)) };
    if let Some(wakee) = wakee {
        // The waker is the running task, alive for this call.
        events.met(TaskRef::current(&wakee), wakee);
    }
}
