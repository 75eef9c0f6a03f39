//! Plain, owned representations of ops, refs and whole compounds, and the
//! code that writes them as bytes (smoltcp's `Repr` with `buffer_len` and
//! `emit`).
//!
//! These carry raw field values, not validated ones: the builder produces
//! only well-formed ones, and tests use them to craft every malformed
//! compound the verifier must reject. Validation is the verifier's job.

use core::fmt;

use super::compound::{rd_u16, wr};
use super::{hdr, op, rf, Kind, OpView, Opcode, RefView, HEADER_LEN, MAGIC, MAX_OPERANDS};
use super::{NO_REG, OP_LEN, REF_LEN, VERSION_MAJOR, VERSION_MINOR};

/// One operand slot: a kind and the raw 64-bit slot value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct OperandRepr {
    /// How the slot is read.
    pub kind: Kind,
    /// The raw slot.
    pub value: u64,
}

impl OperandRepr {
    /// An unused slot.
    pub const NONE: OperandRepr = OperandRepr {
        kind: Kind::None,
        value: 0,
    };

    /// An immediate.
    pub const fn imm(value: u64) -> Self {
        OperandRepr {
            kind: Kind::Imm,
            value,
        }
    }

    /// A register operand.
    pub const fn reg(reg: u8) -> Self {
        OperandRepr {
            kind: Kind::Reg,
            value: reg as u64,
        }
    }

    /// A buffer-ref operand.
    pub const fn buf(index: u16) -> Self {
        OperandRepr {
            kind: Kind::Ref,
            value: index as u64,
        }
    }
}

/// One op with raw fields (spec §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpRepr {
    /// Raw op code.
    pub code: u8,
    /// Destination register or `NO_REG`.
    pub dst: u8,
    /// The `sub` field.
    pub sub: u16,
    /// The target field.
    pub target: u16,
    /// The six operand slots.
    pub operands: [OperandRepr; MAX_OPERANDS],
}

impl OpRepr {
    /// An op with this code and every other field empty.
    pub const fn new(code: Opcode) -> Self {
        OpRepr {
            code: code as u8,
            dst: NO_REG,
            sub: 0,
            target: 0,
            operands: [OperandRepr::NONE; MAX_OPERANDS],
        }
    }

    /// Sets the destination register.
    pub const fn dst(mut self, reg: u8) -> Self {
        self.dst = reg;
        self
    }

    /// Sets the `sub` field.
    pub const fn sub(mut self, sub: u16) -> Self {
        self.sub = sub;
        self
    }

    /// Sets the target.
    pub const fn target(mut self, target: u16) -> Self {
        self.target = target;
        self
    }

    /// Sets operands from the front.
    pub fn operands(mut self, operands: &[OperandRepr]) -> Self {
        for (slot, value) in self.operands.iter_mut().zip(operands) {
            *slot = *value;
        }
        self
    }

    /// Reads an op back from the wire (the reserved word is dropped).
    pub fn parse(view: &OpView<'_>) -> Self {
        let mut operands = [OperandRepr::NONE; MAX_OPERANDS];
        for (i, slot) in operands.iter_mut().enumerate() {
            *slot = OperandRepr {
                kind: view.kind(i),
                value: view.operand(i),
            };
        }
        OpRepr {
            code: view.code(),
            dst: view.dst(),
            sub: view.sub(),
            target: view.target(),
            operands,
        }
    }

    /// Writes the op into its 64 bytes.
    pub fn emit(&self, out: &mut [u8; OP_LEN]) {
        out.fill(0);
        out[op::CODE] = self.code;
        out[op::DST] = self.dst;
        wr(out, op::SUB, &self.sub.to_le_bytes());
        let kinds = self
            .operands
            .iter()
            .enumerate()
            .fold(0u16, |acc, (i, o)| acc | (o.kind as u16) << (2 * i));
        wr(out, op::KINDS, &kinds.to_le_bytes());
        wr(out, op::TARGET, &self.target.to_le_bytes());
        for (i, o) in self.operands.iter().enumerate() {
            wr(out, op::OPERANDS + 8 * i, &o.value.to_le_bytes());
        }
    }
}

/// One buffer ref (spec §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefRepr {
    /// Region number.
    pub region: u8,
    /// Register added to the offset at run time, or `NO_REG`.
    pub offset_reg: u8,
    /// Static offset.
    pub offset: u32,
    /// Length.
    pub len: u32,
}

impl RefRepr {
    /// Reads a ref back from the wire (reserved fields are dropped).
    pub fn parse(view: &RefView<'_>) -> Self {
        RefRepr {
            region: view.region(),
            offset_reg: view.offset_reg(),
            offset: view.offset(),
            len: view.len(),
        }
    }

    /// Writes the ref into its 16 bytes.
    pub fn emit(&self, out: &mut [u8; REF_LEN]) {
        out.fill(0);
        out[rf::REGION] = self.region;
        out[rf::OFFSET_REG] = self.offset_reg;
        wr(out, rf::OFFSET, &self.offset.to_le_bytes());
        wr(out, rf::LEN, &self.len.to_le_bytes());
    }
}

/// A whole compound: header values, ops and refs.
#[derive(Clone, Copy, Debug)]
pub struct CompoundRepr<'a> {
    /// Header flags.
    pub flags: u16,
    /// Requested step budget.
    pub step_budget: u32,
    /// The ops.
    pub ops: &'a [OpRepr],
    /// The buffer refs.
    pub refs: &'a [RefRepr],
}

/// Why a compound could not be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmitError {
    /// More than 65,535 ops.
    TooManyOps(usize),
    /// More than 65,535 refs.
    TooManyRefs(usize),
    /// The output buffer is shorter than the compound.
    BufferTooSmall {
        /// Bytes the compound needs.
        needed: usize,
        /// Bytes the buffer has.
        available: usize,
    },
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmitError::TooManyOps(n) => write!(f, "{n} ops; a compound holds at most 65535"),
            EmitError::TooManyRefs(n) => {
                write!(f, "{n} buffer refs; a compound holds at most 65535")
            }
            EmitError::BufferTooSmall { needed, available } => {
                write!(f, "compound needs {needed} bytes, buffer has {available}")
            }
        }
    }
}

impl CompoundRepr<'_> {
    /// Bytes the compound occupies, results area included.
    pub fn buffer_len(&self) -> usize {
        super::total_len(self.ops.len(), self.refs.len())
    }

    /// Writes the compound at the start of `out`, with a zeroed results
    /// area, and returns its length.
    pub fn emit(&self, out: &mut [u8]) -> Result<usize, EmitError> {
        let op_count =
            u16::try_from(self.ops.len()).map_err(|_| EmitError::TooManyOps(self.ops.len()))?;
        let ref_count =
            u16::try_from(self.refs.len()).map_err(|_| EmitError::TooManyRefs(self.refs.len()))?;
        let needed = self.buffer_len();
        let available = out.len();
        let out = out
            .get_mut(..needed)
            .ok_or(EmitError::BufferTooSmall { needed, available })?;
        out.fill(0);
        wr(out, hdr::MAGIC, &MAGIC);
        wr(out, hdr::MAJOR, &[VERSION_MAJOR, VERSION_MINOR]);
        wr(out, hdr::FLAGS, &self.flags.to_le_bytes());
        // `needed` fits: 65535 ops and refs take well under 4 GiB.
        wr(out, hdr::TOTAL_LEN, &(needed as u32).to_le_bytes());
        wr(out, hdr::OP_COUNT, &op_count.to_le_bytes());
        wr(out, hdr::REF_COUNT, &ref_count.to_le_bytes());
        wr(out, hdr::BUDGET, &self.step_budget.to_le_bytes());
        let (ops, rest) = out[HEADER_LEN..].split_at_mut(OP_LEN * self.ops.len());
        for (chunk, o) in ops.chunks_exact_mut(OP_LEN).zip(self.ops) {
            if let Ok(chunk) = chunk.try_into() {
                o.emit(chunk);
            }
        }
        for (chunk, r) in rest.chunks_exact_mut(REF_LEN).zip(self.refs) {
            if let Ok(chunk) = chunk.try_into() {
                r.emit(chunk);
            }
        }
        debug_assert_eq!(rd_u16(out, hdr::OP_COUNT), op_count);
        Ok(needed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Compound;

    #[test]
    fn op_bytes_match_the_spec() {
        let op = OpRepr::new(Opcode::Add)
            .dst(3)
            .operands(&[OperandRepr::reg(1), OperandRepr::imm(0x0102)]);
        let mut out = [0xAA; OP_LEN];
        op.emit(&mut out);
        let mut expected = [0u8; OP_LEN];
        expected[..8].copy_from_slice(&[0x10, 3, 0, 0, 0b0110, 0, 0, 0]);
        expected[16] = 1;
        expected[24..26].copy_from_slice(&[0x02, 0x01]);
        assert_eq!(out, expected);
    }

    #[test]
    fn compound_round_trips() {
        let ops = [
            OpRepr::new(Opcode::Call)
                .sub(7)
                .operands(&[OperandRepr::buf(0)]),
            OpRepr::new(Opcode::Jump).target(2),
        ];
        let refs = [RefRepr {
            region: 1,
            offset_reg: NO_REG,
            offset: 8,
            len: 24,
        }];
        let repr = CompoundRepr {
            flags: 1,
            step_budget: 99,
            ops: &ops,
            refs: &refs,
        };
        let mut buf = [0u8; 512];
        let len = repr.emit(&mut buf).unwrap();
        assert_eq!(len, 64 + 80 * 2 + 16);
        let c = Compound::new_checked(&buf[..len]).unwrap();
        assert_eq!(OpRepr::parse(&c.op(0).unwrap()), ops[0]);
        assert_eq!(OpRepr::parse(&c.op(1).unwrap()), ops[1]);
        assert_eq!(RefRepr::parse(&c.buffer_ref(0).unwrap()), refs[0]);
    }

    #[test]
    fn emit_refuses_a_short_buffer() {
        let repr = CompoundRepr {
            flags: 0,
            step_budget: 1,
            ops: &[],
            refs: &[],
        };
        assert_eq!(
            repr.emit(&mut [0u8; 63]),
            Err(EmitError::BufferTooSmall {
                needed: 64,
                available: 63
            })
        );
    }
}
