//! Fuzz target: arbitrary bytes → verify → execute against `MemFs`.
//!
//! Whatever the bytes, the server side must not panic, must not run past
//! the budget it granted, and must not touch memory outside the regions it
//! passed in (checked with guard bytes around each region). A verified
//! program must also behave the same when run again from the same state:
//! prepared compounds rely on that.
//!
//! The setup (region sizes, file names, parameters) matches
//! `cosy-abi/examples/fuzz_seeds.rs`, which writes the seed corpus, and
//! `cosy-abi/tests/corpus.rs`, which checks the seeds still verify.
//!
//! The client's side reads the same bytes back (`cosy_abi::typed`): from
//! whatever the buffer holds, that must not panic either, and from a
//! results area the server wrote it must name the ops the report names.
#![no_main]

use cosy_abi::memfs::{self, MemFs};
use cosy_abi::typed::{op_values, RunReport};
use cosy_abi::{Compound, Insn, OpResult, Outcome, Program, Registers, Report, Target};
use libfuzzer_sys::fuzz_target;

const REGION_LENS: [usize; 2] = [256, 4096];
const MAX_STEPS: u32 = 20_000;
const MAX_OPS: usize = 128;
const GUARD: usize = 64;
const GUARD_BYTE: u8 = 0xA5;
const PARAMS: [u64; 3] = [6, 7, 8];

cosy_abi::service_errors! {
    /// memfs's codes as a service error type, for the typed read-back.
    MemError {
        /// No such file.
        NoEnt (NO_ENT) = 2, "no such file";
        /// Bad descriptor.
        BadFd (BAD_FD) = 9, "bad descriptor";
    }
}

/// The client's typed reading of `bytes` with `summary` as the reply:
/// never panics, and names no op past the compound's count.
fn read_back(summary: &Report, bytes: &[u8]) -> RunReport<MemError> {
    let typed = RunReport::<MemError>::read(summary, Some(bytes), memfs::OPS);
    let values = op_values::<MemError>(bytes).count();
    for fault in [typed.stop, typed.first_failure].into_iter().flatten() {
        assert!(fault.op.is_none_or(|op| usize::from(op) < values));
        let _ = fault.to_string();
    }
    typed
}

/// Region 0 holds the file names the seeds use; region 1 a byte pattern.
fn initial_regions() -> Vec<u8> {
    let mut arena = vec![GUARD_BYTE; GUARD + REGION_LENS[0] + GUARD + REGION_LENS[1] + GUARD];
    let r0 = &mut arena[GUARD..GUARD + REGION_LENS[0]];
    r0.fill(0);
    r0[0..2].copy_from_slice(b"in");
    r0[16..19].copy_from_slice(b"out");
    r0[32..34].copy_from_slice(b"db");
    let start = GUARD + REGION_LENS[0] + GUARD;
    for (i, b) in arena[start..start + REGION_LENS[1]].iter_mut().enumerate() {
        *b = (i * 7 % 251) as u8;
    }
    arena
}

fn run_once(
    program: &Program<&mut [Insn]>,
    arena: &mut [u8],
    backing: &mut [u8],
) -> (Report, Vec<OpResult>, Registers) {
    let mut fs = MemFs::new(backing, 2048);
    fs.create(b"in", &[0x11; 300]).unwrap();
    fs.create(b"db", &[0x22; 2048]).unwrap();
    let (g0, rest) = arena.split_at_mut(GUARD);
    let (r0, rest) = rest.split_at_mut(REGION_LENS[0]);
    let (g1, rest) = rest.split_at_mut(GUARD);
    let (r1, g2) = rest.split_at_mut(REGION_LENS[1]);
    let mut results = vec![OpResult::EMPTY; program.len()];
    let mut regs = Registers::with_params(&PARAMS).unwrap();
    let report = program.run(&mut fs, &mut [r0, r1], &mut regs, &mut results);
    for guard in [&*g0, &*g1, &*g2] {
        assert!(
            guard.iter().all(|&b| b == GUARD_BYTE),
            "a guard byte changed"
        );
    }
    (report, results, regs)
}

fuzz_target!(|data: &[u8]| {
    let target = Target {
        ops: memfs::OPS,
        regions: &REGION_LENS,
        max_steps: MAX_STEPS,
    };
    let mut storage = [Insn::EMPTY; MAX_OPS];
    let program = match Program::verify(data, &target, &mut storage[..]) {
        Ok(program) => program,
        Err(e) => {
            // Every rejection has a verifier code and a message.
            assert!((0x0100..0x0200).contains(&e.code()));
            assert!(!e.to_string().is_empty());
            let _ = read_back(&Report::rejected(e.code(), 0xFFFF), data);
            // Written wherever the results area can be located, and
            // nothing touched where it cannot.
            let mut copy = data.to_vec();
            if Compound::new_unchecked(&mut copy[..]).write_rejection(&e) {
                let c = Compound::new_unchecked(&copy[..]);
                assert_eq!(c.report().outcome, Outcome::Rejected);
            } else {
                assert_eq!(copy, data);
            }
            return;
        }
    };
    assert!(program.budget() <= MAX_STEPS);

    let mut arena = initial_regions();
    let mut backing = vec![0u8; 8 * 2048];
    let (report, results, regs) = run_once(&program, &mut arena, &mut backing);
    assert!(report.steps <= program.budget(), "ran past the budget");
    let runs: u64 = results.iter().map(|r| u64::from(r.runs)).sum();
    assert!(runs <= u64::from(report.steps), "more op runs than steps");
    match report.outcome {
        Outcome::Finished => assert!(report.stop.is_none()),
        Outcome::Stopped => assert!(report.stop.is_some()),
        other => panic!("run ended as {other:?}"),
    }

    // Same program, same starting state: same everything.
    let mut arena2 = initial_regions();
    let mut backing2 = vec![0u8; 8 * 2048];
    let again = run_once(&program, &mut arena2, &mut backing2);
    assert_eq!((report, &results, regs), (again.0, &again.1, again.2));
    assert_eq!(arena, arena2);
    assert_eq!(backing, backing2);

    // The results area round-trips.
    let mut copy = data.to_vec();
    let mut c = Compound::new_checked(&mut copy[..]).unwrap();
    c.write_results(&report, &results);
    assert_eq!(c.report(), report);

    // Read back as a client does, the ops at fault where the report says.
    let typed = read_back(&report, &copy);
    assert_eq!(typed.stop.map(|f| f.op), report.stop.map(|f| f.op));
    assert_eq!(
        typed.first_failure.map(|f| f.op),
        report.first_failure.map(|f| f.op)
    );
    assert_eq!(op_values::<MemError>(&copy).count(), results.len());
});
