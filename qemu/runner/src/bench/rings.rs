//! `bench rings`: the file server's null operation by synchronous IPC and
//! through its rings (`docs/rings.md`), FlexSC's null-call experiment on
//! Conflux. The `ringbench` task (apps/bench/ringbench) runs in system
//! `ringbench` (one CPU) and `ringbench-2cpu` (the file server alone on
//! CPU 1, the task on CPU 0), under tcg only (icount runs one vCPU at a
//! time, so it cannot show a second CPU's work overlapping). Each metric
//! prefix is a configuration: `sync_` is `sync-ipc-1cpu` or
//! `sync-ipc-2cpu`; `ring_` and `ringc_` are `ring` and `ring-compound` on
//! two CPUs, and `ring-1cpu` and `ring-compound-1cpu` on one. A
//! `*_per_op` median also becomes a rate (operations per second) from the
//! host's TSC rate (the TCG guest reads the host's TSC).

use std::time::Duration;

use super::{append, host_tsc_hz, parse_bench_lines, Record};
use crate::accel::Accel;
use crate::{image, qemu};
use conflux_abi::bench::Stat;

const BENCH: &str = "rings";
const TIMEOUT: Duration = Duration::from_secs(900);

/// The systems, each with its configurations by metric prefix.
const SYSTEMS: [(&str, [(&str, &str); 3]); 2] = [
    (
        "ringbench",
        [
            ("sync_", "sync-ipc-1cpu"),
            ("ringc_", "ring-compound-1cpu"),
            ("ring_", "ring-1cpu"),
        ],
    ),
    (
        "ringbench-2cpu",
        [
            ("sync_", "sync-ipc-2cpu"),
            ("ringc_", "ring-compound"),
            ("ring_", "ring"),
        ],
    ),
];

/// Runs both systems and records every statistic.
pub fn run() -> Result<(), String> {
    let hz = host_tsc_hz();
    let mut table = Vec::new();
    for (system, configs) in SYSTEMS {
        let built = image::build_named(system)?;
        let run = qemu::run_captured(&built, Accel::Tcg, TIMEOUT, "")?;
        if run.output.contains("CHECK FAILED") || !run.output.contains("ringbench: done") {
            return Err(format!(
                "{system}: the ringbench task failed or did not finish; console:\n{}",
                run.output
            ));
        }
        let rows = parse_bench_lines(&run.output, &["bench"])?;
        let mut records = Vec::new();
        for r in rows.iter().filter(|r| r.stat() != Stat::Samples) {
            let Some((config, metric)) = configs
                .iter()
                .find_map(|(p, c)| r.metric().strip_prefix(p).map(|m| (*c, m)))
            else {
                continue;
            };
            records.push(Record {
                bench: BENCH,
                config,
                param: r.stat().name(),
                metric,
                value: r.value() as f64,
                unit: "tsc_cycles",
                mode: "tcg",
            });
            table.push((
                config,
                metric.to_owned(),
                r.stat().name(),
                r.value() as f64,
                "tsc_cycles",
            ));
            if let (Some(name), Stat::Median, Some(hz)) =
                (metric.strip_suffix("_per_op"), r.stat(), hz)
            {
                let rate = (hz / r.value().max(1) as f64).round();
                records.push(Record {
                    bench: BENCH,
                    config,
                    param: "rate",
                    metric: name,
                    value: rate,
                    unit: "ops_per_s",
                    mode: "tcg",
                });
                table.push((config, name.to_owned(), "rate", rate, "ops/s"));
            }
        }
        append(&records)?;
    }
    println!("bench rings (the file server's NOP: synchronous IPC against its rings; tcg)");
    println!(
        "  {:<20} {:<18} {:>7} {:>12}",
        "config", "metric", "stat", "value"
    );
    for (config, metric, stat, value, unit) in table {
        println!("  {config:<20} {metric:<18} {stat:>7} {value:>12.0} {unit}");
    }
    Ok(())
}
