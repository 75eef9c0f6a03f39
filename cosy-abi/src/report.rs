//! What a run produced: the `Report` (results header, spec §9.1) and the
//! per-op `OpResult`s (spec §9.2), with their wire encoding.

use core::fmt;

use crate::code;
use crate::wire::compound::{rd, rd_u16, rd_u32, wr};
use crate::wire::{res, NO_OP, RESULTS_HEADER_LEN};

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u16)]
pub enum Outcome {
    /// Not run (a zeroed results area).
    #[default]
    NotRun = 0,
    /// Ran off the end, jumped to the end, or executed `EXIT`.
    Finished = 1,
    /// A fail-fast error or the step budget stopped it.
    Stopped = 2,
    /// The verifier refused it.
    Rejected = 3,
}

/// An error at a place: which op (if any) and which code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// Op index, `None` when the error is not about one op.
    pub op: Option<u16>,
    /// Wire error code (see [`crate::code`]).
    pub code: u16,
}

impl Fault {
    fn emit_op(fault: Option<Fault>) -> u16 {
        fault.and_then(|f| f.op).unwrap_or(NO_OP)
    }

    fn parse(code: u16, op: u16) -> Option<Fault> {
        (code != code::NONE).then_some(Fault {
            op: (op != NO_OP).then_some(op),
            code,
        })
    }
}

/// The results header of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Report {
    /// How it ended.
    pub outcome: Outcome,
    /// What stopped or rejected it.
    pub stop: Option<Fault>,
    /// The first op that failed.
    pub first_failure: Option<Fault>,
    /// Number of failed op executions.
    pub failures: u32,
    /// Steps used.
    pub steps: u32,
    /// `EXIT`'s operand, or 0.
    pub exit_value: u64,
}

impl Report {
    /// A report for a compound the verifier refused.
    pub fn rejected(code: u16, op: u16) -> Self {
        Report {
            outcome: Outcome::Rejected,
            stop: Fault::parse(code, op),
            ..Report::default()
        }
    }

    /// Whether the run finished without any failed op.
    pub fn is_clean(&self) -> bool {
        self.outcome == Outcome::Finished && self.failures == 0
    }

    pub(crate) fn emit(&self) -> [u8; RESULTS_HEADER_LEN] {
        let mut out = [0u8; RESULTS_HEADER_LEN];
        wr(&mut out, res::OUTCOME, &(self.outcome as u16).to_le_bytes());
        let stop_code = self.stop.map_or(code::NONE, |f| f.code);
        wr(&mut out, res::STOP_CODE, &stop_code.to_le_bytes());
        wr(
            &mut out,
            res::STOP_OP,
            &Fault::emit_op(self.stop).to_le_bytes(),
        );
        let first_code = self.first_failure.map_or(code::NONE, |f| f.code);
        wr(&mut out, res::FIRST_CODE, &first_code.to_le_bytes());
        wr(
            &mut out,
            res::FIRST_OP,
            &Fault::emit_op(self.first_failure).to_le_bytes(),
        );
        wr(&mut out, res::FAILURES, &self.failures.to_le_bytes());
        wr(&mut out, res::STEPS, &self.steps.to_le_bytes());
        wr(&mut out, res::EXIT_VALUE, &self.exit_value.to_le_bytes());
        out
    }

    pub(crate) fn parse(raw: &[u8; RESULTS_HEADER_LEN]) -> Self {
        let outcome = match rd_u16(raw, res::OUTCOME) {
            1 => Outcome::Finished,
            2 => Outcome::Stopped,
            3 => Outcome::Rejected,
            _ => Outcome::NotRun,
        };
        Report {
            outcome,
            stop: Fault::parse(rd_u16(raw, res::STOP_CODE), rd_u16(raw, res::STOP_OP)),
            first_failure: Fault::parse(rd_u16(raw, res::FIRST_CODE), rd_u16(raw, res::FIRST_OP)),
            failures: rd_u32(raw, res::FAILURES),
            steps: rd_u32(raw, res::STEPS),
            exit_value: u64::from_le_bytes(rd(raw, res::EXIT_VALUE)),
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.op {
            Some(op) => write!(f, "op {op}: {}", code::describe(self.code)),
            None => f.write_str(code::describe(self.code)),
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.outcome, self.stop) {
            (Outcome::NotRun, _) => return f.write_str("not run"),
            (Outcome::Rejected, Some(stop)) => return write!(f, "rejected at {stop}"),
            (Outcome::Rejected, None) => return f.write_str("rejected"),
            (Outcome::Finished, _) => write!(f, "finished with exit value {}", self.exit_value)?,
            (Outcome::Stopped, Some(stop)) => write!(f, "stopped at {stop}")?,
            (Outcome::Stopped, None) => f.write_str("stopped")?,
        }
        write!(f, " after {} steps", self.steps)?;
        if let Some(first) = self.first_failure {
            write!(f, "; {} failed op(s), the first at {first}", self.failures)?;
        }
        Ok(())
    }
}

/// One op's entry in the results area.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct OpResult {
    /// Last value the op produced.
    pub value: u64,
    /// 0 never ran, 1 ok, else its last error code.
    pub status: u16,
    /// Times it ran (saturating).
    pub runs: u32,
}

impl OpResult {
    /// A never-run entry, for initialising arrays.
    pub const EMPTY: OpResult = OpResult {
        value: 0,
        status: 0,
        runs: 0,
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_round_trips_and_reads_well() {
        let r = Report {
            outcome: Outcome::Stopped,
            stop: Some(Fault {
                op: Some(4),
                code: code::DIVIDE_BY_ZERO,
            }),
            first_failure: Some(Fault {
                op: Some(4),
                code: code::DIVIDE_BY_ZERO,
            }),
            failures: 1,
            steps: 9,
            exit_value: 0,
        };
        assert_eq!(Report::parse(&r.emit()), r);
        assert_eq!(
            std::format!("{r}"),
            "stopped at op 4: division by zero after 9 steps; 1 failed op(s), the first at op 4: division by zero"
        );
    }

    #[test]
    fn zeroes_read_as_not_run() {
        assert_eq!(Report::parse(&[0; RESULTS_HEADER_LEN]), Report::default());
    }
}
