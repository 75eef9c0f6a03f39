//! Each compound here is also compiled as the ordinary Rust closure it is
//! written as; for many inputs the compound's exit value on cosy-abi's
//! reference interpreter must equal what Rust computes. That checks the
//! whole subset (arithmetic, conditions, every loop form, break and
//! continue, match) against Rust's own meaning of the same code.

use cosy_abi::memfs::{self, MemFs};
use cosy_abi::wire::Opcode;
use cosy_abi::{crc32c, Builder, Insn, OpResult, Program, Registers, Report, Target};
use cosy_macro::cosy;

/// The service operation the bodies call, as plain Rust (memfs's `nop`).
fn nop() -> u64 {
    0
}

/// The same closure as Rust and as a compound.
macro_rules! both {
    (|$($p:ident),*| $body:block) => {{
        #[allow(unused_mut, unused_variables, unused_assignments, clippy::all)]
        let native = |$($p: u64),*| -> u64 { $body };
        (native, cosy!(memfs::OPS, |$($p),*| $body))
    }};
}

/// Runs `compound` with `params` and a 64-byte region; the report.
fn run_with(compound: &Builder, params: &[u64], region: &mut [u8]) -> Report {
    let bytes = compound.build().expect("the compound builds");
    let mut backing = vec![0u8; 1024];
    let mut fs = MemFs::new(&mut backing, 128);
    let target = Target {
        ops: memfs::OPS,
        regions: &[region.len()],
        max_steps: 10_000_000,
    };
    let program = Program::verify(&bytes, &target, vec![Insn::EMPTY; 512]).expect("it verifies");
    let mut results = vec![OpResult::EMPTY; program.len()];
    let mut regs = Registers::with_params(params).unwrap();
    program.run(&mut fs, &mut [region], &mut regs, &mut results)
}

fn run(compound: &Builder, params: &[u64]) -> u64 {
    let report = run_with(compound, params, &mut [0u8; 64]);
    assert!(report.is_clean(), "{report}");
    report.exit_value
}

fn opcodes(compound: &Builder) -> Vec<Opcode> {
    let (ops, _) = compound.reprs().unwrap();
    ops.iter()
        .map(|op| Opcode::from_u8(op.code).unwrap())
        .collect()
}

const SMALL: [u64; 9] = [0, 1, 2, 3, 5, 7, 10, 13, 40];

#[test]
fn gcd_with_while() {
    let (native, compound) = both!(|a, b| {
        let mut x = a;
        let mut y = b;
        while y != 0 {
            let t = x % y;
            x = y;
            y = t;
        }
        x
    });
    for a in SMALL {
        for b in [0, 4, 6, 9, 35, 120] {
            assert_eq!(run(&compound, &[a, b]), native(a, b), "gcd({a}, {b})");
        }
    }
}

#[test]
fn collatz_with_if_else_and_logic() {
    let (native, compound) = both!(|n| {
        let mut x = n;
        let mut steps = 0;
        while x != 1 && steps < 1000 {
            if x % 2 == 0 {
                x /= 2;
            } else {
                x = 3 * x + 1;
            }
            steps += 1;
        }
        steps
    });
    for n in 1..60 {
        assert_eq!(run(&compound, &[n]), native(n), "collatz({n})");
    }
}

#[test]
fn for_with_continue_and_break() {
    let (native, compound) = both!(|n| {
        let mut s = 0;
        for i in 0..n {
            if i % 3 == 0 {
                continue;
            }
            if i > 50 {
                break;
            }
            s += i * i;
        }
        s
    });
    for n in [0, 1, 4, 20, 51, 52, 100] {
        assert_eq!(run(&compound, &[n]), native(n), "n = {n}");
    }
}

#[test]
fn inclusive_ranges_and_steps() {
    let (native, compound) = both!(|a, b| {
        let mut s = 0;
        for i in (a..=b).step_by(3) {
            s += i;
        }
        for j in a..b {
            s ^= j << 1;
        }
        for k in a..=a {
            s += k * 1000;
        }
        s
    });
    for a in SMALL {
        for b in SMALL {
            assert_eq!(run(&compound, &[a, b]), native(a, b), "({a}, {b})");
        }
    }
}

#[test]
fn a_limit_the_body_changes_is_read_once() {
    let (native, compound) = both!(|n| {
        let mut limit = n;
        let mut count = 0;
        for _ in 0..limit {
            limit += 1;
            count += 1;
        }
        count * 100 + limit
    });
    for n in [0, 1, 9] {
        assert_eq!(run(&compound, &[n]), native(n), "n = {n}");
    }
}

#[test]
fn labeled_loops() {
    let (native, compound) = both!(|n| {
        let mut c = 0;
        'outer: for i in 0..n {
            for j in 0..n {
                if j > i {
                    continue 'outer;
                }
                if i * j > 20 {
                    break 'outer;
                }
                c += 1;
            }
        }
        c
    });
    for n in [0, 1, 3, 6, 10] {
        assert_eq!(run(&compound, &[n]), native(n), "n = {n}");
    }
}

#[test]
fn loops_with_an_exit_test_at_the_end_or_in_the_middle() {
    let (native, compound) = both!(|n| {
        let mut i = 0;
        loop {
            i += 1;
            if i * i > n {
                break;
            }
        }
        let mut j = 0;
        loop {
            if j >= n {
                break;
            }
            j += 3;
        }
        i * 1000 + j
    });
    for n in SMALL {
        assert_eq!(run(&compound, &[n]), native(n), "n = {n}");
    }
}

#[test]
fn dense_match_is_a_switch() {
    let (native, compound) = both!(|x| {
        let mut r = 0;
        match x {
            0 => r = 10,
            1 | 2 => r = 20,
            3..=5 => {
                r = x * 100;
            }
            7 => {}
            _ => r = 7,
        }
        r
    });
    assert!(opcodes(&compound).contains(&Opcode::Switch));
    for x in 0..12 {
        assert_eq!(run(&compound, &[x]), native(x), "x = {x}");
    }
    assert_eq!(run(&compound, &[u64::MAX]), native(u64::MAX));
}

#[test]
fn match_far_from_zero_is_a_switch_on_the_difference() {
    let (native, compound) = both!(|x| {
        let mut r = 1;
        match x {
            100 => r = 2,
            101..104 => r = 3,
            104 => return 99,
            _ => {}
        }
        r
    });
    let ops = opcodes(&compound);
    assert!(ops.contains(&Opcode::Switch) && ops.contains(&Opcode::Sub));
    for x in (0..3).chain(95..110) {
        assert_eq!(run(&compound, &[x]), native(x), "x = {x}");
    }
}

#[test]
fn sparse_match_is_a_chain_of_branches() {
    let (native, compound) = both!(|x| {
        let mut r = 0;
        match x {
            1 => r = 5,
            1000 | 70_000 => r = 6,
            5000..=5999 => r = 7,
            _ => r = 8,
        }
        r
    });
    assert!(!opcodes(&compound).contains(&Opcode::Switch));
    for x in [
        0, 1, 2, 999, 1000, 1001, 4999, 5000, 5500, 5999, 6000, 70_000,
    ] {
        assert_eq!(run(&compound, &[x]), native(x), "x = {x}");
    }
}

#[test]
fn conditions_short_circuit() {
    let (native, compound) = both!(|a, b| {
        let mut r = 0;
        if (a < b || a == 7) && !(b >= 10) {
            r = 1;
        } else if a > b || (a != 0 && b <= 3) {
            r = 2;
        } else if a == b {
            r = 3;
        }
        r
    });
    for a in SMALL {
        for b in SMALL {
            assert_eq!(run(&compound, &[a, b]), native(a, b), "({a}, {b})");
        }
    }
}

#[test]
fn arithmetic_temporaries_and_early_return() {
    let k = 3u64;
    let (native, compound) = both!(|a, b, c| {
        if a > 30 {
            return a * 2;
        }
        let mut x = (a + b) * (b + c) - (a * c) / (b + 1);
        x = (x + 1) * (x % 5 + 2);
        x = b + x * k;
        let y = !x ^ (a << 3 | c >> 1) & 0xFF;
        let x = y % 1000 + x;
        x
    });
    for a in [0, 1, 7, 31] {
        for b in [0, 2, 9] {
            for c in [1, 4, 11] {
                assert_eq!(
                    run(&compound, &[a, b, c]),
                    native(a, b, c),
                    "({a}, {b}, {c})"
                );
            }
        }
    }
}

#[test]
fn service_calls_in_a_loop() {
    let (native, compound) = both!(|n| {
        let mut s = 0;
        for _ in 0..n {
            s += nop();
            nop();
            s += 1;
        }
        s
    });
    for n in [0, 1, 256] {
        assert_eq!(run(&compound, &[n]), native(n));
    }
    // One CALL per `nop()`, in a counted loop with a single LOOP op.
    let ops = opcodes(&compound);
    assert_eq!(ops.iter().filter(|&&o| o == Opcode::Call).count(), 2);
    assert_eq!(ops.iter().filter(|&&o| o == Opcode::Loop).count(), 1);
}

#[test]
fn a_let_zero_outside_loops_costs_no_op() {
    let compound = cosy!(memfs::OPS, |n| {
        let mut total = 0;
        for i in 0..n {
            let mut t = 0;
            t += i;
            total += t;
        }
        total
    });
    // MOV i, BR, MOV t (inside the loop it must be reset), ADD, ADD, LOOP, EXIT.
    use Opcode::*;
    assert_eq!(opcodes(&compound), [Mov, Br, Mov, Add, Add, Loop, Exit]);
    assert_eq!(run(&compound, &[10]), 45);
}

#[test]
fn builtins_and_walking_buffers() {
    let compound = cosy!(memfs::OPS, |byte| {
        let src = buf(0, 0, 16);
        let dst = buf(0, 16, 16);
        let needle = buf(0, 0, 2);
        fill(dst, byte, 16);
        copy(dst, src, 8);
        let same = memcmp(src, dst, 8);
        let hits = search(dst, needle, 16);
        let mut crc = 0;
        for off in (0..64).step_by(16) {
            let window = buf_at(0, off, 0, 16);
            crc = crc32c(window, 16, crc);
        }
        if same != 0 {
            return 1 << 40;
        }
        crc | hits << 32
    });
    let mut region = [0u8; 64];
    region[..16].copy_from_slice(b"abcdefghabcdefgh");
    let report = run_with(&compound, &[b'x'.into()], &mut region);
    assert!(report.is_clean(), "{report}");
    let expected = *b"abcdefghabcdefghabcdefghxxxxxxxx";
    assert_eq!(&region[..32], &expected[..]);
    let crc = region.chunks(16).fold(0, crc32c);
    // "ab" once in dst: "abcdefgh" then the fill.
    assert_eq!(report.exit_value, u64::from(crc) | 1 << 32);
}

#[test]
fn settings_reach_the_header() {
    let plain = cosy!(memfs::OPS, || { nop() });
    let set = cosy!(memfs::OPS, || {
        #![fail_fast]
        #![step_budget(77)]
        nop()
    });
    let (plain, set) = (plain.build().unwrap(), set.build().unwrap());
    let (plain, set) = (
        cosy_abi::Compound::new_checked(&plain[..]).unwrap(),
        cosy_abi::Compound::new_checked(&set[..]).unwrap(),
    );
    assert!(!plain.fail_fast() && set.fail_fast());
    assert_eq!((plain.step_budget(), set.step_budget()), (1 << 16, 77));
}
