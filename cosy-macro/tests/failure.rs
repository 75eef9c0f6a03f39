//! Testing results for failure inside a compound: `is_err`, `is_ok`,
//! `is_err(x, NAME)` and signed comparisons, run on cosy-abi's executor
//! against memfs, whose `open` of a missing file fails with `ENOENT`.

use cosy_abi::memfs::{self, MemFs, O_CREAT, O_RDONLY, O_RDWR};
use cosy_abi::{code, Builder, Insn, OpResult, Program, Registers, Report, Target};
use cosy_macro::cosy;

/// Runs `compound` over a region holding `name` at offset 0; the report.
fn run(compound: &Builder, params: &[u64]) -> Report {
    let bytes = compound.build().expect("the compound builds");
    let mut region = [0u8; 64];
    region[..4].copy_from_slice(b"file");
    let mut backing = vec![0u8; 1024];
    let mut fs = MemFs::new(&mut backing, 128);
    let target = Target {
        ops: memfs::OPS,
        regions: &[region.len()],
        max_steps: 10_000,
    };
    let program = Program::verify(&bytes, &target, vec![Insn::EMPTY; 64]).expect("it verifies");
    let mut results = vec![OpResult::EMPTY; program.len()];
    let mut regs = Registers::with_params(params).unwrap();
    program.run(&mut fs, &mut [&mut region[..]], &mut regs, &mut results)
}

/// Opens "file" with the flags in r0 and says what the compound saw:
/// 1 failed with ENOENT, 2 failed otherwise, 3 succeeded.
fn classify() -> Builder {
    cosy!(memfs::OPS, |flags| {
        let name = buf(0, 0, 4);
        let fd = open(name, flags, 0);
        if is_err(fd, ENOENT) {
            return 1;
        }
        if is_err(fd) {
            return 2;
        }
        if is_ok(fd) {
            close(fd);
            return 3;
        }
        4
    })
}

#[test]
fn a_missing_file_is_seen_as_enoent_and_the_compound_goes_on() {
    let report = run(&classify(), &[O_RDONLY]);
    assert_eq!(report.exit_value, 1, "{report}");
    assert_eq!(report.failures, 1);
}

#[test]
fn a_created_file_is_seen_as_ok() {
    let report = run(&classify(), &[O_RDWR | O_CREAT]);
    assert_eq!(report.exit_value, 3, "{report}");
    assert_eq!(report.failures, 0);
}

#[test]
fn an_other_error_is_err_but_not_enoent() {
    // A read from a descriptor never opened: EBADF, not ENOENT.
    let compound = cosy!(memfs::OPS, || {
        let data = buf(0, 8, 8);
        let n = read(7, data, 8);
        let mut seen = 0;
        if is_err(n, ENOENT) {
            seen += 1;
        }
        if is_err(n, EBADF) {
            seen += 10;
        }
        if is_err(n) {
            seen += 100;
        }
        seen
    });
    assert_eq!(run(&compound, &[]).exit_value, 110);
}

#[test]
fn a_signed_comparison_sees_the_negated_code() {
    let compound = cosy!(memfs::OPS, || {
        let name = buf(0, 0, 4);
        let fd = open(name, O_RDONLY, 0);
        let mut seen = 0;
        if (fd as i64) < 0 {
            seen += 1;
        }
        // A service's code c reaches the register as -(0x8000 | c).
        if fd as i64 == -0x8002 {
            seen += 10;
        }
        if (fd as i64) > -0x8003 {
            seen += 100;
        }
        if fd > 0 {
            seen += 1000; // unsigned: a failure is a large u64
        }
        seen
    });
    assert_eq!(run(&compound, &[]).exit_value, 1111);
}

#[test]
fn the_executors_own_failures_have_names_too() {
    let compound = cosy!(memfs::OPS, |d| {
        let q = 10 / d;
        if is_err(q, DIVIDE_BY_ZERO) {
            return 7;
        }
        q
    });
    assert_eq!(run(&compound, &[0]).exit_value, 7);
    assert_eq!(run(&compound, &[2]).exit_value, 5);
}

#[test]
fn in_a_while_condition_and_negated() {
    // Retries the open with O_CREAT after the first failure.
    let compound = cosy!(memfs::OPS, || {
        let name = buf(0, 0, 4);
        let mut flags = O_RDONLY;
        let mut tries = 0;
        let mut fd = open(name, flags, 0);
        while !is_ok(fd) && tries < 3 {
            flags = O_RDWR | O_CREAT;
            fd = open(name, flags, 0);
            tries += 1;
        }
        tries
    });
    assert_eq!(run(&compound, &[]).exit_value, 1);
}

#[test]
fn named_codes_are_what_the_executor_writes() {
    assert_eq!(code::failed(code::service(memfs::ENOENT)) as i64, -0x8002);
    assert_eq!(
        code::failure_of(code::failed(code::service(2))),
        Some(0x8002)
    );
    assert_eq!(code::failure_of(5), None);
    assert_eq!(code::failure_of(u64::MAX - 70_000), None);
}

/// Opens "file" with the flags in r0; a `match` on the result:
/// fd + 10 when it opened, 1 for ENOENT, 2 for any other error.
fn matched() -> Builder {
    cosy!(memfs::OPS, |flags| {
        let name = buf(0, 0, 4);
        let mut seen = 0;
        match open(name, flags, 0) {
            Ok(fd) => {
                close(fd);
                seen = fd + 10;
            }
            Err(ENOENT) => seen = 1,
            Err(_) => seen = 2,
        }
        seen
    })
}

#[test]
fn a_match_on_a_result_takes_the_arm_of_its_error() {
    assert_eq!(run(&matched(), &[O_RDONLY]).exit_value, 1);
    assert_eq!(run(&matched(), &[O_RDWR | O_CREAT]).exit_value, 10);
}

#[test]
fn a_match_tests_arms_in_order_with_or_patterns_and_a_rest_arm() {
    let compound = cosy!(memfs::OPS, || {
        let data = buf(0, 8, 8);
        let mut seen = 0;
        let n = read(7, data, 8); // EBADF
        match n {
            Err(ENOENT | EBADF) => seen += 1,
            Err(_) => seen += 10,
            _ => seen += 100,
        }
        let mut m = 3;
        match m {
            Ok(v) => {
                m = 50; // the binding is a copy of the mutable scrutinee
                seen += v * 1000;
            }
            _ => {}
        }
        seen + m
    });
    assert_eq!(run(&compound, &[]).exit_value, 1 + 3000 + 50);
}
