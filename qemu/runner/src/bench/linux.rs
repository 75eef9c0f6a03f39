//! `bench linux`: the Linux peer ([`crate::linux_peer`]) beside Conflux,
//! same machine, same mode. One boot per mode (tcg: guest TSC cycles,
//! icount: guest instructions; `LINUX_MODE` names one) on the fsops
//! machine runs the IPC anchors (getpid, pipe and eventfd round trips)
//! and the fs-ops plan through Linux's system calls (`linux-syscall`)
//! and io_uring (`linux-io_uring`); one boot per mode on the cosybench
//! machine runs the Cosy plan (both ways); then [`BOOT_RUNS`]
//! boots under tcg time QEMU's
//! start to `/init` running (host wall clock, as `bench boot` times
//! Conflux's start to its banner); one tcg boot on the netbench machine
//! serves echo and busybox httpd to `bench net`'s clients ([`net`]).
//! `LINUX_PARTS` names some of `fsops`, `cosy`, `boot` and `net`
//! (comma-separated) to run only those. Records go beside Conflux's,
//! with the same bench, param, metric and mode.

mod net;

use std::time::{Duration, Instant};

use super::guest_figures::modes;
use super::{append, median, Record};
use crate::accel::Accel;
use crate::image::Built;
use crate::linux_peer::{self, LinuxRecord, Machine, Workloads};
use crate::qemu::{self, Console};

/// Boots timed for the boot figure, as `bench boot` times Conflux's.
const BOOT_RUNS: usize = 15;
/// The longest one timed boot may take (a busy host's tcg boot of the
/// cloud kernel took up to 9 s).
const BOOT_TIMEOUT: Duration = Duration::from_secs(60);

/// Names the one mode to run (`tcg` or `icount`) instead of both.
const MODES_ENV: &str = "LINUX_MODE";
/// Names the parts to run (`fsops,cosy,boot,net`) instead of all.
const PARTS_ENV: &str = "LINUX_PARTS";
/// The parts, in the order they run.
const PARTS: [&str; 4] = ["fsops", "cosy", "boot", "net"];
/// Recorded round trips per IPC metric (after 2,000 warm-up ones): the
/// median is steady well before this; Conflux's ipcbench takes 100,000,
/// which would make io_uring's eventfd round trips alone minutes long.
const IPC_ROUNDS: u32 = 20_000;
/// The longest one mode's run may take on a shared host.
const TIMEOUT: Duration = Duration::from_secs(1800);

/// Runs the workloads in each mode and the boot figure; records and prints.
pub fn run() -> Result<(), String> {
    let parts = parts(std::env::var(PARTS_ENV).ok().as_deref())?;
    let named = std::env::var(MODES_ENV).ok();
    let mut table = Vec::new();
    let ipc_rounds = IPC_ROUNDS;
    for (part, work) in [
        ("fsops", Workloads::All { ipc_rounds }),
        ("cosy", Workloads::Cosy),
    ] {
        if parts.contains(&part) {
            table.extend(suite(work, named.as_deref())?);
        }
    }
    println!("bench linux (Linux 6.1 on the machines of systems fsops, cosybench and netbench; tcg: TSC cycles, icount: instructions; median over rounds)");
    for line in table {
        println!("{line}");
    }
    if parts.contains(&"boot") {
        let mut built = linux_peer::prepare(Machine::FsOps)?;
        // One untimed boot builds the disk; building it is not boot time.
        linux_peer::boot(&built, Accel::Tcg, Workloads::Boot, BOOT_TIMEOUT)?;
        built.fresh_disk = false;
        let (med, min, max) = boot(&built)?;
        println!("  boot (tcg, host wall clock, {BOOT_RUNS} runs): qemu start -> /init running: median {med:.1} ms, min {min:.1} ms, max {max:.1} ms");
    }
    if parts.contains(&"net") {
        let rows = net::run()?;
        println!("  net (tcg, host wall clock through QEMU's user network, as `bench net`; Linux's echo server and busybox httpd)");
        for row in rows {
            println!("{row}");
        }
    }
    Ok(())
}

/// The parts `named` (comma-separated) names, or all of them.
fn parts(named: Option<&str>) -> Result<Vec<&'static str>, String> {
    let Some(named) = named else {
        return Ok(PARTS.to_vec());
    };
    named
        .split(',')
        .map(|w| {
            PARTS.into_iter().find(|p| *p == w.trim()).ok_or_else(|| {
                format!("{PARTS_ENV}: `{w}` is not a part (known: fsops, cosy, boot, net)")
            })
        })
        .collect()
}

/// Boots `work` on its machine once per mode (each on a freshly built
/// disk), appends its records; the printed rows.
fn suite(work: Workloads, named: Option<&str>) -> Result<Vec<String>, String> {
    let built = linux_peer::prepare(work.machine())?;
    let mut table = Vec::new();
    for (accel, unit) in modes(MODES_ENV, named)? {
        let run = linux_peer::boot(&built, accel, work, TIMEOUT)?;
        let found = linux_peer::records(&run.output, accel)
            .map_err(|e| format!("bench linux under {accel}: {e}\nconsole:\n{}", run.output))?;
        let mode = accel.as_str();
        let records: Vec<Record<'_>> = found
            .iter()
            .map(|r| Record {
                bench: &r.bench,
                config: &r.config,
                param: &r.param,
                metric: &r.metric,
                value: r.value as f64,
                unit,
                mode,
            })
            .collect();
        append(&records)?;
        table.extend(rows(&found, mode, unit));
    }
    Ok(table)
}

/// Times QEMU's start to `/init` running over [`BOOT_RUNS`] boots and
/// records the median: (median, min, max) in ms.
fn boot(built: &Built) -> Result<(f64, f64, f64), String> {
    let mut times = Vec::new();
    for _ in 0..BOOT_RUNS {
        times.push(init_after(built)?.as_secs_f64() * 1000.0);
    }
    let min = times.iter().copied().fold(f64::MAX, f64::min);
    let max = times.iter().copied().fold(0.0, f64::max);
    let med = median(&mut times);
    append(&[Record {
        bench: "boot",
        config: "linux",
        param: "median",
        metric: "qemu_start_to_init",
        value: med,
        unit: "ms",
        mode: "tcg",
    }])?;
    Ok((med, min, max))
}

/// One boot: when `/init`'s first line (which carries the kernel banner's
/// mark) came out of QEMU, since QEMU's start; the boot is stopped then.
fn init_after(built: &Built) -> Result<Duration, String> {
    let args = Workloads::Boot.kernel_args();
    let measure = |console: &Console| {
        let deadline = Instant::now() + BOOT_TIMEOUT;
        console
            .wait_until(deadline, |text| text.contains(qemu::BANNER_MARK))
            .then(|| console.first_seen(qemu::BANNER_MARK))
            .flatten()
            .ok_or_else(|| format!("/init never said it runs within {BOOT_TIMEOUT:?}"))
    };
    let timeout = BOOT_TIMEOUT + Duration::from_secs(5);
    super::measure_beside_with("Linux's boot", built, timeout, &args, measure).map(|(at, _)| at)
}

/// The printed table: per metric, the median through syscalls and
/// through io_uring.
fn rows(found: &[LinuxRecord], mode: &str, unit: &str) -> Vec<String> {
    let mut out = vec![format!(
        "  {:<9} {:<22} {:<6} {:>14} {:>14}  {}",
        "bench", "operation", "mode", "linux-syscall", "linux-io_uring", "unit"
    )];
    let medians = found
        .iter()
        .filter(|r| r.bench != "ipc" || r.param == "median");
    let mut keys: Vec<(&str, &str)> = Vec::new();
    for r in medians.clone() {
        let key = (r.bench.as_str(), name(r));
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    for (bench, op) in keys {
        let cell = |config: &str| {
            medians
                .clone()
                .find(|r| r.bench == bench && name(r) == op && r.config == config)
                .map_or("-".to_string(), |r| r.value.to_string())
        };
        out.push(format!(
            "  {:<9} {:<22} {:<6} {:>14} {:>14}  {unit}",
            bench,
            op,
            mode,
            cell("linux-syscall"),
            cell("linux-io_uring")
        ));
    }
    out
}

/// What a row is of: the ipc metric, or the fs-ops operation or Cosy
/// parameter.
fn name(r: &LinuxRecord) -> &str {
    if r.bench == "ipc" {
        &r.metric
    } else {
        &r.param
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(bench: &str, config: &str, param: &str, metric: &str, value: u64) -> LinuxRecord {
        LinuxRecord {
            bench: bench.into(),
            config: config.into(),
            param: param.into(),
            metric: metric.into(),
            value,
        }
    }

    #[test]
    fn parts_are_named_or_all() {
        assert_eq!(parts(None).unwrap(), PARTS);
        assert_eq!(parts(Some("cosy, boot")).unwrap(), ["cosy", "boot"]);
        assert!(parts(Some("cosy,fly"))
            .unwrap_err()
            .contains("`fly` is not a part"));
    }

    #[test]
    fn cosy_records_get_a_row_each() {
        let found = [
            rec("ls-l", "linux-syscall", "5000-cold", "time", 900),
            rec("ls-l", "linux-syscall", "5000-warm", "time", 800),
        ];
        let rows = rows(&found, "icount", "instructions");
        assert_eq!(rows.len(), 3, "{rows:#?}");
        let warm: Vec<&str> = rows[2].split_whitespace().collect();
        assert_eq!(
            warm,
            ["ls-l", "5000-warm", "icount", "800", "-", "instructions"]
        );
    }

    #[test]
    fn one_row_per_operation_with_both_paths_side_by_side() {
        let found = [
            rec("ipc", "linux-syscall", "median", "getpid", 321),
            rec("ipc", "linux-syscall", "p99", "getpid", 999),
            rec(
                "fs-ops",
                "linux-syscall",
                "readdir",
                "instructions_per_op",
                338,
            ),
            rec(
                "fs-ops",
                "linux-syscall",
                "pread",
                "instructions_per_op",
                1908,
            ),
            rec(
                "fs-ops",
                "linux-io_uring",
                "pread",
                "instructions_per_op",
                1500,
            ),
        ];
        let rows = rows(&found, "icount", "instructions");
        assert_eq!(rows.len(), 4, "{rows:#?}");
        assert!(rows[1].contains("getpid") && rows[1].contains("321") && !rows[1].contains("999"));
        let readdir: Vec<&str> = rows[2].split_whitespace().collect();
        assert_eq!(
            readdir,
            ["fs-ops", "readdir", "icount", "338", "-", "instructions"]
        );
        assert!(
            rows[3].contains("1908") && rows[3].contains("1500"),
            "{}",
            rows[3]
        );
    }
}
