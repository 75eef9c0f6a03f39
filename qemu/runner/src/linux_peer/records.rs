//! The peer's results as records: its console's record lines (the same
//! `BENCH` lines Conflux's tasks print, behind `linux-peer: `) mapped to
//! the `bench`, `config`, `param` and `metric` Conflux's own records of
//! the same benchmark use, so a report finds them side by side:
//!
//! - `ipc__CONFIG__NAME`: bench `ipc`, param the statistic, metric NAME
//!   (as `bench ipc` records `call_reply_roundtrip`); median, p99, mean.
//! - `fs_ops__CONFIG__OP`: bench `fs-ops`, param OP, metric
//!   `instructions_per_op` or `tsc_cycles_per_op` (as `bench fs-ops`);
//!   the median only, as there.
//! - `BENCH__CONFIG__PARAM` of a Cosy workload (`null_loop`, `copy`,
//!   `grep`, `dbsim`, `ls_l`, `bonnie`): bench the workload's name
//!   (`ls-l`), param PARAM with `-` again (`64MiB-4-procs-1000`), metric
//!   `time`, as `bench cosy` records them; the median only, as there.

use conflux_abi::bench::Stat;

use crate::accel::Accel;
use crate::bench::parse_bench_lines;

/// The task name the workloads print under.
pub const TASK: &str = "linux-peer";

/// The Cosy workloads as record names spell them (`bench cosy`'s).
const COSY: [&str; 6] = ["null_loop", "copy", "grep", "dbsim", "ls_l", "bonnie"];

/// One record of the peer's.
#[derive(Clone, Debug, PartialEq)]
pub struct LinuxRecord {
    pub bench: String,
    pub config: String,
    pub param: String,
    pub metric: String,
    pub value: u64,
}

/// The records in a run's console `output` under `accel`; an error if a
/// check failed, the workloads never finished or a line is not theirs.
pub fn records(output: &str, accel: Accel) -> Result<Vec<LinuxRecord>, String> {
    if let Some(line) = output.lines().find(|l| l.contains("CHECK FAILED")) {
        return Err(format!("the Linux peer failed a check: {line}"));
    }
    if !output.contains(&format!("{TASK}: all ")) {
        return Err("the Linux peer's workloads never finished (no `all N checks passed`)".into());
    }
    let per_op = match accel {
        Accel::Icount => "instructions_per_op",
        _ => "tsc_cycles_per_op",
    };
    let mut out = Vec::new();
    for line in parse_bench_lines(output, &[TASK])? {
        let stat = line.stat();
        let name = line.metric();
        let bad = || {
            format!("metric `{name}` is not `ipc__CONFIG__NAME`, `fs_ops__CONFIG__OP` or a Cosy workload's `BENCH__CONFIG__PARAM` (qemu/linux-peer/src/report.rs)")
        };
        let mut parts = name.split("__");
        let (Some(bench), Some(config), Some(what), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let config = config.replace('_', "-").replace("io-uring", "io_uring");
        let record = |bench: &str, param: String, metric: String| LinuxRecord {
            bench: bench.into(),
            config: config.clone(),
            param,
            metric,
            value: line.value(),
        };
        match bench {
            "ipc" if stat != Stat::Samples => {
                out.push(record("ipc", stat.name().into(), what.into()))
            }
            "fs_ops" if stat == Stat::Median => {
                out.push(record("fs-ops", what.replace('_', "-"), per_op.into()))
            }
            b if COSY.contains(&b) && stat == Stat::Median => out.push(record(
                &b.replace('_', "-"),
                what.replace('_', "-"),
                "time".into(),
            )),
            b if b == "ipc" || b == "fs_ops" || COSY.contains(&b) => {}
            _ => return Err(bad()),
        }
    }
    if out.is_empty() {
        return Err("the Linux peer reported no figures".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUT: &str = "linux-peer: init 'linux-peer' up: /init running\n\
        linux-peer: BENCH ipc__linux_syscall__getpid median 321\n\
        linux-peer: BENCH ipc__linux_syscall__getpid p99 400\n\
        linux-peer: BENCH ipc__linux_syscall__getpid samples 100\n\
        linux-peer: BENCH ipc__linux_io_uring__pipe_roundtrip mean 9000\n\
        linux-peer: BENCH fs_ops__linux_io_uring__open_read_close median 7000\n\
        linux-peer: BENCH fs_ops__linux_io_uring__open_read_close p99 8000\n\
        linux-peer: all 9 checks passed\n";

    #[test]
    fn lines_become_records_shaped_like_conflux_s() {
        let got = records(OUT, Accel::Icount).unwrap();
        let short: Vec<(&str, &str, &str, &str, u64)> = got
            .iter()
            .map(|r| {
                (
                    r.bench.as_str(),
                    r.config.as_str(),
                    r.param.as_str(),
                    r.metric.as_str(),
                    r.value,
                )
            })
            .collect();
        assert_eq!(
            short,
            [
                ("ipc", "linux-syscall", "median", "getpid", 321),
                ("ipc", "linux-syscall", "p99", "getpid", 400),
                ("ipc", "linux-io_uring", "mean", "pipe_roundtrip", 9000),
                (
                    "fs-ops",
                    "linux-io_uring",
                    "open-read-close",
                    "instructions_per_op",
                    7000
                ),
            ]
        );
        let tcg = records(OUT, Accel::Tcg).unwrap();
        assert_eq!(tcg[3].metric, "tsc_cycles_per_op");
    }

    #[test]
    fn cosy_lines_become_records_shaped_like_bench_cosy_s() {
        let out = "linux-peer: BENCH ls_l__linux_syscall__5000_cold median 900\n\
            linux-peer: BENCH ls_l__linux_syscall__5000_cold samples 1\n\
            linux-peer: BENCH dbsim__linux_syscall__64MiB_4_procs_1000 median 77\n\
            linux-peer: BENCH dbsim__linux_syscall__64MiB_4_procs_1000 p99 99\n\
            linux-peer: BENCH null_loop__linux_syscall__16 median 5\n\
            linux-peer: all 3 checks passed\n";
        let got = records(out, Accel::Icount).unwrap();
        let short: Vec<(&str, &str, &str, &str, u64)> = got
            .iter()
            .map(|r| {
                (
                    r.bench.as_str(),
                    r.config.as_str(),
                    r.param.as_str(),
                    r.metric.as_str(),
                    r.value,
                )
            })
            .collect();
        assert_eq!(
            short,
            [
                ("ls-l", "linux-syscall", "5000-cold", "time", 900),
                ("dbsim", "linux-syscall", "64MiB-4-procs-1000", "time", 77),
                ("null-loop", "linux-syscall", "16", "time", 5),
            ]
        );
    }

    #[test]
    fn a_failed_check_an_unfinished_run_or_a_stranger_s_metric_stops_it() {
        let failed = format!("linux-peer: CHECK FAILED: insmod virtio_blk.ko\n{OUT}");
        assert!(records(&failed, Accel::Tcg)
            .unwrap_err()
            .contains("insmod virtio_blk"));
        let cut = OUT.replace("linux-peer: all 9 checks passed\n", "");
        assert!(records(&cut, Accel::Tcg)
            .unwrap_err()
            .contains("never finished"));
        let odd = format!("linux-peer: BENCH greps__x__y median 1\n{OUT}");
        assert!(records(&odd, Accel::Tcg)
            .unwrap_err()
            .contains("greps__x__y"));
        let none = "linux-peer: all 0 checks passed\n";
        assert!(records(none, Accel::Tcg)
            .unwrap_err()
            .contains("no figures"));
    }
}
