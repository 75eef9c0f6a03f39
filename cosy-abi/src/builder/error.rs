//! Why the builder could not produce a compound.
//!
//! The builder's methods do not return errors one by one (that would make
//! every line of an app's compound a `?`); the first problem is kept and
//! [`crate::Builder::build`] returns it, so no malformed compound is ever
//! written.

use core::fmt;

use crate::wire::{EmitError, MAX_OPERANDS, NREGS};

/// See the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// More than 32 registers were asked for.
    TooManyRegisters,
    /// More than 65,535 ops.
    TooManyOps {
        /// Ops written.
        count: usize,
    },
    /// More than 65,535 buffer refs.
    TooManyRefs {
        /// Refs created.
        count: usize,
    },
    /// A call with more than six operands.
    TooManyOperands {
        /// The op's index.
        op: usize,
        /// Operands given.
        count: usize,
    },
    /// A jump to a label that was never bound.
    UnresolvedLabel {
        /// The label's number, in creation order.
        label: u32,
        /// The first op that jumps to it.
        op: usize,
    },
    /// A label bound twice.
    LabelBoundTwice {
        /// The label's number.
        label: u32,
    },
    /// A label made by another builder, jumped to or bound here.
    ForeignLabel {
        /// The label's number in the builder that made it.
        label: u32,
        /// The op that jumps to it, or the op it was to be bound to.
        op: usize,
        /// Whether the mistake is binding it (else jumping to it).
        bound: bool,
    },
    /// A buffer made by another builder, used as an operand here.
    ForeignBuf {
        /// The buffer's index in the builder that made it.
        buf: u16,
        /// The op that uses it.
        op: usize,
        /// Which operand.
        operand: usize,
    },
    /// A `switch` with an empty table.
    EmptySwitch {
        /// The op's index.
        op: usize,
    },
    /// A `FILL` byte immediate above 255.
    ByteOutOfRange {
        /// The op's index.
        op: usize,
        /// The value.
        value: u64,
    },
    /// The output buffer is too short.
    BufferTooSmall {
        /// Bytes needed.
        needed: usize,
        /// Bytes available.
        available: usize,
    },
}

impl From<EmitError> for BuildError {
    fn from(e: EmitError) -> Self {
        match e {
            EmitError::TooManyOps(count) => BuildError::TooManyOps { count },
            EmitError::TooManyRefs(count) => BuildError::TooManyRefs { count },
            EmitError::BufferTooSmall { needed, available } => {
                BuildError::BufferTooSmall { needed, available }
            }
        }
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            BuildError::TooManyRegisters => write!(f, "more than {NREGS} registers requested"),
            BuildError::TooManyOps { count } => {
                write!(f, "{count} ops; a compound holds at most 65535")
            }
            BuildError::TooManyRefs { count } => {
                write!(f, "{count} buffer refs; a compound holds at most 65535")
            }
            BuildError::TooManyOperands { op, count } => {
                write!(
                    f,
                    "op {op} has {count} operands; at most {MAX_OPERANDS} are allowed"
                )
            }
            BuildError::UnresolvedLabel { label, op } => {
                write!(f, "op {op} jumps to label {label}, which is never bound")
            }
            BuildError::LabelBoundTwice { label } => write!(f, "label {label} is bound twice"),
            BuildError::ForeignLabel {
                label,
                op,
                bound: true,
            } => write!(
                f,
                "label {label} is bound at op {op}, but another Builder made it"
            ),
            BuildError::ForeignLabel {
                label,
                op,
                bound: false,
            } => write!(
                f,
                "op {op} jumps to label {label}, but another Builder made it"
            ),
            BuildError::ForeignBuf { buf, op, operand } => write!(
                f,
                "op {op} operand {operand} is buffer {buf}, but another Builder made it"
            ),
            BuildError::EmptySwitch { op } => write!(f, "switch at op {op} has no cases"),
            BuildError::ByteOutOfRange { op, value } => {
                write!(f, "fill at op {op} uses byte value {value}, above 255")
            }
            BuildError::BufferTooSmall { needed, available } => {
                write!(f, "compound needs {needed} bytes, buffer has {available}")
            }
        }
    }
}
