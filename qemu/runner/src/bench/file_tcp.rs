//! `bench flow-file-tcp`: a file → encrypt → TCP transfer against one
//! boot of `qemu/systems/filetcpbench.toml` (the flow issue's fifth
//! experiment). The guest sends its disk's generated file ([`FILE`]),
//! AES-128-CBC encrypted on the crypto device chunk by chunk, over TCP to
//! the host, the memory-centric way and as a flow, and the flow's `tcp`
//! stage alone (fed pattern records: the network path's ceiling),
//! [`ROUNDS`] times per configuration and chunk size
//! (`apps/bench/filetcpbench`). Each configuration and chunk size sends to its
//! own guest port (`5820 + 3i + c`), which
//! QEMU's guest forward carries to the same host port on 127.0.0.1; the
//! runner listens on every one before boot, and a thread per port reads
//! its runs off the one connection QEMU makes, decrypts every chunk and
//! compares it with the file (`tcp_peer`; the stage-tcp runs' records
//! are checked as records), and times each run from its
//! first byte to its last. Bytes per second and chunks (buffers) per
//! second are over that host time; the guest's own TSC span (first read
//! to last send) is in the table beside them. Each configuration's best
//! round is recorded.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{append, Record};
use crate::exchanges::generated_bytes;
use crate::image;
use crate::qemu::Console;
use crate::tcp_peer::{Expect, Received, Receiver};

/// The file every run sends (its `generate` entry in the manifest).
const FILE: &str = "bench/input.bin";
/// Chunk sizes and rounds, as `apps/bench/filetcpbench`'s plan for the
/// `filetcpbench` system (the guest's `ready` lines are checked against
/// them).
const CHUNKS: [u32; 3] = [1024, 16384, 65536];
const ROUNDS: usize = 2;
/// Guest (and host) port of configuration `c` at chunk size `i`:
/// `PORT + 3i + c`.
const PORT: u16 = 5820;
const CONFIGS: [&str; 3] = ["memory-centric", "flow", "stage-tcp"];
/// The stage-tcp runs' records' seed (apps/bench/filetcpbench/src/main.rs).
const SEED: u64 = 0xf11e;
/// The key and IV (apps/bench/filetcpbench/src/main.rs).
const KEY: [u8; 16] = *b"conflux-flow-key";
const IV: [u8; 16] = *b"conflux-flow-iv!";

/// One run as both sides saw it.
#[derive(Clone, Debug, PartialEq)]
struct Run {
    config: &'static str,
    chunk: u32,
    /// The host's first-to-last-byte time.
    host: Duration,
    bytes: u64,
    /// The guest's `result` line: chunks and TSC cycles.
    buffers: u64,
    cycles: u64,
}

/// `key=value` of a line, as a number.
fn field(line: &str, key: &str) -> Option<u64> {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))?
        .parse()
        .ok()
}

/// `(config, chunk, port, bytes, buffers, cycles)` of every `result`
/// line.
fn results(console: &str) -> Vec<(String, u32, u16, u64, u64, u64)> {
    console
        .lines()
        .filter_map(|l| l.strip_prefix("filetcpbench: result "))
        .filter_map(|l| {
            let config = l
                .split_whitespace()
                .find_map(|w| w.strip_prefix("config="))?;
            Some((
                config.to_owned(),
                u32::try_from(field(l, "chunk")?).ok()?,
                u16::try_from(field(l, "port")?).ok()?,
                field(l, "bytes")?,
                field(l, "buffers")?,
                field(l, "cycles")?,
            ))
        })
        .collect()
}

/// Reads every port's runs (each a thread) until all are in.
fn receive(
    receivers: Vec<(usize, usize, Receiver)>,
    console: &Console,
) -> Result<Vec<(usize, usize, Vec<Received>)>, String> {
    let deadline = Instant::now() + Duration::from_secs(3600);
    let got = std::thread::scope(|scope| {
        let threads: Vec<_> = receivers
            .into_iter()
            .map(|(i, c, rx)| (i, c, scope.spawn(move || rx.receive_runs(ROUNDS, deadline))))
            .collect();
        threads
            .into_iter()
            .map(|(i, c, t)| {
                let runs = t
                    .join()
                    .unwrap_or_else(|_| Err("the receiver's thread panicked".into()));
                runs.map(|r| (i, c, r))
                    .map_err(|e| format!("{} at {} B: {e}", CONFIGS[c], CHUNKS[i]))
            })
            .collect::<Result<Vec<_>, String>>()
    })?;
    if !console.wait_until(deadline, |out| out.contains("filetcpbench: done")) {
        return Err("the guest never printed `done`".into());
    }
    Ok(got)
}

/// Boots the system, receives and checks every run, prints the table and
/// appends the records.
pub fn run() -> Result<(), String> {
    let built = image::build_named("filetcpbench")?;
    let file = generated_bytes(&built.manifest, FILE)?;
    let tsc_hz = super::host_tsc_hz().ok_or("bench flow-file-tcp needs the host's TSC rate")?;
    // Listening before boot: QEMU connects to every guest forward's host
    // port when it starts.
    let mut receivers = Vec::new();
    for (i, &chunk) in CHUNKS.iter().enumerate() {
        for (c, &config) in CONFIGS.iter().enumerate() {
            let port = PORT + 3 * i as u16 + c as u16;
            let expect = if config == "stage-tcp" {
                let count = u32::try_from(file.len() / chunk as usize)
                    .map_err(|_| "too many records".to_string())?;
                Expect::records(count, chunk as usize, SEED)
            } else {
                Expect::bytes(Arc::clone(&file), chunk as usize)?.encrypted(KEY, IV)
            };
            receivers.push((i, c, Receiver::listen(port, expect)?));
        }
    }
    let (got, output) = super::measure_beside(
        "bench flow-file-tcp",
        &built,
        Duration::from_secs(3600),
        move |console| receive(receivers, console),
    )?;
    let runs = join(&got, &results(&output))?;
    let (records, table) = report(&runs, file.len(), tsc_hz);
    for line in table {
        println!("{line}");
    }
    append(&records)
}

/// Each host-timed run with the guest's `result` line for it (the k-th
/// result on its port); the lines must match the plan.
fn join(
    got: &[(usize, usize, Vec<Received>)],
    results: &[(String, u32, u16, u64, u64, u64)],
) -> Result<Vec<Run>, String> {
    let mut runs = Vec::new();
    for (i, c, received) in got {
        let (config, chunk) = (CONFIGS[*c], CHUNKS[*i]);
        let port = PORT + 3 * *i as u16 + *c as u16;
        let lines: Vec<_> = results.iter().filter(|r| r.2 == port).collect();
        if lines.len() != received.len() || lines.iter().any(|r| r.0 != config || r.1 != chunk) {
            return Err(format!(
                "port {port}: the guest's result lines ({lines:?}) are not {} runs of {config} at {chunk} B: the runner's plan and apps/bench/filetcpbench's differ",
                received.len()
            ));
        }
        for (r, line) in received.iter().zip(lines) {
            runs.push(Run {
                config,
                chunk,
                host: r.span,
                bytes: r.bytes,
                buffers: line.4,
                cycles: line.5,
            });
        }
    }
    Ok(runs)
}

/// Records and the table: every run (host and guest rates), then per
/// configuration and chunk size its best run's bytes and chunks per
/// second, and the flow / memory-centric ratio of the best runs.
fn report(runs: &[Run], file: usize, tsc_hz: f64) -> (Vec<Record<'static>>, Vec<String>) {
    let per_s = |n: f64, d: Duration| {
        if d.is_zero() {
            0.0
        } else {
            n / d.as_secs_f64()
        }
    };
    let host_bps = |r: &Run| per_s(r.bytes as f64, r.host);
    let mut table = vec![
        format!("bench flow-file-tcp (tcg; a {file}-byte file, AES-128-CBC on the crypto device per chunk, over TCP to the host; {ROUNDS} rounds each; host time from the first byte to the last, every chunk decrypted and checked; best round recorded)"),
        format!(
            "  {:<15} {:>6} {:>8} {:>12} {:>10} {:>14}",
            "config", "chunk", "chunks", "host MiB/s", "chunks/s", "guest MiB/s"
        ),
    ];
    for r in runs {
        let guest = r.cycles as f64 / tsc_hz;
        table.push(format!(
            "  {:<15} {:>6} {:>8} {:>12.2} {:>10.0} {:>14.2}",
            r.config,
            r.chunk,
            r.buffers,
            host_bps(r) / (1024.0 * 1024.0),
            per_s(r.buffers as f64, r.host),
            if guest > 0.0 {
                r.bytes as f64 / guest / (1024.0 * 1024.0)
            } else {
                0.0
            }
        ));
    }
    let mut best: Vec<&Run> = Vec::new();
    for r in runs {
        match best
            .iter_mut()
            .find(|b| b.config == r.config && b.chunk == r.chunk)
        {
            Some(b) if host_bps(r) > host_bps(b) => *b = r,
            Some(_) => {}
            None => best.push(r),
        }
    }
    let mut records = Vec::new();
    for r in &best {
        let param: &'static str = Box::leak(r.chunk.to_string().into_boxed_str());
        for (metric, value, unit) in [
            ("bytes_per_s", host_bps(r).round(), "bytes/s"),
            (
                "packets_per_s",
                per_s(r.buffers as f64, r.host).round(),
                "buffers/s",
            ),
        ] {
            records.push(Record {
                bench: "flow-file-tcp",
                config: r.config,
                param,
                metric,
                value,
                unit,
                mode: "tcg",
            });
        }
    }
    for chunk in CHUNKS {
        let find = |c: &str| best.iter().find(|r| r.config == c && r.chunk == chunk);
        if let (Some(m), Some(f)) = (find("memory-centric"), find("flow")) {
            let ratio = host_bps(f) / host_bps(m).max(f64::MIN_POSITIVE);
            let alone = find("stage-tcp").map_or(String::new(), |a| {
                let share = host_bps(f) / host_bps(a).max(f64::MIN_POSITIVE) * 100.0;
                format!("; the flow at {share:.0} % of the tcp stage alone")
            });
            table.push(format!(
                "  flow / memory-centric at {chunk} B chunks: {ratio:.2}x{alone}"
            ));
        }
    }
    (records, table)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONSOLE: &str = "\
filetcpbench: ready config=memory-centric chunk=1024 port=5820
filetcpbench: result config=memory-centric chunk=1024 port=5820 bytes=8192 buffers=8 cycles=2000
filetcpbench: result config=flow chunk=1024 port=5821 bytes=8192 buffers=8 cycles=1000
filetcpbench: done
";

    fn got(span_ms: [u64; 2]) -> Vec<(usize, usize, Vec<Received>)> {
        (0..2)
            .map(|c| {
                let r = Received {
                    bytes: 8192,
                    span: Duration::from_millis(span_ms[c]),
                    cut: false,
                };
                (0, c, vec![r])
            })
            .collect()
    }

    #[test]
    fn runs_are_joined_with_their_result_lines_and_reported() {
        let runs = join(&got([4, 2]), &results(CONSOLE)).unwrap();
        assert_eq!(runs[1].config, "flow");
        assert_eq!((runs[1].buffers, runs[1].cycles), (8, 1000));
        let (records, table) = report(&runs, 8192, 1e6);
        let bps: Vec<(&str, &str, f64)> = records
            .iter()
            .filter(|r| r.metric == "bytes_per_s")
            .map(|r| (r.config, r.param, r.value))
            .collect();
        assert_eq!(
            bps,
            [
                ("memory-centric", "1024", 2_048_000.0),
                ("flow", "1024", 4_096_000.0)
            ]
        );
        assert!(records
            .iter()
            .any(|r| r.metric == "packets_per_s" && r.config == "flow" && r.value == 4000.0));
        assert!(table
            .iter()
            .any(|l| l.contains("flow / memory-centric at 1024 B chunks: 2.00x")));
    }

    #[test]
    fn a_result_line_that_does_not_match_the_plan_is_an_error() {
        let wrong = CONSOLE.replace("config=flow chunk=1024", "config=flow chunk=2048");
        let e = join(&got([4, 2]), &results(&wrong)).unwrap_err();
        assert!(e.contains("port 5821"), "{e}");
    }
}
