//! Benchmarks: each writes one JSON object per line to
//! `target/bench/results.jsonl` (fields bench, config, param, metric,
//! value, unit, mode, and run: the id of this `cargo make bench`
//! invocation, [`run_id`]) and prints a table. Running them all ends
//! with the report (`cargo make report`, [`crate::report`]).

use crate::accel::Accel;
use crate::{image, qemu, workspace};
use conflux_abi::bench::{BenchLine, BenchLineError, Stat};
use std::io::Write;
use std::process::Command;
use std::time::Duration;

mod boot;
mod cosy;
mod file_tcp;
mod flow;
mod fs_ops;
mod guest_figures;
mod linux;
mod net;
mod netbackend;
mod rings;
mod rings_httpd;

const BENCHES: [&str; 14] = [
    "boot",
    "ipc",
    "blk",
    "crypto",
    "net",
    "cosy",
    "cosy-interp",
    "fs-ops",
    "flow",
    "flow-file-tcp",
    "netbackend",
    "rings",
    "rings-httpd",
    "linux",
];

/// One machine-readable result.
pub struct Record<'a> {
    pub bench: &'a str,
    pub config: &'a str,
    pub param: &'a str,
    pub metric: &'a str,
    pub value: f64,
    pub unit: &'a str,
    pub mode: &'a str,
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

impl Record<'_> {
    /// The record's line, tagged with the run that wrote it.
    pub fn to_json(&self, run: &str) -> String {
        format!(
            "{{\"bench\":{},\"config\":{},\"param\":{},\"metric\":{},\"value\":{},\"unit\":{},\"mode\":{},\"run\":{}}}",
            json_str(self.bench),
            json_str(self.config),
            json_str(self.param),
            json_str(self.metric),
            self.value,
            json_str(self.unit),
            json_str(self.mode),
            json_str(run)
        )
    }
}

/// `seconds` since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (UTC).
fn utc(seconds: u64) -> String {
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    // Civil date from days since 1970-01-01 (the proleptic Gregorian
    // calendar in 400-year eras of 146,097 days).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// This invocation's run id: the UTC time it first wrote a record.
/// Every record of one `cargo make bench` carries the same id, so the
/// report can tell runs apart (lines written before the id existed
/// have none; the report accepts both).
pub fn run_id() -> &'static str {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        utc(now)
    })
}

/// Boots `built` under tcg and runs `measure` beside it (the guest is
/// stopped once `measure` returns); what `measure` found, and the console.
/// `what` names the benchmark in errors, which carry the console.
fn measure_beside<T: Send + 'static>(
    what: &str,
    built: &image::Built,
    timeout: Duration,
    measure: impl FnOnce(&qemu::Console) -> Result<T, String> + Send + 'static,
) -> Result<(T, String), String> {
    measure_beside_with(what, built, timeout, "", measure)
}

/// [`measure_beside`], with `args` added to the kernel's command line.
fn measure_beside_with<T: Send + 'static>(
    what: &str,
    built: &image::Built,
    timeout: Duration,
    args: &str,
    measure: impl FnOnce(&qemu::Console) -> Result<T, String> + Send + 'static,
) -> Result<(T, String), String> {
    measure_beside_on(what, built, Accel::Tcg, timeout, args, measure)
}

/// [`measure_beside_with`] under `accel` (icount gives QEMU one CPU).
fn measure_beside_on<T: Send + 'static>(
    what: &str,
    built: &image::Built,
    accel: Accel,
    timeout: Duration,
    args: &str,
    measure: impl FnOnce(&qemu::Console) -> Result<T, String> + Send + 'static,
) -> Result<(T, String), String> {
    let (send, receive) = std::sync::mpsc::channel();
    let work = move |console: &qemu::Console| {
        let result = measure(console);
        let problems = result.as_ref().err().cloned().into_iter().collect();
        let _ = send.send(result);
        qemu::BesideReport {
            log: String::new(),
            problems,
        }
    };
    let beside = qemu::Beside {
        work: Box::new(work),
        stop: true,
    };
    let run = qemu::run_captured_full(built, accel, timeout, args, &[], b"", None, Some(beside))?;
    let found = receive
        .recv()
        .map_err(|_| "the measuring thread ended without a result".to_owned())
        .and_then(|r| r)
        .map_err(|e| format!("{what}: {e}\nconsole:\n{}", run.output))?;
    Ok((found, run.output))
}

fn results_path() -> std::path::PathBuf {
    crate::report::default_results()
}

/// Appends records to the results file.
pub fn append(records: &[Record<'_>]) -> Result<(), String> {
    let path = results_path();
    std::fs::create_dir_all(path.parent().expect("results file has a parent"))
        .map_err(|e| e.to_string())?;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    for r in records {
        writeln!(f, "{}", r.to_json(run_id()))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The record lines (`NAME: BENCH ...`, see [`BenchLine`]) that tasks of
/// `tasks` printed in `output`. A line of theirs that starts like a record
/// but is not one is an error: a benchmark silently missing a figure is
/// worse than one that stops.
pub fn parse_bench_lines<'o>(
    output: &'o str,
    tasks: &[&str],
) -> Result<Vec<BenchLine<'o>>, String> {
    let mut records = Vec::new();
    for (number, line) in output.lines().enumerate() {
        let Some((task, text)) = line.split_once(": ") else {
            continue;
        };
        if !tasks.contains(&task) {
            continue;
        }
        match BenchLine::parse(text) {
            Ok(record) => records.push(record),
            Err(BenchLineError::NotARecord) => {}
            Err(e) => {
                return Err(format!(
                    "console line {} is a malformed benchmark record: {e}\n    {line}\nthe task and kernel/abi/src/bench.rs disagree, or the line was cut",
                    number + 1
                ))
            }
        }
    }
    Ok(records)
}

/// The in-guest IPC benchmark, under tcg (TSC cycles) and icount (instructions).
fn ipc() -> Result<(), String> {
    guest("ipc", "ipcbench", "1cpu", 3, "two tasks, one CPU", |_| None)
}

/// The in-guest block benchmark: latency per request and time per
/// operation at queue depth 1 and 32; under tcg also IOPS, from the time
/// per operation and the host's TSC rate (QEMU's TCG guest reads the
/// host's TSC).
fn blk() -> Result<(), String> {
    guest(
        "blk",
        "blkbench",
        "virtio-blk-4k-random",
        8,
        "4 KiB random, 64 MiB disk",
        |_| None,
    )
}

/// The in-guest crypto benchmark: AES-128-CBC encryption of 64 B, 1 KiB
/// and 16 KiB through the virtio-crypto driver (queue depth 1 and 32) and
/// in software in the same task; under tcg also operations and bytes per
/// second. The buffer size is the number in each metric's name.
fn crypto() -> Result<(), String> {
    guest(
        "crypto",
        "cryptobench",
        "aes-128-cbc-encrypt",
        24,
        "AES-128-CBC encrypt: virtio-crypto device vs software AES in the guest",
        |metric| metric.rsplit('_').find_map(|part| part.parse().ok()),
    )
}

/// Runs in-guest benchmark system `system` under tcg and icount and
/// records every median, p99 and mean it prints; fails if fewer than
/// `metrics` metrics came back.
fn guest(
    bench: &str,
    system: &str,
    config: &str,
    metrics: usize,
    about: &str,
    bytes_per_op: fn(&str) -> Option<u64>,
) -> Result<(), String> {
    let built = image::build_named(system)?;
    let tsc_hz = host_tsc_hz();
    let mut table = Vec::new();
    for (accel, unit) in [(Accel::Tcg, "tsc_cycles"), (Accel::Icount, "instructions")] {
        let run = qemu::run_captured(&built, accel, Duration::from_secs(900), "")?;
        let tasks: Vec<&str> = built
            .manifest
            .tasks
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        let rows = parse_bench_lines(&run.output, &tasks)?;
        let reported = rows
            .iter()
            .filter(|r| matches!(r.stat(), Stat::Median | Stat::Mean))
            .count();
        if reported < metrics {
            return Err(format!(
                "{system} under {accel} reported {reported} of {metrics} metrics; console:\n{}",
                run.output
            ));
        }
        let mode = accel.as_str();
        let mut records: Vec<Record<'_>> = Vec::new();
        for r in rows.iter().filter(|r| r.stat() != Stat::Samples) {
            // A `_pct_` metric is a ratio of two times measured in the same
            // run. Under icount work a device does costs no guest
            // instructions, so such a ratio means nothing there.
            let pct = r.metric().contains("_pct_");
            if pct && accel == Accel::Icount {
                continue;
            }
            let unit = if pct { "percent" } else { unit };
            records.push(Record {
                bench,
                config,
                param: r.stat().name(),
                metric: r.metric(),
                value: r.value() as f64,
                unit,
                mode,
            });
            table.push(format!(
                "  {:<30} {:<6} {:>8} {:>12} {unit}",
                r.metric(),
                mode,
                r.stat().name(),
                r.value()
            ));
            let per_op = r.metric().strip_suffix("_per_op");
            if let (Some(name), Accel::Tcg, Some(hz)) = (per_op, accel, tsc_hz) {
                let iops = hz / r.value().max(1) as f64;
                table.push(format!(
                    "  {:<30} {:<6} {:>8} {:>12.0} iops",
                    name, mode, "rate", iops
                ));
                records.push(Record {
                    bench,
                    config,
                    param: "rate",
                    metric: name,
                    value: iops.round(),
                    unit: "iops",
                    mode,
                });
                if let Some(bytes) = bytes_per_op(name) {
                    let mib_s = iops * bytes as f64 / (1024.0 * 1024.0);
                    table.push(format!(
                        "  {:<30} {:<6} {:>8} {:>12.2} MiB/s",
                        name, mode, "rate", mib_s
                    ));
                    records.push(Record {
                        bench,
                        config,
                        param: "rate",
                        metric: name,
                        value: (mib_s * 100.0).round() / 100.0,
                        unit: "MiB/s",
                        mode,
                    });
                }
            }
        }
        append(&records)?;
    }
    println!("bench {bench} ({about}; rounds per metric in the console `samples` lines)");
    println!(
        "  {:<30} {:<6} {:>8} {:>12}",
        "metric", "mode", "stat", "value"
    );
    for row in table {
        println!("{row}");
    }
    Ok(())
}

/// The host's TSC rate, measured over 200 ms (None where there is no TSC).
fn host_tsc_hz() -> Option<f64> {
    #[cfg(target_arch = "x86_64")]
    {
        let t0 = std::time::Instant::now();
        // Safety: `rdtsc` only reads the time-stamp counter; no preconditions.
        let c0 = unsafe { core::arch::x86_64::_rdtsc() };
        std::thread::sleep(Duration::from_millis(200));
        // Safety: as above.
        let c1 = unsafe { core::arch::x86_64::_rdtsc() };
        Some((c1 - c0) as f64 / t0.elapsed().as_secs_f64())
    }
    #[cfg(not(target_arch = "x86_64"))]
    None
}

/// The cosy-abi interpreter benchmark runs on the host.
fn cosy_interp() -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(workspace::root())
        .args(["bench", "-p", "cosy-abi", "--bench", "interp"])
        .env("CONFLUX_BENCH_OUT", results_path())
        .env("CONFLUX_BENCH_RUN", run_id())
        .status()
        .map_err(|e| format!("cannot run cargo bench: {e}"))?;
    if !status.success() {
        return Err("cargo bench -p cosy-abi --bench interp failed".into());
    }
    Ok(())
}

/// Runs the benchmark named `name`, or all of them.
pub fn run(name: Option<&str>) -> Result<(), String> {
    let names: Vec<&str> = match name {
        None => BENCHES.to_vec(),
        Some(n) if BENCHES.contains(&n) => vec![n],
        Some(n) => {
            return Err(format!(
                "no benchmark named `{n}`; known: {}",
                BENCHES.join(", ")
            ))
        }
    };
    for n in names {
        match n {
            "boot" => boot::run()?,
            "ipc" => ipc()?,
            "blk" => blk()?,
            "crypto" => crypto()?,
            "net" => net::run()?,
            "cosy" => cosy::run()?,
            "fs-ops" => fs_ops::run()?,
            "rings" => rings::run()?,
            "rings-httpd" => rings_httpd::run()?,
            "flow" => flow::run()?,
            "flow-file-tcp" => file_tcp::run()?,
            "netbackend" => netbackend::run()?,
            "cosy-interp" => cosy_interp()?,
            "linux" => linux::run()?,
            _ => unreachable!("BENCHES lists only handled names"),
        }
    }
    println!("records appended to {}", results_path().display());
    if name.is_none() {
        crate::report::run(None, None)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_lines_are_read_from_the_systems_tasks() {
        let out = "peer: BENCH notify_wait median 812\nbench: BENCH call_reply p99 2000\nconflux: BENCH x median 1\nother: BENCH y median 1\nbench: hello\n";
        let rows = parse_bench_lines(out, &["peer", "bench"]).unwrap();
        let got: Vec<(&str, Stat, u64)> = rows
            .iter()
            .map(|r| (r.metric(), r.stat(), r.value()))
            .collect();
        assert_eq!(
            got,
            [
                ("notify_wait", Stat::Median, 812),
                ("call_reply", Stat::P99, 2000)
            ]
        );
    }

    #[test]
    fn a_malformed_bench_line_stops_the_benchmark() {
        let out = "bench: ok\nbench: BENCH call_reply p95 2000\n";
        let e = parse_bench_lines(out, &["bench"]).unwrap_err();
        assert!(e.contains("console line 2"), "{e}");
        assert!(e.contains("unknown statistic `p95`"), "{e}");
    }

    #[test]
    fn records_are_one_json_object_with_every_field() {
        let r = Record {
            bench: "b",
            config: "c\"q",
            param: "median",
            metric: "m",
            value: 1.5,
            unit: "ns",
            mode: "host",
        };
        assert_eq!(
            r.to_json("2026-11-28T15:40:00Z"),
            r#"{"bench":"b","config":"c\"q","param":"median","metric":"m","value":1.5,"unit":"ns","mode":"host","run":"2026-11-28T15:40:00Z"}"#
        );
    }

    #[test]
    fn run_ids_are_utc_times() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_795_880_412), "2026-11-28T15:40:12Z");
        assert!(run_id().ends_with('Z'));
    }
}
