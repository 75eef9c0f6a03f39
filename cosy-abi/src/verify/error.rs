//! Why the verifier rejected a compound.
//!
//! Every rejection is a specific variant that names where (the op index,
//! the operand, the buffer ref) and why, and prints as a sentence a person
//! can act on without the spec open. Each maps to one wire code.

use core::fmt;

use crate::code;
use crate::wire::{Kind, Opcode, MAX_NEEDLE, NREGS};

/// What an operand had to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// An immediate or a register.
    Value,
    /// A buffer ref.
    Buffer,
}

/// A field of an op, for "reserved field not zero" errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// `dst` on an op that writes no register.
    Dst,
    /// `sub` on an op that has none.
    Sub,
    /// `target` on an op that does not jump.
    Target,
    /// The reserved 8 bytes.
    Reserved,
    /// Bits 12..15 of `kinds`.
    Kinds,
    /// An operand slot of kind none that holds a value.
    Operand(u8),
}

/// How an op is named in messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpName {
    /// A builtin op.
    Builtin(Opcode),
    /// A `CALL` of a named service operation.
    Call(&'static str),
    /// A `CALL` of an opcode the service does not have.
    CallUnknown(u16),
    /// A code that is not an op.
    Unknown(u8),
}

/// Why a buffer ref is invalid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefError {
    /// The index is past the ref table.
    Index {
        /// Entries in the table.
        ref_count: u16,
    },
    /// The region number is not one of the client's.
    UnknownRegion {
        /// Region named.
        region: u8,
        /// Regions the client has.
        regions: usize,
    },
    /// `offset + len` runs past the region.
    OutOfBounds {
        /// Region.
        region: u8,
        /// Static offset.
        offset: u32,
        /// Length.
        len: u32,
        /// The region's length.
        region_len: usize,
    },
    /// The offset register is above 31.
    BadOffsetReg {
        /// Register number given.
        reg: u8,
    },
    /// A reserved field is non-zero.
    Reserved,
}

/// Why one op is invalid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpError {
    /// `code` is not an op.
    UnknownOpcode,
    /// `CALL` of an opcode missing from the service's table.
    UnknownServiceOp {
        /// The service's name.
        service: &'static str,
    },
    /// Wrong number of operands.
    ArgCount {
        /// Operands the op takes.
        expected: u8,
        /// Operands given (slots not of kind none).
        found: u8,
    },
    /// An operand of the wrong kind.
    OperandKind {
        /// Operand index.
        operand: u8,
        /// What it had to be.
        expected: Expect,
        /// What it was.
        found: Kind,
    },
    /// A register operand above 31.
    BadRegister {
        /// Operand index.
        operand: u8,
        /// The slot's value.
        reg: u64,
    },
    /// `dst` is neither a register nor `0xFF`.
    BadDst {
        /// The value given.
        reg: u8,
    },
    /// `LOOP` has no counter register.
    NoCounter,
    /// A target past the end.
    BadTarget {
        /// The target.
        target: u16,
        /// Ops in the compound.
        op_count: u16,
    },
    /// A field that must be zero is not.
    Reserved {
        /// Which.
        field: Field,
    },
    /// `sub` is not a comparison.
    BadComparison {
        /// The value given.
        value: u16,
    },
    /// A switch table of size 0.
    SwitchEmpty,
    /// The switch table runs past the last op.
    SwitchPastEnd {
        /// Table size.
        size: u16,
        /// Ops in the compound.
        op_count: u16,
    },
    /// A switch table entry that is not a `JUMP`.
    SwitchEntry {
        /// The entry's op index.
        entry: u16,
    },
    /// An immediate out of range.
    ValueOutOfRange {
        /// Operand index.
        operand: u8,
        /// The value.
        value: u64,
        /// The largest allowed.
        max: u64,
    },
    /// A `SEARCH` needle of length 0 or above 256.
    NeedleLength {
        /// Its length.
        len: u32,
    },
    /// A buffer ref operand is invalid.
    Ref {
        /// Operand index.
        operand: u8,
        /// Ref index.
        index: u16,
        /// Why.
        error: RefError,
    },
}

/// Why a compound was rejected; see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerifyError {
    /// Fewer bytes than a header.
    Truncated {
        /// Bytes given.
        len: usize,
    },
    /// The magic is wrong.
    BadMagic {
        /// The bytes found.
        found: [u8; 4],
    },
    /// A version this server does not implement.
    UnsupportedVersion {
        /// Major.
        major: u8,
        /// Minor.
        minor: u8,
    },
    /// Unknown flag bits.
    UnknownFlags {
        /// The flags word.
        flags: u16,
    },
    /// A reserved header byte is non-zero.
    HeaderReserved {
        /// Its offset.
        offset: usize,
    },
    /// `total_len` disagrees with the counts.
    LengthMismatch {
        /// `total_len`.
        declared: u32,
        /// What the counts imply.
        expected: usize,
    },
    /// `total_len` is past the buffer's end.
    BufferTooShort {
        /// `total_len`.
        declared: u32,
        /// Bytes in the buffer.
        available: usize,
    },
    /// More ops than the server decodes.
    TooManyOps {
        /// Ops in the compound.
        count: u16,
        /// Most the server takes.
        max: usize,
    },
    /// `step_budget` is 0.
    ZeroBudget,
    /// The server passed more than 16 regions.
    TooManyRegions {
        /// Regions passed.
        count: usize,
    },
    /// An op is invalid.
    Op {
        /// Its index.
        index: u16,
        /// Its name.
        name: OpName,
        /// Why.
        error: OpError,
    },
    /// A buffer ref no op uses is invalid.
    Ref {
        /// Its index.
        index: u16,
        /// Why.
        error: RefError,
    },
}

impl RefError {
    fn code(&self) -> u16 {
        match self {
            RefError::Index { .. } => code::REF_INDEX,
            RefError::UnknownRegion { .. } => code::UNKNOWN_REGION,
            RefError::OutOfBounds { .. } => code::STATIC_REF_OUT_OF_BOUNDS,
            RefError::BadOffsetReg { .. } | RefError::Reserved => code::REF_RESERVED,
        }
    }
}

impl OpError {
    fn code(&self) -> u16 {
        match self {
            OpError::UnknownOpcode => code::UNKNOWN_OPCODE,
            OpError::UnknownServiceOp { .. } => code::UNKNOWN_SERVICE_OP,
            OpError::ArgCount { .. } => code::ARG_COUNT,
            OpError::OperandKind { .. } => code::OPERAND_KIND,
            OpError::BadRegister { .. } | OpError::BadDst { .. } => code::BAD_REGISTER,
            OpError::NoCounter => code::NO_COUNTER,
            OpError::BadTarget { .. } => code::BAD_TARGET,
            OpError::Reserved { .. } => code::OP_RESERVED,
            OpError::BadComparison { .. } => code::BAD_COMPARISON,
            OpError::SwitchEmpty | OpError::SwitchPastEnd { .. } | OpError::SwitchEntry { .. } => {
                code::SWITCH_TABLE
            }
            OpError::ValueOutOfRange { .. } => code::VALUE_OUT_OF_RANGE,
            OpError::NeedleLength { .. } => code::NEEDLE_LENGTH,
            OpError::Ref { error, .. } => error.code(),
        }
    }
}

impl VerifyError {
    /// The wire code (spec §10).
    pub fn code(&self) -> u16 {
        match self {
            VerifyError::Truncated { .. } => code::TRUNCATED,
            VerifyError::BadMagic { .. } => code::BAD_MAGIC,
            VerifyError::UnsupportedVersion { .. } => code::UNSUPPORTED_VERSION,
            VerifyError::UnknownFlags { .. } => code::UNKNOWN_FLAGS,
            VerifyError::HeaderReserved { .. } => code::HEADER_RESERVED,
            VerifyError::LengthMismatch { .. } => code::LENGTH_MISMATCH,
            VerifyError::BufferTooShort { .. } => code::BUFFER_TOO_SHORT,
            VerifyError::TooManyOps { .. } => code::TOO_MANY_OPS,
            VerifyError::ZeroBudget => code::ZERO_BUDGET,
            VerifyError::TooManyRegions { .. } => code::TOO_MANY_REGIONS,
            VerifyError::Op { error, .. } => error.code(),
            VerifyError::Ref { error, .. } => error.code(),
        }
    }

    /// The op index the error is about, if it is about one op.
    pub fn op(&self) -> Option<u16> {
        match self {
            VerifyError::Op { index, .. } => Some(*index),
            _ => None,
        }
    }
}

impl fmt::Display for OpName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpName::Builtin(op) => f.write_str(op.name()),
            OpName::Call(name) => write!(f, "call {name}"),
            OpName::CallUnknown(opcode) => write!(f, "call #{opcode}"),
            OpName::Unknown(code) => write!(f, "code {code:#04x}"),
        }
    }
}

impl fmt::Display for Expect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Expect::Value => "a value (immediate or register)",
            Expect::Buffer => "a buffer ref",
        })
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Field::Dst => f.write_str("dst (this op writes no register; use 0xFF)"),
            Field::Sub => f.write_str("sub (this op has none)"),
            Field::Target => f.write_str("target (this op does not jump)"),
            Field::Reserved => f.write_str("the reserved bytes 8..16"),
            Field::Kinds => f.write_str("kinds bits 12..15"),
            Field::Operand(i) => write!(f, "operand slot {i} (its kind is none)"),
        }
    }
}

impl fmt::Display for RefError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RefError::Index { ref_count } => {
                write!(f, "does not exist (the ref table has {ref_count} entries)")
            }
            RefError::UnknownRegion { region, regions } => {
                write!(f, "names region {region}, but the client has {regions} region(s)")
            }
            RefError::OutOfBounds { region, offset, len, region_len } => write!(
                f,
                "covers bytes {offset}..{} of region {region}, which is only {region_len} bytes long",
                u64::from(offset) + u64::from(len)
            ),
            RefError::BadOffsetReg { reg } => {
                write!(f, "takes its offset from register {reg}; registers are r0..r{}", NREGS - 1)
            }
            RefError::Reserved => f.write_str("has non-zero reserved bytes"),
        }
    }
}

impl fmt::Display for OpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            OpError::UnknownOpcode => f.write_str("not an op code this server knows"),
            OpError::UnknownServiceOp { service } => {
                write!(f, "service {service} has no such operation")
            }
            OpError::ArgCount { expected, found } => {
                write!(f, "takes {expected} operand(s), but {found} are given")
            }
            OpError::OperandKind { operand, expected, found } => {
                write!(f, "operand {operand} must be {expected}, but is {}", found.name())
            }
            OpError::BadRegister { operand, reg } => {
                write!(f, "operand {operand} names register {reg}; registers are r0..r{}", NREGS - 1)
            }
            OpError::BadDst { reg } => write!(
                f,
                "dst names register {reg}; registers are r0..r{} (0xFF for none)",
                NREGS - 1
            ),
            OpError::NoCounter => f.write_str("a loop needs a counter register in dst"),
            OpError::BadTarget { target, op_count } => write!(
                f,
                "jumps to op {target}, past the end (the compound has {op_count} ops; {op_count} itself means \"end\")"
            ),
            OpError::Reserved { field } => write!(f, "{field} must be zero"),
            OpError::BadComparison { value } => {
                write!(f, "sub {value} is not a comparison (0..=9)")
            }
            OpError::SwitchEmpty => f.write_str("switch table has size 0"),
            OpError::SwitchPastEnd { size, op_count } => write!(
                f,
                "switch table of {size} entries runs past the last op (the compound has {op_count} ops)"
            ),
            OpError::SwitchEntry { entry } => {
                write!(f, "switch table entry at op {entry} is not a jump")
            }
            OpError::ValueOutOfRange { operand, value, max } => {
                write!(f, "operand {operand} is {value}, larger than the maximum {max}")
            }
            OpError::NeedleLength { len } => write!(
                f,
                "search needle is {len} bytes long; it must be 1..={MAX_NEEDLE}"
            ),
            OpError::Ref { operand, index, error } => {
                write!(f, "operand {operand}: buffer ref {index} {error}")
            }
        }
    }
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            VerifyError::Truncated { len } => {
                write!(f, "compound is {len} bytes, shorter than its 32-byte header")
            }
            VerifyError::BadMagic { found } => {
                write!(f, "compound starts with {found:02x?}, not the magic \"COSY\"")
            }
            VerifyError::UnsupportedVersion { major, minor } => write!(
                f,
                "compound version {major}.{minor} is not supported (this server reads 1.0)"
            ),
            VerifyError::UnknownFlags { flags } => {
                write!(f, "header flags {flags:#06x} set bits this version does not define")
            }
            VerifyError::HeaderReserved { offset } => {
                write!(f, "header byte {offset} is reserved and must be zero")
            }
            VerifyError::LengthMismatch { declared, expected } => write!(
                f,
                "header says the compound is {declared} bytes, but its op and ref counts make it {expected}"
            ),
            VerifyError::BufferTooShort { declared, available } => write!(
                f,
                "header says the compound is {declared} bytes, but the buffer holds only {available}"
            ),
            VerifyError::TooManyOps { count, max } => {
                write!(f, "compound has {count} ops; this server takes at most {max}")
            }
            VerifyError::ZeroBudget => f.write_str("step budget is 0; a compound needs at least 1"),
            VerifyError::TooManyRegions { count } => write!(
                f,
                "server passed {count} regions; at most 16 can be named (server bug)"
            ),
            VerifyError::Op { index, name, error } => write!(f, "op {index} ({name}): {error}"),
            VerifyError::Ref { index, error } => write!(f, "buffer ref {index} {error}"),
        }
    }
}
