//! Rules about the system as a whole: how many tasks, what must be unique
//! among them, and whether their memory fits.
//!
//! These run after `schema` has checked every single value, so they see
//! trusted fields. Rules about kernel objects and capabilities have their
//! own modules (`supervision`, `resolve`, `slots`, `devices`, `graph`).

use crate::error::Error;
use crate::limits::{MAX_TASKS, MIB};
use crate::model::{DiskImage, Manifest, Task};

/// Checks the whole-system rules, in a fixed order so that a manifest with
/// several problems always reports the same one first.
pub(crate) fn system(manifest: &Manifest) -> Result<(), Error> {
    let origin = || manifest.origin.clone();
    let tasks = &manifest.tasks;
    if tasks.is_empty() {
        return Err(Error::NoTasks { origin: origin() });
    }
    if tasks.len() > MAX_TASKS {
        return Err(Error::TooManyTasks {
            origin: origin(),
            count: tasks.len(),
            max: MAX_TASKS,
        });
    }
    if let Some((first, second)) = first_duplicate(tasks, |task| task.start_order) {
        return Err(Error::DuplicateStartOrder {
            origin: origin(),
            first: first.name.clone(),
            second: second.name.clone(),
            start_order: first.start_order,
        });
    }
    if let Some(task) = tasks.iter().find(|t| t.cpu >= manifest.system.cpus) {
        return Err(Error::CpuOutOfRange {
            origin: origin(),
            task: task.name.clone(),
            cpu: task.cpu,
            cpus: manifest.system.cpus,
        });
    }
    memory_budget(manifest)
}

/// A crash test needs a disk made from a folder: its image is what the
/// rounds share and what e2fsck checks at the end. (Runs once devices are
/// resolved.)
pub(crate) fn crash_disk(manifest: &Manifest) -> Result<(), Error> {
    let crash = manifest.test.as_ref().is_some_and(|t| t.crash.is_some());
    let folder = manifest
        .devices
        .iter()
        .any(|d| matches!(d.disk, Some(DiskImage::Folder { .. })));
    if crash && !folder {
        return Err(Error::CrashWithoutDisk {
            origin: manifest.origin.clone(),
        });
    }
    Ok(())
}

/// The first pair of tasks, in document order, that share `key`.
fn first_duplicate<'a, K: PartialEq>(
    tasks: &'a [Task],
    key: impl Fn(&'a Task) -> K,
) -> Option<(&'a Task, &'a Task)> {
    tasks.iter().enumerate().find_map(|(index, second)| {
        let first = tasks[..index]
            .iter()
            .find(|first| key(first) == key(second))?;
        Some((first, second))
    })
}

/// Tasks may take at most half of guest memory for their stacks and heaps;
/// the rest is for the kernel, page tables, ELF images and shared regions.
fn memory_budget(manifest: &Manifest) -> Result<(), Error> {
    let requested: u64 = manifest.tasks.iter().map(Task::memory_bytes).sum();
    let available = u64::from(manifest.system.memory_mib) * u64::from(MIB) / 2;
    if requested > available {
        return Err(Error::MemoryBudget {
            origin: manifest.origin.clone(),
            requested,
            available,
            memory_mib: manifest.system.memory_mib,
        });
    }
    Ok(())
}
