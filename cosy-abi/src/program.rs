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
        args: [Arg; MAX_OPERANDS],
    },
    Exit {
        a: Arg,
    },
    Mov {
        dst: u8,
        a: Arg,
    },
    Add {
        dst: u8,
        a: Arg,
        b: Arg,
    },
    Sub {
        dst: u8,
        a: Arg,
        b: Arg,
    },
    Mul {
        dst: u8,
        a: Arg,
        b: Arg,
    },
    Div {
        dst: u8,
        a: Arg,
        b: Arg,
    },
    Rem {
        dst: u8,
        a: Arg,
        b: Arg,
    },
    And {
        dst: u8,
        a: Arg,
        b: Arg,
    },
    Or {
        dst: u8,
        a: Arg,
        b: Arg,
    },
    Xor {
        dst: u8,
        a: Arg,
        b: Arg,
    },
    Shl {
        dst: u8,
        a: Arg,
        b: Arg,
    },
    Shr {
        dst: u8,
        a: Arg,
        b: Arg,
    },
    Br {
        cmp: Cmp,
        a: Arg,
        b: Arg,
        target: u16,
    },
    Jump {
        target: u16,
    },
    Loop {
        counter: u8,
        cmp: Cmp,
        step: Arg,
        limit: Arg,
        target: u16,
    },
    /// Table entries are the `size` `Jump`s that follow.
    Switch {
        a: Arg,
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
    pub const EMPTY: Insn = Insn(Op::Exit { a: Arg::Imm(0) });
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
