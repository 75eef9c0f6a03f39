//! `bench rings`: FlexSC's experiments on Conflux (`docs/rings.md`): the
//! file server by synchronous IPC against its rings. The `ringbench` task
//! (apps/bench/ringbench) and its client tasks run in system `ringbench`
//! (one CPU) and `ringbench-2cpu` (the file server alone on CPU 1, the
//! tasks on CPU 0), under tcg only (icount runs one vCPU at a time, so it
//! cannot show a second CPU's work overlapping).
//!
//! Each guest metric's prefix is a path, which with the system makes the
//! record's `config` ([`SYSTEMS`]): `sync_` (one IPC per operation),
//! `syncc_` (the request as one compound, by IPC), `ring_` (an entry per
//! operation) and `ringc_` (the request as one compound entry). What
//! follows names the workload ([`map`]):
//!
//! - `nop_latency`, `nop_per_op`, `dbsim_latency`, `ls_l_latency`: one
//!   client; the record's `metric` is the guest's, its `param` the
//!   statistic; a `*_per_op` median also becomes a rate (`param` "rate",
//!   operations per second from the host's TSC rate: the TCG guest reads
//!   the host's TSC).
//! - `dbsim_n<N>_request`, `dbsim_n<N>_per_op`: N clients at once, each
//!   its own session and rings; records `metric` "dbsim_clients_latency"
//!   (`param` "n08_median", ...) and "dbsim_clients_rate" (`param` "n08",
//!   dbsim requests per second over all clients), so the report's table
//!   has a row per N.
//!
//! Each system's boot also gets a record of how busy the host's CPUs
//! were over it (`config` the system, `param` "boot", metric
//! `host_cpus_busy`, from `/proc/stat`) and of how long QEMU's threads
//! waited for a host CPU (metric `qemu_cpu_wait_share`, `host_wait`),
//! printed as a line: 2-CPU figures from a boot that kept every host CPU
//! busy measure the host too, and a guest CPU whose thread waits for the
//! host to wake it does nothing meanwhile.

use std::time::Duration;

use super::{append, host_tsc_hz, parse_bench_lines, Record};
use crate::host_wait::{self, Waited};
use crate::{host_cpu, image};
use conflux_abi::bench::Stat;

const BENCH: &str = "rings";
const TIMEOUT: Duration = Duration::from_secs(1800);

/// The systems, each with its configurations by metric prefix (no
/// prefix is another's start up to its `_`, so the order is the
/// tables').
const SYSTEMS: [(&str, [(&str, &str); 4]); 2] = [
    (
        "ringbench",
        [
            ("sync_", "sync-ipc-1cpu"),
            ("syncc_", "sync-compound-1cpu"),
            ("ring_", "ring-1cpu"),
            ("ringc_", "ring-compound-1cpu"),
        ],
    ),
    (
        "ringbench-2cpu",
        [
            ("sync_", "sync-ipc-2cpu"),
            ("syncc_", "sync-compound-2cpu"),
            ("ring_", "ring"),
            ("ringc_", "ring-compound"),
        ],
    ),
];

/// One record's fields, before it is written.
#[derive(Clone, Debug, PartialEq)]
struct Row {
    config: &'static str,
    metric: String,
    param: String,
    value: f64,
    unit: &'static str,
}

/// The rows of one guest statistic (`metric` with `stat`, `value` TSC
/// cycles) in a system whose prefixes are `configs`; none if the metric
/// has no known prefix or shape. `hz`: the host's TSC rate, for rates.
fn map(
    configs: &[(&str, &'static str)],
    metric: &str,
    stat: Stat,
    value: u64,
    hz: Option<f64>,
) -> Vec<Row> {
    let Some((config, rest)) = configs
        .iter()
        .find_map(|(p, c)| metric.strip_prefix(p).map(|m| (*c, m)))
    else {
        return Vec::new();
    };
    let row = |metric: String, param: String, value: f64, unit| Row {
        config,
        metric,
        param,
        value,
        unit,
    };
    let cycles = value as f64;
    let rate = |per: u64| hz.map(|hz| (hz / per.max(1) as f64).round());
    // N clients: `<workload>_n<N>_<what>`.
    if let Some((workload, tail)) = rest.split_once("_n") {
        let Some((n, what)) = tail.split_once('_') else {
            return Vec::new();
        };
        let Ok(n) = n.parse::<u32>() else {
            return Vec::new();
        };
        return match what {
            "request" => vec![row(
                format!("{workload}_clients_latency"),
                format!("n{n:02}_{}", stat.name()),
                cycles,
                "tsc_cycles",
            )],
            "per_op" if stat == Stat::Median => rate(value)
                .map(|r| {
                    vec![row(
                        format!("{workload}_clients_rate"),
                        format!("n{n:02}"),
                        r,
                        "requests_per_s",
                    )]
                })
                .unwrap_or_default(),
            _ => Vec::new(),
        };
    }
    let mut rows = vec![row(
        rest.to_owned(),
        stat.name().to_owned(),
        cycles,
        "tsc_cycles",
    )];
    if let (Some(name), Stat::Median, Some(r)) = (rest.strip_suffix("_per_op"), stat, rate(value)) {
        rows.push(row(name.to_owned(), "rate".to_owned(), r, "ops_per_s"));
    }
    rows
}

/// Runs both systems, records every statistic and prints the tables.
pub fn run() -> Result<(), String> {
    let hz = host_tsc_hz();
    let mut all = Vec::new();
    for (system, configs) in SYSTEMS {
        let built = image::build_named(system)?;
        let start = host_cpu::sample();
        let (waited, output) = super::measure_beside(
            &format!("bench rings ({system})"),
            &built,
            TIMEOUT,
            boot_waits,
        )?;
        // How busy the host was over the boot: its 2-CPU figures measure
        // the host too when every host CPU was busy.
        let host = host_cpu::since(start);
        if output.contains("CHECK FAILED") || !output.contains(DONE) {
            return Err(format!(
                "{system}: the ringbench task or a client failed or did not finish; console:\n{output}"
            ));
        }
        let lines = parse_bench_lines(&output, &["bench"])?;
        let rows: Vec<Row> = lines
            .iter()
            .filter(|l| l.stat() != Stat::Samples)
            .flat_map(|l| map(&configs, l.metric(), l.stat(), l.value(), hz))
            .collect();
        let host_records = [
            host.map(|b| ("host_cpus_busy", b.recorded(), "cores")),
            waited.map(|w| ("qemu_cpu_wait_share", w.recorded(), "share")),
        ];
        let busy = host_records
            .into_iter()
            .flatten()
            .map(|(metric, value, unit)| Record {
                bench: BENCH,
                config: system,
                param: "boot",
                metric,
                value,
                unit,
                mode: "tcg",
            });
        let records: Vec<Record> = rows
            .iter()
            .map(|r| Record {
                bench: BENCH,
                config: r.config,
                param: &r.param,
                metric: &r.metric,
                value: r.value,
                unit: r.unit,
                mode: "tcg",
            })
            .chain(busy)
            .collect();
        append(&records)?;
        if let Some(line) = boot_line(system, host.map(|b| b.to_string()), waited) {
            println!("{line}");
        }
        all.extend(rows);
    }
    print!("{}", tables(&all, hz));
    Ok(())
}

/// The line that ends a boot of the ringbench task.
const DONE: &str = "ringbench: done";

/// Beside a ringbench boot: how long QEMU's threads waited for a host CPU
/// from the start until the guest is done (or gone); `None` where the
/// host's statistics cannot be read. The guest exits right after its last
/// line, so the threads are read every 100 ms and the last reading kept.
fn boot_waits(console: &crate::qemu::Console) -> Result<Option<Waited>, String> {
    let Some(pid) = console.qemu_pid() else {
        return Ok(None);
    };
    let start = host_wait::sample(pid);
    let mut last = None;
    let deadline = std::time::Instant::now() + TIMEOUT;
    while !console.wait_until(
        std::time::Instant::now() + std::time::Duration::from_millis(100),
        |out| out.contains(DONE) || out.contains("CHECK FAILED"),
    ) && !console.exited()
        && std::time::Instant::now() < deadline
    {
        last = host_wait::sample(pid).or(last);
    }
    last = host_wait::sample(pid).or(last);
    Ok(start.zip(last).map(|(start, last)| last.since(&start)))
}

/// What the host did over a boot, as printed: its CPUs' use and QEMU's
/// threads' waits, whichever could be read.
fn boot_line(system: &str, busy: Option<String>, waited: Option<Waited>) -> Option<String> {
    let parts: Vec<String> = [
        busy.map(|b| format!("the host's CPUs were {b} busy")),
        waited.map(|w| format!("QEMU's threads waited {w} for a host CPU")),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty())
        .then(|| format!("bench rings: {system}: over the boot {}", parts.join("; ")))
}

/// The value of `config`'s `metric` at `param`.
fn find(rows: &[Row], config: &str, metric: &str, param: &str) -> Option<f64> {
    rows.iter()
        .find(|r| r.config == config && r.metric == metric && r.param == param)
        .map(|r| r.value)
}

/// The configurations in the order the tables show them.
fn configs() -> impl Iterator<Item = &'static str> {
    SYSTEMS.iter().flat_map(|(_, c)| c.iter().map(|(_, c)| *c))
}

/// Cycles as microseconds if the TSC rate is known, else as cycles.
fn time(cycles: Option<f64>, hz: Option<f64>) -> String {
    match (cycles, hz) {
        (Some(c), Some(hz)) => format!("{:.1} us", c / hz * 1e6),
        (Some(c), None) => format!("{c:.0} cyc"),
        (None, _) => "-".to_owned(),
    }
}

/// The printed tables: the NOP, the workloads one client at a time, and
/// the many-client dbsim against N with each path's ratio to
/// synchronous IPC per operation on the same system.
fn tables(rows: &[Row], hz: Option<f64>) -> String {
    let mut out = String::from(
        "bench rings (the file server: synchronous IPC against its rings; tcg)\n\n\
         one client, per request: median and p99 latency; the NOP's rate at the depth (32 in flight)\n",
    );
    out += &format!(
        "  {:<20} {:<8} {:>14} {:>14} {:>14}\n",
        "config", "workload", "median", "p99", "nop rate/s"
    );
    for config in configs() {
        for (workload, metric) in [
            ("nop", "nop_latency"),
            ("dbsim", "dbsim_latency"),
            ("ls-l", "ls_l_latency"),
        ] {
            let median = find(rows, config, metric, "median");
            if median.is_none() {
                continue;
            }
            let rate = match workload {
                "nop" => {
                    find(rows, config, "nop", "rate").map_or("-".into(), |r| format!("{r:.0}"))
                }
                _ => String::new(),
            };
            out += &format!(
                "  {config:<20} {workload:<8} {:>14} {:>14} {rate:>14}\n",
                time(median, hz),
                time(find(rows, config, metric, "p99"), hz),
            );
        }
    }
    out += "\nmany clients, dbsim (48 operations a request): requests/s over all clients, per-request latency\n";
    out += &format!(
        "  {:<20} {:>4} {:>12} {:>12} {:>12} {:>10}\n",
        "config", "N", "requests/s", "median", "p99", "/ sync-ipc"
    );
    let mut ns: Vec<&str> = rows
        .iter()
        .filter(|r| r.metric == "dbsim_clients_rate")
        .map(|r| r.param.as_str())
        .collect();
    ns.sort_unstable();
    ns.dedup();
    for (_, configs) in SYSTEMS {
        let sync = configs[0].1;
        for (_, config) in configs {
            for n in &ns {
                let Some(rate) = find(rows, config, "dbsim_clients_rate", n) else {
                    continue;
                };
                let ratio = find(rows, sync, "dbsim_clients_rate", n)
                    .map_or("-".into(), |s| format!("{:.2}x", rate / s));
                let latency = |stat: &str| {
                    find(
                        rows,
                        config,
                        "dbsim_clients_latency",
                        &format!("{n}_{stat}"),
                    )
                };
                out += &format!(
                    "  {config:<20} {:>4} {rate:>12.0} {:>12} {:>12} {ratio:>10}\n",
                    n.trim_start_matches('n').trim_start_matches('0'),
                    time(latency("median"), hz),
                    time(latency("p99"), hz),
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: [(&str, &str); 4] = SYSTEMS[1].1;

    #[test]
    fn a_boot_line_says_what_the_host_did_or_nothing() {
        let waited = Waited {
            run_ns: 3_000_000,
            wait_ns: 1_000_000,
            slices: 100,
            ..Waited::default()
        };
        assert_eq!(
            boot_line("ringbench-2cpu", Some("1.50/2".into()), Some(waited)).as_deref(),
            Some("bench rings: ringbench-2cpu: over the boot the host's CPUs were 1.50/2 busy; QEMU's threads waited 25 %, 10 µs for a host CPU")
        );
        assert_eq!(
            boot_line("ringbench", None, Some(waited)).as_deref(),
            Some("bench rings: ringbench: over the boot QEMU's threads waited 25 %, 10 µs for a host CPU")
        );
        assert_eq!(boot_line("ringbench", None, None), None);
    }

    #[test]
    fn each_prefix_names_its_configuration_and_the_rest_its_workload() {
        let rows = map(&TWO, "syncc_dbsim_latency", Stat::P99, 700, None);
        assert_eq!(
            rows,
            [Row {
                config: "sync-compound-2cpu",
                metric: "dbsim_latency".into(),
                param: "p99".into(),
                value: 700.0,
                unit: "tsc_cycles",
            }]
        );
        assert_eq!(
            map(&TWO, "ringc_ls_l_latency", Stat::Median, 1, None)[0].config,
            "ring-compound"
        );
        assert_eq!(
            map(&TWO, "ring_ls_l_latency", Stat::Median, 1, None)[0].config,
            "ring"
        );
        assert_eq!(
            map(&TWO, "sync_nop_latency", Stat::Median, 1, None)[0].config,
            "sync-ipc-2cpu"
        );
        assert!(map(&TWO, "other_nop_latency", Stat::Median, 1, None).is_empty());
    }

    #[test]
    fn a_per_op_median_also_becomes_a_rate() {
        let rows = map(&TWO, "ring_nop_per_op", Stat::Median, 1_000, Some(2e9));
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[1].metric.as_str(), rows[1].param.as_str()),
            ("nop", "rate")
        );
        assert_eq!(rows[1].value, 2e6);
        // Not the p99, and not without the TSC rate.
        assert_eq!(
            map(&TWO, "ring_nop_per_op", Stat::P99, 1_000, Some(2e9)).len(),
            1
        );
        assert_eq!(
            map(&TWO, "ring_nop_per_op", Stat::Median, 1_000, None).len(),
            1
        );
    }

    #[test]
    fn many_clients_give_a_row_per_n() {
        let latency = map(&TWO, "ring_dbsim_n8_request", Stat::P99, 5, None);
        assert_eq!(latency.len(), 1);
        assert_eq!(latency[0].metric, "dbsim_clients_latency");
        assert_eq!(latency[0].param, "n08_p99");
        let rate = map(
            &TWO,
            "sync_dbsim_n16_per_op",
            Stat::Median,
            4_000,
            Some(4e9),
        );
        assert_eq!(rate.len(), 1);
        assert_eq!(
            (
                rate[0].metric.as_str(),
                rate[0].param.as_str(),
                rate[0].value,
                rate[0].unit
            ),
            ("dbsim_clients_rate", "n16", 1e6, "requests_per_s")
        );
        // The mean of the single throughput sample is the median again.
        assert!(map(&TWO, "sync_dbsim_n16_per_op", Stat::Mean, 4_000, Some(4e9)).is_empty());
        assert!(map(&TWO, "sync_dbsim_nx_request", Stat::Median, 1, None).is_empty());
    }

    #[test]
    fn the_table_sets_each_path_beside_sync_ipc_at_the_same_n() {
        let hz = Some(1e9);
        let rows: Vec<Row> = [
            ("sync_dbsim_n4_per_op", 2_000),
            ("ring_dbsim_n4_per_op", 1_000),
            ("ring_dbsim_n4_request", 3_000),
        ]
        .iter()
        .flat_map(|(m, v)| map(&TWO, m, Stat::Median, *v, hz))
        .collect();
        let text = tables(&rows, hz);
        let ring = text
            .lines()
            .find(|l| l.trim_start().starts_with("ring "))
            .unwrap();
        assert!(ring.contains("1000000"), "{ring}");
        assert!(ring.contains("2.00x"), "{ring}");
        assert!(ring.contains("3.0 us"), "{ring}");
    }
}
