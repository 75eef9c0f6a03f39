//! The leader of the many-client dbsim (FlexSC's server experiment): the
//! client tasks (`ringbench-client1`, ... in the manifest, each with its
//! own session and rings) call this task over endpoint `ringbench_coord`
//! (`cosybench_core::many`). For each path and each N, it reads the TSC,
//! replies a run to N parked clients in turn, and takes their `DONE`s:
//! every request's latency, and when each client's last answer came.
//!
//! Metrics, per path prefix and N: `<p>_dbsim_n<N>_request` (each
//! request's latency over every request of every client: median, p99,
//! mean) and `<p>_dbsim_n<N>_per_op` (from the start to the last client's
//! last answer, divided by the requests of all clients; the median of
//! [`ROUNDS`] rounds, which the runner turns into requests/s). One
//! untimed run of every client per path warms the file's blocks first.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use conflux_userlib::bench::Samples;
use conflux_userlib::ipc::{reply, Endpoint, Message};
use conflux_userlib::println;
use conflux_userlib::sys::rdtsc;
use cosybench_core::many::{Path, Report, Run, DONE, JOB, QUIT};
use cosybench_core::wire;

/// Rounds of each path at each N: the rate is their median, the
/// latencies are pooled. Three, because a round is short (60 requests a
/// client) and a busy host can stall a round's vCPU.
const ROUNDS: usize = 3;

/// Client tasks' names start with this.
const CLIENT_TASK: &str = "ringbench-client";

/// The leader's clients: each parked client's reply slot.
struct Clients {
    endpoint: Endpoint,
    parked: Vec<Option<usize>>,
    free: Vec<usize>,
}

impl Clients {
    /// Takes the next call; the caller's index (badge 1 is index 0) and
    /// the message's label and words.
    fn receive(&mut self) -> Result<(usize, u32, Vec<u64>), String> {
        let slot = self
            .free
            .pop()
            .ok_or("every reply slot holds a parked client, yet a call is awaited")?;
        let got = match self.endpoint.recv(slot, 0) {
            Ok(g) => g,
            Err(e) => {
                self.free.push(slot);
                return Err(format!("receive on ringbench_coord: {e:?}"));
            }
        };
        let n = self.parked.len();
        let index = usize::try_from(got.badge)
            .ok()
            .and_then(|b| b.checked_sub(1))
            .filter(|i| *i < n && self.parked[*i].is_none());
        let Some(index) = index else {
            // Not a client the manifest names, or one already parked:
            // answer QUIT so its caller is not left blocked.
            let _ = reply(slot, &Message::new(QUIT, &[]));
            self.free.push(slot);
            return Err(format!(
                "a call on ringbench_coord with badge {} (clients have 1..={n}, each parked once)",
                got.badge
            ));
        };
        self.parked[index] = Some(slot);
        Ok((index, got.msg.label, wire::words_of(&got.msg)))
    }

    fn answer(&mut self, index: usize, msg: &Message) -> Result<(), String> {
        let slot = self.parked[index]
            .take()
            .ok_or_else(|| format!("client {} is not parked", index + 1))?;
        self.free.push(slot);
        reply(slot, msg).map_err(|e| format!("reply to client {}: {e:?}", index + 1))
    }

    /// Waits until every client is parked (each calls once, READY).
    fn gather(&mut self) -> Result<(), String> {
        while self.parked.iter().any(Option::is_none) {
            self.receive()?;
        }
        Ok(())
    }

    /// Starts `run` on the first `n` clients and takes their reports;
    /// the TSC at the start and the reports.
    fn round(&mut self, n: usize, run: Run) -> Result<(u64, Vec<Report>), String> {
        let start = rdtsc();
        for index in 0..n {
            self.answer(index, &Message::new(JOB, &run.encode()))?;
        }
        let mut reports = Vec::with_capacity(n);
        let mut failed = None;
        for _ in 0..n {
            let (index, label, words) = self.receive()?;
            match (label, Report::decode(&words, run)) {
                (DONE, Ok(r)) => reports.push(r),
                (label, r) => {
                    failed = Some(format!(
                        "client {} did not finish its run of {run:?}: label {label}, {:?} (its console says why)",
                        index + 1,
                        r.err()
                    ))
                }
            }
        }
        failed.map_or(Ok((start, reports)), Err)
    }

    fn quit(&mut self) -> Result<(), String> {
        self.gather()?;
        for index in 0..self.parked.len() {
            self.answer(index, &Message::new(QUIT, &[]))?;
        }
        Ok(())
    }
}

fn leak(name: String) -> &'static str {
    Box::leak(name.into_boxed_str())
}

/// Runs every path at each of `counts` clients (those above the client
/// tasks the manifest starts are left out), `requests` per client, then
/// tells the clients to quit (with no counts, only that). Without client
/// tasks it does nothing.
pub fn run(counts: &[usize], requests: usize) -> Result<(), String> {
    let n = crate::config::TASK_NAMES
        .iter()
        .filter(|t| t.starts_with(CLIENT_TASK))
        .count();
    if n == 0 {
        return Ok(());
    }
    let mut clients = Clients {
        endpoint: Endpoint(crate::config::caps::RINGBENCH_COORD),
        parked: vec![None; n],
        free: (crate::config::caps::FIRST_FREE..crate::config::caps::FIRST_FREE + n)
            .rev()
            .collect(),
    };
    clients.gather()?;
    let result = (|| {
        if counts.is_empty() {
            return Ok(());
        }
        for path in Path::ALL {
            let run = Run { path, requests };
            clients.round(n, run)?;
            for &count in counts.iter().filter(|c| **c <= n) {
                let mut rounds = Vec::with_capacity(ROUNDS);
                for _ in 0..ROUNDS {
                    rounds.push(clients.round(count, run)?);
                }
                record(path, count, &rounds);
            }
        }
        println!("ringbench: ok: {n} clients, every request of every run answered as it must");
        Ok(())
    })();
    // The clients are told to quit whether or not the runs went well, so
    // the system ends either way.
    let quit = clients.quit();
    result.and(quit)
}

/// Prints the metrics of `count` clients' rounds (each its start and
/// the clients' reports).
fn record(path: Path, count: usize, rounds: &[(u64, Vec<Report>)]) {
    let p = path.prefix();
    let reports = || rounds.iter().flat_map(|(_, r)| r);
    let total: usize = reports().map(|r| r.latencies.len()).sum();
    let mut latency = Samples::new(leak(format!("{p}_dbsim_n{count}_request")), total);
    for l in reports().flat_map(|r| &r.latencies) {
        latency.push(*l);
    }
    latency.report();
    let mut per = Samples::new(leak(format!("{p}_dbsim_n{count}_per_op")), rounds.len());
    for (start, reports) in rounds {
        let end = reports.iter().map(|r| r.finished).max().unwrap_or(*start);
        let requests: usize = reports.iter().map(|r| r.latencies.len()).sum();
        per.push(end.saturating_sub(*start) / requests.max(1) as u64);
    }
    per.report();
}
