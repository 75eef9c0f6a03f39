//! A client task of the rings benchmark's many-client dbsim
//! (`cargo make bench rings`; messages in `cosybench_core::many`): it
//! opens its own session and rings with the file server, then asks the
//! leader (`ringbench`, endpoint `ringbench_coord`) for runs. A run is N
//! dbsim requests through one path (`cosybench_core::paths`), back to
//! back, each timed and its answer checked; the report carries every
//! latency. The manifest runs this crate as every client task
//! (`ringbench-client1`, `2`, ...); the number in the task's name is the
//! client's, and picks its block sequence.
#![no_std]
#![no_main]
#![forbid(unsafe_code)]

extern crate alloc;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use conflux_fs_client::Fs;
use conflux_userlib::ipc::{Endpoint, Message};
use conflux_userlib::println;
use conflux_userlib::sys::rdtsc;
use conflux_userlib::testing::Checks;
use cosybench_core::many::{work, Report, Run, DB_FILE, DONE, JOB, QUIT, READY};
use cosybench_core::paths::{self, Compounds};
use cosybench_core::wire;
use cosybench_core::work::expected;

conflux_userlib::entry!(main);

/// The client's session, rings and compounds.
struct Client {
    fs: Fs,
    compounds: Compounds,
    /// Its number (the task name's), which picks its blocks.
    number: u64,
}

fn open() -> Result<Client, String> {
    let name = conflux_userlib::task::name();
    let number = name
        .strip_prefix("ringbench-client")
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("the task's name `{name}` is not ringbench-clientN"))?;
    let mut fs = Fs::connect(conflux_fs_client::manifest_caps!())
        .map_err(|e| format!("connect to the file server: {e}"))?;
    fs.ring_open(config::caps::RING, config::caps::RING_ADDR)
        .map_err(|e| format!("open the rings in region `ring`: {e}"))?;
    let compounds =
        Compounds::new(work(number)).map_err(|e| format!("build the compounds: {e:?}"))?;
    Ok(Client {
        fs,
        compounds,
        number,
    })
}

/// One run: each request's latency, and the TSC at its last answer.
fn run(c: &mut Client, r: Run) -> Result<Report, String> {
    let w = work(c.number);
    let want = expected(w);
    let mut latencies = Vec::with_capacity(r.requests);
    for i in 0..r.requests {
        let t0 = rdtsc();
        let answer = paths::dbsim(&mut c.fs, r.path, &c.compounds, DB_FILE, w)
            .map_err(|e| format!("request {i} through {:?}: {e}", r.path))?;
        latencies.push(rdtsc() - t0);
        if answer != want {
            return Err(format!(
                "request {i} through {:?} answered {answer}, not {want}",
                r.path
            ));
        }
    }
    Ok(Report {
        finished: rdtsc(),
        latencies,
    })
}

fn main() {
    let mut checks = Checks::new();
    let mut client = match open() {
        Ok(c) => Some(c),
        Err(e) => {
            // Every run is still answered, as failed, so the leader
            // reports it instead of waiting for this client forever.
            checks.that("set up the client", false, e);
            None
        }
    };
    let coord = Endpoint(config::caps::COORD);
    let (mut served, mut failed) = (0u64, 0u64);
    let mut msg = Message::new(READY, &[]);
    loop {
        let reply = match coord.call(&msg) {
            Ok(r) => r,
            Err(e) => {
                checks.that("call the leader (ringbench_coord)", false, e);
                break;
            }
        };
        if reply.label == QUIT {
            break;
        }
        let words = wire::words_of(&reply);
        let outcome = match (reply.label, Run::decode(&words), client.as_mut()) {
            (JOB, Ok(r), Some(c)) => run(c, r),
            (JOB, Ok(_), None) => Err("no session with the file server (see above)".into()),
            (label, decoded, _) => Err(format!("not a run: label {label}, {decoded:?}")),
        };
        served += 1;
        let report = outcome.and_then(|r| {
            wire::to_message(DONE, &r.encode()).ok_or_else(|| "the report does not fit".into())
        });
        msg = match report {
            Ok(m) => m,
            Err(why) => {
                failed += 1;
                println!("CHECK FAILED: run {served}: {why}");
                Message::new(DONE, &[1])
            }
        };
    }
    checks.eq("runs that failed", failed, 0);
    println!("served {served} runs");
    checks.finish()
}
