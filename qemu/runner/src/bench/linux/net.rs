//! `bench linux`, part `net`: Linux's network servers measured from the
//! host exactly as `bench net` measures Conflux's. One tcg boot of the
//! peer on the netbench system's machine (its virtio-net device and
//! user-network forwards) runs busybox `httpd` on httpd's guest port,
//! serving the netbench disk, and the peer's echo servers on the guest
//! ports of netbench's VAN echo (plain system calls) and COSY echo
//! (io_uring). The runner's own clients then run [`net::ROUNDS`] rounds,
//! each the same httpd fetches and one echo connection per server of the
//! same round trips as a `bench net` round (their order swapped every
//! round); the figures are host wall-clock time (mode tcg) and go to
//! records of the same bench, param, metric and unit as Conflux's, config
//! `linux-syscall` (httpd and the plain echo) or `linux-io_uring`.

use std::time::{Duration, Instant};

use crate::bench::net::echo::{self, EchoPlan};
use crate::bench::net::figures::percentile;
use crate::bench::net::{self, fetch, Get, Head};
use crate::bench::{append, median, Record};
use crate::http_peer::Expected;
use crate::linux_peer::{self, Machine, Workloads};
use crate::qemu::Console;

/// The records' configurations: httpd's and the first echo server's,
/// and the io_uring echo server's (on the port of netbench's COSY echo).
const CONFIGS: [&str; 2] = ["linux-syscall", "linux-io_uring"];
/// Console lines that say the guest serves (`/init` and the echo servers).
const READY: [&str; 3] = [
    "linux-peer: httpd: serving",
    "linux-peer: echo: listening",
    "linux-peer: echo: io_uring listening",
];

/// What one boot measured (the units of [`net::figures::Figures`]).
#[derive(Debug, Default)]
pub struct Figures {
    /// Echo round trips, µs, every timed one, per configuration.
    pub echo: [Vec<f64>; 2],
    /// httpd 1 KiB with 1 client, 16 clients, HEAD: requests/s per round.
    pub http_1: Vec<f64>,
    pub http_16: Vec<f64>,
    pub http_head: Vec<f64>,
    /// httpd 16 MiB: MiB/s per fetch.
    pub transfer: Vec<f64>,
    /// Why the 16-client fetch failed, if it did: it is then not tried
    /// again (busybox `httpd` behind slirp has answered some of 16
    /// concurrent clients `408 Request Timeout` after 60 s, their
    /// requests never having reached it), and not recorded.
    pub http_16_failed: Option<String>,
}

/// Boots the peer's servers, measures, records; the printed rows.
pub fn run() -> Result<Vec<String>, String> {
    let mut built = linux_peer::prepare(Machine::Net)?;
    // The user network is slirp unless CONFLUX_NET says otherwise, as
    // for `bench net`.
    built.network = None;
    crate::forwards::check_free(&built.manifest)?;
    let work = Workloads::Net {
        echo: guest_port(&built.manifest, net::ECHO[0])?,
        echo_uring: guest_port(&built.manifest, net::ECHO[1])?,
        httpd: guest_port(&built.manifest, net::HTTPD)?,
    };
    let small = net::generated(&built.manifest, net::SMALL)?;
    let large = net::generated(&built.manifest, net::LARGE)?;
    let (figures, _) = super::super::measure_beside_with(
        "bench linux (net)",
        &built,
        Duration::from_secs(900),
        &work.kernel_args(),
        move |console| measure(console, small, large),
    )?;
    let (records, rows) = figures.report();
    append(&records)?;
    Ok(rows)
}

/// The guest port the netbench manifest forwards host port `host` to.
fn guest_port(manifest: &conflux_manifest::Manifest, host: u16) -> Result<u16, String> {
    manifest
        .devices
        .iter()
        .flat_map(|d| &d.forwards)
        .find(|f| f.host == host)
        .map(|f| f.guest)
        .ok_or_else(|| {
            format!("the netbench system forwards no guest port from host port {host} (qemu/systems/netbench.toml)")
        })
}

/// Waits for both servers, then runs every round.
fn measure(
    console: &Console,
    small: std::sync::Arc<[u8]>,
    large: std::sync::Arc<[u8]>,
) -> Result<Figures, String> {
    let ready = console.wait_until(Instant::now() + Duration::from_secs(240), |out| {
        READY.iter().all(|l| out.contains(l)) || out.contains("CHECK FAILED")
    });
    if !ready || console.text().contains("CHECK FAILED") {
        return Err(format!("Linux never showed {READY:?} (or a check failed)"));
    }
    let (small, large) = (Expected::Bytes(small), Expected::Bytes(large));
    let mut f = Figures::default();
    for round in 0..net::ROUNDS {
        if f.http_16_failed.is_none() {
            match fetch(net::HTTPD, net::SMALL, &small, Get, 16, net::REQUESTS_16) {
                Ok(many) => f.http_16.push(many.requests_per_sec()),
                Err(e) => f.http_16_failed = Some(e),
            }
        }
        let one = fetch(net::HTTPD, net::SMALL, &small, Get, 1, net::REQUESTS_1)?;
        f.http_1.push(one.requests_per_sec());
        let head = fetch(net::HTTPD, net::SMALL, &small, Head, 1, net::REQUESTS_1)?;
        f.http_head.push(head.requests_per_sec());
        let whole = fetch(net::HTTPD, net::LARGE, &large, Get, 1, 1)?;
        f.transfer.push(whole.bytes_per_sec() / (1024.0 * 1024.0));
        // Plain first in even rounds, io_uring first in odd ones.
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for c in order {
            let times = echo::round_trips(&EchoPlan {
                port: net::ECHO[c],
                size: net::ECHO_SIZE,
                warmup: net::ECHO_WARMUP,
                timed: net::ECHO_TIMED,
                deadline: Instant::now() + Duration::from_secs(60),
            })
            .map_err(|e| format!("echo ({}): {e}", CONFIGS[c]))?;
            f.echo[c].extend(times.iter().map(|t| t.as_secs_f64() * 1e6));
        }
    }
    Ok(f)
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn rec(
    config: &'static str,
    bench: &'static str,
    param: &'static str,
    metric: &'static str,
    value: f64,
    unit: &'static str,
) -> Record<'static> {
    Record {
        bench,
        config,
        param,
        metric,
        value: round2(value),
        unit,
        mode: "tcg",
    }
}

impl Figures {
    /// The records (named as `bench net` names Conflux's) and table rows.
    pub fn report(&self) -> (Vec<Record<'static>>, Vec<String>) {
        let mut records = Vec::new();
        let mut rows = Vec::new();
        for (c, config) in CONFIGS.iter().enumerate() {
            let mut v = self.echo[c].clone();
            let (med, p99) = (median(&mut v), percentile(&mut v, 99.0));
            let per_sec = 1e6 * v.len() as f64 / v.iter().sum::<f64>();
            records.push(rec(config, "net-echo", "64B", "latency_median", med, "us"));
            records.push(rec(config, "net-echo", "64B", "latency_p99", p99, "us"));
            records.push(rec(config, "net-echo", "64B", "per_sec", per_sec, "1/s"));
            rows.push(format!(
                "  {:<34} {med:>10.1} {p99:>10.1}  µs median, p99 ({} samples, tcg)",
                format!("echo 64 B round trip, {config}"),
                v.len()
            ));
        }
        for (param, what, v) in [
            ("1KiB-1-client", "httpd 1 KiB, 1 client", &self.http_1),
            ("1KiB-16-clients", "httpd 1 KiB, 16 clients", &self.http_16),
            (
                "1KiB-HEAD-1-client",
                "httpd HEAD 1 KiB, 1 client",
                &self.http_head,
            ),
        ] {
            let failed = (param == "1KiB-16-clients")
                .then_some(self.http_16_failed.as_ref())
                .flatten();
            if let Some(e) = failed {
                rows.push(format!(
                    "  {what:<34} not recorded: failed after {} good rounds: {e}",
                    v.len()
                ));
                continue;
            }
            let (med, min, max) = spread(v);
            rows.push(format!(
                "  {what:<34} {med:>10.1} {min:>10.1} {max:>10.1}  requests/s median, min, max ({} rounds)",
                v.len()
            ));
            records.push(rec(
                CONFIGS[0],
                "net-http",
                param,
                "requests_per_sec",
                med,
                "req/s",
            ));
        }
        let (med, min, max) = spread(&self.transfer);
        rows.push(format!(
            "  {:<34} {med:>10.2} {min:>10.2} {max:>10.2}  MiB/s median, min, max ({} fetches)",
            "httpd 16 MiB, 1 client",
            self.transfer.len()
        ));
        records.push(rec(
            CONFIGS[0],
            "net-transfer",
            "16MiB",
            "rate_median",
            med,
            "MiB/s",
        ));
        (records, rows)
    }
}

/// Median, min and max of `v`.
fn spread(v: &[f64]) -> (f64, f64, f64) {
    let mut v = v.to_vec();
    let med = median(&mut v);
    (med, v[0], v[v.len() - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_match_conflux_s_net_records_under_linux_s_config() {
        let f = Figures {
            echo: [vec![300.0, 100.0, 200.0], vec![50.0]],
            http_1: vec![10.0, 30.0, 20.0],
            http_16: vec![40.0],
            http_head: vec![50.0],
            transfer: vec![3.0, 1.0, 2.0],
            http_16_failed: None,
        };
        let (records, rows) = f.report();
        let find = |bench: &str, param: &str, metric: &str| {
            records
                .iter()
                .find(|r| r.bench == bench && r.param == param && r.metric == metric)
                .map(|r| (r.value, r.unit))
        };
        assert_eq!(
            find("net-echo", "64B", "latency_median"),
            Some((200.0, "us"))
        );
        assert_eq!(find("net-echo", "64B", "latency_p99"), Some((300.0, "us")));
        assert_eq!(find("net-echo", "64B", "per_sec"), Some((5000.0, "1/s")));
        assert_eq!(
            find("net-http", "1KiB-1-client", "requests_per_sec"),
            Some((20.0, "req/s"))
        );
        assert_eq!(
            find("net-http", "1KiB-16-clients", "requests_per_sec"),
            Some((40.0, "req/s"))
        );
        assert_eq!(
            find("net-transfer", "16MiB", "rate_median"),
            Some((2.0, "MiB/s"))
        );
        assert_eq!(records.len(), 10);
        assert!(records.iter().all(|r| r.mode == "tcg"));
        let uring: Vec<_> = records
            .iter()
            .filter(|r| r.config == "linux-io_uring")
            .collect();
        assert_eq!(uring.len(), 3, "only the echo has an io_uring server");
        assert!(uring
            .iter()
            .all(|r| r.bench == "net-echo" && r.value != 200.0));
        assert!(rows[1].contains("linux-io_uring") && rows[1].contains("50.0"));
        assert!(
            rows[0].contains("200.0") && rows[0].contains("300.0"),
            "{}",
            rows[0]
        );
    }

    #[test]
    fn a_failed_16_client_fetch_is_said_and_not_recorded() {
        let f = Figures {
            echo: [vec![100.0], vec![100.0]],
            http_1: vec![10.0],
            http_16: vec![40.0],
            http_head: vec![50.0],
            transfer: vec![3.0],
            http_16_failed: Some("expected status 200, got 408".into()),
        };
        let (records, rows) = f.report();
        assert!(!records.iter().any(|r| r.param == "1KiB-16-clients"));
        assert_eq!(records.len(), 9);
        assert!(rows.iter().any(|r| r
            .contains("not recorded: failed after 1 good rounds: expected status 200, got 408")));
    }

    #[test]
    fn the_guest_ports_are_netbench_s_forwards() {
        let path = crate::workspace::resolve_system("netbench").unwrap();
        let m = conflux_manifest::load(&path).unwrap();
        assert_eq!(guest_port(&m, net::ECHO[0]), Ok(7));
        assert_eq!(guest_port(&m, net::ECHO[1]), Ok(8));
        assert_eq!(guest_port(&m, net::HTTPD), Ok(80));
        assert!(guest_port(&m, 1).unwrap_err().contains("host port 1"));
    }
}
