//! The rings benchmark's many-client dbsim (FlexSC's server experiment:
//! requests/s and latency against N concurrent clients): the paths a
//! request can take ([`Path`]) and the messages between the leader
//! (`apps/bench/ringbench`, serving endpoint `ringbench_coord`) and its
//! client tasks (`apps/bench/ringbench-client`). As in dbsim's
//! multi-process runs ([`crate::job`], whose labels these are), a client
//! calls the leader to say it is ready and, after each run, what it
//! measured; each reply is its next run or the end, so an idle client is
//! blocked in its call and the leader starts N of them by replying in
//! turn.
//!
//! - `JOB`: `[path, requests]`: run `requests` dbsim requests through
//!   `path`, back to back.
//! - `DONE`: `[0, finished, latency...]`: the TSC when the last request
//!   was answered, then each request's latency in TSC cycles, in order
//!   (`[1]`: the run failed; the client's console says why). A run is at
//!   most [`MAX_REQUESTS`] requests, so that every latency fits one
//!   message and the leader's percentiles are over every request of
//!   every client, not a summary of summaries.

use alloc::vec::Vec;

use conflux_abi::ipc::MAX_WORDS;

use crate::work::Work;

pub use crate::job::{DONE, JOB, QUIT, READY};

/// The file every dbsim request reads and writes (the manifest
/// generates it: `ringbench.toml`).
pub const DB_FILE: &str = "/ring/db-1m.bin";
/// Its 4 KiB blocks.
pub const DB_BLOCKS: u64 = 256;
/// Reads per dbsim request (and half as many writes): 48 operations,
/// well inside a ring compound's step limit.
pub const DB_READS: u64 = 32;

/// The dbsim request of process `k` (0: the leader; a client: its number,
/// 1..), each from its own block sequence.
pub fn work(k: u64) -> Work {
    Work {
        reads: DB_READS,
        blocks: DB_BLOCKS,
        seed: crate::work::seed(k),
    }
}

/// Requests in one client's run: what one `DONE` carries.
pub const MAX_REQUESTS: usize = MAX_WORDS - 2;

/// How a request travels to the file server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// One synchronous IPC per operation.
    Calls,
    /// The whole request as one compound, by IPC.
    Compound,
    /// Each operation its own ring entry.
    RingOps,
    /// The whole request as one compound ring entry.
    RingCompound,
}

impl Path {
    pub const ALL: [Path; 4] = [
        Path::Calls,
        Path::Compound,
        Path::RingOps,
        Path::RingCompound,
    ];

    /// The metric prefix the runner names the configuration by
    /// (`qemu/runner/src/bench/rings.rs`).
    pub fn prefix(self) -> &'static str {
        match self {
            Path::Calls => "sync",
            Path::Compound => "syncc",
            Path::RingOps => "ring",
            Path::RingCompound => "ringc",
        }
    }

    /// Its number in a `JOB`.
    pub fn code(self) -> u64 {
        self as u64
    }

    pub fn from_code(code: u64) -> Option<Path> {
        Path::ALL.into_iter().find(|p| p.code() == code)
    }
}

/// One client's run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub path: Path,
    pub requests: usize,
}

/// Why a message was not understood.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunError {
    /// Fewer words than the message needs.
    Short,
    UnknownPath(u64),
    /// Zero requests, or more than [`MAX_REQUESTS`].
    Requests(u64),
    /// A `DONE` whose first word says the run failed.
    Failed,
    /// A `DONE` with a different number of latencies than requests run.
    Latencies {
        got: usize,
        want: usize,
    },
}

impl Run {
    pub fn encode(self) -> [u64; 2] {
        [self.path.code(), self.requests as u64]
    }

    pub fn decode(words: &[u64]) -> Result<Run, RunError> {
        let [path, requests, ..] = *words else {
            return Err(RunError::Short);
        };
        let path = Path::from_code(path).ok_or(RunError::UnknownPath(path))?;
        let requests = usize::try_from(requests)
            .ok()
            .filter(|n| (1..=MAX_REQUESTS).contains(n))
            .ok_or(RunError::Requests(requests))?;
        Ok(Run { path, requests })
    }
}

/// What a client measured in a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The TSC when its last request was answered.
    pub finished: u64,
    /// Each request's latency, TSC cycles.
    pub latencies: Vec<u64>,
}

impl Report {
    /// `DONE`'s words.
    pub fn encode(&self) -> Vec<u64> {
        let mut words = Vec::with_capacity(2 + self.latencies.len());
        words.extend([0, self.finished]);
        words.extend(&self.latencies);
        words
    }

    /// A `DONE` for `run`.
    pub fn decode(words: &[u64], run: Run) -> Result<Report, RunError> {
        match words {
            [0, finished, latencies @ ..] if latencies.len() == run.requests => Ok(Report {
                finished: *finished,
                latencies: latencies.to_vec(),
            }),
            [0, _, latencies @ ..] => Err(RunError::Latencies {
                got: latencies.len(),
                want: run.requests,
            }),
            [0] | [] => Err(RunError::Short),
            _ => Err(RunError::Failed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn a_run_comes_back_as_it_went_for_every_path() {
        for path in Path::ALL {
            let run = Run { path, requests: 7 };
            assert_eq!(Run::decode(&run.encode()), Ok(run));
        }
        let most = Run {
            path: Path::RingOps,
            requests: MAX_REQUESTS,
        };
        assert_eq!(Run::decode(&most.encode()), Ok(most));
    }

    #[test]
    fn a_bad_run_is_refused_with_its_reason() {
        assert_eq!(Run::decode(&[0]), Err(RunError::Short));
        assert_eq!(Run::decode(&[4, 1]), Err(RunError::UnknownPath(4)));
        assert_eq!(Run::decode(&[0, 0]), Err(RunError::Requests(0)));
        let past = MAX_REQUESTS as u64 + 1;
        assert_eq!(Run::decode(&[0, past]), Err(RunError::Requests(past)));
    }

    #[test]
    fn a_report_carries_every_latency_and_fits_one_message() {
        let run = Run {
            path: Path::Calls,
            requests: MAX_REQUESTS,
        };
        let report = Report {
            finished: 99,
            latencies: (0..MAX_REQUESTS as u64).collect(),
        };
        let words = report.encode();
        assert_eq!(words.len(), MAX_WORDS);
        assert_eq!(Report::decode(&words, run), Ok(report));
    }

    #[test]
    fn a_failed_or_short_report_is_named() {
        let run = Run {
            path: Path::Calls,
            requests: 2,
        };
        assert_eq!(Report::decode(&[1], run), Err(RunError::Failed));
        assert_eq!(Report::decode(&[], run), Err(RunError::Short));
        assert_eq!(
            Report::decode(&[0, 5, 1], run),
            Err(RunError::Latencies { got: 1, want: 2 })
        );
        assert_eq!(
            Report::decode(&vec![0, 5, 1, 2], run),
            Ok(Report {
                finished: 5,
                latencies: vec![1, 2]
            })
        );
    }
}
