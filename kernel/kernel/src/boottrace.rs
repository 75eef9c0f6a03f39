//! The boot trace: with `boot-trace` on the kernel command line, one
//! console line per boot milestone, `boot trace: tsc N WHAT`, where `N`
//! is the time stamp counter when it happened. Off by default, and then
//! it costs one relaxed load where a task first runs.
//!
//! Under QEMU's TCG the guest's TSC counts the host's TSC cycles since
//! the virtual machine started running, so the host (`cargo make bench
//! boot`) turns these counts into milliseconds after QEMU's start and can
//! split the time before the banner (firmware, kernel set-up, task
//! loading) and see when each task first ran. The lines come once per
//! boot: a handful for the kernel and one per task, well inside the
//! console budget.

use crate::kprintln;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The command-line word that turns the trace on.
pub const ARGUMENT: &str = "boot-trace";

static ON: AtomicBool = AtomicBool::new(false);
/// The TSC at `kernel_main`'s first instruction, said once the console
/// is up.
static ENTRY: AtomicU64 = AtomicU64::new(0);
/// Task slots (below 64) whose first run has been traced.
static STARTED: AtomicU64 = AtomicU64::new(0);

fn tsc() -> u64 {
    // Safety: RDTSC only reads the counter; the kernel leaves CR4.TSD clear.
    unsafe { core::arch::x86_64::_rdtsc() }
}

/// Notes the TSC at the kernel's entry (before the console exists).
pub fn entered() {
    ENTRY.store(tsc(), Ordering::Relaxed);
}

/// Turns the trace on if `cmdline` asks, and traces the entry.
pub fn init(cmdline: &str) {
    if cmdline.split_whitespace().any(|a| a == ARGUMENT) {
        ON.store(true, Ordering::Relaxed);
        kprintln!(
            "boot trace: tsc {} kernel entered",
            ENTRY.load(Ordering::Relaxed)
        );
        mark("kernel set up");
    }
}

/// Traces the milestone `what`, now.
pub fn mark(what: &str) {
    if ON.load(Ordering::Relaxed) {
        kprintln!("boot trace: tsc {} {what}", tsc());
    }
}

/// Traces task slot `t`, named `name`, the first time it runs.
#[inline]
pub fn running(t: usize, name: &str) {
    if !ON.load(Ordering::Relaxed) || t >= 64 {
        return;
    }
    let bit = 1u64 << t;
    if STARTED.fetch_or(bit, Ordering::Relaxed) & bit == 0 {
        kprintln!("boot trace: tsc {} task '{name}' runs", tsc());
    }
}
