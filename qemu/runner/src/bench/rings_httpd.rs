//! `bench rings-httpd`: FlexSC's server experiment on Conflux (issue 27,
//! item 4). httpd serves a 1 KiB file to N concurrent keep-alive clients
//! from the host (`http_peer::fetch`, every body checked byte for byte),
//! for N in [`CLIENTS`], once by synchronous IPC (one call per socket
//! operation) and once through the network server's rings (httpd's ring
//! mode, `docs/httpd.md`), each in its own boot:
//!
//! - `httpd-sync-2cpu` / `httpd-ring-2cpu`: the network server alone on
//!   CPU 1, httpd and the file server on CPU 0;
//! - `httpd-sync-1cpu` / `httpd-ring-1cpu`: everything on one CPU.
//!
//! Per N, [`ROUNDS`] fetches of about [`REQUESTS`] requests each:
//! requests/s is the median round's, latency (median, p99) is over every
//! request of every round, host wall clock from sending a request to its
//! answer's last byte. Records: `bench: "rings"`, `config` the system's
//! name, `param` N, metrics `httpd_rps`, `httpd_latency_median`,
//! `httpd_latency_p99`, `host_cpus_busy` (the host's CPUs busy over
//! the N's rounds, from `/proc/stat`) and `qemu_cpu_wait_share` (the
//! share of their runnable time QEMU's threads waited for a host CPU,
//! `host_wait`); mode tcg. The table gives ring/sync per N, and the
//! host's CPU use and QEMU's waits beside it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::net::{fetch, generated, Get, SMALL};
use super::{append, Record};
use crate::host_cpu::{self, Busy};
use crate::host_wait::{self, Waited};
use crate::http_peer::Expected;
use crate::image;

const BENCH: &str = "rings";
/// Concurrent keep-alive clients.
const CLIENTS: [u32; 6] = [1, 2, 4, 8, 16, 32];
/// Fetches per N; the rate is their median.
const ROUNDS: usize = 3;
/// Requests per fetch, about (at least 8 per client).
const REQUESTS: u32 = 240;
/// The systems (qemu/systems/httpd-*.toml) and their forwarded ports,
/// each pair synchronous first.
const SYSTEMS: [(&str, u16); 4] = [
    ("httpd-sync-2cpu", 5606),
    ("httpd-ring-2cpu", 5607),
    ("httpd-sync-1cpu", 5608),
    ("httpd-ring-1cpu", 5609),
];
const READY: &str = "httpd: serving http on port 80";

/// One system's figures for one N.
#[derive(Clone, Copy, Debug, Default)]
struct Point {
    rps: f64,
    median_us: f64,
    p99_us: f64,
    /// The host's CPUs kept busy over the N's rounds (QEMU, the clients
    /// and anything else the host ran), if `/proc/stat` could be read.
    host: Option<Busy>,
    /// How long QEMU's threads waited for a host CPU over the N's rounds.
    waited: Option<Waited>,
}

/// Boots each system, measures every N, prints the table and appends
/// the records.
pub fn run() -> Result<(), String> {
    let mut figures: Vec<(&str, Vec<Point>)> = Vec::new();
    for (system, port) in SYSTEMS {
        let built = image::build_named(system)?;
        crate::forwards::check_free(&built.manifest)?;
        let body = generated(&built.manifest, SMALL)?;
        let (points, console) = super::measure_beside(
            &format!("bench rings-httpd ({system})"),
            &built,
            Duration::from_secs(900),
            move |console| {
                let ready = console.wait_until(Instant::now() + Duration::from_secs(240), |out| {
                    out.contains(READY)
                });
                if !ready {
                    return Err(format!("the guest never showed {READY:?}"));
                }
                measure(port, &body, console.qemu_pid())
            },
        )?;
        records(system, &points)?;
        keep_console(system, &console);
        figures.push((system, points));
    }
    print_table(&figures);
    Ok(())
}

/// Keeps the guest's console in `target/bench/rings-httpd-SYSTEM.log`:
/// httpd says there when it cut, evicted or turned a client away, which
/// explains a round that came out slow.
fn keep_console(system: &str, console: &str) {
    let path = super::results_path().with_file_name(format!("rings-httpd-{system}.log"));
    if let Err(e) = std::fs::write(&path, console) {
        eprintln!("cannot keep the console in {}: {e}", path.display());
    }
}

/// Every N against one booted system, whose QEMU is process `pid`.
fn measure(port: u16, body: &Arc<[u8]>, pid: Option<u32>) -> Result<Vec<Point>, String> {
    let expected = Expected::Bytes(body.clone());
    // Warm-up: the file server's caches and httpd's first connections.
    fetch(port, SMALL, &expected, Get, 4, 10)?;
    let mut points = Vec::new();
    for n in CLIENTS {
        let per_client = (REQUESTS / n).max(8);
        let mut rates = Vec::new();
        let mut latencies = Vec::new();
        let start = host_cpu::sample();
        let threads = pid.and_then(host_wait::sample);
        for _ in 0..ROUNDS {
            let stats = fetch(port, SMALL, &expected, Get, n, per_client)?;
            rates.push(stats.requests_per_sec());
            latencies.extend(stats.latencies_us);
        }
        points.push(Point {
            rps: quantile(&mut rates, 0.5),
            median_us: quantile(&mut latencies, 0.5),
            p99_us: quantile(&mut latencies, 0.99),
            host: host_cpu::since(start),
            waited: pid.and_then(|p| host_wait::since(p, threads.as_ref())),
        });
    }
    Ok(points)
}

/// The `q` quantile (nearest rank) of `v`; 0 for none.
fn quantile(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let rank = ((v.len() as f64 * q).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

/// One N's records: metric, value, unit (the host's figures where they
/// could be read).
fn metrics(p: &Point) -> Vec<(&'static str, f64, &'static str)> {
    let host = p.host.map(|b| ("host_cpus_busy", b.recorded(), "cores"));
    let waited = p
        .waited
        .map(|w| ("qemu_cpu_wait_share", w.recorded(), "share"));
    [
        ("httpd_rps", p.rps.round(), "requests_per_s"),
        ("httpd_latency_median", p.median_us.round(), "us"),
        ("httpd_latency_p99", p.p99_us.round(), "us"),
    ]
    .into_iter()
    .chain(host)
    .chain(waited)
    .collect()
}

fn records(system: &str, points: &[Point]) -> Result<(), String> {
    let params: Vec<String> = CLIENTS.iter().map(u32::to_string).collect();
    let mut out = Vec::new();
    for (p, param) in points.iter().zip(&params) {
        for (metric, value, unit) in metrics(p) {
            out.push(Record {
                bench: BENCH,
                config: system,
                param,
                metric,
                value,
                unit,
                mode: "tcg",
            });
        }
    }
    append(&out)
}

/// Per N and CPU count: sync and ring requests/s, their ratio, the
/// median and p99 latencies, how busy the host's CPUs were meanwhile
/// (sync, ring): a run that had them all busy measured the host too, and
/// how long QEMU's threads waited for a host CPU (sync, ring).
fn print_table(figures: &[(&str, Vec<Point>)]) {
    println!(
        "bench rings-httpd (httpd, 1 KiB over keep-alive, N host clients; tcg, host wall clock)"
    );
    println!(
        "  {:<5} {:>3} {:>10} {:>10} {:>6}   {:>17} {:>17}   host busy sync, ring   qemu waited sync; ring",
        "cpus", "N", "sync r/s", "ring r/s", "ring/sync", "sync med/p99 ms", "ring med/p99 ms"
    );
    let busy = |p: &Point| p.host.map_or("?".to_owned(), |b| b.to_string());
    let waited = |p: &Point| p.waited.map_or("?".to_owned(), |w| w.to_string());
    for cpus in ["2cpu", "1cpu"] {
        let find = |mode: &str| {
            figures
                .iter()
                .find(|(s, _)| *s == format!("httpd-{mode}-{cpus}"))
                .map(|(_, p)| p)
        };
        let (Some(sync), Some(ring)) = (find("sync"), find("ring")) else {
            continue;
        };
        for ((n, s), r) in CLIENTS.iter().zip(sync).zip(ring) {
            println!(
                "  {cpus:<5} {n:>3} {:>10.0} {:>10.0} {:>9.2}   {:>8.2}/{:<8.2} {:>8.2}/{:<8.2}   {}, {}   {}; {}",
                s.rps,
                r.rps,
                r.rps / s.rps.max(1e-9),
                s.median_us / 1000.0,
                s.p99_us / 1000.0,
                r.median_us / 1000.0,
                r.p99_us / 1000.0,
                busy(s),
                busy(r),
                waited(s),
                waited(r)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{metrics, quantile, Point};
    use crate::host_wait::Waited;

    #[test]
    fn each_n_records_qemu_s_waits_where_they_were_read() {
        let mut p = Point {
            rps: 1000.4,
            median_us: 900.6,
            p99_us: 2000.0,
            host: None,
            waited: None,
        };
        let names = |p: &Point| metrics(p).iter().map(|m| m.0).collect::<Vec<_>>();
        assert_eq!(
            names(&p),
            ["httpd_rps", "httpd_latency_median", "httpd_latency_p99"]
        );
        p.waited = Some(Waited {
            run_ns: 750,
            wait_ns: 250,
            slices: 10,
            ..Waited::default()
        });
        let m = metrics(&p);
        assert_eq!(m.last(), Some(&("qemu_cpu_wait_share", 0.25, "share")));
        assert_eq!(m[0], ("httpd_rps", 1000.0, "requests_per_s"));
    }

    #[test]
    fn quantile_is_nearest_rank() {
        let mut v: Vec<f64> = (1..=100).map(f64::from).rev().collect();
        assert_eq!(quantile(&mut v, 0.5), 50.0);
        assert_eq!(quantile(&mut v, 0.99), 99.0);
        assert_eq!(quantile(&mut v, 1.0), 100.0);
        assert_eq!(quantile(&mut [7.0], 0.99), 7.0);
        assert_eq!(quantile(&mut [], 0.5), 0.0);
    }
}
