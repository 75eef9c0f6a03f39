//! Decoding one op: every field checked against spec §4–6 and the target,
//! then turned into an `Op` the executor can run without further checks
//! beyond the run-time ones the spec names.

use super::error::{Expect, Field, OpError, OpName, RefError, VerifyError};
use crate::program::{Arg, DataOp, Op, RefDesc, Target, Val};
use crate::service::ArgKind;
use crate::wire::{
    Cmp, Compound, Kind, OpRepr, OpView, Opcode, OperandRepr, MAX_NEEDLE, MAX_OPERANDS, NO_REG,
    NREGS,
};

/// Checks buffer ref `index` against the client's regions.
pub(super) fn check_ref<T: AsRef<[u8]>>(
    c: &Compound<T>,
    index: u16,
    target: &Target<'_>,
) -> Result<RefDesc, RefError> {
    let view = c.buffer_ref(index).ok_or(RefError::Index {
        ref_count: c.ref_count(),
    })?;
    if !view.reserved_clear() {
        return Err(RefError::Reserved);
    }
    let reg = view.offset_reg();
    if reg != NO_REG && usize::from(reg) >= NREGS {
        return Err(RefError::BadOffsetReg { reg });
    }
    let region = view.region();
    let regions = target.regions.len();
    let region_len = *target
        .regions
        .get(usize::from(region))
        .ok_or(RefError::UnknownRegion { region, regions })?;
    let (offset, len) = (view.offset(), view.len());
    // u64 cannot overflow here: both are u32.
    if u64::from(offset) + u64::from(len) > region_len as u64 {
        return Err(RefError::OutOfBounds {
            region,
            offset,
            len,
            region_len,
        });
    }
    Ok(RefDesc {
        region,
        offset_reg: reg,
        offset,
        len,
    })
}

/// Decodes op `index` of a checked compound.
pub(super) fn decode<T: AsRef<[u8]>>(
    c: &Compound<T>,
    index: u16,
    target: &Target<'_>,
) -> Result<Op, VerifyError> {
    let view = c.op(index).ok_or(VerifyError::Truncated {
        len: c.as_bytes().len(),
    })?;
    let code = view.code();
    let Some(opcode) = Opcode::from_u8(code) else {
        return Err(VerifyError::Op {
            index,
            name: OpName::Unknown(code),
            error: OpError::UnknownOpcode,
        });
    };
    let name = match opcode {
        Opcode::Call => target
            .ops
            .get(view.sub())
            .map_or(OpName::CallUnknown(view.sub()), |spec| {
                OpName::Call(spec.name)
            }),
        _ => OpName::Builtin(opcode),
    };
    let d = Decoder {
        c,
        view,
        raw: OpRepr::parse(&view),
        index,
        target,
    };
    d.decode(opcode)
        .map_err(|error| VerifyError::Op { index, name, error })
}

struct Decoder<'a, T: AsRef<[u8]>> {
    c: &'a Compound<T>,
    view: OpView<'a>,
    /// The op's fields, read from the bytes once.
    raw: OpRepr,
    index: u16,
    target: &'a Target<'a>,
}

impl<T: AsRef<[u8]>> Decoder<'_, T> {
    fn operand(&self, i: usize) -> OperandRepr {
        self.raw
            .operands
            .get(i)
            .copied()
            .unwrap_or(OperandRepr::NONE)
    }

    fn kind(&self, i: usize) -> Kind {
        self.operand(i).kind
    }

    fn decode(&self, opcode: Opcode) -> Result<Op, OpError> {
        self.common()?;
        match opcode {
            Opcode::Call => self.call(),
            Opcode::Exit => {
                self.shape(false, false, false, 1)?;
                Ok(Op::Exit { a: self.val(0)? })
            }
            Opcode::Mov => {
                self.shape(true, false, false, 1)?;
                Ok(Op::Mov {
                    dst: self.raw.dst,
                    a: self.val(0)?,
                })
            }
            Opcode::Add
            | Opcode::Sub
            | Opcode::Mul
            | Opcode::Div
            | Opcode::Rem
            | Opcode::And
            | Opcode::Or
            | Opcode::Xor
            | Opcode::Shl
            | Opcode::Shr => self.alu(opcode),
            Opcode::Br => {
                self.shape(false, true, true, 2)?;
                let (a, b) = (self.val(0)?, self.val(1)?);
                Ok(Op::Br {
                    cmp: self.cmp()?,
                    a,
                    b,
                    target: self.jump_target()?,
                })
            }
            Opcode::Jump => {
                self.shape(false, false, true, 0)?;
                Ok(Op::Jump {
                    target: self.jump_target()?,
                })
            }
            Opcode::Loop => self.counted_loop(),
            Opcode::Switch => self.switch(),
            Opcode::Copy | Opcode::Fill | Opcode::Memcmp | Opcode::Search | Opcode::Crc32c => {
                self.data(opcode)
            }
        }
    }

    /// Checks that apply to every op: reserved bytes, kind bits, and empty
    /// slots holding zero.
    fn common(&self) -> Result<(), OpError> {
        if self.view.reserved() != 0 {
            return Err(OpError::Reserved {
                field: Field::Reserved,
            });
        }
        if self.view.kinds() >> (2 * MAX_OPERANDS) != 0 {
            return Err(OpError::Reserved {
                field: Field::Kinds,
            });
        }
        for i in 0..MAX_OPERANDS {
            let o = self.operand(i);
            if o.kind == Kind::None && o.value != 0 {
                return Err(OpError::Reserved {
                    field: Field::Operand(i as u8),
                });
            }
        }
        Ok(())
    }

    /// Checks which of dst / sub / target the op uses (unused ones must be
    /// zero, or `0xFF` for dst) and that it has exactly `arity` operands.
    fn shape(&self, dst: bool, sub: bool, target: bool, arity: usize) -> Result<(), OpError> {
        let d = self.raw.dst;
        if !dst && d != NO_REG {
            return Err(OpError::Reserved { field: Field::Dst });
        }
        if dst && d != NO_REG && usize::from(d) >= NREGS {
            return Err(OpError::BadDst { reg: d });
        }
        if !sub && self.raw.sub != 0 {
            return Err(OpError::Reserved { field: Field::Sub });
        }
        if !target && self.raw.target != 0 {
            return Err(OpError::Reserved {
                field: Field::Target,
            });
        }
        let given = (0..MAX_OPERANDS)
            .filter(|&i| self.kind(i) != Kind::None)
            .count();
        if given != arity || (arity..MAX_OPERANDS).any(|i| self.kind(i) != Kind::None) {
            return Err(OpError::ArgCount {
                expected: arity as u8,
                found: given as u8,
            });
        }
        Ok(())
    }

    fn value(&self, i: usize) -> Result<Arg, OpError> {
        let raw = self.operand(i).value;
        match self.kind(i) {
            Kind::Imm => Ok(Arg::Imm(raw)),
            Kind::Reg if raw < NREGS as u64 => Ok(Arg::Reg(raw as u8)),
            Kind::Reg => Err(OpError::BadRegister {
                operand: i as u8,
                reg: raw,
            }),
            found => Err(OpError::OperandKind {
                operand: i as u8,
                expected: Expect::Value,
                found,
            }),
        }
    }

    /// [`Decoder::value`] in the form the executor reads without a
    /// branch.
    fn val(&self, i: usize) -> Result<Val, OpError> {
        self.value(i).map(Val::from)
    }

    fn buffer(&self, i: usize) -> Result<RefDesc, OpError> {
        let kind = self.kind(i);
        if kind != Kind::Ref {
            return Err(OpError::OperandKind {
                operand: i as u8,
                expected: Expect::Buffer,
                found: kind,
            });
        }
        let raw = self.operand(i).value;
        let index = u16::try_from(raw).unwrap_or(u16::MAX);
        let error = |error| OpError::Ref {
            operand: i as u8,
            index,
            error,
        };
        if raw >= u64::from(self.c.ref_count()) {
            return Err(error(RefError::Index {
                ref_count: self.c.ref_count(),
            }));
        }
        check_ref(self.c, index, self.target).map_err(error)
    }

    fn cmp(&self) -> Result<Cmp, OpError> {
        let value = self.raw.sub;
        Cmp::from_u16(value).ok_or(OpError::BadComparison { value })
    }

    fn jump_target(&self) -> Result<u16, OpError> {
        let (target, op_count) = (self.raw.target, self.c.op_count());
        if target > op_count {
            return Err(OpError::BadTarget { target, op_count });
        }
        Ok(target)
    }

    fn call(&self) -> Result<Op, OpError> {
        let spec = self
            .target
            .ops
            .get(self.raw.sub)
            .ok_or(OpError::UnknownServiceOp {
                service: self.target.ops.name(),
            })?;
        let argc = spec.args.len().min(MAX_OPERANDS);
        self.shape(true, true, false, argc)?;
        let mut args = [Arg::Imm(0); MAX_OPERANDS];
        for (i, (slot, kind)) in args.iter_mut().zip(spec.args).enumerate() {
            *slot = match kind {
                ArgKind::Value => self.value(i)?,
                ArgKind::Buf => Arg::Buf(self.buffer(i)?),
            };
        }
        Ok(Op::Call {
            dst: self.raw.dst,
            opcode: self.raw.sub,
            argc: argc as u8,
            bufs: spec.args.contains(&ArgKind::Buf),
            args,
        })
    }

    fn alu(&self, opcode: Opcode) -> Result<Op, OpError> {
        self.shape(true, false, false, 2)?;
        let (dst, a, b) = (self.raw.dst, self.val(0)?, self.val(1)?);
        Ok(match opcode {
            Opcode::Add => Op::Add { dst, a, b },
            Opcode::Sub => Op::Sub { dst, a, b },
            Opcode::Mul => Op::Mul { dst, a, b },
            Opcode::Div => Op::Div { dst, a, b },
            Opcode::Rem => Op::Rem { dst, a, b },
            Opcode::And => Op::And { dst, a, b },
            Opcode::Or => Op::Or { dst, a, b },
            Opcode::Xor => Op::Xor { dst, a, b },
            Opcode::Shl => Op::Shl { dst, a, b },
            _ => Op::Shr { dst, a, b },
        })
    }

    fn counted_loop(&self) -> Result<Op, OpError> {
        let counter = self.raw.dst;
        if counter == NO_REG {
            return Err(OpError::NoCounter);
        }
        self.shape(true, true, true, 2)?;
        let (step, limit) = (self.val(0)?, self.val(1)?);
        Ok(Op::Loop {
            counter,
            cmp: self.cmp()?,
            step,
            limit,
            target: self.jump_target()?,
        })
    }

    fn switch(&self) -> Result<Op, OpError> {
        self.shape(false, true, true, 1)?;
        let a = self.val(0)?;
        let (size, op_count) = (self.raw.sub, self.c.op_count());
        if size == 0 {
            return Err(OpError::SwitchEmpty);
        }
        // Entries are ops index+1 ..= index+size; all must exist.
        if u32::from(self.index) + u32::from(size) >= u32::from(op_count) {
            return Err(OpError::SwitchPastEnd { size, op_count });
        }
        for entry in self.index + 1..=self.index + size {
            if self.c.op(entry).map(|op| op.code()) != Some(Opcode::Jump as u8) {
                return Err(OpError::SwitchEntry { entry });
            }
        }
        Ok(Op::Switch {
            a,
            size,
            default: self.jump_target()?,
        })
    }

    fn data(&self, opcode: Opcode) -> Result<Op, OpError> {
        self.shape(true, false, false, 3)?;
        let dst = self.raw.dst;
        let buf = |i| self.buffer(i).map(Arg::Buf);
        let (op, args) = match opcode {
            Opcode::Copy => (DataOp::Copy, [buf(0)?, buf(1)?, self.value(2)?]),
            Opcode::Fill => (DataOp::Fill, [buf(0)?, self.byte(1)?, self.value(2)?]),
            Opcode::Memcmp => (DataOp::Memcmp, [buf(0)?, buf(1)?, self.value(2)?]),
            Opcode::Search => (DataOp::Search, [buf(0)?, self.needle(1)?, self.value(2)?]),
            _ => (DataOp::Crc32c, [buf(0)?, self.value(1)?, self.value(2)?]),
        };
        Ok(Op::Data { op, dst, args })
    }

    /// A value that is used as a byte: immediates above 255 are rejected.
    fn byte(&self, i: usize) -> Result<Arg, OpError> {
        match self.value(i)? {
            Arg::Imm(value) if value > 0xFF => Err(OpError::ValueOutOfRange {
                operand: i as u8,
                value,
                max: 0xFF,
            }),
            arg => Ok(arg),
        }
    }

    fn needle(&self, i: usize) -> Result<Arg, OpError> {
        let desc = self.buffer(i)?;
        if desc.len == 0 || desc.len as usize > MAX_NEEDLE {
            return Err(OpError::NeedleLength { len: desc.len });
        }
        Ok(Arg::Buf(desc))
    }
}
