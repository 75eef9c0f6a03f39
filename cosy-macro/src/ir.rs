//! What the compiler produces: builder calls in program order, over
//! symbolic registers, labels and buffers.
//!
//! Registers stay symbolic ([`Var`]) until [`crate::emit`] numbers them in
//! the order the ops first mention them (parameters first), which is the
//! order a person writing the builder calls by hand takes them in.

use proc_macro2::{Span, TokenStream};
use syn::{Expr, Ident};

/// A register: a parameter, a `let` variable or a temporary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Var(pub usize);

/// A jump target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Label(pub usize);

/// A buffer ref, numbered in declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BufId(pub usize);

/// What the compiler knows about a register.
pub(crate) struct VarInfo {
    /// Where it was declared, for the "too many registers" error.
    pub span: Span,
    /// Whether the code may assign it after its first value.
    pub mutable: bool,
}

/// One operand of a builder call.
#[derive(Clone)]
pub(crate) enum Operand {
    Reg(Var),
    /// An immediate: tokens of a `u64` literal or of an app expression
    /// wrapped in `cosy_abi::Operand::from`.
    Imm(TokenStream),
    Buf(BufId),
}

/// What a service operand is, for the compile-time check against the
/// op table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Value,
    Buf,
}

/// The comparisons the compiler emits: unsigned, as every compound value
/// is a `u64`, unless the code asks for a signed one (`x as i64 < 0`,
/// `is_err(x)`). Names match `cosy_abi::Cmp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    Eq,
    Ne,
    LtU,
    LeU,
    GtU,
    GeU,
    LtS,
    LeS,
    GtS,
    GeS,
}

impl Cmp {
    /// The comparison that holds exactly when this one does not.
    pub fn negate(self) -> Cmp {
        match self {
            Cmp::Eq => Cmp::Ne,
            Cmp::Ne => Cmp::Eq,
            Cmp::LtU => Cmp::GeU,
            Cmp::LeU => Cmp::GtU,
            Cmp::GtU => Cmp::LeU,
            Cmp::GeU => Cmp::LtU,
            Cmp::LtS => Cmp::GeS,
            Cmp::LeS => Cmp::GtS,
            Cmp::GtS => Cmp::LeS,
            Cmp::GeS => Cmp::LtS,
        }
    }

    /// The same order compared as two's-complement `i64`.
    pub fn signed(self) -> Cmp {
        match self {
            Cmp::LtU => Cmp::LtS,
            Cmp::LeU => Cmp::LeS,
            Cmp::GtU => Cmp::GtS,
            Cmp::GeU => Cmp::GeS,
            other => other,
        }
    }

    /// The variant's name in `cosy_abi::Cmp`.
    pub fn name(self) -> &'static str {
        match self {
            Cmp::Eq => "Eq",
            Cmp::Ne => "Ne",
            Cmp::LtU => "LtU",
            Cmp::LeU => "LeU",
            Cmp::GtU => "GtU",
            Cmp::GeU => "GeU",
            Cmp::LtS => "LtS",
            Cmp::LeS => "LeS",
            Cmp::GtS => "GtS",
            Cmp::GeS => "GeS",
        }
    }
}

/// Where a buffer is: the arguments of `buf(...)` or `buf_at(...)`, all
/// app expressions except `buf_at`'s base register.
pub(crate) enum Place {
    /// `buf(region, offset, len)`.
    Parts {
        region: Expr,
        offset: Expr,
        len: Expr,
    },
    /// `buf(place)`: a `(region, offset, len)` tuple or anything that
    /// converts into one (`cosy_abi::Place`, from an `Arena`).
    Tuple(Expr),
    /// `buf_at(place, base)`: `place`'s offset plus `base`'s value when
    /// an op uses it (a `cosy_abi::Table`'s entries).
    TupleAt { place: Expr, base: Var },
    /// `buf_at(region, base, offset, len)`: `offset` plus `base`'s value
    /// when an op uses it.
    At {
        region: Expr,
        base: Var,
        offset: Expr,
        len: Expr,
    },
}

/// A service call, checked against the table when the app compiles.
pub(crate) struct Call {
    pub dst: Option<Var>,
    /// The operation's name as written (`read`), for messages.
    pub name: Ident,
    /// The operation's number: a path to its constant (`memfs::READ`).
    pub opcode: TokenStream,
    pub args: Vec<(Operand, Kind)>,
    /// The buffer names passed, for messages (`None` for values).
    pub arg_names: Vec<Option<String>>,
}

/// One builder call.
pub(crate) enum Op {
    DeclBuf(BufId, Box<Place>),
    Call(Call),
    /// `Builder::add` .. `Builder::shr`, by method name.
    Alu {
        method: &'static str,
        dst: Var,
        a: Operand,
        b: Operand,
    },
    Mov(Var, Operand),
    /// `copy`, `fill`, `memcmp`, `search`, `crc32c`, by method name.
    Data {
        method: &'static str,
        dst: Var,
        args: Vec<Operand>,
    },
    Branch(Cmp, Operand, Operand, Label),
    Jump(Label),
    LoopBack {
        counter: Var,
        step: Operand,
        cmp: Cmp,
        limit: Operand,
        to: Label,
    },
    Switch(Operand, Vec<Label>, Label),
    Bind(Label),
    Exit(Operand),
}
