//! The IPC shape every Cosy server shares (`servers/fs/server`, `servers/net/server`):
//! session labels, how a buffer operand travels in a message word, what a
//! compound run replies, and a request's words read once and counted.
//!
//! A client's endpoint capability carries a badge the manifest gives it;
//! a server keys all of the client's state by it. Connecting hands the
//! server the client's *control region* (capability transfer): it holds
//! compounds with their results and is the staging area through which
//! per-call requests copy their data. Further regions (Cosy's fast
//! buffers) are attached the same way and are numbered 1, 2, ... in
//! buffer operands and compound buffer refs; the control region is 0.
//!
//! | label | words in | reply words | what |
//! |---|---|---|---|
//! | [`CONNECT`] | version; capability: control region | region bytes, step limit, op limit | (re)start a session; an old one is dropped |
//! | [`ATTACH`] | capability: a data region | region number | map a data region |
//! | [`DETACH`] | — | — | end the session, unmap every region |
//! | [`RUN`] | offset, length, params… | [`RunReply`] | verify and run the compound at `offset` of region 0 |
//! | [`PREPARE`] | offset, length | handle | verify once, keep it |
//! | [`RUN_PREPARED`] | handle, params… | [`RunReply`] | run a prepared compound with new parameters |
//! | [`RELEASE`] | handle | — | forget a prepared compound |
//! | [`SHUTDOWN`] | — | — | stop the server (who may ask is the server's rule) |
//! | [`RING`] | region number | depth, step limit | use an attached data region, formatted by the client, as the session's rings (`cosy_abi::ring`, `docs/rings.md`) |
//! | [`RING_ENTER`] | flags ([`RING_WAIT`]) | — | the doorbell: serve the rings now; with `RING_WAIT`, answer once a completion waits |
//! | [`CLIENT_GONE`] | badge | 1 if a session ended, else 0 | the supervisor: that client's task ended; end its session |
//! | [`VAN_BASE`] + op | the op's operands | value | one operation of the server's op table |
//!
//! A reply's label is its status: [`OK`]; the code a compound op would
//! report for the same failure (`0x8000 | error` for the server's own
//! errors, a `cosy_abi::code` such as `REF_OUT_OF_BOUNDS` for a malformed
//! operand); or [`REJECTED`] `| verify code` for a compound the verifier
//! refused (word 0: the op index, or `0xFFFF`).
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

#[cfg(feature = "client")]
extern crate alloc;

#[cfg(feature = "client")]
pub mod client;
#[cfg(feature = "client")]
pub mod client_ring;
mod compound;
#[cfg(feature = "server")]
pub mod regions;
#[cfg(feature = "server")]
pub mod replies;
pub mod retry;
pub mod slots;
mod words;

use cosy_abi::typed::{OpFailure, RunOutcome, RunReport, ServiceError};
use cosy_abi::{Fault, OpTable, Outcome, Report};

pub use compound::{verify_at, write_results, Refused};
pub use words::{Request, TooManyWords, Words, PARAMS};

/// The protocol version a client names when it connects.
pub const VERSION: u64 = 1;

/// Start a session with the control region (capability attached).
pub const CONNECT: u32 = 1;
/// Add a data region (capability attached).
pub const ATTACH: u32 = 2;
/// End the session.
pub const DETACH: u32 = 3;
/// Verify and run a compound.
pub const RUN: u32 = 4;
/// Verify a compound and keep it by handle.
pub const PREPARE: u32 = 5;
/// Run a prepared compound.
pub const RUN_PREPARED: u32 = 6;
/// Forget a prepared compound.
pub const RELEASE: u32 = 7;
/// Stop the server (for power-off and the end of a test); each server
/// says who may ask (the file server: badges with its `ADMIN` bit).
pub const SHUTDOWN: u32 = 8;
/// Use an attached data region (word 0: its number), which the client
/// formatted with `cosy_abi::ring::Parts::format`, as the session's
/// submission and completion rings. Reply words: the ring's depth and the
/// step limit of one compound entry.
pub const RING: u32 = 9;
/// The rings' doorbell (word 0: flags): the client submitted and the
/// server asked to be woken (`RingClient::needs_signal`). With
/// [`RING_WAIT`], the call is answered only once a completion waits on
/// the completion ring (the client set its signal-me flag first).
pub const RING_ENTER: u32 = 10;
/// [`RING_ENTER`]'s flag: answer once a completion waits.
pub const RING_WAIT: u64 = 1;
/// The supervisor says a client is gone (word 0: its badge); only a
/// caller with the supervisor's badge (`conflux_abi::ipc::SUPERVISOR_BADGE`)
/// may ask. The server ends that client's session as a reconnect would;
/// reply word 0: 1 if there was one. The same label as
/// `conflux_abi::ipc::CLIENT_GONE_LABEL`, which every session-keeping
/// server answers.
pub const CLIENT_GONE: u32 = 0x2_0000;
/// Per-call operations: label `VAN_BASE + op`.
pub const VAN_BASE: u32 = 0x100;

/// Reply status: done.
pub const OK: u32 = 0;
/// Reply status bit: the verifier refused the compound; the low 16 bits
/// are its code (`cosy_abi::code`).
pub const REJECTED: u32 = 0x1_0000;

/// The most regions a session has: the control region and data regions.
pub const MAX_REGIONS: usize = 4;

/// The most compounds one session keeps prepared at once (PREPARE past it
/// is refused `SessionFull`; RELEASE makes room).
pub const MAX_PREPARED: usize = 4;

/// A buffer operand of a per-call request: `len` bytes at `offset` of
/// region `region`, packed in one word (offset bits 0..32, length 32..56,
/// region 56..64). The server checks it against the region like any
/// compound buffer ref.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufArg {
    /// Region number (0: the control region).
    pub region: u8,
    /// Byte offset in the region.
    pub offset: u32,
    /// Bytes, below 16 MiB.
    pub len: u32,
}

impl BufArg {
    /// The largest length a packed operand can carry.
    pub const MAX_LEN: u32 = (1 << 24) - 1;

    /// The packed word; `None` if `len` does not fit.
    pub fn pack(self) -> Option<u64> {
        (self.len <= Self::MAX_LEN).then(|| {
            u64::from(self.region) << 56 | u64::from(self.len) << 32 | u64::from(self.offset)
        })
    }

    /// Unpacks any word (every word is some operand; the server checks
    /// the range against the region).
    pub fn unpack(word: u64) -> BufArg {
        BufArg {
            region: (word >> 56) as u8,
            len: ((word >> 32) & u64::from(Self::MAX_LEN)) as u32,
            offset: word as u32,
        }
    }
}

/// What a compound run replies, in words 0..4 (see [`RunReply::typed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunReply {
    /// `cosy_abi::Outcome` as its wire number.
    pub outcome: u16,
    /// The code that stopped it, 0 if it finished.
    pub stop_code: u16,
    /// Failed op executions.
    pub failures: u32,
    /// Steps used.
    pub steps: u32,
    /// `EXIT`'s operand.
    pub exit_value: u64,
}

impl RunReply {
    /// The reply to a run that ended with `report`.
    pub fn of(report: &cosy_abi::Report) -> RunReply {
        RunReply {
            outcome: report.outcome as u16,
            stop_code: report.stop.map_or(0, |f| f.code),
            failures: report.failures,
            steps: report.steps,
            exit_value: report.exit_value,
        }
    }

    /// The reply words.
    pub fn to_words(self) -> [u64; 3] {
        [
            u64::from(self.outcome)
                | u64::from(self.stop_code) << 16
                | u64::from(self.failures) << 32,
            u64::from(self.steps),
            self.exit_value,
        ]
    }

    /// Reads reply words.
    pub fn from_words(w: [u64; 3]) -> RunReply {
        RunReply {
            outcome: w[0] as u16,
            stop_code: (w[0] >> 16) as u16,
            failures: (w[0] >> 32) as u32,
            steps: w[1] as u32,
            exit_value: w[2],
        }
    }
}

impl RunReply {
    /// The reply as a results header; it carries no op indices, so its
    /// stop has `op: None` and it has no first failure.
    pub fn summary(&self) -> Report {
        let outcome = match self.outcome {
            1 => Outcome::Finished,
            2 => Outcome::Stopped,
            3 => Outcome::Rejected,
            _ => Outcome::NotRun,
        };
        Report {
            outcome,
            stop: (self.stop_code != 0).then_some(Fault {
                op: None,
                code: self.stop_code,
            }),
            first_failure: None,
            failures: self.failures,
            steps: self.steps,
            exit_value: self.exit_value,
        }
    }

    /// The run typed in the service's terms (`E`, operations named from
    /// `ops`): `Err` with the op at fault if it stopped (a `#![fail_fast]`
    /// failure, or the step budget), so `?` works; else the report, whose
    /// `first_failure` names the first op that failed in a compound that
    /// goes on after failures. `compound` is the compound's bytes with
    /// its results area, read only if the run was not clean.
    pub fn typed<E: ServiceError>(
        &self,
        compound: Option<&[u8]>,
        ops: OpTable<'_>,
    ) -> Result<RunReport<E>, OpFailure<E>> {
        let summary = self.summary();
        let compound = compound.filter(|_| !summary.is_clean());
        let report = RunReport::read(&summary, compound, ops);
        match (report.outcome, report.stop) {
            (RunOutcome::Stopped, Some(stop)) => Err(stop),
            _ => Ok(report),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buf_args_pack_exactly() {
        let a = BufArg {
            region: 2,
            offset: 0x1234_5678,
            len: 0x00AB_CDEF,
        };
        let w = a.pack().unwrap();
        assert_eq!(w, 0x02AB_CDEF_1234_5678);
        assert_eq!(BufArg::unpack(w), a);
        let too_long = BufArg { len: 1 << 24, ..a };
        assert_eq!(too_long.pack(), None);
    }

    #[test]
    fn run_replies_round_trip() {
        let r = RunReply {
            outcome: 2,
            stop_code: 0x11,
            failures: 7,
            steps: 1_000_000,
            exit_value: u64::MAX,
        };
        assert_eq!(RunReply::from_words(r.to_words()), r);
    }
}
