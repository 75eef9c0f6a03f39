//! This task's own configuration: its name, index and the values the
//! manifest gives it, read from the `.conflux_config` section the runner
//! fills in this task's image (`conflux-task-config`).
//!
//! A crate the manifest runs as several tasks is compiled with only the
//! constants they share (`config::*`); the rest — the task's name, its
//! device's PCI address, a slot that another task's endpoints move — is
//! read here, by the key the generated file names (`TASK_INDEX`,
//! `device::BDF`, `caps::FLOW`). The section is checked once, before
//! `main` (`start`); a task whose image the runner did not fill stops there
//! with a message saying what to rebuild.

use core::cell::UnsafeCell;

use conflux_task_config::{Config, SIZE};

/// The section's bytes. Mutable behind `UnsafeCell` and exported, so the
/// compiler keeps it in the file as written and cannot fold a read to the
/// zeros it was compiled with: the runner writes the real bytes into the
/// ELF after linking.
#[repr(transparent)]
pub struct Section(UnsafeCell<[u8; SIZE]>);

// Safety: nothing in the task writes the section; every access is a read.
unsafe impl Sync for Section {}

#[used]
#[export_name = "conflux_task_config"]
#[link_section = ".conflux_config"]
static SECTION: Section = Section(UnsafeCell::new([0; SIZE]));

/// The section's bytes as read-only memory.
fn bytes() -> &'static [u8] {
    // Safety: the section is `SIZE` initialised bytes that live for the
    // whole task, and no code writes them (the runner filled them before
    // the task was loaded), so a shared slice over them is sound.
    unsafe { &*SECTION.0.get() }
}

/// This task's checked configuration. `start` checked it before `main`,
/// so this cannot fail for a task started through `entry!`.
pub fn config() -> Config<'static> {
    match Config::parse(bytes()) {
        Ok(c) => c,
        Err(e) => stop(e),
    }
}

/// This task's name in the manifest.
pub fn name() -> &'static str {
    config().name()
}

/// This task's index in start order (the kernel's task index).
pub fn index() -> usize {
    config().index() as usize
}

/// The value the manifest gives this task under `key`, if any (`None`:
/// for example `caps::FLOW` in a task that is no flow stage).
pub fn value(key: &str) -> Option<u64> {
    config().get(key)
}

/// The value under `key`, which the manifest always gives a task of this
/// crate (a slot, an address). Its absence means the crate and the
/// manifest disagree: the task says which key and stops.
pub fn required(key: &str) -> u64 {
    value(key).unwrap_or_else(|| {
        crate::println!(
            "task {}: its configuration section has no `{key}`: the manifest gives this task less than its crate needs; check its [tasks.{}] table",
            name(),
            name()
        );
        crate::sys::exit(1)
    })
}

/// Checks the section before `main` and returns the heap size it gives.
pub(crate) fn start() -> usize {
    let config = config();
    config
        .get("HEAP_SIZE")
        .and_then(|h| usize::try_from(h).ok())
        .unwrap_or_else(|| {
            crate::println!("this task's configuration section has no HEAP_SIZE: the runner that made the image and this task disagree; rebuild both from one checkout");
            crate::sys::exit(1)
        })
}

fn stop(error: conflux_task_config::ConfigError) -> ! {
    crate::println!("cannot start: {error}");
    crate::sys::exit(1)
}
