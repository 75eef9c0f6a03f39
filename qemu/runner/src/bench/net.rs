//! `bench net`: the network path measured from the host, through QEMU's
//! user network (forwards on 127.0.0.1, `restrict=on`), against one boot
//! of `qemu/systems/netbench.toml`, in [`ROUNDS`] rounds; each round
//! measures every item once (httpd, echo, request loop), VAN and COSY
//! back to back (their order swapped every round), so each ratio comes
//! from one run:
//!
//! - **echo**: 64-byte round trips on one connection to netbench's echo
//!   loop, VAN (port 5601) and COSY (5602); median and p99 of every timed
//!   round trip.
//! - **request loop**: netbench's `accept → recv → send → close` with a
//!   fixed answer, one connection per request, VAN (5603) and COSY
//!   (5604); median and p99 per request, from connect to the server's
//!   close.
//! - **httpd** (5600), serving from the file server: a 1 KiB file with 1
//!   and with 16 concurrent keep-alive clients, and HEAD for it with one
//!   (requests/s per round), and a 16 MiB file (MiB/s per fetch); every
//!   body checked byte for byte.
//!
//! A round takes at least [`ROUND_SPACING`]: a connection the guest closes
//! first holds one of the network server's 128 sockets for smoltcp's
//! 10-second TIME-WAIT, and httpd's listener keeps 64 of them ready, so
//! the request loop makes only [`REQUESTS_PER_ROUND`] connections per
//! configuration and round, last in the round, and they drain before the
//! next one.
//!
//! The host side is the runner's HTTP peer (`http_peer::fetch`) for
//! httpd, and two small timed clients ([`echo`], [`request`]) for
//! netbench; they run beside the guest (`qemu::Beside`), which is stopped
//! once they are done. Every figure is host wall-clock time, mode tcg.

pub(super) mod echo;
pub(super) mod figures;
pub(super) mod request;

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::disks::{self, generate};
use crate::http_peer::{self, Expected, FetchPlan, Target};
use crate::image;
use crate::qemu::Console;

use echo::EchoPlan;
use figures::{Figures, CONFIGS};

/// Host ports of the system's forwards (see netbench.toml).
pub(super) const HTTPD: u16 = 5600;
pub(super) const ECHO: [u16; 2] = [5601, 5602];
const REQUEST: [u16; 2] = [5603, 5604];

/// Rounds; each measures every item once.
pub(super) const ROUNDS: usize = 6;
/// The least time from one round's start to the next's (TIME-WAIT, 10 s,
/// and a margin).
const ROUND_SPACING: Duration = Duration::from_secs(11);
pub(super) const ECHO_SIZE: usize = 64;
pub(super) const ECHO_WARMUP: usize = 50;
/// Timed round trips per round and configuration.
pub(super) const ECHO_TIMED: usize = 300;
/// Requests per round and configuration of the request loop (each a
/// connection the guest closes: see the module docs).
const REQUESTS_PER_ROUND: usize = 15;
/// Requests per round of httpd with one client.
pub(super) const REQUESTS_1: u32 = 100;
/// Requests per client per round of httpd with 16 clients.
pub(super) const REQUESTS_16: u32 = 40;
/// Files fetched from httpd (generated into the disk, see the manifest).
pub(super) const SMALL: &str = "/data/1k.bin";
pub(super) const LARGE: &str = "/data/16m.bin";

/// Console lines that say the guest is serving.
const READY: [&str; 2] = ["httpd: serving http on port 80", "netbench: listening"];

/// Boots the netbench system, measures, prints the table and appends the
/// records.
pub fn run() -> Result<(), String> {
    let built = image::build_named("netbench")?;
    crate::forwards::check_free(&built.manifest)?;
    let small = generated(&built.manifest, SMALL)?;
    let large = generated(&built.manifest, LARGE)?;
    let (figures, output) = super::measure_beside(
        "bench net",
        &built,
        Duration::from_secs(900),
        move |console| measure(console, small, large),
    )?;
    let (records, table) = figures.report(&output);
    println!(
        "bench net (tcg, host wall clock through QEMU's user network; VAN: one IPC per socket op, COSY: one compound per step)"
    );
    for line in table {
        println!("{line}");
    }
    super::append(&records)
}

/// The body of generated file `url` of the system's disk.
pub(super) fn generated(
    manifest: &conflux_manifest::Manifest,
    url: &str,
) -> Result<Arc<[u8]>, String> {
    let (_, files) = disks::folder_and_generated(manifest)
        .ok_or("the netbench system has no disk built from a folder")?;
    let file = files
        .iter()
        .find(|g| format!("/{}", g.path) == url)
        .ok_or_else(|| format!("{url} is not generated into the netbench disk (netbench.toml)"))?;
    Ok(generate::bytes(file.seed, file.size).into())
}

/// Waits for the guest, then runs every round.
fn measure(console: &Console, small: Arc<[u8]>, large: Arc<[u8]>) -> Result<Figures, String> {
    let ready = console.wait_until(Instant::now() + Duration::from_secs(240), |out| {
        READY.iter().all(|l| out.contains(l))
    });
    if !ready {
        return Err(format!("the guest never showed {READY:?}"));
    }
    let (small, large) = (Expected::Bytes(small), Expected::Bytes(large));
    let mut f = Figures::default();
    for round in 0..ROUNDS {
        let next = Instant::now() + ROUND_SPACING;
        let many = fetch(HTTPD, SMALL, &small, Get, 16, REQUESTS_16)?;
        f.http_16.push(many.requests_per_sec());
        let one = fetch(HTTPD, SMALL, &small, Get, 1, REQUESTS_1)?;
        f.http_1.push(one.requests_per_sec());
        let head = fetch(HTTPD, SMALL, &small, Head, 1, REQUESTS_1)?;
        f.http_head.push(head.requests_per_sec());
        let whole = fetch(HTTPD, LARGE, &large, Get, 1, 1)?;
        f.transfer.push(whole.bytes_per_sec() / (1024.0 * 1024.0));
        // VAN first in even rounds, COSY first in odd ones.
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for c in order {
            let times = echo::round_trips(&EchoPlan {
                port: ECHO[c],
                size: ECHO_SIZE,
                warmup: ECHO_WARMUP,
                timed: ECHO_TIMED,
                deadline: Instant::now() + Duration::from_secs(60),
            })
            .map_err(|e| format!("echo {}: {e}", CONFIGS[c]))?;
            f.echo[c].extend(times.iter().map(|t| t.as_secs_f64() * 1e6));
        }
        // Last in the round: the connections it leaves in TIME-WAIT drain
        // before the next round's httpd clients need sockets.
        for c in order {
            let deadline = Instant::now() + Duration::from_secs(60);
            for _ in 0..REQUESTS_PER_ROUND {
                let took = request::timed_request(REQUEST[c], deadline)
                    .map_err(|e| format!("request loop {}: {e}", CONFIGS[c]))?;
                f.request[c].push(took.as_secs_f64() * 1e6);
            }
        }
        if round + 1 < ROUNDS {
            std::thread::sleep(next.saturating_duration_since(Instant::now()));
        }
    }
    Ok(f)
}

/// The request method of a fetch.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Method {
    Get,
    /// The same answer head without its body: what the body costs is
    /// the difference.
    Head,
}
pub(super) use Method::{Get, Head};

/// `requests` requests for `path` from each of `clients` clients
/// (keep-alive where the server keeps the connection), every answer
/// checked (its length; for GET every body byte).
pub(super) fn fetch(
    port: u16,
    path: &str,
    body: &Expected,
    method: Method,
    clients: u32,
    requests: u32,
) -> Result<http_peer::Stats, String> {
    let plan = FetchPlan {
        target: Target::loopback(port),
        head: method == Head,
        paths: vec![(path.to_owned(), body.clone())],
        status: 200,
        clients,
        requests,
        deadline: Duration::from_secs(180),
        may_cut: None,
    };
    http_peer::fetch(&plan).map_err(|e| format!("httpd: {e}"))
}
