//! `bench netbackend`: QEMU's slirp against passt as the user-mode
//! network (`netback`), in one run: the netbench system booted once under
//! each, measured the same way from the host (tcg, host wall clock):
//!
//! - **echo RTT**: 64-byte round trips on one connection to netbench's
//!   echo loop (port 5601), median of [`ECHO_TIMED`];
//! - **small request**: httpd's 1 KiB file, one client, keep-alive: time
//!   per request (5600);
//! - **16 MiB fetch**: httpd's 16 MiB file, [`FETCHES`] fetches, median
//!   MiB/s, every byte checked;
//! - **100 at once**: [`CROWD`] clients connect at the same moment (the
//!   HTTP peer's one-at-a-time gate opened under both backends) and GET
//!   the 1 KiB file: how many are served 200, answered 503, closed or
//!   reset without an answer, or refused before reaching the guest, and
//!   how long until every client had its outcome (slirp's dropped SYNs
//!   are sent again by the host's kernel, 1 s, 3 s, ... later). Last,
//!   since the guest keeps the crowd's closed sockets in TIME-WAIT.

use std::sync::Arc;
use std::time::{Duration, Instant};

use conflux_manifest::Network;

use super::net::echo::{round_trips, EchoPlan};
use super::Record;
use crate::http_peer::{self, CrowdPlan, Expected, FetchPlan, Target};
use crate::image;
use crate::qemu::Console;

const HTTPD: u16 = 5600;
const ECHO: u16 = 5601;
const SMALL: &str = "/data/1k.bin";
const LARGE: &str = "/data/16m.bin";
const ECHO_TIMED: usize = 300;
const SMALL_REQUESTS: u32 = 200;
const FETCHES: usize = 3;
const CROWD: u32 = 100;
const READY: [&str; 2] = ["httpd: serving http on port 80", "netbench: listening"];

/// What one backend measured.
#[derive(Default)]
struct Figures {
    echo_us: f64,
    request_us: f64,
    fetch_mib_s: f64,
    crowd: http_peer::CrowdReport,
}

/// Boots netbench under slirp, then under passt; prints the table and
/// appends the records.
pub fn run() -> Result<(), String> {
    netback_passt_present()?;
    let mut rows = Vec::new();
    for network in [Network::Slirp, Network::Passt] {
        let mut built = image::build_named("netbench")?;
        built.network = Some(network);
        crate::forwards::check_free(&built.manifest)?;
        let small = super::net::generated(&built.manifest, SMALL)?;
        let large = super::net::generated(&built.manifest, LARGE)?;
        let (figures, _) = super::measure_beside(
            &format!("bench netbackend ({network})"),
            &built,
            Duration::from_secs(600),
            move |console| measure(console, small, large),
        )?;
        rows.push((network, figures));
    }
    println!("bench netbackend (tcg, host wall clock, netbench system; {CROWD} clients at once on {SMALL})");
    println!(
        "  {:<8} {:>10} {:>12} {:>11} {:>8} {:>6} {:>7} {:>6} {:>8} {:>9}",
        "network",
        "echo RTT",
        "1 KiB req",
        "16 MiB",
        "served",
        "503",
        "closed",
        "reset",
        "refused",
        "crowd in"
    );
    let mut records = Vec::new();
    for (network, f) in &rows {
        let c = &f.crowd;
        println!(
            "  {:<8} {:>8.0}us {:>10.0}us {:>6.1}MiB/s {:>8} {:>6} {:>7} {:>6} {:>8} {:>7}ms",
            network.as_str(),
            f.echo_us,
            f.request_us,
            f.fetch_mib_s,
            c.served,
            c.turned_away,
            c.closed,
            c.reset,
            c.refused,
            c.crowd_took.as_millis()
        );
        let config = network.as_str();
        let record =
            |param: &'static str, metric: &'static str, value: f64, unit: &'static str| Record {
                bench: "netbackend",
                config,
                param,
                metric,
                value,
                unit,
                mode: "tcg",
            };
        records.extend([
            record("median", "echo_rtt_64b", f.echo_us, "us"),
            record("mean", "httpd_1k_request", f.request_us, "us"),
            record("median", "httpd_16m_fetch", f.fetch_mib_s, "MiB/s"),
            record("100_at_once", "served_200", c.served.into(), "clients"),
            record(
                "100_at_once",
                "answered_503",
                c.turned_away.into(),
                "clients",
            ),
            record(
                "100_at_once",
                "closed_unanswered",
                c.closed.into(),
                "clients",
            ),
            record("100_at_once", "reset_unanswered", c.reset.into(), "clients"),
            record("100_at_once", "refused", c.refused.into(), "clients"),
            record(
                "100_at_once",
                "every_client_done",
                c.crowd_took.as_secs_f64() * 1000.0,
                "ms",
            ),
        ]);
    }
    super::append(&records)
}

/// The comparison needs both backends: no silent fallback here.
fn netback_passt_present() -> Result<(), String> {
    crate::netback::passt::find()
        .map(|_| ())
        .map_err(|e| format!("bench netbackend compares slirp with passt: {e}"))
}

fn measure(console: &Console, small: Arc<[u8]>, large: Arc<[u8]>) -> Result<Figures, String> {
    let ready = console.wait_until(Instant::now() + Duration::from_secs(240), |out| {
        READY.iter().all(|l| out.contains(l))
    });
    if !ready {
        return Err(format!("the guest never showed {READY:?}"));
    }
    let (small, large) = (Expected::Bytes(small), Expected::Bytes(large));
    let mut f = Figures::default();
    let mut echo: Vec<f64> = round_trips(&EchoPlan {
        port: ECHO,
        size: 64,
        warmup: 50,
        timed: ECHO_TIMED,
        deadline: Instant::now() + Duration::from_secs(60),
    })?
    .iter()
    .map(|t| t.as_secs_f64() * 1e6)
    .collect();
    f.echo_us = super::median(&mut echo);
    let one = fetch(SMALL, &small, SMALL_REQUESTS)?;
    f.request_us = 1e6 / one.requests_per_sec();
    let mut rates = Vec::new();
    for _ in 0..FETCHES {
        let whole = fetch(LARGE, &large, 1)?;
        rates.push(whole.bytes_per_sec() / (1024.0 * 1024.0));
    }
    f.fetch_mib_s = super::median(&mut rates);
    // The crowd connects at once under both backends: what slirp's
    // forward does with it is what is measured.
    http_peer::connect_concurrently(true);
    let plan = CrowdPlan {
        target: Target::loopback(HTTPD),
        path: SMALL.into(),
        expected: small,
        clients: CROWD,
        probe_within: Duration::from_secs(10),
        deadline: Duration::from_secs(120),
    };
    f.crowd = http_peer::gather(&plan, Instant::now() + plan.deadline)?;
    Ok(f)
}

fn fetch(path: &str, body: &Expected, requests: u32) -> Result<http_peer::Stats, String> {
    http_peer::fetch(&FetchPlan {
        target: Target::loopback(HTTPD),
        head: false,
        paths: vec![(path.to_owned(), body.clone())],
        status: 200,
        clients: 1,
        requests,
        deadline: Duration::from_secs(180),
        may_cut: None,
    })
    .map_err(|e| format!("httpd: {e}"))
}
