//! `Program`: a verified compound, decoded into server-owned memory.
//!
//! This is the validated form of the wire format. It can only be made by
//! [`Program::verify`], so holding one means every op code, register,
//! target and static buffer ref was checked. The decoded ops live in
//! storage the server provides (an array, a slice, a `Vec`), so verifying
//! allocates nothing, and once decoded the client can no longer change
//! what runs by rewriting the shared buffer. A `Program` can run any
//! number of times ("prepared compound").

use crate::service::OpTable;
use crate::wire::{Cmp, MAX_OPERANDS};

/// Most regions a client can have per compound (region numbers 0..16).
pub const MAX_REGIONS: usize = 16;

/// What a compound is verified for: the service's operations, the
/// client's regions, and the server's step limit.
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    /// The service's op table.
    pub ops: OpTable<'a>,
    /// The length of each of the client's regions, by region number.
    pub regions: &'a [usize],
    /// The most steps the server allows one run; the client's requested
    /// budget is capped to this.
    pub max_steps: u32,
}

/// A buffer ref, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RefDesc {
    pub region: u8,
    /// `NO_REG` for a static ref.
    pub offset_reg: u8,
    pub offset: u32,
    pub len: u32,
}

/// A decoded operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arg {
    Imm(u64),
    /// Register number, checked `< NREGS`.
    Reg(u8),
    Buf(RefDesc),
}

/// A value operand as the executor reads it: register `reg` plus `imm`.
/// An immediate is [`ZERO_SLOT`] plus itself, a register itself plus 0,
/// so reading either is one load and one add, without a branch on the
/// operand's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Val {
    pub imm: u64,
    pub reg: u8,
}

/// The register-file slot an immediate reads: the executor's file has 64
/// slots for 32 registers and writes only to registers below 32 and to
/// the scratch slot of `NO_REG`, so this one stays 0 for the whole run.
pub(crate) const ZERO_SLOT: u8 = 32;

impl Val {
    pub const fn imm(value: u64) -> Val {
        Val {
            imm: value,
            reg: ZERO_SLOT,
        }
    }
}

impl From<Arg> for Val {
    /// An operand's value as [`crate::regfile::Regfile::arg`] reads it (a
    /// buffer's value is its length).
    fn from(arg: Arg) -> Val {
        match arg {
            Arg::Imm(v) => Val::imm(v),
            Arg::Reg(reg) => Val { imm: 0, reg },
            Arg::Buf(d) => Val::imm(u64::from(d.len)),
        }
    }
}

/// Which builtin data op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DataOp {
    Copy,
    Fill,
    Memcmp,
    Search,
    Crc32c,
}

/// A decoded op. Registers are checked `< NREGS`, or `NO_REG` where a
/// destination may be absent; targets are checked `<= op count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Call {
        dst: u8,
        opcode: u16,
        argc: u8,
        /// Some operand is a buffer (so the call checks them first).
        bufs: bool,
        args: [Arg; MAX_OPERANDS],
    },
    Exit {
        a: Val,
    },
    Mov {
        dst: u8,
        a: Val,
    },
    Add {
        dst: u8,
        a: Val,
        b: Val,
    },
    Sub {
        dst: u8,
        a: Val,
        b: Val,
    },
    Mul {
        dst: u8,
        a: Val,
        b: Val,
    },
    Div {
        dst: u8,
        a: Val,
        b: Val,
    },
    Rem {
        dst: u8,
        a: Val,
        b: Val,
    },
    And {
        dst: u8,
        a: Val,
        b: Val,
    },
    Or {
        dst: u8,
        a: Val,
        b: Val,
    },
    Xor {
        dst: u8,
        a: Val,
        b: Val,
    },
    Shl {
        dst: u8,
        a: Val,
        b: Val,
    },
    Shr {
        dst: u8,
        a: Val,
        b: Val,
    },
    Br {
        cmp: Cmp,
        a: Val,
        b: Val,
        target: u16,
    },
    Jump {
        target: u16,
    },
    Loop {
        counter: u8,
        cmp: Cmp,
        step: Val,
        limit: Val,
        target: u16,
    },
    /// Table entries are the `size` `Jump`s that follow.
    Switch {
        a: Val,
        size: u16,
        default: u16,
    },
    Data {
        op: DataOp,
        dst: u8,
        args: [Arg; 3],
    },
}

/// One decoded op, as stored in a [`Program`]'s storage. Opaque: servers
/// only allocate room for them (`[Insn::EMPTY; N]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insn(pub(crate) Op);

impl Insn {
    /// Filler for storage arrays; never executed.
    pub const EMPTY: Insn = Insn(Op::Exit { a: Val::imm(0) });
}

impl Default for Insn {
    fn default() -> Self {
        Insn::EMPTY
    }
}

/// A verified compound; see the module docs.
#[derive(Clone, Debug)]
pub struct Program<S> {
    pub(crate) storage: S,
    pub(crate) len: u16,
    pub(crate) budget: u32,
    pub(crate) fail_fast: bool,
    pub(crate) region_lens: [usize; MAX_REGIONS],
    pub(crate) region_count: usize,
}

impl<S: AsRef<[Insn]>> Program<S> {
    /// Number of ops.
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Whether the program has no ops.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The step budget in force: the client's request capped by the server.
    pub fn budget(&self) -> u32 {
        self.budget
    }

    /// Whether the compound stops at its first failing op.
    pub fn fail_fast(&self) -> bool {
        self.fail_fast
    }

    /// The decoded ops.
    pub(crate) fn insns(&self) -> &[Insn] {
        let all = self.storage.as_ref();
        all.get(..self.len()).unwrap_or(all)
    }

    /// The same program in other storage (a paused run's program kept
    /// past the request that verified it into scratch storage); `None` if
    /// `storage` is shorter than [`Program::len`].
    pub fn copy_into<T: AsRef<[Insn]> + AsMut<[Insn]>>(
        &self,
        mut storage: T,
    ) -> Option<Program<T>> {
        storage
            .as_mut()
            .get_mut(..self.len())?
            .copy_from_slice(self.insns());
        Some(Program {
            storage,
            len: self.len,
            budget: self.budget,
            fail_fast: self.fail_fast,
            region_lens: self.region_lens,
            region_count: self.region_count,
        })
    }

    /// Gives the storage back.
    pub fn into_storage(self) -> S {
        self.storage
    }
}
