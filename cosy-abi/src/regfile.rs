//! The executor's register file, and where buffer refs point right now.
//!
//! 64 slots for 32 registers: writes to `NO_REG` (0xFF & 63 = 63) land in
//! a scratch slot, so an op without a destination needs no branch, and
//! masking every index with 63 makes it provably in bounds. Nothing
//! writes slot 32 (`ZERO_SLOT`), so a decoded immediate reads it as the
//! base it adds itself to (`Val`).

use crate::args::Span;
use crate::program::{Arg, RefDesc, Val};
use crate::registers::Registers;
use crate::wire::{NO_REG, NREGS};

/// See the module docs.
#[derive(Clone, Debug)]
pub(crate) struct Regfile([u64; 64]);

impl Regfile {
    pub fn load(regs: &Registers) -> Self {
        let mut file = [0; 64];
        file[..NREGS].copy_from_slice(regs.as_array());
        Regfile(file)
    }

    pub fn store(&self, regs: &mut Registers) {
        regs.as_mut_array().copy_from_slice(&self.0[..NREGS]);
    }

    #[inline(always)]
    pub fn get(&self, reg: u8) -> u64 {
        self.0[usize::from(reg) & 63]
    }

    #[inline(always)]
    pub fn set(&mut self, reg: u8, value: u64) {
        self.0[usize::from(reg) & 63] = value;
    }

    /// A decoded value operand: one load and one add, no branch.
    #[inline(always)]
    pub fn val(&self, v: Val) -> u64 {
        self.get(v.reg).wrapping_add(v.imm)
    }

    /// An operand's value; a buffer's value is its length.
    #[inline(always)]
    pub fn arg(&self, arg: &Arg) -> u64 {
        match *arg {
            Arg::Imm(v) => v,
            Arg::Reg(r) => self.get(r),
            Arg::Buf(d) => u64::from(d.len),
        }
    }

    /// Where a buffer ref points now (its offset register added), if that
    /// is inside its region.
    #[inline]
    pub fn resolve(&self, d: &RefDesc, regions: &[&mut [u8]]) -> Option<Span> {
        let base = if d.offset_reg == NO_REG {
            0
        } else {
            self.get(d.offset_reg)
        };
        let start = base.checked_add(u64::from(d.offset))?;
        let end = start.checked_add(u64::from(d.len))?;
        if end > regions.get(usize::from(d.region))?.len() as u64 {
            return None;
        }
        // start <= end <= the region's length, so it fits a usize.
        Some(Span {
            region: d.region,
            start: start as usize,
            len: d.len,
        })
    }
}
