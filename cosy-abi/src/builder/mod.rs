//! The builder apps use to write compounds (Cosy-Lib's `cosy_add` and
//! friends, as ordinary Rust).
//!
//! Registers, buffers and labels are typed handles; labels may be used
//! before they are bound (forward jumps) and are resolved by
//! [`Builder::build`], which reports the first mistake (an unbound label,
//! too many ops, a label or buffer another builder made, ...) instead of
//! emitting a malformed compound. Ops are collected in a `Vec` until then,
//! hence the `alloc` feature; the output can go straight into the shared
//! compound buffer with [`Builder::build_into`].

mod error;
mod operand;

pub use error::BuildError;
pub use operand::{Buf, Label, Operand, Operands, Reg};

use operand::Owner;

use alloc::vec;
use alloc::vec::Vec;

use crate::wire::{
    Cmp, CompoundRepr, OpRepr, Opcode, OperandRepr, RefRepr, FLAG_FAIL_FAST, MAX_OPERANDS, NO_REG,
    NREGS,
};

/// Builds one compound; see the module docs.
///
/// Not `Clone`: a clone would share this builder's identity, so a label or
/// buffer made in one copy after the split would pass as the other's.
#[derive(Debug)]
pub struct Builder {
    /// Stamped on every label and buffer made here, checked where they
    /// are used.
    owner: Owner,
    ops: Vec<OpRepr>,
    /// `(op index, label)`: ops whose target is a label.
    fixups: Vec<(usize, Label)>,
    /// Bound position of each label.
    labels: Vec<Option<u16>>,
    refs: Vec<RefRepr>,
    next_reg: usize,
    flags: u16,
    budget: u32,
    error: Option<BuildError>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    /// An empty compound in continue mode with a budget of 65,536 steps.
    pub fn new() -> Self {
        Builder {
            owner: Owner::fresh(),
            ops: Vec::new(),
            fixups: Vec::new(),
            labels: Vec::new(),
            refs: Vec::new(),
            next_reg: 0,
            flags: 0,
            budget: 1 << 16,
            error: None,
        }
    }

    fn fail(&mut self, error: BuildError) {
        self.error.get_or_insert(error);
    }

    /// Stop at the first failing op (`FAIL_FAST`) or carry on (default).
    pub fn fail_fast(&mut self, on: bool) -> &mut Self {
        self.flags = if on {
            self.flags | FLAG_FAIL_FAST
        } else {
            self.flags & !FLAG_FAIL_FAST
        };
        self
    }

    /// The step budget to ask for (the server may grant less).
    pub fn step_budget(&mut self, steps: u32) -> &mut Self {
        self.budget = steps;
        self
    }

    /// Number of ops so far.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether no op was added yet.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// A fresh register. Registers are numbered in the order asked for, so
    /// the first *k* are `r0`..`r(k-1)`, where a server puts a prepared
    /// compound's parameters.
    pub fn reg(&mut self) -> Reg {
        if self.next_reg >= NREGS {
            self.fail(BuildError::TooManyRegisters);
            return Reg((NREGS - 1) as u8);
        }
        self.next_reg += 1;
        Reg((self.next_reg - 1) as u8)
    }

    /// A buffer: `len` bytes at `offset` in region `region`.
    pub fn buf(&mut self, region: u8, offset: u32, len: u32) -> Buf {
        self.add_ref(RefRepr {
            region,
            offset_reg: NO_REG,
            offset,
            len,
        })
    }

    /// A buffer whose offset is `offset` plus the value `base` holds when
    /// an op uses it (checked at run time).
    pub fn buf_at(&mut self, region: u8, base: Reg, offset: u32, len: u32) -> Buf {
        self.add_ref(RefRepr {
            region,
            offset_reg: base.0,
            offset,
            len,
        })
    }

    fn add_ref(&mut self, r: RefRepr) -> Buf {
        self.refs.push(r);
        let count = self.refs.len();
        let index = u16::try_from(count - 1).unwrap_or_else(|_| {
            self.fail(BuildError::TooManyRefs { count });
            u16::MAX
        });
        Buf {
            owner: self.owner,
            index,
        }
    }

    /// A new, unbound label.
    pub fn label(&mut self) -> Label {
        self.labels.push(None);
        Label {
            owner: self.owner,
            index: (self.labels.len() - 1) as u32,
        }
    }

    /// Binds `label` to the next op to be added.
    pub fn bind(&mut self, label: Label) -> &mut Self {
        let here = u16::try_from(self.ops.len()).unwrap_or(u16::MAX);
        let foreign = BuildError::ForeignLabel {
            label: label.index,
            op: self.ops.len(),
            bound: true,
        };
        if label.owner != self.owner {
            self.fail(foreign);
            return self;
        }
        match self.labels.get_mut(label.index as usize) {
            Some(slot @ None) => *slot = Some(here),
            Some(Some(_)) => self.fail(BuildError::LabelBoundTwice { label: label.index }),
            // Only this builder's `label()` stamps its owner, so this is
            // unreachable; a wrong error beats a panic if it ever is not.
            None => self.fail(foreign),
        }
        self
    }

    fn push(&mut self, op: OpRepr) -> usize {
        self.ops.push(op);
        self.ops.len() - 1
    }

    fn push_to(&mut self, op: OpRepr, label: Label) {
        let index = self.push(op);
        if label.owner != self.owner {
            self.fail(BuildError::ForeignLabel {
                label: label.index,
                op: index,
                bound: false,
            });
        }
        self.fixups.push((index, label));
    }

    /// `op` with these operands, for the op about to be pushed; a buffer
    /// from another builder is recorded as the build error.
    fn with_operands(&mut self, op: OpRepr, operands: &[Operand]) -> OpRepr {
        let mut reprs = [OperandRepr::NONE; MAX_OPERANDS];
        for (operand, (slot, o)) in reprs.iter_mut().zip(operands).enumerate() {
            if let Operand::Buf(buf) = o {
                if buf.owner != self.owner {
                    let op = self.ops.len();
                    let buf = buf.index;
                    self.fail(BuildError::ForeignBuf { buf, op, operand });
                }
            }
            *slot = o.repr();
        }
        op.operands(&reprs)
    }

    fn simple(&mut self, code: Opcode, dst: u8, operands: &[Operand]) -> &mut Self {
        let op = self.with_operands(OpRepr::new(code).dst(dst), operands);
        self.push(op);
        self
    }

    /// Calls service operation `opcode`, result into `dst`.
    pub fn call(&mut self, dst: Reg, opcode: u16, args: impl Operands) -> &mut Self {
        self.call_raw(dst.0, opcode, args)
    }

    /// Calls service operation `opcode`, discarding the result.
    pub fn call_void(&mut self, opcode: u16, args: impl Operands) -> &mut Self {
        self.call_raw(NO_REG, opcode, args)
    }

    fn call_raw(&mut self, dst: u8, opcode: u16, args: impl Operands) -> &mut Self {
        let mut operands = [Operand::Imm(0); MAX_OPERANDS];
        let count = args.collect(&mut operands);
        if count > MAX_OPERANDS {
            let op = self.ops.len();
            self.fail(BuildError::TooManyOperands { op, count });
        }
        let op = self.with_operands(
            OpRepr::new(Opcode::Call).dst(dst).sub(opcode),
            &operands[..count.min(MAX_OPERANDS)],
        );
        self.push(op);
        self
    }

    /// Ends the compound with `value` as its exit value.
    pub fn exit(&mut self, value: impl Into<Operand>) -> &mut Self {
        self.simple(Opcode::Exit, NO_REG, &[value.into()])
    }

    /// `dst = value`.
    pub fn mov(&mut self, dst: Reg, value: impl Into<Operand>) -> &mut Self {
        self.simple(Opcode::Mov, dst.0, &[value.into()])
    }

    /// Any two-operand arithmetic or logic op (`Opcode::Add`..`Opcode::Shr`).
    pub fn alu(
        &mut self,
        code: Opcode,
        dst: Reg,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> &mut Self {
        self.simple(code, dst.0, &[a.into(), b.into()])
    }

    /// `dst = a + b`.
    pub fn add(&mut self, dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>) -> &mut Self {
        self.alu(Opcode::Add, dst, a, b)
    }

    /// `dst = a - b`.
    pub fn sub(&mut self, dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>) -> &mut Self {
        self.alu(Opcode::Sub, dst, a, b)
    }

    /// `dst = a * b`.
    pub fn mul(&mut self, dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>) -> &mut Self {
        self.alu(Opcode::Mul, dst, a, b)
    }

    /// `dst = a / b` (fails with `DIVIDE_BY_ZERO` at run time if b is 0).
    pub fn div(&mut self, dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>) -> &mut Self {
        self.alu(Opcode::Div, dst, a, b)
    }

    /// `dst = a % b` (fails with `DIVIDE_BY_ZERO` at run time if b is 0).
    pub fn rem(&mut self, dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>) -> &mut Self {
        self.alu(Opcode::Rem, dst, a, b)
    }

    /// `dst = a & b`.
    pub fn and(&mut self, dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>) -> &mut Self {
        self.alu(Opcode::And, dst, a, b)
    }

    /// `dst = a | b`.
    pub fn or(&mut self, dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>) -> &mut Self {
        self.alu(Opcode::Or, dst, a, b)
    }

    /// `dst = a ^ b`.
    pub fn xor(&mut self, dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>) -> &mut Self {
        self.alu(Opcode::Xor, dst, a, b)
    }

    /// `dst = a << b` (0 when b >= 64).
    pub fn shl(&mut self, dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>) -> &mut Self {
        self.alu(Opcode::Shl, dst, a, b)
    }

    /// `dst = a >> b`, logical (0 when b >= 64).
    pub fn shr(&mut self, dst: Reg, a: impl Into<Operand>, b: impl Into<Operand>) -> &mut Self {
        self.alu(Opcode::Shr, dst, a, b)
    }

    /// `if cmp(a, b) goto to`.
    pub fn branch(
        &mut self,
        cmp: Cmp,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        to: Label,
    ) -> &mut Self {
        let op = self.with_operands(
            OpRepr::new(Opcode::Br).sub(cmp as u16),
            &[a.into(), b.into()],
        );
        self.push_to(op, to);
        self
    }

    /// `goto to`.
    pub fn jump(&mut self, to: Label) -> &mut Self {
        self.push_to(OpRepr::new(Opcode::Jump), to);
        self
    }

    /// The raw `LOOP` op: `counter += step; if cmp(counter, limit) goto to`.
    pub fn loop_back(
        &mut self,
        counter: Reg,
        step: impl Into<Operand>,
        cmp: Cmp,
        limit: impl Into<Operand>,
        to: Label,
    ) -> &mut Self {
        let op = OpRepr::new(Opcode::Loop).dst(counter.0).sub(cmp as u16);
        let op = self.with_operands(op, &[step.into(), limit.into()]);
        self.push_to(op, to);
        self
    }

    /// Cosy's optimised `for (counter = init; cmp(counter, limit); counter
    /// += step) { body }`: one `MOV`, one entry check, the body, and a
    /// single `LOOP` op per iteration.
    pub fn for_loop(
        &mut self,
        counter: Reg,
        init: impl Into<Operand>,
        cmp: Cmp,
        limit: impl Into<Operand>,
        step: impl Into<Operand>,
        body: impl FnOnce(&mut Builder),
    ) -> &mut Self {
        let (limit, step) = (limit.into(), step.into());
        let (top, done) = (self.label(), self.label());
        self.mov(counter, init);
        self.branch(cmp.negate(), counter, limit, done);
        self.bind(top);
        body(self);
        self.loop_back(counter, step, cmp, limit, top);
        self.bind(done)
    }

    /// Jumps to `cases[value]`, or to `default` if `value` is out of range.
    pub fn switch(
        &mut self,
        value: impl Into<Operand>,
        cases: &[Label],
        default: Label,
    ) -> &mut Self {
        if cases.is_empty() {
            let op = self.ops.len();
            self.fail(BuildError::EmptySwitch { op });
        }
        let size = u16::try_from(cases.len()).unwrap_or_else(|_| {
            self.fail(BuildError::TooManyOps { count: cases.len() });
            0
        });
        let op = self.with_operands(OpRepr::new(Opcode::Switch).sub(size), &[value.into()]);
        self.push_to(op, default);
        for case in cases {
            self.jump(*case);
        }
        self
    }

    /// Copies `n` bytes from `from` to `to`; `dst = n`.
    pub fn copy(&mut self, dst: Reg, to: Buf, from: Buf, n: impl Into<Operand>) -> &mut Self {
        self.simple(Opcode::Copy, dst.0, &[to.into(), from.into(), n.into()])
    }

    /// Sets the first `n` bytes of `buf` to `byte`; `dst = n`.
    pub fn fill(
        &mut self,
        dst: Reg,
        buf: Buf,
        byte: impl Into<Operand>,
        n: impl Into<Operand>,
    ) -> &mut Self {
        let byte = byte.into();
        if let Operand::Imm(value) = byte {
            if value > 0xFF {
                let op = self.ops.len();
                self.fail(BuildError::ByteOutOfRange { op, value });
            }
        }
        self.simple(Opcode::Fill, dst.0, &[buf.into(), byte, n.into()])
    }

    /// Compares the first `n` bytes of `a` and `b`; `dst` = 0, 1 or -1.
    pub fn memcmp(&mut self, dst: Reg, a: Buf, b: Buf, n: impl Into<Operand>) -> &mut Self {
        self.simple(Opcode::Memcmp, dst.0, &[a.into(), b.into(), n.into()])
    }

    /// Counts `needle` in the first `n` bytes of `hay`; `dst` = the count.
    pub fn search(&mut self, dst: Reg, hay: Buf, needle: Buf, n: impl Into<Operand>) -> &mut Self {
        self.simple(
            Opcode::Search,
            dst.0,
            &[hay.into(), needle.into(), n.into()],
        )
    }

    /// `dst` = CRC-32C of the first `n` bytes of `buf`, continuing `seed`.
    pub fn crc32c(
        &mut self,
        dst: Reg,
        buf: Buf,
        n: impl Into<Operand>,
        seed: impl Into<Operand>,
    ) -> &mut Self {
        self.simple(Opcode::Crc32c, dst.0, &[buf.into(), n.into(), seed.into()])
    }

    /// Resolves labels and returns the finished ops.
    fn resolve(&self) -> Result<Vec<OpRepr>, BuildError> {
        if let Some(error) = self.error {
            return Err(error);
        }
        if self.ops.len() > usize::from(u16::MAX) {
            return Err(BuildError::TooManyOps {
                count: self.ops.len(),
            });
        }
        let mut ops = self.ops.clone();
        for &(index, label) in &self.fixups {
            let target = self
                .labels
                .get(label.index as usize)
                .copied()
                .flatten()
                .ok_or(BuildError::UnresolvedLabel {
                    label: label.index,
                    op: index,
                })?;
            if let Some(op) = ops.get_mut(index) {
                op.target = target;
            }
        }
        Ok(ops)
    }

    fn repr<'a>(&'a self, ops: &'a [OpRepr]) -> CompoundRepr<'a> {
        CompoundRepr {
            flags: self.flags,
            step_budget: self.budget,
            ops,
            refs: &self.refs,
        }
    }

    /// The compound's bytes, results area included and zeroed.
    pub fn build(&self) -> Result<Vec<u8>, BuildError> {
        let ops = self.resolve()?;
        let repr = self.repr(&ops);
        let mut out = vec![0; repr.buffer_len()];
        repr.emit(&mut out)?;
        Ok(out)
    }

    /// Writes the compound at the start of `out` (e.g. the shared compound
    /// buffer) and returns its length.
    pub fn build_into(&self, out: &mut [u8]) -> Result<usize, BuildError> {
        let ops = self.resolve()?;
        Ok(self.repr(&ops).emit(out)?)
    }

    /// The ops and refs as plain representations, labels resolved (for
    /// tests and tools that inspect compounds).
    pub fn reprs(&self) -> Result<(Vec<OpRepr>, Vec<RefRepr>), BuildError> {
        Ok((self.resolve()?, self.refs.clone()))
    }
}
