// SPDX-License-Identifier: GPL-2.0

//! The probe event files of the top-level directory: `kprobe_events`,
//! `uprobe_events` and `dynamic_events` (commands in, definitions out),
//! `kprobe_profile` and `uprobe_profile` (hits and misses).

use super::command::{self, Source};
use super::event::ProbeKind;
use super::registry;
use crate::control_files::{READ_ONLY, READ_WRITE};
use crate::instance::Instance;
use crate::portable::input::InputError;
use crate::rftracefs::{Attribute, Dir};
use kernel::{prelude::*, sync::Arc};

/// The most a write may hold: many commands, each line at most the
/// kernel's 4094 bytes.
const MAX_COMMANDS_WRITE: usize = 256 * 1024;

/// Creates the probe files in `dir`, the top-level directory of
/// `instance`.
pub(crate) fn populate(dir: &Dir, instance: &Arc<Instance>) -> Result {
    dir.file("kprobe_events", READ_WRITE, &KPROBE_EVENTS, instance, 0)?;
    dir.file("uprobe_events", READ_WRITE, &UPROBE_EVENTS, instance, 0)?;
    dir.file("dynamic_events", READ_WRITE, &DYNAMIC_EVENTS, instance, 0)?;
    dir.file("kprobe_profile", READ_ONLY, &KPROBE_PROFILE, instance, 0)?;
    dir.file("uprobe_profile", READ_ONLY, &UPROBE_PROFILE, instance, 0)?;
    Ok(())
}

/// Removes every event `kind` selects, for an `O_TRUNC` open.
fn clear(kind: Option<ProbeKind>) -> Result<(), InputError> {
    let mut registry = registry::lock().map_err(|_| InputError::NoDevice)?;
    registry
        .remove_all(kind)
        .map_err(|e| InputError::Kernel(-e.to_errno()))
}

/// `kprobe_events`.
static KPROBE_EVENTS: Attribute = Attribute {
    show: |_, _, out| command::write_definitions(out, Some(ProbeKind::Kprobe)),
    store: Some(|inst, _, text| command::run(inst, Source::Kprobe, text)),
    max_write: MAX_COMMANDS_WRITE,
    truncate: Some(|_, _| clear(Some(ProbeKind::Kprobe))),
};

/// `uprobe_events`.
static UPROBE_EVENTS: Attribute = Attribute {
    show: |_, _, out| command::write_definitions(out, Some(ProbeKind::Uprobe)),
    store: Some(|inst, _, text| command::run(inst, Source::Uprobe, text)),
    max_write: MAX_COMMANDS_WRITE,
    truncate: Some(|_, _| clear(Some(ProbeKind::Uprobe))),
};

/// `dynamic_events`: every kind.
static DYNAMIC_EVENTS: Attribute = Attribute {
    show: |_, _, out| command::write_definitions(out, None),
    store: Some(|inst, _, text| command::run(inst, Source::Dynamic, text)),
    max_write: MAX_COMMANDS_WRITE,
    truncate: Some(|_, _| clear(None)),
};

/// `kprobe_profile`.
static KPROBE_PROFILE: Attribute =
    Attribute::read_only(|_, _, out| command::write_profile(out, ProbeKind::Kprobe));

/// `uprobe_profile`.
static UPROBE_PROFILE: Attribute =
    Attribute::read_only(|_, _, out| command::write_profile(out, ProbeKind::Uprobe));
