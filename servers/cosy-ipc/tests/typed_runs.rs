//! A run's reply and results area read back as a client reads them
//! (`RunReply::typed`): compounds against the file server's real op
//! table run on a stand-in service that fails as the file server does,
//! their results written with the server's own `write_results`, then
//! decoded from the bytes and the reply's words alone.

use conflux_cosy_ipc::{write_results, RunReply};
use conflux_fs_protocol::{ops, FsError};
use cosy_abi::typed::{Failure, OpValue, RunOutcome};
use cosy_abi::{
    Args, Builder, CallError, Insn, OpResult, OpTable, Program, Registers, Service, Target,
};

/// Answers `open` with NotFound and everything else with 7.
struct MissingFiles;

impl Service for MissingFiles {
    fn ops(&self) -> OpTable<'static> {
        ops::TABLE
    }

    fn call(&mut self, opcode: u16, _: &mut Args<'_, '_>) -> Result<u64, CallError> {
        match opcode {
            ops::OPEN => Err(FsError::NotFound.into()),
            _ => Ok(7),
        }
    }
}

/// Places `b` at offset 256 of a control region, runs it as a server
/// would and returns the region, where the compound is and the reply.
fn serve(b: &Builder) -> (Vec<u8>, (usize, usize), RunReply) {
    let bytes = b.build().unwrap();
    let at = (256, bytes.len());
    let mut control = vec![0u8; 4096];
    control[at.0..at.0 + at.1].copy_from_slice(&bytes);
    let target = Target {
        ops: ops::TABLE,
        regions: &[4096],
        max_steps: 100,
    };
    let program = Program::verify(&bytes, &target, vec![Insn::EMPTY; 16]).unwrap();
    let mut results = vec![OpResult::EMPTY; program.len()];
    let mut scratch = vec![0u8; 4096];
    let report = program.run(
        &mut MissingFiles,
        &mut [&mut scratch[..]],
        &mut Registers::new(),
        &mut results,
    );
    write_results(&mut control, at.0 as u64, at.1 as u64, &report, &results);
    // The reply travels as words; decode it from them as the client does.
    let reply = RunReply::from_words(RunReply::of(&report).to_words());
    (control, at, reply)
}

/// stat(a); open(path) -> fd; read(fd, data, 16); exit 3.
fn missing_file(fail_fast: bool) -> Builder {
    let mut b = Builder::new();
    b.fail_fast(fail_fast);
    let (fd, n) = (b.reg(), b.reg());
    let path = b.buf(0, 0, 8);
    let out = b.buf(0, 64, 128);
    b.call_void(ops::STAT, (path, out));
    b.call(fd, ops::OPEN, (path, ops::O_RDONLY, 0u64));
    b.call(n, ops::READ, (fd, out, 16u64));
    b.exit(3u64);
    b
}

#[test]
fn a_fail_fast_compound_on_a_missing_file_is_an_error_naming_open() {
    let (control, at, reply) = serve(&missing_file(true));
    let compound = &control[at.0..at.0 + at.1];
    let err = reply
        .typed::<FsError>(Some(compound), ops::TABLE)
        .unwrap_err();
    assert_eq!((err.op, err.name), (Some(1), "open"));
    assert_eq!(err.error, Failure::Service(FsError::NotFound));
    assert_eq!(err.to_string(), "op 1 (open): no such file or directory");
}

#[test]
fn a_compound_that_goes_on_reports_its_first_failure() {
    let (control, at, reply) = serve(&missing_file(false));
    let compound = &control[at.0..at.0 + at.1];
    let report = reply.typed::<FsError>(Some(compound), ops::TABLE).unwrap();
    assert_eq!(report.outcome, RunOutcome::FinishedWithFailures);
    assert_eq!(report.exit_value, 3);
    let first = report.first_failure.unwrap();
    assert_eq!((first.op, first.name), (Some(1), "open"));
    assert_eq!(report.clean().unwrap_err(), first);
    let values: Vec<_> = cosy_abi::typed::op_values::<FsError>(compound).collect();
    assert_eq!(
        values,
        [
            OpValue::Ok(7),
            OpValue::Err(Failure::Service(FsError::NotFound)),
            OpValue::Ok(7),
            OpValue::Ok(3),
        ]
    );
}

#[test]
fn a_clean_run_reads_nothing_but_the_reply() {
    let mut b = Builder::new();
    b.exit(9u64);
    let (_, _, reply) = serve(&b);
    // No compound bytes at all: a clean run needs none.
    let report = reply.typed::<FsError>(None, ops::TABLE).unwrap();
    assert_eq!(report.outcome, RunOutcome::Clean);
    assert_eq!(report.exit_value, 9);
    assert!(report.clean().is_ok());
}

#[test]
fn the_step_budget_stops_a_run_as_an_error_at_the_op_it_reached() {
    let mut b = Builder::new();
    b.step_budget(3);
    let top = b.label();
    b.bind(top);
    b.call_void(ops::NOP, ());
    b.jump(top);
    let (control, at, reply) = serve(&b);
    let err = reply
        .typed::<FsError>(Some(&control[at.0..at.0 + at.1]), ops::TABLE)
        .unwrap_err();
    assert_eq!(err.error, Failure::Abi(cosy_abi::code::BUDGET_EXHAUSTED));
    assert_eq!((err.op, err.name), (Some(1), "jump"));
}
