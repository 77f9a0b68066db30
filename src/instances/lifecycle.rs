// SPDX-License-Identifier: GPL-2.0

//! Making and removing instances, and showing them in rftracefs.

use super::list;
use crate::control_files;
use crate::events::tree;
use crate::instance::Instance;
use crate::rftracefs::Dir;
use kernel::{
    prelude::*,
    str::{CStr, CString},
};

/// `mkdir instances/NAME`: makes instance `name` and its directory in
/// `instances`, as the kernel's `instance_mkdir`: `EEXIST` if the name is
/// taken.
pub(crate) fn make(instances: &Dir, name: &CStr) -> Result {
    let mut list = list::lock();
    if list.find(name).is_some() {
        return Err(EEXIST);
    }
    let top = list.top().ok_or(ENODEV)?.clone();
    let owned = CString::try_from_fmt(fmt!("{}", name.to_str().map_err(|_| EINVAL)?))?;
    let instance = Instance::new_named(owned, top)?;
    let dir = instances.dir(name.to_str().map_err(|_| EINVAL)?)?;
    let shown = control_files::populate(&dir, &instance).and_then(|()| list.add(instance.clone()));
    if let Err(e) = shown {
        tree::detach_instance(&instance);
        dir.remove();
        return Err(e);
    }
    Ok(())
}

/// `rmdir instances/NAME`: removes instance `name`, whose directory is
/// `dir`, as the kernel's `instance_rmdir`: `ENODEV` if there is none,
/// `EBUSY` while one of its files is open; otherwise its tracer stops,
/// its events are disabled, its directory goes, and the instance is freed
/// once the last reference to it goes.
pub(crate) fn remove(dir: Dir, name: &CStr) -> Result {
    let mut list = list::lock();
    let instance = list.find(name).ok_or(ENODEV)?.clone();
    instance.mark_removed()?;
    list.take(&instance);
    instance.shut_down();
    tree::detach_instance(&instance);
    dir.remove();
    Ok(())
}

/// Shows every instance in a new super block: the top level's files in
/// `root`, then `instances/` with a directory per instance.
pub(crate) fn show_all(root: &Dir) -> Result {
    let list = list::lock();
    let top = list.top().ok_or(ENODEV)?;
    control_files::populate(root, top)?;
    let instances = root.instances_dir()?;
    for instance in list.named() {
        let name = instance.name().ok_or(EINVAL)?;
        let dir = instances.dir(name.to_str().map_err(|_| EINVAL)?)?;
        control_files::populate(&dir, instance)?;
    }
    Ok(())
}
