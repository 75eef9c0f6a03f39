//! The builder's build-time errors and its output.

mod common;

use common::*;
use cosy_abi::wire::{OpRepr, Opcode, OperandRepr as O};
use cosy_abi::{BuildError, Builder, Cmp, Operand};

#[test]
fn unresolved_label() {
    let mut b = Builder::new();
    let _unused = b.label();
    let nowhere = b.label();
    b.exit(0).jump(nowhere);
    let e = build_err(&b);
    assert_eq!(e, BuildError::UnresolvedLabel { label: 1, op: 1 });
    assert_eq!(e.to_string(), "op 1 jumps to label 1, which is never bound");
}

#[test]
fn label_bound_twice() {
    let mut b = Builder::new();
    let l = b.label();
    b.bind(l).exit(0).bind(l);
    assert_eq!(build_err(&b), BuildError::LabelBoundTwice { label: 0 });
}

/// Labels and buffers are numbered per builder; another builder's number
/// would silently name one of this builder's (or none), so it is refused.
#[test]
fn a_label_from_another_builder_is_refused() {
    let mut other = Builder::new();
    let foreign = other.label();
    let mut b = Builder::new();
    let own = b.label();
    b.bind(own).jump(foreign);
    let e = build_err(&b);
    assert_eq!(
        e,
        BuildError::ForeignLabel {
            label: 0,
            op: 0,
            bound: false
        }
    );
    assert_eq!(
        e.to_string(),
        "op 0 jumps to label 0, but another Builder made it"
    );
}

#[test]
fn binding_a_label_from_another_builder_is_refused() {
    let mut other = Builder::new();
    let foreign = (0..3).map(|_| other.label()).last().unwrap();
    let mut b = Builder::new();
    b.exit(0).bind(foreign);
    // Not `LabelBoundTwice`: the number means nothing to this builder.
    assert_eq!(
        build_err(&b),
        BuildError::ForeignLabel {
            label: 2,
            op: 1,
            bound: true
        }
    );
}

#[test]
fn a_buffer_from_another_builder_is_refused() {
    let mut other = Builder::new();
    let foreign = other.buf(0, 8, 8);
    let mut b = Builder::new();
    let (own, r) = (b.buf(0, 0, 8), b.reg());
    b.copy(r, own, foreign, 8);
    let e = build_err(&b);
    assert_eq!(
        e,
        BuildError::ForeignBuf {
            buf: 0,
            op: 0,
            operand: 1
        }
    );
    assert_eq!(
        e.to_string(),
        "op 0 operand 1 is buffer 0, but another Builder made it"
    );
    let mut b = Builder::new();
    b.exit(0).call_void(PEEK, (foreign, 0));
    assert_eq!(
        build_err(&b),
        BuildError::ForeignBuf {
            buf: 0,
            op: 1,
            operand: 0
        }
    );
}

#[test]
fn too_many_registers() {
    let mut b = Builder::new();
    let regs: Vec<_> = (0..32).map(|_| b.reg()).collect();
    assert_eq!(regs[31].index(), 31);
    assert!(b.build().is_ok());
    b.reg();
    assert_eq!(build_err(&b), BuildError::TooManyRegisters);
}

#[test]
fn too_many_ops() {
    let mut b = Builder::new();
    for _ in 0..=u16::MAX as usize {
        b.exit(0);
    }
    assert_eq!(build_err(&b), BuildError::TooManyOps { count: 65536 });
}

#[test]
fn too_many_operands() {
    let mut b = Builder::new();
    b.call_void(SUM6, &[Operand::Imm(1); 7][..]);
    assert_eq!(
        build_err(&b),
        BuildError::TooManyOperands { op: 0, count: 7 }
    );
}

#[test]
fn empty_switch() {
    let mut b = Builder::new();
    let out = b.label();
    b.switch(0, &[], out).bind(out);
    assert_eq!(build_err(&b), BuildError::EmptySwitch { op: 0 });
}

#[test]
fn fill_byte_out_of_range() {
    let mut b = Builder::new();
    let (buf, r) = (b.buf(0, 0, 1), b.reg());
    b.exit(0).fill(r, buf, 300, 1);
    assert_eq!(
        build_err(&b),
        BuildError::ByteOutOfRange { op: 1, value: 300 }
    );
}

#[test]
fn build_into_a_short_buffer() {
    let mut b = Builder::new();
    b.exit(0);
    assert_eq!(
        b.build_into(&mut [0; 100]),
        Err(BuildError::BufferTooSmall {
            needed: 144,
            available: 100
        })
    );
    let mut page = [0xFFu8; 4096];
    assert_eq!(b.build_into(&mut page), Ok(144));
    assert_eq!(&page[..144], &b.build().unwrap()[..]);
    assert_eq!(page[144], 0xFF);
}

#[test]
fn forward_and_backward_labels_resolve_to_op_indexes() {
    let mut b = Builder::new();
    let (back, fwd) = (b.label(), b.label());
    let r = b.reg();
    b.bind(back)
        .branch(Cmp::Eq, r, 1, fwd)
        .jump(back)
        .bind(fwd)
        .exit(r);
    let (ops, refs) = b.reprs().unwrap();
    assert!(refs.is_empty());
    assert_eq!(
        ops[0],
        OpRepr::new(Opcode::Br)
            .sub(Cmp::Eq as u16)
            .target(2)
            .operands(&[O::reg(0), O::imm(1)])
    );
    assert_eq!(ops[1], OpRepr::new(Opcode::Jump).target(0));
}

#[test]
fn header_settings_reach_the_bytes() {
    let mut b = Builder::new();
    b.fail_fast(true).step_budget(1234).exit(0);
    let bytes = b.build().unwrap();
    let c = cosy_abi::Compound::new_checked(&bytes[..]).unwrap();
    assert!(c.fail_fast());
    assert_eq!(c.step_budget(), 1234);
    b.fail_fast(false);
    assert!(!cosy_abi::Compound::new_checked(&b.build().unwrap()[..])
        .unwrap()
        .fail_fast());
}

#[test]
fn every_builder_op_passes_the_verifier() {
    let mut b = Builder::new();
    let (x, y) = (b.reg(), b.reg());
    let (buf, other, needle, rel) = (
        b.buf(0, 0, 8),
        b.buf(0, 8, 8),
        b.buf(0, 0, 2),
        b.buf_at(0, x, 0, 4),
    );
    let (top, out) = (b.label(), b.label());
    b.mov(x, 1)
        .add(y, x, 2)
        .sub(y, y, 1)
        .mul(y, y, 3)
        .div(y, y, 1)
        .rem(y, y, 5);
    b.and(y, y, 7)
        .or(y, y, 8)
        .xor(y, y, 1)
        .shl(y, y, 1)
        .shr(y, y, 1);
    b.bind(top).loop_back(x, 1, Cmp::LtU, 3, top);
    b.switch(y, &[out, top], out).bind(out);
    b.copy(y, buf, other, 8)
        .fill(y, buf, 1, 8)
        .memcmp(y, buf, other, 8);
    b.search(y, buf, needle, 8).crc32c(y, rel, 4, 0);
    b.call(y, SUM6, (x, y, 1, 2, 3, 4))
        .call_void(NOP, ())
        .exit(y);
    let program = verify(&b.build().unwrap(), &[16]).unwrap();
    assert_eq!(program.len(), b.len());
}
