//! One test per verifier rejection, asserting the exact error (and, for
//! a sample, the exact message a server would log).

mod common;

use common::*;
use cosy_abi::wire::{Kind, OpRepr, Opcode, OperandRepr as O, RefRepr, NO_REG};
use cosy_abi::{
    code, Cmp, Expect, Field, Insn, OpError, OpName, Program, RefError, Target, VerifyError,
};

/// The error for a compound of these ops and refs, with one 64-byte region.
fn reject(ops: &[OpRepr], refs: &[RefRepr]) -> VerifyError {
    verify(&bytes(ops, refs), &[64]).expect_err("must be rejected")
}

fn op_err(index: u16, name: OpName, error: OpError) -> VerifyError {
    VerifyError::Op { index, name, error }
}

fn exit0() -> OpRepr {
    OpRepr::new(Opcode::Exit).operands(&[O::imm(0)])
}

fn add(a: O, b: O) -> OpRepr {
    OpRepr::new(Opcode::Add).dst(0).operands(&[a, b])
}

fn r(index: u8) -> RefRepr {
    RefRepr {
        region: 0,
        offset_reg: NO_REG,
        offset: index.into(),
        len: 8,
    }
}

const ADD: OpName = OpName::Builtin(Opcode::Add);

#[test]
fn a_well_formed_compound_is_accepted() {
    assert!(verify(
        &bytes(&[add(O::reg(1), O::imm(2)), exit0()], &[r(0)]),
        &[64]
    )
    .is_ok());
}

// Header (spec §3).

#[test]
fn truncated() {
    assert_eq!(
        verify(&[0; 31], &[]).unwrap_err(),
        VerifyError::Truncated { len: 31 }
    );
}

#[test]
fn bad_magic() {
    let mut b = bytes(&[], &[]);
    b[3] = b'X';
    let e = verify(&b, &[]).unwrap_err();
    assert_eq!(e, VerifyError::BadMagic { found: *b"COSX" });
    assert_eq!(
        e.to_string(),
        "compound starts with [43, 4f, 53, 58], not the magic \"COSY\""
    );
}

#[test]
fn unsupported_version() {
    let mut b = bytes(&[], &[]);
    b[4] = 2;
    assert_eq!(
        verify(&b, &[]).unwrap_err(),
        VerifyError::UnsupportedVersion { major: 2, minor: 0 }
    );
    b[4] = 1;
    b[5] = 1;
    assert_eq!(
        verify(&b, &[]).unwrap_err(),
        VerifyError::UnsupportedVersion { major: 1, minor: 1 }
    );
}

#[test]
fn unknown_flags() {
    let mut b = bytes(&[], &[]);
    b[6] = 0b11;
    assert_eq!(
        verify(&b, &[]).unwrap_err(),
        VerifyError::UnknownFlags { flags: 3 }
    );
}

#[test]
fn header_reserved() {
    let mut b = bytes(&[], &[]);
    b[25] = 1;
    assert_eq!(
        verify(&b, &[]).unwrap_err(),
        VerifyError::HeaderReserved { offset: 25 }
    );
}

#[test]
fn length_mismatch() {
    let mut b = bytes(&[exit0()], &[]);
    b[12] = 2; // claims two ops
    let e = verify(&b, &[]).unwrap_err();
    assert_eq!(
        e,
        VerifyError::LengthMismatch {
            declared: 144,
            expected: 224
        }
    );
    assert_eq!(
        e.to_string(),
        "header says the compound is 144 bytes, but its op and ref counts make it 224"
    );
}

#[test]
fn buffer_too_short() {
    let b = bytes(&[exit0()], &[]);
    assert_eq!(
        verify(&b[..b.len() - 1], &[]).unwrap_err(),
        VerifyError::BufferTooShort {
            declared: 144,
            available: 143
        }
    );
}

#[test]
fn longer_buffer_than_the_compound_is_fine() {
    let mut b = bytes(&[exit0()], &[]);
    b.resize(4096, 0xCC);
    assert!(verify(&b, &[]).is_ok());
}

#[test]
fn too_many_ops() {
    let b = bytes(&[exit0(), exit0(), exit0()], &[]);
    let e = Program::verify(&b, &target(&[]), [Insn::EMPTY; 2]).unwrap_err();
    assert_eq!(e, VerifyError::TooManyOps { count: 3, max: 2 });
}

#[test]
fn zero_budget() {
    let mut b = bytes(&[], &[]);
    b[16] = 0;
    assert_eq!(verify(&b, &[]).unwrap_err(), VerifyError::ZeroBudget);
}

#[test]
fn too_many_regions() {
    let lens = [1usize; 17];
    let e = Program::verify(&bytes(&[], &[]), &target(&lens), [Insn::EMPTY; 1]).unwrap_err();
    assert_eq!(e, VerifyError::TooManyRegions { count: 17 });
}

// Ops (spec §4, §6).

#[test]
fn unknown_opcode() {
    let mut op = exit0();
    op.code = 0x99;
    let e = reject(&[exit0(), op], &[]);
    assert_eq!(e, op_err(1, OpName::Unknown(0x99), OpError::UnknownOpcode));
    assert_eq!(
        e.to_string(),
        "op 1 (code 0x99): not an op code this server knows"
    );
    assert_eq!(e.code(), code::UNKNOWN_OPCODE);
}

#[test]
fn zeroed_op_is_not_an_op() {
    let mut b = bytes(&[exit0()], &[]);
    b[32..96].fill(0);
    assert_eq!(
        verify(&b, &[]).unwrap_err(),
        op_err(0, OpName::Unknown(0), OpError::UnknownOpcode)
    );
}

#[test]
fn unknown_service_op() {
    let e = reject(&[OpRepr::new(Opcode::Call).sub(50)], &[]);
    assert_eq!(
        e,
        op_err(
            0,
            OpName::CallUnknown(50),
            OpError::UnknownServiceOp { service: "test" }
        )
    );
    assert_eq!(
        e.to_string(),
        "op 0 (call #50): service test has no such operation"
    );
}

#[test]
fn arg_count() {
    let call = OpRepr::new(Opcode::Call)
        .sub(SUM6)
        .operands(&[O::imm(1); 5]);
    let e = reject(&[call], &[]);
    assert_eq!(
        e,
        op_err(
            0,
            OpName::Call("sum6"),
            OpError::ArgCount {
                expected: 6,
                found: 5
            }
        )
    );
    assert_eq!(
        e.to_string(),
        "op 0 (call sum6): takes 6 operand(s), but 5 are given"
    );
    let three = add(O::imm(1), O::imm(2)).operands(&[O::imm(1), O::imm(2), O::imm(3)]);
    assert_eq!(
        reject(&[three], &[]),
        op_err(
            0,
            ADD,
            OpError::ArgCount {
                expected: 2,
                found: 3
            }
        )
    );
}

#[test]
fn operand_kind() {
    let e = reject(&[add(O::buf(0), O::imm(1))], &[r(0)]);
    assert_eq!(
        e,
        op_err(
            0,
            ADD,
            OpError::OperandKind {
                operand: 0,
                expected: Expect::Value,
                found: Kind::Ref
            }
        )
    );
    assert_eq!(
        e.to_string(),
        "op 0 (add): operand 0 must be a value (immediate or register), but is a buffer ref"
    );
    let peek = OpRepr::new(Opcode::Call)
        .sub(PEEK)
        .operands(&[O::imm(0), O::imm(1)]);
    let e = reject(&[peek], &[]);
    assert_eq!(
        e,
        op_err(
            0,
            OpName::Call("peek"),
            OpError::OperandKind {
                operand: 0,
                expected: Expect::Buffer,
                found: Kind::Imm
            }
        )
    );
}

#[test]
fn bad_register() {
    let e = reject(&[add(O::imm(1), O::reg(32))], &[]);
    assert_eq!(
        e,
        op_err(
            0,
            ADD,
            OpError::BadRegister {
                operand: 1,
                reg: 32
            }
        )
    );
    assert_eq!(
        e.to_string(),
        "op 0 (add): operand 1 names register 32; registers are r0..r31"
    );
    let huge = O {
        kind: Kind::Reg,
        value: 1 << 40,
    };
    assert_eq!(
        reject(&[add(huge, O::imm(1))], &[]),
        op_err(
            0,
            ADD,
            OpError::BadRegister {
                operand: 0,
                reg: 1 << 40
            }
        )
    );
}

#[test]
fn bad_dst() {
    let e = reject(&[add(O::imm(1), O::imm(2)).dst(40)], &[]);
    assert_eq!(e, op_err(0, ADD, OpError::BadDst { reg: 40 }));
    assert_eq!(e.code(), code::BAD_REGISTER);
}

#[test]
fn no_counter() {
    let lp = OpRepr::new(Opcode::Loop).operands(&[O::imm(1), O::imm(10)]);
    assert_eq!(
        reject(&[lp], &[]),
        op_err(0, OpName::Builtin(Opcode::Loop), OpError::NoCounter)
    );
}

#[test]
fn bad_target() {
    let jump = OpRepr::new(Opcode::Jump).target(3);
    let e = reject(&[jump, exit0()], &[]);
    assert_eq!(
        e,
        op_err(
            0,
            OpName::Builtin(Opcode::Jump),
            OpError::BadTarget {
                target: 3,
                op_count: 2
            }
        )
    );
    assert_eq!(
        e.to_string(),
        "op 0 (jump): jumps to op 3, past the end (the compound has 2 ops; 2 itself means \"end\")"
    );
    // Jumping to op_count means "end" and is fine.
    assert!(verify(
        &bytes(&[OpRepr::new(Opcode::Jump).target(2), exit0()], &[]),
        &[]
    )
    .is_ok());
}

#[test]
fn reserved_fields() {
    let jump = OpName::Builtin(Opcode::Jump);
    let reserved = |field| OpError::Reserved { field };
    assert_eq!(
        reject(&[OpRepr::new(Opcode::Jump).dst(3)], &[]),
        op_err(0, jump, reserved(Field::Dst))
    );
    assert_eq!(
        reject(&[add(O::imm(1), O::imm(2)).sub(1)], &[]),
        op_err(0, ADD, reserved(Field::Sub))
    );
    assert_eq!(
        reject(&[add(O::imm(1), O::imm(2)).target(1)], &[]),
        op_err(0, ADD, reserved(Field::Target))
    );

    let mut b = bytes(&[exit0()], &[]);
    b[32 + 9] = 1;
    let exit = OpName::Builtin(Opcode::Exit);
    assert_eq!(
        verify(&b, &[]).unwrap_err(),
        op_err(0, exit, reserved(Field::Reserved))
    );
    let mut b = bytes(&[exit0()], &[]);
    b[32 + 5] = 0x10;
    assert_eq!(
        verify(&b, &[]).unwrap_err(),
        op_err(0, exit, reserved(Field::Kinds))
    );
    let mut b = bytes(&[exit0()], &[]);
    b[32 + 16 + 8 * 3] = 1;
    let e = verify(&b, &[]).unwrap_err();
    assert_eq!(e, op_err(0, exit, reserved(Field::Operand(3))));
    assert_eq!(
        e.to_string(),
        "op 0 (exit): operand slot 3 (its kind is none) must be zero"
    );
}

#[test]
fn bad_comparison() {
    let br = OpRepr::new(Opcode::Br)
        .sub(10)
        .operands(&[O::imm(1), O::imm(2)]);
    assert_eq!(
        reject(&[br], &[]),
        op_err(
            0,
            OpName::Builtin(Opcode::Br),
            OpError::BadComparison { value: 10 }
        )
    );
    let br = OpRepr::new(Opcode::Br)
        .sub(Cmp::GeS as u16)
        .operands(&[O::imm(1), O::imm(2)]);
    assert!(verify(&bytes(&[br], &[]), &[]).is_ok());
}

#[test]
fn switch_tables() {
    let switch = OpName::Builtin(Opcode::Switch);
    let sw = |size| OpRepr::new(Opcode::Switch).sub(size).operands(&[O::imm(0)]);
    let jump = OpRepr::new(Opcode::Jump);
    assert_eq!(
        reject(&[sw(0), jump], &[]),
        op_err(0, switch, OpError::SwitchEmpty)
    );
    assert_eq!(
        reject(&[sw(2), jump], &[]),
        op_err(
            0,
            switch,
            OpError::SwitchPastEnd {
                size: 2,
                op_count: 2
            }
        )
    );
    let e = reject(&[sw(2), jump, exit0()], &[]);
    assert_eq!(e, op_err(0, switch, OpError::SwitchEntry { entry: 2 }));
    assert_eq!(e.code(), code::SWITCH_TABLE);
    assert!(verify(&bytes(&[sw(2), jump, jump], &[]), &[]).is_ok());
}

#[test]
fn value_out_of_range() {
    let fill = OpRepr::new(Opcode::Fill)
        .dst(0)
        .operands(&[O::buf(0), O::imm(256), O::imm(1)]);
    let e = reject(&[fill], &[r(0)]);
    let name = OpName::Builtin(Opcode::Fill);
    assert_eq!(
        e,
        op_err(
            0,
            name,
            OpError::ValueOutOfRange {
                operand: 1,
                value: 256,
                max: 255
            }
        )
    );
}

#[test]
fn needle_length() {
    let search = |needle_len| {
        let op = OpRepr::new(Opcode::Search)
            .dst(0)
            .operands(&[O::buf(0), O::buf(1), O::imm(1)]);
        let needle = RefRepr {
            region: 0,
            offset_reg: NO_REG,
            offset: 0,
            len: needle_len,
        };
        verify(&bytes(&[op], &[r(0), needle]), &[4096])
    };
    let name = OpName::Builtin(Opcode::Search);
    assert_eq!(
        search(0).unwrap_err(),
        op_err(0, name, OpError::NeedleLength { len: 0 })
    );
    assert_eq!(
        search(257).unwrap_err(),
        op_err(0, name, OpError::NeedleLength { len: 257 })
    );
    assert!(search(256).is_ok());
}

// Buffer refs (spec §5).

fn peek(buf: u16) -> OpRepr {
    OpRepr::new(Opcode::Call)
        .sub(PEEK)
        .operands(&[O::buf(buf), O::imm(0)])
}

fn ref_err(index: u16, error: RefError) -> VerifyError {
    op_err(
        0,
        OpName::Call("peek"),
        OpError::Ref {
            operand: 0,
            index,
            error,
        },
    )
}

#[test]
fn ref_index() {
    assert_eq!(
        reject(&[peek(1)], &[r(0)]),
        ref_err(1, RefError::Index { ref_count: 1 })
    );
}

#[test]
fn unknown_region() {
    let far = RefRepr { region: 1, ..r(0) };
    let e = reject(&[peek(0)], &[far]);
    assert_eq!(
        e,
        ref_err(
            0,
            RefError::UnknownRegion {
                region: 1,
                regions: 1
            }
        )
    );
    assert_eq!(
        e.to_string(),
        "op 0 (call peek): operand 0: buffer ref 0 names region 1, but the client has 1 region(s)"
    );
}

#[test]
fn static_ref_out_of_bounds() {
    let past = RefRepr { offset: 60, ..r(0) };
    let e = reject(&[peek(0)], &[past]);
    assert_eq!(
        e,
        ref_err(
            0,
            RefError::OutOfBounds {
                region: 0,
                offset: 60,
                len: 8,
                region_len: 64
            }
        )
    );
    assert_eq!(
        e.to_string(),
        "op 0 (call peek): operand 0: buffer ref 0 covers bytes 60..68 of region 0, which is only 64 bytes long"
    );
    let huge = RefRepr {
        offset: u32::MAX,
        len: u32::MAX,
        ..r(0)
    };
    assert_eq!(
        reject(&[peek(0)], &[huge]),
        ref_err(
            0,
            RefError::OutOfBounds {
                region: 0,
                offset: u32::MAX,
                len: u32::MAX,
                region_len: 64
            }
        )
    );
    // A register-relative ref must fit with a zero register, too.
    let relative = RefRepr {
        offset_reg: 3,
        offset: 60,
        ..r(0)
    };
    assert_eq!(
        reject(&[peek(0)], &[relative]),
        ref_err(
            0,
            RefError::OutOfBounds {
                region: 0,
                offset: 60,
                len: 8,
                region_len: 64
            }
        )
    );
}

#[test]
fn bad_offset_register() {
    let bad = RefRepr {
        offset_reg: 32,
        ..r(0)
    };
    let e = reject(&[peek(0)], &[bad]);
    assert_eq!(e, ref_err(0, RefError::BadOffsetReg { reg: 32 }));
    assert_eq!(e.code(), code::REF_RESERVED);
}

#[test]
fn ref_reserved() {
    let mut b = bytes(&[peek(0)], &[r(0)]);
    b[32 + 64 + 13] = 1;
    assert_eq!(
        verify(&b, &[64]).unwrap_err(),
        ref_err(0, RefError::Reserved)
    );
}

#[test]
fn unused_ref_is_still_checked() {
    let e = reject(&[exit0()], &[r(0), RefRepr { region: 5, ..r(0) }]);
    assert_eq!(
        e,
        VerifyError::Ref {
            index: 1,
            error: RefError::UnknownRegion {
                region: 5,
                regions: 1
            }
        }
    );
    assert_eq!(
        e.to_string(),
        "buffer ref 1 names region 5, but the client has 1 region(s)"
    );
    assert_eq!(e.op(), None);
}

#[test]
fn rejection_is_written_into_the_results_area() {
    let mut b = bytes(&[exit0(), add(O::reg(99), O::imm(0))], &[]);
    let e = verify(&b, &[]).unwrap_err();
    let mut c = cosy_abi::Compound::new_checked(&mut b[..]).unwrap();
    c.write_rejection(&e);
    let report = c.report();
    assert_eq!(report.outcome, cosy_abi::Outcome::Rejected);
    assert_eq!(
        report.stop,
        Some(cosy_abi::Fault {
            op: Some(1),
            code: code::BAD_REGISTER
        })
    );
    assert_eq!(
        report.to_string(),
        "rejected at op 1: register number out of range"
    );
}

/// A way to break a compound's bytes.
type Break = fn(&mut Vec<u8>);

/// One `EXIT` op with a results area full of a previous run's junk,
/// broken by `f`; returns the bytes and the rejection.
fn broken(f: impl FnOnce(&mut Vec<u8>), max_ops: usize, regions: usize) -> (Vec<u8>, VerifyError) {
    let mut b = bytes(&[exit0()], &[]);
    b[96..144].fill(0xEE);
    f(&mut b);
    let lens = vec![8; regions];
    let target = target(&lens);
    let e = Program::verify(&b, &target, vec![Insn::EMPTY; max_ops]).unwrap_err();
    (b, e)
}

#[test]
fn a_rejection_is_written_whenever_the_results_area_can_be_located() {
    let cases: [(&str, Break, usize, usize); 6] = [
        ("unknown flags", |b| b[6] = 0b10, 8, 1),
        ("reserved header byte", |b| b[25] = 1, 8, 1),
        ("newer minor version", |b| b[5] = 1, 8, 1),
        ("zero budget", |b| b[16] = 0, 8, 1),
        ("more ops than the server takes", |_| {}, 0, 1),
        ("more regions than can be named", |_| {}, 8, 17),
    ];
    for (what, f, max_ops, regions) in cases {
        let (mut b, e) = broken(f, max_ops, regions);
        let mut c = cosy_abi::Compound::new_unchecked(&mut b[..]);
        assert!(c.write_rejection(&e), "{what}");
        let report = c.report();
        assert_eq!(report.outcome, cosy_abi::Outcome::Rejected, "{what}");
        assert_eq!(report.stop.map(|s| (s.op, s.code)), Some((None, e.code())));
        assert_eq!(c.op_result(0), Some(cosy_abi::OpResult::EMPTY), "{what}");
    }
}

#[test]
fn a_rejection_is_not_written_where_the_results_area_is_unknown() {
    let cases: [(&str, Break); 5] = [
        ("shorter than a header", |b| b.truncate(31)),
        ("bad magic", |b| b[0] = b'X'),
        ("another major version", |b| b[4] = 2),
        ("total_len disagrees with the counts", |b| b[12] = 2),
        ("total_len past the buffer", |b| b.truncate(143)),
    ];
    for (what, f) in cases {
        let (mut b, e) = broken(f, 8, 1);
        let before = b.clone();
        assert!(
            !cosy_abi::Compound::new_unchecked(&mut b[..]).write_rejection(&e),
            "{what}"
        );
        assert_eq!(b, before, "{what}: bytes changed");
    }
}

#[test]
fn the_service_table_decides_what_a_call_is() {
    let other = cosy_abi::OpTable::new("other", &[]);
    let call = OpRepr::new(Opcode::Call).sub(NOP);
    let e = Program::verify(
        &bytes(&[call], &[]),
        &Target {
            ops: other,
            regions: &[],
            max_steps: 1,
        },
        [Insn::EMPTY; 1],
    )
    .unwrap_err();
    assert_eq!(
        e,
        op_err(
            0,
            OpName::CallUnknown(NOP),
            OpError::UnknownServiceOp { service: "other" }
        )
    );
    assert!(verify(&bytes(&[call], &[]), &[]).is_ok());
}
