//! A run's results in the service's own terms, for client libraries.
//!
//! The results area speaks in wire codes (`0x8002`, op index 3); an app
//! wants "op 3 (open): no such file or directory" and a `FsError` it can
//! match. [`RunReport`] is a run's results header with its faults named
//! that way, and [`op_values`] reads the per-op results as typed values.
//! Both read a compound the client placed in memory it shares with the
//! server, so they go through [`Compound::new_checked`] and never panic
//! on what the server (or a racing writer) left there: a field that does
//! not decode is reported as the raw code it is.

use core::fmt;

use crate::code;
use crate::report::{Fault, OpResult, Outcome, Report};
use crate::service::OpTable;
use crate::wire::{Compound, Opcode};

/// A service's error type, as [`crate::service_errors!`] defines one.
pub trait ServiceError: Copy + fmt::Debug + fmt::Display {
    /// The error with this service code (without [`code::SERVICE`]).
    fn from_code(code: u16) -> Option<Self>;
}

/// Why one op failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure<E> {
    /// The service failed the call with one of its errors.
    Service(E),
    /// A cosy-abi code: the executor failed the op (`DIVIDE_BY_ZERO`,
    /// `BUDGET_EXHAUSTED`, ...), or the service sent a code its error
    /// type does not know (kept whole, `SERVICE` bit included).
    Abi(u16),
}

impl<E: ServiceError> Failure<E> {
    /// The failure a status code stands for.
    pub fn from_code(status: u16) -> Self {
        if status & code::SERVICE == 0 {
            return Failure::Abi(status);
        }
        E::from_code(status & !code::SERVICE).map_or(Failure::Abi(status), Failure::Service)
    }

    /// The service's error, if it is one.
    pub fn service(self) -> Option<E> {
        match self {
            Failure::Service(e) => Some(e),
            Failure::Abi(_) => None,
        }
    }
}

impl<E: fmt::Display> fmt::Display for Failure<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Service(e) => write!(f, "{e}"),
            Failure::Abi(c) => write!(f, "{} (cosy-abi code {c:#06x})", code::describe(*c)),
        }
    }
}

/// The op at fault: where, which operation, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpFailure<E> {
    /// Its index in the compound; `None` when no op is at fault (a run
    /// that could not start, §9.3) or the results area was unreadable.
    pub op: Option<u16>,
    /// The operation's name: the service's (`"open"`) for a `CALL`, the
    /// op's own (`"div"`) otherwise, `"?"` if the op could not be read.
    pub name: &'static str,
    /// Why it failed.
    pub error: Failure<E>,
}

impl<E: fmt::Display> fmt::Display for OpFailure<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.op {
            Some(op) => write!(f, "op {op} ({}): {}", self.name, self.error),
            None => write!(f, "{}", self.error),
        }
    }
}

/// How a run ended, as an app branches on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunOutcome {
    /// Finished and no op failed.
    Clean,
    /// Finished, but ops failed on the way (a compound without
    /// `#![fail_fast]` goes on after a failure; see
    /// [`RunReport::first_failure`]).
    FinishedWithFailures,
    /// A failing op (`#![fail_fast]`) or the step budget stopped it.
    Stopped,
    /// The verifier refused it.
    Rejected,
    /// The results area says it never ran.
    NotRun,
}

/// A run's results header, typed; see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use = "a compound's ops can fail without stopping it: check `outcome` or `first_failure`"]
pub struct RunReport<E> {
    /// How it ended.
    pub outcome: RunOutcome,
    /// `EXIT`'s operand, or 0.
    pub exit_value: u64,
    /// Steps used.
    pub steps: u32,
    /// Failed op executions.
    pub failures: u32,
    /// What stopped or rejected it.
    pub stop: Option<OpFailure<E>>,
    /// The first op that failed.
    pub first_failure: Option<OpFailure<E>>,
}

impl<E: ServiceError> RunReport<E> {
    /// The report `summary` (the server's reply), with the ops at fault
    /// read from the compound's results area in `compound` (the bytes the
    /// client placed, `None` if it has none) and named from `ops`. The
    /// area is used only if it agrees with `summary` on the outcome and
    /// codes; otherwise the faults keep `op: None`.
    pub fn read(summary: &Report, compound: Option<&[u8]>, ops: OpTable<'_>) -> Self {
        let view = compound.and_then(|b| Compound::new_checked(b).ok());
        let area = view.as_ref().map(Compound::report);
        let agrees = |a: &Report| {
            a.outcome == summary.outcome
                && a.stop.map(|f| f.code) == summary.stop.map(|f| f.code)
                && a.failures == summary.failures
        };
        let located = area.filter(agrees).unwrap_or(*summary);
        let named = |fault: Option<Fault>| fault.map(|f| name_fault(view.as_ref(), ops, f));
        RunReport {
            outcome: run_outcome(summary),
            exit_value: summary.exit_value,
            steps: summary.steps,
            failures: summary.failures,
            stop: named(located.stop.or(summary.stop)),
            first_failure: named(located.first_failure),
        }
    }

    /// The report, or the first failure if any op failed: for a compound
    /// that does not test its own results, `run(..)?.clean()?`.
    pub fn clean(self) -> Result<Self, OpFailure<E>> {
        match (self.first_failure, self.stop) {
            (Some(f), _) | (None, Some(f)) => Err(f),
            (None, None) => Ok(self),
        }
    }
}

fn run_outcome(r: &Report) -> RunOutcome {
    match r.outcome {
        Outcome::Finished if r.failures == 0 => RunOutcome::Clean,
        Outcome::Finished => RunOutcome::FinishedWithFailures,
        Outcome::Stopped => RunOutcome::Stopped,
        Outcome::Rejected => RunOutcome::Rejected,
        Outcome::NotRun => RunOutcome::NotRun,
    }
}

/// `fault` with its op's name.
fn name_fault<T: AsRef<[u8]>, E: ServiceError>(
    view: Option<&Compound<T>>,
    ops: OpTable<'_>,
    fault: Fault,
) -> OpFailure<E> {
    let name = match (view, fault.op) {
        (Some(view), Some(op)) => op_name(view, ops, op),
        _ => "?",
    };
    OpFailure {
        op: fault.op,
        name,
        error: Failure::from_code(fault.code),
    }
}

/// The name of op `index` of `compound`: the service operation a `CALL`
/// names, else the op's own name; `"?"` if neither reads.
pub fn op_name<T: AsRef<[u8]>>(
    compound: &Compound<T>,
    ops: OpTable<'_>,
    index: u16,
) -> &'static str {
    let Some(op) = compound.op(index) else {
        return "?";
    };
    match Opcode::from_u8(op.code()) {
        Some(Opcode::Call) => ops.get(op.sub()).map_or("?", |spec| spec.name),
        Some(other) => other.name(),
        None => "?",
    }
}

/// One op's result after a run, typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpValue<E> {
    /// The op did not run.
    NotRun,
    /// Its last execution succeeded with this value.
    Ok(u64),
    /// Its last execution failed.
    Err(Failure<E>),
}

impl<E: ServiceError> OpValue<E> {
    /// The typed form of a per-op result.
    pub fn of(result: OpResult) -> Self {
        match result.status {
            code::NONE => OpValue::NotRun,
            code::OK => OpValue::Ok(result.value),
            status => OpValue::Err(Failure::from_code(status)),
        }
    }
}

/// Every op's result in `compound`'s results area, typed, in op order;
/// empty if the bytes are not a compound.
pub fn op_values<E: ServiceError>(compound: &[u8]) -> impl Iterator<Item = OpValue<E>> + '_ {
    let view = Compound::new_checked(compound).ok();
    let count = view.as_ref().map_or(0, Compound::op_count);
    (0..count).map(move |i| {
        view.as_ref()
            .and_then(|v| v.op_result(i))
            .map_or(OpValue::NotRun, OpValue::of)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memfs::{self, MemFs, O_RDONLY};
    use crate::{Builder, Insn, Program, Registers, Target};

    crate::service_errors! {
        /// memfs's codes, as a service's error type.
        MemError {
            /// No such file.
            NoEnt (NO_ENT) = 2, "no such file";
            /// Bad descriptor.
            BadFd (BAD_FD) = 9, "bad descriptor";
        }
    }

    /// Runs `b` over a region holding no files; the compound's bytes with
    /// their results area written, and the report.
    fn run(b: &Builder) -> (std::vec::Vec<u8>, Report) {
        let mut bytes = b.build().unwrap();
        let mut region = [0u8; 64];
        let mut backing = [0u8; 512];
        let mut fs = MemFs::new(&mut backing, 64);
        let target = Target {
            ops: memfs::OPS,
            regions: &[64],
            max_steps: 1000,
        };
        let program = Program::verify(&bytes, &target, [Insn::EMPTY; 16]).unwrap();
        let mut results = [OpResult::EMPTY; 16];
        let mut regs = Registers::new();
        let report = program.run(&mut fs, &mut [&mut region[..]], &mut regs, &mut results);
        Compound::new_unchecked(&mut bytes[..]).write_results(&report, &results[..program.len()]);
        (bytes, report)
    }

    /// `mov r0, 5; open("")` (missing) `; div r2, r0, 0; exit r0`.
    fn failing(fail_fast: bool) -> Builder {
        let mut b = Builder::new();
        if fail_fast {
            b.fail_fast(true);
        }
        let (x, fd, q) = (b.reg(), b.reg(), b.reg());
        let name = b.buf(0, 0, 4);
        b.mov(x, 5u64);
        b.call(fd, memfs::OPEN, (name, O_RDONLY, 0u64));
        b.div(q, x, 0u64);
        b.exit(x);
        b
    }

    /// The reply's summary: what the server sends in its IPC words.
    fn summary(r: &Report) -> Report {
        Report {
            stop: r.stop.map(|f| Fault { op: None, ..f }),
            first_failure: None,
            ..*r
        }
    }

    #[test]
    fn the_first_failure_is_named_with_the_services_error() {
        let (bytes, report) = run(&failing(false));
        let typed = RunReport::<MemError>::read(&summary(&report), Some(&bytes), memfs::OPS);
        assert_eq!(typed.outcome, RunOutcome::FinishedWithFailures);
        assert_eq!(typed.failures, 2);
        assert_eq!(typed.exit_value, 5);
        let first = typed.first_failure.unwrap();
        assert_eq!(first.op, Some(1));
        assert_eq!(first.name, "open");
        assert_eq!(first.error, Failure::Service(MemError::NoEnt));
        assert_eq!(std::format!("{first}"), "op 1 (open): no such file");
        assert_eq!(typed.clean(), Err(first));
    }

    #[test]
    fn a_fail_fast_stop_names_the_op_that_stopped_it() {
        let (bytes, report) = run(&failing(true));
        let typed = RunReport::<MemError>::read(&summary(&report), Some(&bytes), memfs::OPS);
        assert_eq!(typed.outcome, RunOutcome::Stopped);
        let stop = typed.stop.unwrap();
        assert_eq!((stop.op, stop.name), (Some(1), "open"));
        assert_eq!(typed.first_failure, Some(stop));
    }

    #[test]
    fn an_executor_failure_reads_as_its_cosy_abi_code() {
        let mut b = Builder::new();
        let q = b.reg();
        b.div(q, 1u64, 0u64);
        let (bytes, report) = run(&b);
        let typed = RunReport::<MemError>::read(&summary(&report), Some(&bytes), memfs::OPS);
        let first = typed.first_failure.unwrap();
        assert_eq!(first.error, Failure::Abi(code::DIVIDE_BY_ZERO));
        assert_eq!(
            std::format!("{first}"),
            "op 0 (div): division by zero (cosy-abi code 0x0010)"
        );
    }

    #[test]
    fn per_op_results_are_typed_values() {
        let (bytes, _) = run(&failing(false));
        let values: std::vec::Vec<_> = op_values::<MemError>(&bytes).collect();
        assert_eq!(
            values,
            [
                OpValue::Ok(5),
                OpValue::Err(Failure::Service(MemError::NoEnt)),
                OpValue::Err(Failure::Abi(code::DIVIDE_BY_ZERO)),
                OpValue::Ok(5),
            ]
        );
        assert_eq!(op_values::<MemError>(b"garbage").count(), 0);
    }

    #[test]
    fn an_unreadable_or_disagreeing_area_leaves_the_op_unknown() {
        let (mut bytes, report) = run(&failing(true));
        let sum = summary(&report);
        let typed = RunReport::<MemError>::read(&sum, None, memfs::OPS);
        let stop = typed.stop.unwrap();
        assert_eq!((stop.op, stop.name), (None, "?"));
        assert_eq!(stop.error, Failure::Service(MemError::NoEnt));
        // A server (or the client) garbling the area after the reply.
        bytes[0] = b'X';
        let typed = RunReport::<MemError>::read(&sum, Some(&bytes), memfs::OPS);
        assert_eq!(typed.stop.unwrap().op, None);
        assert_eq!(std::format!("{}", typed.stop.unwrap()), "no such file");
    }

    #[test]
    fn an_unknown_service_code_is_kept_whole() {
        assert_eq!(Failure::<MemError>::from_code(0x8063), Failure::Abi(0x8063));
        assert_eq!((codes::NO_ENT, codes::BAD_FD), (2, 9));
        assert_eq!(
            Failure::<MemError>::from_code(0x8009),
            Failure::Service(MemError::BadFd)
        );
    }
}
