// SPDX-License-Identifier: GPL-2.0

//! The directories of `events/` while rftracefs is mounted, in every
//! instance: made at mount (or at the instance's `mkdir`) for the events
//! of the catalog, and added and removed as modules with events come and
//! go and as probe events are defined and removed.
//!
//! Lock order: the instance list, then the tree, then the catalog (then
//! the VFS's directory locks). The super block's `s_umount` comes before
//! the tree (mount and unmount attach and detach it).

use super::catalog::{self, Catalog, Event, EventKey};
use super::files::{EVENT_FILES, SYSTEM_FILES};
use crate::control_files::READ_WRITE;
use crate::instance::Instance;
use crate::rftracefs::Dir;
use kernel::{prelude::*, sync::Arc};

/// The mounted `events/` of one instance.
///
/// # Invariants
///
/// Its directories belong to a live super block: the tree is detached
/// (`detach`) before the super block is torn down.
struct Mounted {
    instance: Arc<Instance>,
    events: Dir,
    /// By system number: the system's directory, if it has one.
    systems: KVec<Option<Dir>>,
    /// By event id: the event's directory, if it has one.
    event_dirs: KVec<Option<Dir>>,
}

kernel::sync::global_lock! {
    // SAFETY: initialised by `init` at module load, before any use.
    unsafe(uninit) static TREE: Mutex<KVec<Mounted>> = KVec::new();
}

/// Makes the tree's lock. Called once, at module load, first.
pub(crate) fn init() {
    // SAFETY: called once, at module load, before any other use.
    unsafe { TREE.init() };
}

/// Fills `events` (the mounted `events/` of `instance`) with a directory
/// per system and event of the catalog, and follows the catalog's changes
/// there until [`detach`].
///
/// # Safety
///
/// `events` belongs to a super block being filled, and [`detach`] is
/// called before that super block is torn down.
pub(crate) unsafe fn attach(events: Dir, instance: &Arc<Instance>) -> Result {
    let mut tree = TREE.lock();
    // INVARIANT: the caller detaches before the super block goes.
    let mut mounted = Mounted {
        instance: instance.clone(),
        events,
        systems: KVec::new(),
        event_dirs: KVec::new(),
    };
    if let Some(catalog) = catalog::lock() {
        let ids: KVec<u16> = collect(catalog.ids())?;
        mounted.add(&catalog, &ids)?;
    }
    tree.push(mounted, GFP_KERNEL)?;
    Ok(())
}

/// Stops following the catalog in every instance: the super block is
/// being torn down, and its directories go with it.
pub(crate) fn detach() {
    let mounted = core::mem::take(&mut *TREE.lock());
    drop(mounted);
}

/// Stops following the catalog in `instance`'s `events/`: its directory
/// is about to be removed.
pub(crate) fn detach_instance(instance: &Instance) {
    let mut tree = TREE.lock();
    let mut index = 0;
    while index < tree.len() {
        if core::ptr::eq(&*tree[index].instance, instance) {
            drop(tree.remove(index));
        } else {
            index += 1;
        }
    }
}

/// Adds the directories of events `ids`, which just joined the catalog,
/// in every instance; all are tried, the first error is returned.
pub(super) fn add(ids: &[u16]) -> Result {
    let mut tree = TREE.lock();
    let Some(catalog) = catalog::lock() else {
        return Ok(());
    };
    let mut result = Ok(());
    for mounted in tree.iter_mut() {
        let added = mounted.add(&catalog, ids);
        result = result.and(added);
    }
    result
}

/// Removes the directories of events `ids`, about to leave the catalog,
/// and those of systems left without events. Runs before the catalog
/// forgets them.
pub(super) fn remove(ids: &[u16]) {
    let mut tree = TREE.lock();
    let Some(catalog) = catalog::lock() else {
        return;
    };
    for mounted in tree.iter_mut() {
        mounted.remove(&catalog, ids);
    }
}

impl Mounted {
    /// Removes the directories of events `ids` and of the systems they
    /// leave empty.
    fn remove(&mut self, catalog: &Catalog, ids: &[u16]) {
        for &id in ids {
            if let Some(dir) = self
                .event_dirs
                .get_mut(usize::from(id))
                .and_then(Option::take)
            {
                dir.remove();
            }
        }
        for (number, system) in catalog.systems.iter().enumerate() {
            let gone = system.events.iter().all(|id| ids.contains(id));
            if gone {
                if let Some(dir) = self.systems.get_mut(number).and_then(Option::take) {
                    dir.remove();
                }
            }
        }
    }

    /// Makes the directories of events `ids` (and of their systems) that
    /// do not exist yet.
    fn add(&mut self, catalog: &Catalog, ids: &[u16]) -> Result {
        for &id in ids {
            let Some(event) = catalog.event_by_id(id) else {
                continue;
            };
            let Some(number) = catalog
                .systems
                .iter()
                .position(|s| s.name() == event.system())
            else {
                continue;
            };
            if self
                .event_dirs
                .get(usize::from(id))
                .is_some_and(Option::is_some)
            {
                continue;
            }
            self.system_dir(number, event)?;
            let Some(Some(system)) = self.systems.get(number) else {
                continue;
            };
            let dir = system.dir(event.name())?;
            populate_event(&dir, &self.instance, catalog.key(id))?;
            *slot(&mut self.event_dirs, usize::from(id))? = Some(dir);
        }
        Ok(())
    }

    /// Makes system `number`'s directory (`event`'s system) unless it
    /// exists.
    fn system_dir(&mut self, number: usize, event: &Event) -> Result {
        let system = slot(&mut self.systems, number)?;
        if system.is_none() {
            let dir = self.events.dir(event.system())?;
            for &(name, attr) in SYSTEM_FILES {
                dir.file(name, READ_WRITE, attr, &self.instance, number)?;
            }
            *system = Some(dir);
        }
        Ok(())
    }
}

/// Creates the files of the event `key` names in its directory `dir`.
fn populate_event(dir: &Dir, instance: &Arc<Instance>, key: EventKey) -> Result {
    for &(name, permissions, attr, in_use) in EVENT_FILES {
        dir.file_in_use(name, permissions, attr, instance, key.index(), in_use)?;
    }
    Ok(())
}

/// The slot of `index` in `v`, grown with `None`s if needed.
fn slot<T>(v: &mut KVec<Option<T>>, index: usize) -> Result<&mut Option<T>> {
    while v.len() <= index {
        v.push(None, GFP_KERNEL)?;
    }
    Ok(&mut v[index])
}

/// The ids of `ids`, copied.
fn collect(ids: impl Iterator<Item = u16>) -> Result<KVec<u16>> {
    let mut out = KVec::new();
    for id in ids {
        out.push(id, GFP_KERNEL)?;
    }
    Ok(out)
}
