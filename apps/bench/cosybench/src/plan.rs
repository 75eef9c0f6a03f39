//! The plan: which workloads run, how often and with what, one per line
//! of a small text file on the disk (`qemu/cosybench/*/plan`), so the
//! benchmark and its smoke test are the same task on different disks.
//!
//! ```text
//! # workload  rounds  parameters...
//! null-loop   201     2 4 8 16 32 64 128 256
//! copy        5       /cosy/copy.bin
//! grep        9       /cosy/grep-128k.bin /cosy/grep-2m.bin
//! dbsim       3       /cosy/db-64m.bin 3000 1-procs 4-procs
//! ls-l        9       /ls/5000
//! bonnie      1       /cosy/bonnie.bin 33554432 16384 4000
//! fs-ops      21      pread 1000 /fsops/read-1m.bin
//! ```
//!
//! `rounds` timed rounds follow one untimed warm-up round; null-loop's
//! parameters are loop lengths, copy's and grep's are files, dbsim's a
//! file, then numbers of reads per process and process counts
//! (`crate::dbsim`), ls-l's directories of copies (`crate::ls_l`),
//! bonnie's a file, its size, the bytes of its `putc` phase and its
//! seeks (`crate::bonnie`), fs-ops' an operation, how many of it one run
//! makes and the file or directory it works on (`crate::fs_ops`).

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use conflux_fs_client::{Error, Fs};
use conflux_fs_protocol::ops::O_RDONLY;

/// The plan file's largest size.
const MAX_PLAN: usize = 4096;

/// A workload of the Cosy papers this task runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    NullLoop,
    Copy,
    Grep,
    Dbsim,
    LsL,
    Bonnie,
    FsOps,
}

impl fmt::Display for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Workload::NullLoop => "null-loop",
            Workload::Copy => "copy",
            Workload::Grep => "grep",
            Workload::Dbsim => "dbsim",
            Workload::LsL => "ls-l",
            Workload::Bonnie => "bonnie",
            Workload::FsOps => "fs-ops",
        })
    }
}

/// One line of the plan.
#[derive(Debug)]
pub struct Step<'a> {
    pub workload: Workload,
    pub rounds: u32,
    pub params: Vec<&'a str>,
}

/// Why a plan line was not understood.
#[derive(Debug)]
pub enum PlanError<'a> {
    UnknownWorkload(&'a str),
    /// Rounds must be a whole number from 1 to 100,000.
    BadRounds(&'a str),
    /// A null-loop length must be a whole number from 1 to 100,000.
    BadLength(&'a str),
    NoParameters,
}

impl fmt::Display for PlanError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::UnknownWorkload(w) => {
                write!(
                    f,
                    "unknown workload `{w}` (known: null-loop, copy, grep, dbsim, ls-l, bonnie, fs-ops)"
                )
            }
            PlanError::BadRounds(r) => {
                write!(f, "rounds `{r}` must be a whole number from 1 to 100000")
            }
            PlanError::BadLength(n) => {
                write!(
                    f,
                    "null-loop length `{n}` must be a whole number from 1 to 100000"
                )
            }
            PlanError::NoParameters => write!(f, "no parameters after the rounds"),
        }
    }
}

impl<'a> Step<'a> {
    /// The step on `line`; `None` for a blank or comment line.
    pub fn parse(line: &'a str) -> Result<Option<Step<'a>>, PlanError<'a>> {
        let line = line.split('#').next().unwrap_or("");
        let mut words = line.split_whitespace();
        let Some(name) = words.next() else {
            return Ok(None);
        };
        let workload = match name {
            "null-loop" => Workload::NullLoop,
            "copy" => Workload::Copy,
            "grep" => Workload::Grep,
            "dbsim" => Workload::Dbsim,
            "ls-l" => Workload::LsL,
            "bonnie" => Workload::Bonnie,
            "fs-ops" => Workload::FsOps,
            other => return Err(PlanError::UnknownWorkload(other)),
        };
        let rounds = words.next().unwrap_or("");
        let rounds = rounds
            .parse()
            .ok()
            .filter(|r| (1..=100_000).contains(r))
            .ok_or(PlanError::BadRounds(rounds))?;
        let params: Vec<&str> = words.collect();
        if params.is_empty() {
            return Err(PlanError::NoParameters);
        }
        if workload == Workload::NullLoop {
            if let Some(bad) = params.iter().find(|p| length(p).is_none()) {
                return Err(PlanError::BadLength(bad));
            }
        }
        Ok(Some(Step {
            workload,
            rounds,
            params,
        }))
    }
}

/// A null-loop length.
pub fn length(word: &str) -> Option<u64> {
    word.parse().ok().filter(|n| (1..=100_000).contains(n))
}

/// The plan file's text (VAN: it is read once, untimed).
pub fn read(fs: &mut Fs, path: &str) -> Result<String, Error> {
    let fd = fs.open(path, O_RDONLY, 0)?;
    let mut bytes = alloc::vec![0u8; MAX_PLAN];
    let n = fs.read(fd, &mut bytes);
    fs.close(fd)?;
    bytes.truncate(n?);
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
