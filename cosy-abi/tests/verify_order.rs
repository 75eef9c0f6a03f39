//! Which rule the verifier reports when several are broken (spec §10.1).
//!
//! Each test breaks rules r0..rn of one compound at once and checks that,
//! with rules rk..rn broken, rk is the one reported, for every k. Breaks
//! are applied from the last to the first, so when two touch the same
//! field the earlier rule's value is the one left.

mod common;

use common::*;
use cosy_abi::wire::{Kind, OpRepr, Opcode, OperandRepr as O, RefRepr, NO_REG};
use cosy_abi::{Cmp, Expect, Field, Insn, OpError, OpName, Program, RefError, VerifyError};

/// A compound and what the server verifies it against.
#[derive(Clone)]
struct Setup {
    bytes: Vec<u8>,
    /// Number of 64-byte regions.
    regions: usize,
    /// The server's op limit.
    max_ops: usize,
}

impl Setup {
    fn new(ops: &[OpRepr], refs: &[RefRepr]) -> Self {
        Setup {
            bytes: bytes(ops, refs),
            regions: 1,
            max_ops: 16,
        }
    }

    fn verify(&self) -> Result<Program<Vec<Insn>>, VerifyError> {
        let lens = vec![64; self.regions];
        Program::verify(&self.bytes, &target(&lens), vec![Insn::EMPTY; self.max_ops])
    }
}

/// One broken rule: how to break it, and the error it must produce.
type Rule = (fn(&mut Setup), VerifyError);

fn assert_order(base: Setup, rules: &[Rule]) {
    assert!(base.verify().is_ok(), "the unbroken compound must verify");
    for k in 0..rules.len() {
        let mut setup = base.clone();
        for (brk, _) in rules[k..].iter().rev() {
            brk(&mut setup);
        }
        let expected = rules[k].1;
        assert_eq!(setup.verify().unwrap_err(), expected, "rules {k}.. broken");
    }
}

/// Byte offset of op `i`.
const fn op(i: usize) -> usize {
    32 + 64 * i
}

/// Byte offset of ref `j` in a compound of `ops` ops.
const fn rf(ops: usize, j: usize) -> usize {
    op(ops) + 16 * j
}

fn exit0() -> OpRepr {
    OpRepr::new(Opcode::Exit).operands(&[O::imm(0)])
}

fn op_err(index: u16, name: OpName, error: OpError) -> VerifyError {
    VerifyError::Op { index, name, error }
}

const BR: OpName = OpName::Builtin(Opcode::Br);

#[test]
fn header_rules_in_header_order_then_the_servers_limits() {
    let rules: [Rule; 8] = [
        (
            |s| s.bytes[3] = b'X',
            VerifyError::BadMagic { found: *b"COSX" },
        ),
        (
            |s| s.bytes[4] = 2,
            VerifyError::UnsupportedVersion { major: 2, minor: 0 },
        ),
        (|s| s.bytes[6] = 2, VerifyError::UnknownFlags { flags: 2 }),
        (
            |s| [s.bytes[21], s.bytes[25]] = [1, 1],
            VerifyError::HeaderReserved { offset: 21 },
        ),
        (
            |s| s.bytes.truncate(143),
            VerifyError::BufferTooShort {
                declared: 144,
                available: 143,
            },
        ),
        (|s| s.bytes[16] = 0, VerifyError::ZeroBudget),
        (
            |s| s.regions = 17,
            VerifyError::TooManyRegions { count: 17 },
        ),
        (
            |s| s.max_ops = 0,
            VerifyError::TooManyOps { count: 1, max: 0 },
        ),
    ];
    assert_order(Setup::new(&[exit0()], &[]), &rules);
}

#[test]
fn a_length_mismatch_is_reported_before_a_short_buffer() {
    let mut s = Setup::new(&[exit0()], &[]);
    s.bytes[12] = 2;
    s.bytes.truncate(143);
    assert_eq!(
        s.verify().unwrap_err(),
        VerifyError::LengthMismatch {
            declared: 144,
            expected: 224
        }
    );
}

#[test]
fn ops_in_index_order_then_unused_refs() {
    let add = OpRepr::new(Opcode::Add)
        .dst(0)
        .operands(&[O::reg(1), O::imm(0)]);
    let base = Setup::new(&[exit0(), add, exit0(), exit0()], &[buf_ref(0)]);
    let rules: [Rule; 3] = [
        (
            |s| s.bytes[op(1) + 16] = 99,
            op_err(
                1,
                OpName::Builtin(Opcode::Add),
                OpError::BadRegister {
                    operand: 0,
                    reg: 99,
                },
            ),
        ),
        (
            |s| s.bytes[op(3)] = 0x99,
            op_err(3, OpName::Unknown(0x99), OpError::UnknownOpcode),
        ),
        (
            |s| s.bytes[rf(4, 0)] = 5,
            VerifyError::Ref {
                index: 0,
                error: RefError::UnknownRegion {
                    region: 5,
                    regions: 1,
                },
            },
        ),
    ];
    assert_order(base, &rules);
}

/// `BR EQ r1, 0 -> 1`: every kind of rule one op can break, in order.
#[test]
fn within_an_op_fields_then_operands_then_sub_then_target() {
    let br = OpRepr::new(Opcode::Br)
        .sub(Cmp::Eq as u16)
        .target(1)
        .operands(&[O::reg(1), O::imm(0)]);
    let rules: [Rule; 10] = [
        (
            |s| s.bytes[op(0)] = 0x99,
            op_err(0, OpName::Unknown(0x99), OpError::UnknownOpcode),
        ),
        (
            |s| s.bytes[op(0) + 8] = 1,
            op_err(
                0,
                BR,
                OpError::Reserved {
                    field: Field::Reserved,
                },
            ),
        ),
        (
            |s| s.bytes[op(0) + 5] |= 0x10,
            op_err(
                0,
                BR,
                OpError::Reserved {
                    field: Field::Kinds,
                },
            ),
        ),
        (
            |s| s.bytes[op(0) + 16 + 8 * 5] = 1,
            op_err(
                0,
                BR,
                OpError::Reserved {
                    field: Field::Operand(5),
                },
            ),
        ),
        (
            |s| s.bytes[op(0) + 1] = 3,
            op_err(0, BR, OpError::Reserved { field: Field::Dst }),
        ),
        (
            // Operand 2 becomes an immediate: three operands.
            |s| s.bytes[op(0) + 4] |= 1 << 4,
            op_err(
                0,
                BR,
                OpError::ArgCount {
                    expected: 2,
                    found: 3,
                },
            ),
        ),
        (
            |s| s.bytes[op(0) + 16] = 99,
            op_err(
                0,
                BR,
                OpError::BadRegister {
                    operand: 0,
                    reg: 99,
                },
            ),
        ),
        (
            // Operand 1 becomes a buffer ref.
            |s| s.bytes[op(0) + 4] |= 3 << 2,
            op_err(
                0,
                BR,
                OpError::OperandKind {
                    operand: 1,
                    expected: Expect::Value,
                    found: Kind::Ref,
                },
            ),
        ),
        (
            |s| s.bytes[op(0) + 2] = 99,
            op_err(0, BR, OpError::BadComparison { value: 99 }),
        ),
        (
            |s| s.bytes[op(0) + 6] = 5,
            op_err(
                0,
                BR,
                OpError::BadTarget {
                    target: 5,
                    op_count: 1,
                },
            ),
        ),
    ];
    assert_order(Setup::new(&[br], &[]), &rules);
}

/// A `CALL`'s service opcode is checked after the op's reserved fields and
/// before its shape; a buffer ref's fields in the order of §5's checks.
#[test]
fn a_call_and_its_buffer_ref() {
    let peek = OpRepr::new(Opcode::Call)
        .dst(0)
        .sub(PEEK)
        .operands(&[O::buf(0), O::imm(0)]);
    let name = OpName::Call("peek");
    let ref_err = |error| {
        op_err(
            0,
            name,
            OpError::Ref {
                operand: 0,
                index: 0,
                error,
            },
        )
    };
    let rules: [Rule; 8] = [
        (
            // Named by its opcode: the unknown one, broken below, is in it.
            |s| s.bytes[op(0) + 8] = 1,
            op_err(
                0,
                OpName::CallUnknown(50),
                OpError::Reserved {
                    field: Field::Reserved,
                },
            ),
        ),
        (
            |s| s.bytes[op(0) + 2] = 50,
            op_err(
                0,
                OpName::CallUnknown(50),
                OpError::UnknownServiceOp { service: "test" },
            ),
        ),
        (
            |s| s.bytes[op(0) + 1] = 40,
            op_err(0, name, OpError::BadDst { reg: 40 }),
        ),
        (
            |s| s.bytes[op(0) + 16] = 7,
            op_err(
                0,
                name,
                OpError::Ref {
                    operand: 0,
                    index: 7,
                    error: RefError::Index { ref_count: 1 },
                },
            ),
        ),
        (|s| s.bytes[rf(1, 0) + 2] = 1, ref_err(RefError::Reserved)),
        (
            |s| s.bytes[rf(1, 0) + 1] = 40,
            ref_err(RefError::BadOffsetReg { reg: 40 }),
        ),
        (
            |s| s.bytes[rf(1, 0)] = 5,
            ref_err(RefError::UnknownRegion {
                region: 5,
                regions: 1,
            }),
        ),
        (
            |s| s.bytes[rf(1, 0) + 4] = 60,
            ref_err(RefError::OutOfBounds {
                region: 0,
                offset: 60,
                len: 8,
                region_len: 64,
            }),
        ),
    ];
    assert_order(Setup::new(&[peek], &[buf_ref(0)]), &rules);
}

/// A broken ref is reported at the first op that uses it, as that op's
/// error, even when an unused ref with a lower index is broken too.
#[test]
fn a_used_ref_is_reported_at_its_first_user() {
    let peek = OpRepr::new(Opcode::Call)
        .sub(PEEK)
        .operands(&[O::buf(1), O::imm(0)]);
    let unused = RefRepr {
        region: 5,
        ..buf_ref(0)
    };
    let used = RefRepr {
        offset: 60,
        ..buf_ref(0)
    };
    let s = Setup::new(&[exit0(), peek, peek], &[unused, used]);
    let e = s.verify().unwrap_err();
    assert_eq!(
        (e.op(), e.code()),
        (Some(1), cosy_abi::code::STATIC_REF_OUT_OF_BOUNDS)
    );
}

/// A `LOOP` without a counter is reported before its other fields; a
/// `SWITCH`'s operand before its table, its table before its default.
#[test]
fn loop_counter_and_switch_table() {
    let lp = OpRepr::new(Opcode::Loop)
        .dst(1)
        .sub(Cmp::LtU as u16)
        .operands(&[O::imm(1), O::imm(9)]);
    let rules: [Rule; 2] = [
        (
            |s| s.bytes[op(0) + 1] = NO_REG,
            op_err(0, OpName::Builtin(Opcode::Loop), OpError::NoCounter),
        ),
        (
            |s| s.bytes[op(0) + 4] |= 1 << 4,
            op_err(
                0,
                OpName::Builtin(Opcode::Loop),
                OpError::ArgCount {
                    expected: 2,
                    found: 3,
                },
            ),
        ),
    ];
    assert_order(Setup::new(&[lp], &[]), &rules);

    let switch = OpRepr::new(Opcode::Switch)
        .sub(1)
        .target(2)
        .operands(&[O::reg(0)]);
    let jump = OpRepr::new(Opcode::Jump).target(2);
    let name = OpName::Builtin(Opcode::Switch);
    let rules: [Rule; 3] = [
        (
            |s| s.bytes[op(0) + 16] = 99,
            op_err(
                0,
                name,
                OpError::BadRegister {
                    operand: 0,
                    reg: 99,
                },
            ),
        ),
        (
            |s| s.bytes[op(1)] = Opcode::Exit as u8,
            op_err(0, name, OpError::SwitchEntry { entry: 1 }),
        ),
        (
            |s| s.bytes[op(0) + 6] = 9,
            op_err(
                0,
                name,
                OpError::BadTarget {
                    target: 9,
                    op_count: 2,
                },
            ),
        ),
    ];
    assert_order(Setup::new(&[switch, jump], &[]), &rules);
}

fn buf_ref(offset: u32) -> RefRepr {
    RefRepr {
        region: 0,
        offset_reg: NO_REG,
        offset,
        len: 8,
    }
}
