// SPDX-License-Identifier: GPL-2.0

//! Which event records the event pid filters (`set_event_pid`,
//! `set_event_notrace_pid`) leave out.
//!
//! The kernel decides from the task running: a per-CPU `ignore_pid` flag
//! it sets at each context switch for the task switched to. Its probes on
//! the scheduler's tracepoints make two exceptions, both visible in the
//! record itself: a `sched_switch` is recorded unless both tasks are left
//! out, and a `sched_waking`, `sched_wakeup` or `sched_wakeup_new` is
//! recorded if the running task or the task woken is traced
//! (`event_filter_pid_sched_switch_probe_pre` and
//! `event_filter_pid_sched_wakeup_probe_pre` of trace_events.c).

use super::field::Field;

/// One pid list as the recording path sees it.
pub(crate) trait PidList {
    /// Whether the list is in use: the kernel's list pointer is set. A list
    /// in use may hold no pid (its tasks exited with `event-fork` on): it
    /// then leaves every task out.
    fn is_active(&self) -> bool;
    /// Whether `pid` is in the list.
    fn contains(&self, pid: u32) -> bool;
}

/// Whether the filters leave task `pid` out: the kernel's
/// `trace_ignore_this_task`.
pub(crate) fn ignores_task(trace: &impl PidList, notrace: &impl PidList, pid: u32) -> bool {
    (trace.is_active() && !trace.contains(pid)) || (notrace.is_active() && notrace.contains(pid))
}

/// Which tasks decide whether an event's record is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TaskRole {
    /// The task running (every event but those below).
    Current,
    /// `sched_switch`: the tasks switched from and to, at these offsets
    /// of the record (`prev_pid`, `next_pid`).
    Switch { prev_pid: usize, next_pid: usize },
    /// A wakeup: the running task or the task woken, whose pid is at this
    /// offset (`pid`).
    Wakeup { pid: usize },
}

impl TaskRole {
    /// The role of event `system:name`, whose fields are `fields`.
    pub(crate) fn of<'a>(
        system: &str,
        name: &str,
        fields: impl Iterator<Item = Field<'a>> + Clone,
    ) -> Self {
        if system != "sched" {
            return TaskRole::Current;
        }
        let pid_at = |wanted: &str| {
            fields
                .clone()
                .find(|f| f.name == wanted && f.size == 4)
                .map(|f| f.offset as usize)
        };
        match name {
            "sched_switch" => match (pid_at("prev_pid"), pid_at("next_pid")) {
                (Some(prev_pid), Some(next_pid)) => TaskRole::Switch { prev_pid, next_pid },
                _ => TaskRole::Current,
            },
            "sched_waking" | "sched_wakeup" | "sched_wakeup_new" => match pid_at("pid") {
                Some(pid) => TaskRole::Wakeup { pid },
                None => TaskRole::Current,
            },
            _ => TaskRole::Current,
        }
    }

    /// Whether the filters leave out `record`, recorded while task
    /// `current` runs.
    pub(crate) fn ignores(
        self,
        record: &[u8],
        current: u32,
        trace: &impl PidList,
        notrace: &impl PidList,
    ) -> bool {
        let pid_at = |offset| read_pid(record, offset).unwrap_or(current);
        match self {
            TaskRole::Current => ignores_task(trace, notrace, current),
            TaskRole::Switch { prev_pid, next_pid } => {
                let (prev, next) = (pid_at(prev_pid), pid_at(next_pid));
                (notrace.is_active() && notrace.contains(prev) && notrace.contains(next))
                    || (trace.is_active() && !trace.contains(prev) && !trace.contains(next))
            }
            TaskRole::Wakeup { pid } => {
                ignores_task(trace, notrace, current) && ignores_task(trace, notrace, pid_at(pid))
            }
        }
    }
}

/// The `pid_t` at `offset` of `record`.
fn read_pid(record: &[u8], offset: usize) -> Option<u32> {
    let bytes = record.get(offset..offset.checked_add(4)?)?;
    Some(u32::from_ne_bytes(bytes.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::super::field::FilterType;
    use super::*;

    /// A list: `None` when not in use.
    struct List(Option<Vec<u32>>);

    impl PidList for List {
        fn is_active(&self) -> bool {
            self.0.is_some()
        }
        fn contains(&self, pid: u32) -> bool {
            self.0.as_ref().is_some_and(|l| l.contains(&pid))
        }
    }

    const OFF: List = List(None);

    fn list(pids: &[u32]) -> List {
        List(Some(pids.to_vec()))
    }

    fn field(name: &'static str, offset: u32, size: u32) -> Field<'static> {
        Field {
            type_name: "int",
            name,
            offset,
            size,
            is_signed: true,
            filter_type: FilterType::Other,
            len: 0,
        }
    }

    fn switch_fields() -> Vec<Field<'static>> {
        vec![
            field("prev_comm", 8, 16),
            field("prev_pid", 24, 4),
            field("prev_prio", 28, 4),
            field("prev_state", 32, 8),
            field("next_comm", 40, 16),
            field("next_pid", 56, 4),
            field("next_prio", 60, 4),
        ]
    }

    fn wakeup_fields() -> Vec<Field<'static>> {
        vec![
            field("comm", 8, 16),
            field("pid", 24, 4),
            field("prio", 28, 4),
            field("target_cpu", 32, 4),
        ]
    }

    /// A record of 64 bytes with `pids` at their offsets.
    fn record(pids: &[(usize, u32)]) -> Vec<u8> {
        let mut record = vec![0u8; 64];
        for &(offset, pid) in pids {
            record[offset..offset + 4].copy_from_slice(&pid.to_ne_bytes());
        }
        record
    }

    #[test]
    fn finds_the_roles_of_the_scheduler_events() {
        let switch = switch_fields();
        let wakeup = wakeup_fields();
        assert_eq!(
            TaskRole::of("sched", "sched_switch", switch.iter().copied()),
            TaskRole::Switch {
                prev_pid: 24,
                next_pid: 56
            }
        );
        for name in ["sched_waking", "sched_wakeup", "sched_wakeup_new"] {
            assert_eq!(
                TaskRole::of("sched", name, wakeup.iter().copied()),
                TaskRole::Wakeup { pid: 24 }
            );
        }
        assert_eq!(
            TaskRole::of("sched", "sched_process_fork", wakeup.iter().copied()),
            TaskRole::Current
        );
        assert_eq!(
            TaskRole::of("other", "sched_wakeup", wakeup.iter().copied()),
            TaskRole::Current
        );
        // Without the fields, the running task decides.
        assert_eq!(
            TaskRole::of("sched", "sched_switch", wakeup.iter().copied()),
            TaskRole::Current
        );
    }

    #[test]
    fn the_running_task_decides_for_most_events() {
        let any = record(&[]);
        let role = TaskRole::Current;
        assert!(!role.ignores(&any, 5, &OFF, &OFF));
        assert!(!role.ignores(&any, 5, &list(&[5]), &OFF));
        assert!(role.ignores(&any, 6, &list(&[5]), &OFF));
        assert!(role.ignores(&any, 5, &OFF, &list(&[5])));
        assert!(!role.ignores(&any, 6, &OFF, &list(&[5])));
        // notrace wins.
        assert!(role.ignores(&any, 5, &list(&[5]), &list(&[5])));
        // A list in use with no pid left leaves every task out.
        assert!(role.ignores(&any, 5, &list(&[]), &OFF));
        assert!(!role.ignores(&any, 5, &OFF, &list(&[])));
    }

    #[test]
    fn a_switch_is_kept_if_either_task_is_traced() {
        let role = TaskRole::Switch {
            prev_pid: 24,
            next_pid: 56,
        };
        let from_5_to_6 = record(&[(24, 5), (56, 6)]);
        assert!(!role.ignores(&from_5_to_6, 5, &list(&[6]), &OFF));
        assert!(!role.ignores(&from_5_to_6, 5, &list(&[5]), &OFF));
        assert!(role.ignores(&from_5_to_6, 5, &list(&[7]), &OFF));
        assert!(!role.ignores(&from_5_to_6, 5, &OFF, &list(&[5])));
        assert!(role.ignores(&from_5_to_6, 5, &OFF, &list(&[5, 6])));
        // As the kernel: one of the tasks listed in both is not enough to
        // leave the switch out.
        assert!(!role.ignores(&from_5_to_6, 5, &list(&[5]), &list(&[5])));
    }

    #[test]
    fn a_wakeup_is_kept_if_the_waker_or_the_woken_is_traced() {
        let role = TaskRole::Wakeup { pid: 24 };
        let wakes_6 = record(&[(24, 6)]);
        assert!(!role.ignores(&wakes_6, 5, &list(&[6]), &OFF));
        assert!(!role.ignores(&wakes_6, 5, &list(&[5]), &OFF));
        assert!(role.ignores(&wakes_6, 5, &list(&[7]), &OFF));
        assert!(!role.ignores(&wakes_6, 5, &OFF, &list(&[5])));
        assert!(role.ignores(&wakes_6, 5, &OFF, &list(&[5, 6])));
    }

    #[test]
    fn a_short_record_falls_back_to_the_running_task() {
        let role = TaskRole::Wakeup { pid: 62 };
        assert!(role.ignores(&record(&[]), 5, &list(&[6]), &OFF));
        assert!(!role.ignores(&record(&[]), 5, &list(&[5]), &OFF));
    }
}
