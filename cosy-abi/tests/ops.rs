//! One test per op (spec §6), plus the run-time rules around them: error
//! modes, the budget, prepared runs, and the results area.

mod common;

use common::*;
use cosy_abi::{
    code, Builder, Cmp, Compound, Fault, Insn, OpResult, Outcome, Program, Registers, Report,
};

fn fault(op: u16, code: u16) -> Option<Fault> {
    Some(Fault { op: Some(op), code })
}

/// A one-op-then-exit compound computing `f(dst)`.
fn compute(f: impl FnOnce(&mut Builder, cosy_abi::Reg)) -> u64 {
    let mut b = Builder::new();
    let r = b.reg();
    f(&mut b, r);
    b.exit(r);
    let run = run(&b);
    assert_eq!(run.report.outcome, Outcome::Finished, "{}", run.report);
    run.report.exit_value
}

#[test]
fn call_passes_values_and_registers_and_stores_the_result() {
    let mut b = Builder::new();
    let (p, r) = (b.reg(), b.reg());
    b.call(r, SUM6, (p, 2, 3, 4, 5, -1));
    let run = run_with(&b, vec![], &[10]);
    assert_eq!(run.reg(r), 23);
    assert_eq!(
        run.service.calls,
        vec![(SUM6, vec![10, 2, 3, 4, 5, u64::MAX])]
    );
    assert_eq!(
        run.results[0],
        OpResult {
            value: 23,
            status: code::OK,
            runs: 1
        }
    );
}

#[test]
fn call_void_discards_the_result() {
    let mut b = Builder::new();
    b.call_void(SUM6, (1, 1, 1, 1, 1, 1));
    let run = run(&b);
    assert!(run.report.is_clean());
    assert_eq!(run.regs, Registers::new());
    assert_eq!(run.results[0].value, 6);
}

#[test]
fn call_hands_the_service_a_slice_of_the_region() {
    let mut b = Builder::new();
    let (buf, r) = (b.buf(1, 2, 3), b.reg());
    b.call(r, STAMP, (buf, 0xEE));
    let run = run_with(&b, vec![vec![0; 4], vec![0; 8]], &[]);
    assert_eq!(run.reg(r), 3);
    assert_eq!(run.regions[1], [0, 0, 0xEE, 0xEE, 0xEE, 0, 0, 0]);
    assert_eq!(run.regions[0], [0; 4]);
}

#[test]
fn call_error_is_a_negative_code_in_continue_mode() {
    let mut b = Builder::new();
    let r = b.reg();
    b.call(r, FAIL, (5,)).exit(r);
    let run = run(&b);
    let expected = 0u64.wrapping_sub(u64::from(code::SERVICE | 5));
    assert_eq!(run.report.outcome, Outcome::Finished);
    assert_eq!(run.report.exit_value, expected);
    assert_eq!(run.report.first_failure, fault(0, code::SERVICE | 5));
    assert_eq!(run.report.failures, 1);
    assert_eq!(
        run.results[0],
        OpResult {
            value: expected,
            status: code::SERVICE | 5,
            runs: 1
        }
    );
}

#[test]
fn call_error_stops_a_fail_fast_compound() {
    let mut b = Builder::new();
    b.fail_fast(true).call_void(FAIL, (7,)).exit(1);
    let run = run(&b);
    assert_eq!(run.report.outcome, Outcome::Stopped);
    assert_eq!(run.report.stop, fault(0, code::SERVICE | 7));
    assert_eq!(run.results[1].runs, 0);
}

/// `SERVICE | code` holds codes 1..=0x7FFF only. Error 0 must not read as
/// success (or as "service error 0"), and 0x8001 must not read as error 1.
#[test]
fn service_error_codes_outside_the_range_fail_with_their_own_status() {
    for (given, status) in [
        (0, code::SERVICE_BAD_ERROR),
        (0x8000, code::SERVICE_BAD_ERROR),
        (0x8001, code::SERVICE_BAD_ERROR),
        (0xFFFF, code::SERVICE_BAD_ERROR),
        (0x7FFF, code::SERVICE | 0x7FFF),
    ] {
        let mut b = Builder::new();
        let r = b.reg();
        b.call(r, FAIL, (given,)).exit(r);
        let run = run(&b);
        let negated = 0u64.wrapping_sub(u64::from(status));
        assert_eq!(run.report.first_failure, fault(0, status), "{given:#x}");
        assert_eq!(run.report.failures, 1);
        assert_eq!(
            (run.results[0].status, run.results[0].value),
            (status, negated)
        );
        assert_eq!(run.reg(r), negated);
    }
}

#[test]
fn service_asking_for_a_buffer_at_a_value_fails_the_op() {
    let mut b = Builder::new();
    b.call_void(MISUSE, (1,));
    assert_eq!(run(&b).results[0].status, code::NOT_A_BUFFER);
}

#[test]
fn register_relative_buffer_is_checked_at_run_time() {
    let mut b = Builder::new();
    let (off, r) = (b.reg(), b.reg());
    let byte = b.buf_at(0, off, 1, 1);
    b.call(r, PEEK, (byte, 0));
    let region = vec![10, 11, 12, 13];
    assert_eq!(run_with(&b, vec![region.clone()], &[2]).reg(r), 13);
    let run = run_with(&b, vec![region.clone()], &[3]);
    assert_eq!(run.results[0].status, code::REF_OUT_OF_BOUNDS);
    let run = run_with(&b, vec![region], &[u64::MAX]);
    assert_eq!(run.results[0].status, code::REF_OUT_OF_BOUNDS);
}

/// `register + offset` (and `+ len`) never wraps (spec §5): a sum past
/// 2^64 - 1 is out of bounds, not a small offset near the region's start.
#[test]
fn register_plus_offset_does_not_wrap() {
    let mut b = Builder::new();
    let (base, r) = (b.reg(), b.reg());
    // Wrapping, u64::MAX - 1 + 3 would be byte 1.
    let byte = b.buf_at(0, base, 3, 1);
    let word = b.buf_at(0, base, 0, 4);
    b.call(r, PEEK, (byte, 0))
        .fill(r, byte, 0xAA, 1)
        .crc32c(r, word, 4, 0);
    let region = vec![10, 11, 12, 13];
    let run = run_with(&b, vec![region.clone()], &[u64::MAX - 1]);
    let statuses: Vec<u16> = run.results.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [code::REF_OUT_OF_BOUNDS; 3]);
    assert_eq!(run.regions[0], region);
    assert_eq!(run.service.calls, vec![]);
}

#[test]
fn exit_stops_with_its_value() {
    let mut b = Builder::new();
    b.exit(42).exit(7);
    let run = run(&b);
    assert_eq!(
        (run.report.outcome, run.report.exit_value, run.report.steps),
        (Outcome::Finished, 42, 1)
    );
    assert_eq!(run.results[1].runs, 0);
}

#[test]
fn running_off_the_end_exits_with_zero() {
    let mut b = Builder::new();
    let r = b.reg();
    b.mov(r, 9);
    let run = run(&b);
    assert_eq!(
        (run.report.outcome, run.report.exit_value),
        (Outcome::Finished, 0)
    );
    assert_eq!(run.reg(r), 9);
}

#[test]
fn mov_copies_immediates_and_registers() {
    let mut b = Builder::new();
    let (p, r) = (b.reg(), b.reg());
    b.mov(r, p);
    assert_eq!(run_with(&b, vec![], &[77]).reg(r), 77);
    assert_eq!(
        compute(|b, r| {
            b.mov(r, -2);
        }),
        u64::MAX - 1
    );
}

#[test]
fn add_wraps() {
    assert_eq!(
        compute(|b, r| {
            b.add(r, u64::MAX, 2);
        }),
        1
    );
}

#[test]
fn sub_wraps() {
    assert_eq!(
        compute(|b, r| {
            b.sub(r, 1, 2);
        }),
        u64::MAX
    );
}

#[test]
fn mul_wraps() {
    assert_eq!(
        compute(|b, r| {
            b.mul(r, 1u64 << 63, 2);
        }),
        0
    );
    assert_eq!(
        compute(|b, r| {
            b.mul(r, 6, 7);
        }),
        42
    );
}

#[test]
fn div_is_unsigned() {
    assert_eq!(
        compute(|b, r| {
            b.div(r, 17, 5);
        }),
        3
    );
    assert_eq!(
        compute(|b, r| {
            b.div(r, -2, 2);
        }),
        u64::MAX / 2
    );
}

#[test]
fn div_by_zero_is_an_error() {
    let mut b = Builder::new();
    let r = b.reg();
    b.fail_fast(true).div(r, 1, 0);
    let run = run(&b);
    assert_eq!(run.report.stop, fault(0, code::DIVIDE_BY_ZERO));
    assert_eq!(
        run.reg(r),
        0u64.wrapping_sub(u64::from(code::DIVIDE_BY_ZERO))
    );
}

#[test]
fn rem_is_unsigned_and_rejects_zero() {
    assert_eq!(
        compute(|b, r| {
            b.rem(r, 17, 5);
        }),
        2
    );
    let mut b = Builder::new();
    let r = b.reg();
    b.rem(r, 1, 0);
    assert_eq!(run(&b).report.first_failure, fault(0, code::DIVIDE_BY_ZERO));
}

#[test]
fn and_or_xor() {
    assert_eq!(
        compute(|b, r| {
            b.and(r, 0b1100, 0b1010);
        }),
        0b1000
    );
    assert_eq!(
        compute(|b, r| {
            b.or(r, 0b1100, 0b1010);
        }),
        0b1110
    );
    assert_eq!(
        compute(|b, r| {
            b.xor(r, 0b1100, 0b1010);
        }),
        0b0110
    );
}

#[test]
fn shifts_past_the_width_give_zero() {
    assert_eq!(
        compute(|b, r| {
            b.shl(r, 3, 4);
        }),
        48
    );
    assert_eq!(
        compute(|b, r| {
            b.shl(r, 1, 63);
        }),
        1 << 63
    );
    assert_eq!(
        compute(|b, r| {
            b.shl(r, 1, 64);
        }),
        0
    );
    assert_eq!(
        compute(|b, r| {
            b.shr(r, -1, 60);
        }),
        0xF
    );
    assert_eq!(
        compute(|b, r| {
            b.shr(r, -1, 1u64 << 40);
        }),
        0
    );
}

#[test]
fn branch_on_every_comparison() {
    let minus_one = u64::MAX;
    let cases = [
        (Cmp::Eq, 3, 3, true),
        (Cmp::Eq, 3, 4, false),
        (Cmp::Ne, 3, 4, true),
        (Cmp::Ne, 3, 3, false),
        (Cmp::LtU, 3, 4, true),
        (Cmp::LtU, minus_one, 4, false),
        (Cmp::LeU, 4, 4, true),
        (Cmp::LeU, 5, 4, false),
        (Cmp::GtU, minus_one, 4, true),
        (Cmp::GtU, 4, 4, false),
        (Cmp::GeU, 4, 4, true),
        (Cmp::GeU, 3, 4, false),
        (Cmp::LtS, minus_one, 0, true),
        (Cmp::LtS, 0, minus_one, false),
        (Cmp::LeS, minus_one, minus_one, true),
        (Cmp::LeS, 1, minus_one, false),
        (Cmp::GtS, 0, minus_one, true),
        (Cmp::GtS, minus_one, 0, false),
        (Cmp::GeS, 0, 0, true),
        (Cmp::GeS, minus_one, 0, false),
    ];
    for (cmp, a, bv, taken) in cases {
        let mut b = Builder::new();
        let (ra, skip) = (b.reg(), b.label());
        b.branch(cmp, ra, bv, skip).exit(0);
        b.bind(skip).exit(1);
        let run = run_with(&b, vec![], &[a]);
        assert_eq!(run.report.exit_value == 1, taken, "{cmp:?} {a} {bv}");
        assert_eq!(run.results[0].value, u64::from(taken));
    }
}

#[test]
fn jump_skips_forward_and_to_the_end() {
    let mut b = Builder::new();
    let (r, over, end) = (b.reg(), b.label(), b.label());
    b.jump(over).mov(r, 1);
    b.bind(over).jump(end).mov(r, 2);
    b.bind(end);
    let run = run(&b);
    assert_eq!(
        (run.reg(r), run.report.steps, run.report.outcome),
        (0, 2, Outcome::Finished)
    );
}

#[test]
fn loop_op_adds_compares_and_jumps_back() {
    let mut b = Builder::new();
    let (i, n, top) = (b.reg(), b.reg(), b.label());
    b.bind(top).add(n, n, 1).loop_back(i, 3, Cmp::LtU, 10, top);
    let run = run(&b);
    // i: 3, 6, 9 jump back; 12 falls through.
    assert_eq!((run.reg(i), run.reg(n)), (12, 4));
    assert_eq!(
        run.results[1],
        OpResult {
            value: 12,
            status: code::OK,
            runs: 4
        }
    );
}

#[test]
fn loop_reads_its_limit_before_updating_the_counter() {
    // Found by the property test: with the counter as its own limit, the
    // comparison is against the old value (spec §4.1).
    let mut b = Builder::new();
    let (i, top) = (b.reg(), b.label());
    b.bind(top).loop_back(i, i, Cmp::Eq, i, top).exit(i);
    let run = run_with(&b, vec![], &[3]);
    assert_eq!((run.report.exit_value, run.report.steps), (6, 2));
}

#[test]
fn for_loop_runs_the_body_the_right_number_of_times() {
    for (init, limit, step, expected) in [
        (0u64, 10u64, 1u64, 10u64),
        (0, 10, 3, 4),
        (5, 5, 1, 0),
        (9, 2, 1, 0),
    ] {
        let mut b = Builder::new();
        let (i, n) = (b.reg(), b.reg());
        b.for_loop(i, init, Cmp::LtU, limit, step, |b| {
            b.add(n, n, 1);
        });
        assert_eq!(
            run(&b).reg(n),
            expected,
            "for i = {init}; i < {limit}; i += {step}"
        );
    }
}

#[test]
fn counting_down_uses_a_signed_comparison() {
    let mut b = Builder::new();
    let (i, n) = (b.reg(), b.reg());
    b.for_loop(i, 3, Cmp::GeS, 0, -1, |b| {
        b.add(n, n, i);
    });
    assert_eq!(run(&b).reg(n), 3 + 2 + 1);
}

#[test]
fn switch_jumps_through_the_table_or_to_the_default() {
    for (value, expected, chosen) in [
        (0u64, 10u64, 0u64),
        (1, 11, 1),
        (2, 12, 2),
        (3, 99, 3),
        (u64::MAX, 99, 3),
    ] {
        let mut b = Builder::new();
        let v = b.reg();
        let cases = [b.label(), b.label(), b.label()];
        let default = b.label();
        b.switch(v, &cases, default);
        for (i, case) in cases.iter().enumerate() {
            b.bind(*case).exit(10 + i as u64);
        }
        b.bind(default).exit(99);
        let run = run_with(&b, vec![], &[value]);
        assert_eq!(run.report.exit_value, expected, "switch({value})");
        assert_eq!(run.results[0].value, chosen);
        // The table's jumps are not executed: the switch goes straight on.
        assert_eq!(run.report.steps, 2);
    }
}

#[test]
fn copy_between_regions_and_within_one() {
    let mut b = Builder::new();
    let (src, dst, r) = (b.buf(0, 0, 4), b.buf(1, 1, 4), b.reg());
    b.copy(r, dst, src, 3);
    let run = run_with(&b, vec![vec![1, 2, 3, 4], vec![0; 6]], &[]);
    assert_eq!(
        (run.reg(r), &run.regions[1][..]),
        (3, &[0, 1, 2, 3, 0, 0][..])
    );

    // Overlapping, like memmove.
    let mut b = Builder::new();
    let (src, dst, r) = (b.buf(0, 0, 4), b.buf(0, 2, 4), b.reg());
    b.copy(r, dst, src, 4);
    let run = run_with(&b, vec![vec![1, 2, 3, 4, 5, 6]], &[]);
    assert_eq!(run.regions[0], [1, 2, 1, 2, 3, 4]);
}

#[test]
fn copy_more_than_a_buffer_holds_is_an_error() {
    let mut b = Builder::new();
    let (src, dst, r) = (b.buf(0, 0, 4), b.buf(0, 4, 2), b.reg());
    b.copy(r, dst, src, 3);
    let run = run_with(&b, vec![vec![7; 8]], &[]);
    assert_eq!(run.results[0].status, code::COUNT_TOO_LARGE);
    assert_eq!(run.regions[0], [7; 8]);
}

#[test]
fn fill_sets_bytes_from_an_immediate_or_a_register() {
    let mut b = Builder::new();
    let (p, r, buf) = (b.reg(), b.reg(), b.buf(0, 1, 4));
    b.fill(r, buf, p, 2);
    let run = run_with(&b, vec![vec![0; 6]], &[0x1AB]);
    assert_eq!(
        (run.reg(r), &run.regions[0][..]),
        (2, &[0, 0xAB, 0xAB, 0, 0, 0][..])
    );
}

#[test]
fn memcmp_orders_like_memcmp() {
    for (a, b_bytes, expected) in [
        ([1, 2, 3], [1, 2, 3], 0),
        ([1, 2, 3], [1, 3, 0], u64::MAX),
        ([2, 0, 0], [1, 9, 9], 1),
    ] {
        let mut b = Builder::new();
        let (x, y, r) = (b.buf(0, 0, 3), b.buf(1, 0, 3), b.reg());
        b.memcmp(r, x, y, 3);
        assert_eq!(
            run_with(&b, vec![a.to_vec(), b_bytes.to_vec()], &[]).reg(r),
            expected
        );
    }
}

#[test]
fn search_counts_matches_in_the_first_n_bytes() {
    let mut b = Builder::new();
    let (hay, needle, r, n) = (b.buf(0, 0, 16), b.buf(1, 0, 2), b.reg(), b.reg());
    b.search(r, hay, needle, n);
    let regions = || vec![b"ab-ab-ab-abab---".to_vec(), b"ab".to_vec()];
    assert_eq!(run_with(&b, regions(), &[0, 16]).reg(r), 5);
    assert_eq!(run_with(&b, regions(), &[0, 7]).reg(r), 2);
}

#[test]
fn crc32c_continues_from_a_seed() {
    let mut b = Builder::new();
    let (first, rest, r) = (b.buf(0, 0, 4), b.buf(0, 4, 5), b.reg());
    b.crc32c(r, first, 4, 0).crc32c(r, rest, 5, r).exit(r);
    let run = run_with(&b, vec![b"123456789".to_vec()], &[]);
    assert_eq!(run.report.exit_value, 0xE306_9283);
}

#[test]
fn continue_mode_records_every_failure_and_the_first() {
    let mut b = Builder::new();
    let r = b.reg();
    b.call_void(FAIL, (1,))
        .div(r, 1, 0)
        .call_void(FAIL, (2,))
        .exit(3);
    let run = run(&b);
    assert_eq!(run.report.outcome, Outcome::Finished);
    assert_eq!((run.report.failures, run.report.exit_value), (3, 3));
    assert_eq!(run.report.first_failure, fault(0, code::SERVICE | 1));
    assert_eq!(run.results[2].status, code::SERVICE | 2);
}

#[test]
fn the_budget_stops_an_endless_loop() {
    let mut b = Builder::new();
    let top = b.label();
    b.step_budget(50).bind(top).jump(top);
    let run = run(&b);
    assert_eq!(run.report.outcome, Outcome::Stopped);
    assert_eq!(run.report.stop, fault(0, code::BUDGET_EXHAUSTED));
    assert_eq!((run.report.steps, run.results[0].runs), (50, 50));
}

#[test]
fn the_server_caps_the_budget() {
    let mut b = Builder::new();
    let top = b.label();
    b.step_budget(u32::MAX).bind(top).jump(top);
    let program = Program::verify(
        &b.build().unwrap(),
        &cosy_abi::Target {
            ops: OPS,
            regions: &[],
            max_steps: 7,
        },
        vec![Insn::EMPTY; 1],
    )
    .unwrap();
    assert_eq!(program.budget(), 7);
    assert_eq!(run_program(&program, vec![], &[]).report.steps, 7);
}

#[test]
fn data_ops_pay_for_their_bytes() {
    // 1024 bytes cost 1 + 4 steps: a budget of 4 is not enough and the
    // fill must not happen at all.
    let mut b = Builder::new();
    let (buf, r) = (b.buf(0, 0, 1024), b.reg());
    b.step_budget(4).fill(r, buf, 1, 1024);
    let run = run_with(&b, vec![vec![0; 1024]], &[]);
    assert_eq!(
        (run.report.stop, run.report.steps),
        (fault(0, code::BUDGET_EXHAUSTED), 0)
    );
    assert!(run.regions[0].iter().all(|&x| x == 0));

    let mut b = Builder::new();
    let (buf, r) = (b.buf(0, 0, 1024), b.reg());
    b.step_budget(5).fill(r, buf, 1, 1024);
    let run = run_with(&b, vec![vec![0; 1024]], &[]);
    assert_eq!(
        (run.report.outcome, run.report.steps),
        (Outcome::Finished, 5)
    );
}

#[test]
fn prepared_compound_runs_again_with_new_parameters() {
    let mut b = Builder::new();
    let (n, sum, i) = (b.reg(), b.reg(), b.reg());
    b.for_loop(i, 0, Cmp::LtU, n, 1, |b| {
        b.add(sum, sum, i);
    });
    b.exit(sum);
    let program = verify(&b.build().unwrap(), &[]).unwrap();
    for n in [0u64, 1, 5, 100] {
        assert_eq!(
            run_program(&program, vec![], &[n]).report.exit_value,
            n * n.saturating_sub(1) / 2
        );
    }
}

/// What a run that cannot start reports (spec §9.3): stopped, at no op,
/// nothing run, no op failed.
fn cannot_start(code: u16) -> Report {
    Report {
        outcome: Outcome::Stopped,
        stop: Some(Fault { op: None, code }),
        first_failure: None,
        failures: 0,
        steps: 0,
        exit_value: 0,
    }
}

#[test]
fn a_prepared_compound_refuses_a_shrunk_region() {
    let mut b = Builder::new();
    let (p, buf) = (b.reg(), b.buf(0, 0, 8));
    b.call_void(STAMP, (buf, 1)).mov(p, 0);
    let mut bytes = b.build().unwrap();
    let program = verify(&bytes, &[8]).unwrap();
    let run = run_program(&program, vec![vec![0; 4]], &[5]);
    assert_eq!(run.report, cannot_start(code::REGION_TOO_SMALL));
    assert_eq!((run.regions[0].as_slice(), run.reg(p)), (&[0; 4][..], 5));
    let missing = run_program(&program, vec![], &[]);
    assert_eq!(missing.report, cannot_start(code::REGION_TOO_SMALL));
    // Both wrong: result slots are checked first.
    let report = program.run(
        &mut TestService::default(),
        &mut [],
        &mut Registers::new(),
        &mut [],
    );
    assert_eq!(report, cannot_start(code::RESULTS_TOO_SMALL));

    // On the wire: STOPPED, stop_code, stop_op 0xFFFF, no failure, 0 steps.
    let results_at = bytes.len() - 32 - 16 * program.len();
    Compound::new_checked(&mut bytes[..])
        .unwrap()
        .write_results(&run.report, &run.results);
    let header = &bytes[results_at..results_at + 20];
    let mut expected = [0u8; 20];
    expected[..10].copy_from_slice(&[2, 0, 0x15, 0, 0xFF, 0xFF, 0, 0, 0xFF, 0xFF]);
    assert_eq!(header, expected);
}

#[test]
fn too_few_result_slots_is_reported_not_a_panic() {
    let mut b = Builder::new();
    b.exit(1).exit(2);
    let program = verify(&b.build().unwrap(), &[]).unwrap();
    let report = program.run(
        &mut TestService::default(),
        &mut [],
        &mut Registers::new(),
        &mut [OpResult::EMPTY],
    );
    assert_eq!(report, cannot_start(code::RESULTS_TOO_SMALL));
}

/// A run that stops before its first op must not leave the previous
/// run's per-op results behind: the server reuses its result array for a
/// prepared compound and writes it back whole.
#[test]
fn a_run_that_stops_before_its_first_op_reads_as_never_run() {
    let mut b = Builder::new();
    let buf = b.buf(0, 0, 8);
    b.call_void(STAMP, (buf, 1)).exit(2);
    let mut bytes = b.build().unwrap();
    let program = verify(&bytes, &[8]).unwrap();
    let mut results = vec![OpResult::EMPTY; program.len()];
    let run = |region_len: usize, results: &mut [OpResult]| {
        let mut region = vec![0; region_len];
        program.run(
            &mut TestService::default(),
            &mut [&mut region[..]],
            &mut Registers::new(),
            results,
        )
    };
    assert!(run(8, &mut results).is_clean());
    assert_eq!(results[0].runs, 1);
    let report = run(4, &mut results);
    assert_eq!(report.stop.map(|f| f.code), Some(code::REGION_TOO_SMALL));
    assert_eq!(results, [OpResult::EMPTY; 2]);
    let mut c = Compound::new_checked(&mut bytes[..]).unwrap();
    c.write_results(&report, &results);
    assert_eq!(c.op_result(0), Some(OpResult::EMPTY));
    assert_eq!(c.op_result(1), Some(OpResult::EMPTY));

    // Too few slots: the ones given are reset all the same.
    let mut short = [OpResult {
        value: 9,
        status: code::OK,
        runs: 3,
    }];
    let report = run(8, &mut short);
    assert_eq!(report.stop.map(|f| f.code), Some(code::RESULTS_TOO_SMALL));
    assert_eq!(short, [OpResult::EMPTY]);
}

#[test]
fn results_are_written_back_into_the_compound() {
    let mut b = Builder::new();
    let r = b.reg();
    b.mov(r, 5).call(r, FAIL, (9,)).exit(r);
    let mut bytes = b.build().unwrap();
    let program = verify(&bytes, &[]).unwrap();
    let run = run_program(&program, vec![], &[]);
    let mut c = Compound::new_checked(&mut bytes[..]).unwrap();
    c.write_results(&run.report, &run.results);
    assert_eq!(c.report(), run.report);
    assert_eq!(
        c.op_result(0),
        Some(OpResult {
            value: 5,
            status: code::OK,
            runs: 1
        })
    );
    assert_eq!(c.op_result(1).unwrap().status, code::SERVICE | 9);
    assert_eq!(c.op_result(3), None);
    // A rewrite of the shared bytes after verification changes nothing.
    bytes[32] = 0xFF;
    assert_eq!(run_program(&program, vec![], &[]).report, run.report);
}

/// Ten STAMPs of 1 KiB, each 4 steps of work (1 KiB / 256) plus its
/// call and loop steps, in slices of 8 steps: a slice ends after two
/// calls' work (the first after one, as the loop's set-up takes two
/// steps), where steps alone would allow four; the run's
/// report, results and bytes are those of one unsliced run, and no work
/// is charged to the budget.
#[test]
fn a_call_s_work_ends_a_slice_sooner_but_changes_nothing_else() {
    let mut b = Builder::new();
    let (i, buf) = (b.reg(), b.buf(0, 0, 1024));
    b.for_loop(i, 0, Cmp::LtU, 10, 1, |b| {
        b.call_void(STAMP, (buf, 7));
    });
    let program = verify(&b.build().unwrap(), &[1024]).unwrap();
    let whole = run_program(&program, vec![vec![0; 1024]], &[]);
    let mut region = vec![0u8; 1024];
    let mut results = vec![OpResult::EMPTY; program.len()];
    let mut run = {
        let slices = [region.as_mut_slice()];
        program
            .start(&Registers::new(), &slices, &mut results)
            .unwrap()
    };
    let mut service = TestService::default();
    let mut calls_per_slice = vec![];
    let report = loop {
        let before = service.calls.len();
        let mut slices = [region.as_mut_slice()];
        let progress = program.resume(&mut run, &mut service, &mut slices, &mut results, 8);
        calls_per_slice.push(service.calls.len() - before);
        if let cosy_abi::Progress::Done(r) = progress {
            break r;
        }
    };
    assert_eq!(calls_per_slice, [1, 2, 2, 2, 2, 1]);
    assert_eq!(report, whole.report);
    assert_eq!(report.steps, whole.report.steps);
    assert_eq!(results, whole.results);
    assert_eq!(region, whole.regions[0]);
}

#[test]
fn a_run_in_slices_pauses_at_each_slice_and_ends_at_the_budget() {
    let mut b = Builder::new();
    b.step_budget(1000);
    let spin = b.label();
    b.bind(spin);
    b.jump(spin);
    let program = verify(&b.build().unwrap(), &[]).unwrap();
    let mut results = vec![OpResult::EMPTY; program.len()];
    let mut run = program.start(&Registers::new(), &[], &mut results).unwrap();
    let mut service = TestService::default();
    let mut paused_at = vec![];
    let report = loop {
        match program.resume(&mut run, &mut service, &mut [], &mut results, 128) {
            cosy_abi::Progress::Paused => paused_at.push(run.steps()),
            cosy_abi::Progress::Done(r) => break r,
        }
    };
    assert_eq!(paused_at, [128, 256, 384, 512, 640, 768, 896]);
    assert_eq!(report.outcome, Outcome::Stopped);
    assert_eq!(report.stop, fault(0, code::BUDGET_EXHAUSTED));
    assert_eq!(report.steps, 1000);
    assert_eq!(results[0].runs, 1000);
}
