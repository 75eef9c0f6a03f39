//! `bench cosy`: the Cosy papers' workloads in the guest
//! (`apps/cosybench`, system `qemu/systems/cosybench.toml`), each in the
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

use conflux_abi::bench::Stat;

use super::{append, parse_bench_lines, Record};
use crate::accel::Accel;
use crate::{image, qemu};

/// The task that prints the records.
const TASK: &str = "cosybench";
/// The longest a run may take: the plan ran in 23 minutes under icount
/// and about 10 (a subset) under tcg on a host shared with other builds
/// (docs/PERFORMANCE.md, cosy run 6); bonnie's 32 MiB phases and ls -l
/// of 50,000 files wait for the disk most of that.
const TIMEOUT: Duration = Duration::from_secs(2700);

/// One median the guest reported.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub bench: String,
    pub config: String,
    pub param: String,
    pub value: u64,
}

impl Figure {
    /// Reads `bench__config__param` back (`_` within a part is `-`).
    pub fn from_metric(metric: &str, value: u64) -> Option<Figure> {
        let mut parts = metric.split("__");
        let (bench, config, param) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || [bench, config, param].iter().any(|p| p.is_empty()) {
            return None;
        }
        Some(Figure {
            bench: bench.replace('_', "-"),
            config: config.replace('_', "-"),
            param: param.replace('_', "-"),
            value,
        })
    }
}

/// Names the one mode to run (`tcg` or `icount`) instead of both.
const MODES_ENV: &str = "COSYBENCH_MODE";

/// The modes to run: both, or the one [`MODES_ENV`] names.
fn modes(named: Option<&str>) -> Result<Vec<(Accel, &'static str)>, String> {
    let both = [(Accel::Tcg, "tsc_cycles"), (Accel::Icount, "instructions")];
    match named {
        None | Some("") => Ok(both.to_vec()),
        Some(name) => both
            .into_iter()
            .find(|(a, _)| a.as_str() == name)
            .map(|m| vec![m])
            .ok_or_else(|| {
                format!("{MODES_ENV}=`{name}`: name tcg or icount, or unset it for both")
            }),
    }
}

/// Boots the system under tcg and icount (or the mode `COSYBENCH_MODE`
/// names), records and prints.
pub fn run() -> Result<(), String> {
    let named = std::env::var(MODES_ENV).ok();
    let modes = modes(named.as_deref())?;
    let mut built = image::build_named("cosybench")?;
    built.fresh_disk = true;
    let mut printed = Vec::new();
    for (accel, unit) in modes {
        let run = qemu::run_captured(&built, accel, TIMEOUT, "")?;
        let figures = figures(&run.output)
            .map_err(|e| format!("bench cosy under {accel}: {e}\nconsole:\n{}", run.output))?;
        let mode = accel.as_str();
        let records: Vec<Record<'_>> = figures
            .iter()
            .map(|f| Record {
                bench: &f.bench,
                config: &f.config,
                param: &f.param,
                metric: "time",
                value: f.value as f64,
                unit,
                mode,
            })
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

/// The medians in `output`; an error if the task failed a check or
/// reported nothing.
fn figures(output: &str) -> Result<Vec<Figure>, String> {
    if let Some(line) = output.lines().find(|l| l.contains("CHECK FAILED")) {
        return Err(format!("the benchmark task failed a check: {line}"));
    }
    if !output.contains(&format!("{TASK}: all ")) {
        return Err("the benchmark task never finished (no `all N checks passed`)".into());
    }
    let mut out = Vec::new();
    for line in parse_bench_lines(output, &[TASK])? {
        if line.stat() != Stat::Median {
            continue;
        }
        let figure = Figure::from_metric(line.metric(), line.value()).ok_or_else(|| {
            format!(
                "metric `{}` is not `bench__config__param` (apps/cosybench/src/measure.rs)",
                line.metric()
            )
        })?;
        out.push(figure);
    }
    if out.is_empty() {
        return Err("the benchmark task reported no figures".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_mode_can_be_named() {
        assert_eq!(modes(None).unwrap().len(), 2);
        assert_eq!(
            modes(Some("icount")).unwrap(),
            vec![(Accel::Icount, "instructions")]
        );
        assert!(modes(Some("kvm")).unwrap_err().contains("COSYBENCH_MODE"));
    }

    #[test]
    fn metric_names_are_read_back_into_their_parts() {
        let f = Figure::from_metric("null_loop__COSY_FAST__256", 7).unwrap();
        assert_eq!(
            (
                f.bench.as_str(),
                f.config.as_str(),
                f.param.as_str(),
                f.value
            ),
            ("null-loop", "COSY-FAST", "256", 7)
        );
        assert_eq!(Figure::from_metric("copy__VAN", 1), None);
        assert_eq!(Figure::from_metric("copy__VAN__1__x", 1), None);
        assert_eq!(Figure::from_metric("copy____1", 1), None);
    }

    #[test]
    fn medians_are_taken_and_failed_checks_stop_the_benchmark() {
        let out = "cosybench: BENCH grep__VAN__128KiB median 900\n\
                   cosybench: BENCH grep__VAN__128KiB p99 990\n\
                   cosybench: BENCH grep__COSY__128KiB median 600\n\
                   cosybench: all 9 checks passed\n";
        let got = figures(out).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!((got[1].config.as_str(), got[1].value), ("COSY", 600));
        let bad = format!("cosybench: CHECK FAILED: copy differs\n{out}");
        assert!(figures(&bad).unwrap_err().contains("failed a check"));
        let unfinished = "cosybench: BENCH grep__VAN__128KiB median 900\n";
        assert!(figures(unfinished).unwrap_err().contains("never finished"));
    }
}
