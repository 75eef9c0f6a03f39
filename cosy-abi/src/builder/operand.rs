//! The builder's typed handles: registers, buffer refs, labels, and the
//! operands made from them and from plain numbers.
//!
//! Keeping registers (`Reg`), buffers (`Buf`) and numbers apart in the
//! type system is what makes "a buffer where a value belongs" a compile
//! error for the app instead of a verifier rejection at run time.
//!
//! Buffers and labels are numbered per builder, so each also carries the
//! identity of the builder that made it ([`Owner`]): used in another
//! builder, the same number would silently name that builder's buffer or
//! label, so the builder refuses it instead. Registers carry none: `r0`
//! is `r0` in every compound (a prepared compound's parameters are
//! positional), so a `Reg` is only a number.

use core::sync::atomic::{AtomicU64, Ordering};

use crate::wire::{OperandRepr, MAX_OPERANDS};

/// Which [`crate::Builder`] made a handle. Drawn from a process-wide
/// counter, so no two builders share one; 64 bits never wrap in practice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Owner(u64);

impl Owner {
    /// A new identity, for a new builder.
    pub(super) fn fresh() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        // Only uniqueness matters, not ordering with other memory.
        Owner(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// A register, handed out by [`crate::Builder::reg`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reg(pub(super) u8);

impl Reg {
    /// The register number, for reading [`crate::Registers`] after a run.
    pub fn index(self) -> u8 {
        self.0
    }
}

/// A buffer ref, handed out by [`crate::Builder::buf`]; valid only in the
/// builder that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Buf {
    pub(super) owner: Owner,
    /// Index in the owner's ref table.
    pub(super) index: u16,
}

/// A jump target, handed out by [`crate::Builder::label`]; valid only in
/// the builder that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    pub(super) owner: Owner,
    /// The owner's label number, in creation order.
    pub(super) index: u32,
}

/// One operand: a number, a register or a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// An immediate.
    Imm(u64),
    /// A register's value.
    Reg(Reg),
    /// A buffer.
    Buf(Buf),
}

impl Operand {
    pub(super) fn repr(self) -> OperandRepr {
        match self {
            Operand::Imm(v) => OperandRepr::imm(v),
            Operand::Reg(r) => OperandRepr::reg(r.0),
            Operand::Buf(b) => OperandRepr::buf(b.index),
        }
    }
}

impl From<Reg> for Operand {
    fn from(r: Reg) -> Self {
        Operand::Reg(r)
    }
}

impl From<Buf> for Operand {
    fn from(b: Buf) -> Self {
        Operand::Buf(b)
    }
}

macro_rules! unsigned_operand {
    ($($t:ty),*) => {$(
        impl From<$t> for Operand {
            fn from(v: $t) -> Self {
                Operand::Imm(v as u64)
            }
        }
    )*};
}
unsigned_operand!(u8, u16, u32, u64, usize);

macro_rules! signed_operand {
    ($($t:ty),*) => {$(
        /// Negative numbers are stored as two's complement.
        impl From<$t> for Operand {
            fn from(v: $t) -> Self {
                Operand::Imm(i64::from(v) as u64)
            }
        }
    )*};
}
signed_operand!(i32, i64);

/// A list of call operands: a tuple of up to six things that convert into
/// [`Operand`] (`(fd, buf, 4096)`), or a slice.
pub trait Operands {
    /// Writes the operands into `out` and returns how many there are,
    /// which may exceed six for a slice (the builder reports that).
    fn collect(self, out: &mut [Operand; MAX_OPERANDS]) -> usize;
}

impl Operands for &[Operand] {
    fn collect(self, out: &mut [Operand; MAX_OPERANDS]) -> usize {
        for (slot, op) in out.iter_mut().zip(self) {
            *slot = *op;
        }
        self.len()
    }
}

impl Operands for () {
    fn collect(self, _: &mut [Operand; MAX_OPERANDS]) -> usize {
        0
    }
}

macro_rules! tuple_operands {
    ($count:expr; $($name:ident $idx:tt),+) => {
        impl<$($name: Into<Operand>),+> Operands for ($($name,)+) {
            fn collect(self, out: &mut [Operand; MAX_OPERANDS]) -> usize {
                $(out[$idx] = self.$idx.into();)+
                $count
            }
        }
    };
}
tuple_operands!(1; A 0);
tuple_operands!(2; A 0, B 1);
tuple_operands!(3; A 0, B 1, C 2);
tuple_operands!(4; A 0, B 1, C 2, D 3);
tuple_operands!(5; A 0, B 1, C 2, D 3, E 4);
tuple_operands!(6; A 0, B 1, C 2, D 3, E 4, F 5);
