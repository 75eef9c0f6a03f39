//! `bench fs-ops`: the file server's cost per operation
//! (`apps/bench/cosybench/src/fs_ops`, system `qemu/systems/fsops.toml`, plan
//! `qemu/cosybench/fsops/plan`): the null request, `stat`, `open` +
//! `close`, cached 4 KiB `pread` and `pwrite`, sequential 64 KiB reads,
//! `readdir` and `readdirplus` (`ls -l`'s listing) per entry and open +
//! read + close of a 1 KiB file, each as VAN, COSY and COSY-FAST, under
//! tcg (guest TSC cycles per operation) and icount (guest instructions
//! per operation; `FSOPS_MODE` names one mode). The task reports the median over rounds of a run's TSC divided
//! by its operations, one record line per operation and configuration;
//! this appends one record each (`metric` = `instructions_per_op` or
//! `tsc_cycles_per_op`) and prints them beside Linux's figures in the
//! same mode from the newest `cargo make bench linux` records ([`linux`]),
//! which this run does not measure.

mod linux;
mod table;

use std::time::Duration;

use super::guest_figures::{figures, modes, Figure};
use super::{append, Record};
use crate::accel::Accel;
use crate::{image, qemu};

/// The task that prints the records.
const TASK: &str = "cosybench";
/// The system it boots.
const SYSTEM: &str = "fsops";
/// The bench's name in records (the task's metric names carry it).
const BENCH: &str = "fs-ops";
/// Names the one mode to run (`tcg` or `icount`) instead of both.
const MODES_ENV: &str = "FSOPS_MODE";
/// The longest a run may take: the plan is sized for about 10 minutes
/// under icount on a host shared with other builds.
const TIMEOUT: Duration = Duration::from_secs(1800);

/// The metric of a per-operation figure in `accel`'s unit.
fn metric(accel: Accel) -> &'static str {
    match accel {
        Accel::Icount => "instructions_per_op",
        _ => "tsc_cycles_per_op",
    }
}

/// Boots the system under tcg and icount (or the mode `FSOPS_MODE`
/// names), records and prints.
pub fn run() -> Result<(), String> {
    let named = std::env::var(MODES_ENV).ok();
    let modes = modes(MODES_ENV, named.as_deref())?;
    let mut built = image::build_named(SYSTEM)?;
    built.fresh_disk = true;
    let mut printed = Vec::new();
    let linux = linux::Linux::load();
    for (accel, unit) in modes {
        let run = qemu::run_captured(&built, accel, TIMEOUT, "")?;
        let figures = ours(&run.output)
            .map_err(|e| format!("bench fs-ops under {accel}: {e}\nconsole:\n{}", run.output))?;
        let mode = accel.as_str();
        let records: Vec<Record<'_>> = figures
            .iter()
            .map(|f| f.record(metric(accel), unit, mode))
            .collect();
        append(&records)?;
        printed.extend(table::rows(&figures, mode, unit, &linux));
    }
    println!(
        "bench fs-ops (per operation: median over rounds of one run's guest TSC / its operations; tcg: TSC cycles, icount: instructions; x = VAN / config)"
    );
    for line in printed {
        println!("{line}");
    }
    println!("{}", linux::NOTE);
    Ok(())
}

/// The fs-ops figures in `output`; an error if the task failed a check
/// or reported none.
fn ours(output: &str) -> Result<Vec<Figure>, String> {
    let all = figures(output, TASK)?;
    let ours: Vec<Figure> = all.into_iter().filter(|f| f.bench == BENCH).collect();
    if ours.is_empty() {
        return Err(format!(
            "the task reported no `{BENCH}` figures (is the plan qemu/cosybench/fsops/plan?)"
        ));
    }
    Ok(ours)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_fs_ops_figures_count_and_a_failed_check_stops_the_benchmark() {
        let out = "cosybench: BENCH fs_ops__VAN__open_read_close median 46000\n\
                   cosybench: BENCH fs_ops__VAN__open_read_close p99 47000\n\
                   cosybench: BENCH null_loop__VAN__2 median 4900\n\
                   cosybench: all 3 checks passed\n";
        let got = ours(out).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(
            (got[0].param.as_str(), got[0].value),
            ("open-read-close", 46000)
        );
        let none =
            "cosybench: BENCH null_loop__VAN__2 median 4900\ncosybench: all 1 checks passed\n";
        assert!(ours(none).unwrap_err().contains("no `fs-ops` figures"));
        let bad = format!("cosybench: CHECK FAILED: fs-ops pread Cosy answers as VAN\n{out}");
        assert!(ours(&bad).unwrap_err().contains("failed a check"));
    }

    #[test]
    fn each_mode_has_its_per_operation_metric() {
        assert_eq!(metric(Accel::Icount), "instructions_per_op");
        assert_eq!(metric(Accel::Tcg), "tsc_cycles_per_op");
    }
}
