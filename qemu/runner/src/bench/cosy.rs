//! `bench cosy`: the Cosy papers' workloads in the guest
//! (`apps/bench/cosybench`, system `qemu/systems/cosybench.toml`), each in the
//! configurations VAN (one IPC per operation), COSY (one compound) and
//! COSY-FAST (a compound over a shared data region), under tcg (guest
//! TSC cycles) and icount (instructions). The task prints one record
//! line per figure, `BENCH <bench>__<config>__<param> median <value>`
//! (`_` standing for `-` in the names); this reads the medians back,
//! appends one record per workload, configuration, parameter and mode
//! (`metric` = `time`), and prints each workload's speed-up over VAN
//! beside the paper's figure ([`paper`]).
//!
//! The disk is rebuilt for every run, so every boot starts from the
//! same seeded files. A run whose task reports a failed check (a copy
//! unlike its source, a count unlike VAN's) stops the benchmark: a
//! figure of wrong work is worth nothing.

mod paper;
mod table;

use std::time::Duration;

use super::guest_figures::{figures, modes, Figure};
use super::{append, Record};
use crate::{image, qemu};

/// The task that prints the records.
const TASK: &str = "cosybench";
/// The longest a run may take: the plan ran in 23 minutes under icount
/// and about 10 (a subset) under tcg on a host shared with other builds
/// (docs/PERFORMANCE.md, cosy run 6); bonnie's 32 MiB phases and ls -l
/// of 50,000 files wait for the disk most of that.
const TIMEOUT: Duration = Duration::from_secs(2700);

/// Names the one mode to run (`tcg` or `icount`) instead of both.
const MODES_ENV: &str = "COSYBENCH_MODE";

/// Boots the system under tcg and icount (or the mode `COSYBENCH_MODE`
/// names), records and prints.
pub fn run() -> Result<(), String> {
    let named = std::env::var(MODES_ENV).ok();
    let modes = modes(MODES_ENV, named.as_deref())?;
    let mut built = image::build_named("cosybench")?;
    built.fresh_disk = true;
    let mut printed = Vec::new();
    for (accel, unit) in modes {
        let run = qemu::run_captured(&built, accel, TIMEOUT, "")?;
        let figures = figures(&run.output, TASK)
            .map_err(|e| format!("bench cosy under {accel}: {e}\nconsole:\n{}", run.output))?;
        let mode = accel.as_str();
        let records: Vec<Record<'_>> = figures
            .iter()
            .map(|f| f.record("time", unit, mode))
            .collect();
        append(&records)?;
        printed.extend(table::rows(&figures, mode, unit));
    }
    println!(
        "bench cosy (guest TSC across one run of the workload, median; tcg: TSC cycles, icount: instructions; speed-up = VAN / config; paper: elapsed-time improvement, FSL-02-01)"
    );
    for line in printed {
        println!("{line}");
    }
    Ok(())
}
