//! The compound wire format: sizes, field offsets and codes from
//! `docs/cosy-abi.md`, plus the checked zero-copy view over the bytes.
//!
//! Everything that names a byte position lives here, so the spec and the
//! code can be compared line by line. The view (`Compound`) and the plain
//! representations (`OpRepr`, `RefRepr`) are the only code that touches
//! raw compound bytes.

pub(crate) mod compound;
mod opcode;
mod repr;

pub use compound::{Compound, OpView, RefView};
pub use opcode::{Cmp, Kind, Opcode};
pub use repr::{CompoundRepr, EmitError, OpRepr, OperandRepr, RefRepr};

/// The four magic bytes that open every compound.
pub const MAGIC: [u8; 4] = *b"COSY";
/// The major version this crate reads and writes.
pub const VERSION_MAJOR: u8 = 1;
/// The newest minor version this crate understands.
pub const VERSION_MINOR: u8 = 0;

/// Header flag: stop at the first failing op.
pub const FLAG_FAIL_FAST: u16 = 1;
/// All flag bits this version defines.
pub const KNOWN_FLAGS: u16 = FLAG_FAIL_FAST;

/// Size of the compound header.
pub const HEADER_LEN: usize = 32;
/// Size of one op.
pub const OP_LEN: usize = 64;
/// Size of one buffer-ref entry.
pub const REF_LEN: usize = 16;
/// Size of the results header.
pub const RESULTS_HEADER_LEN: usize = 32;
/// Size of one per-op result.
pub const OP_RESULT_LEN: usize = 16;

/// Number of registers, `r0`..`r31`.
pub const NREGS: usize = 32;
/// Operand slots per op.
pub const MAX_OPERANDS: usize = 6;
/// `dst` / `offset_reg` value meaning "no register".
pub const NO_REG: u8 = 0xFF;
/// Op index meaning "no op" in the results area.
pub const NO_OP: u16 = 0xFFFF;
/// Longest needle `SEARCH` accepts; bounds the per-search set-up and the
/// direct check after each match, so a search's work stays proportional to
/// the bytes its step budget charged for.
pub const MAX_NEEDLE: usize = 256;
/// A data op costs one extra step per this many bytes.
pub const BYTES_PER_STEP: u64 = 256;

/// Header field offsets.
pub(crate) mod hdr {
    pub const MAGIC: usize = 0;
    pub const MAJOR: usize = 4;
    pub const MINOR: usize = 5;
    pub const FLAGS: usize = 6;
    pub const TOTAL_LEN: usize = 8;
    pub const OP_COUNT: usize = 12;
    pub const REF_COUNT: usize = 14;
    pub const BUDGET: usize = 16;
    pub const RESERVED: core::ops::Range<usize> = 20..32;
}

/// Op field offsets, relative to the op.
pub(crate) mod op {
    pub const CODE: usize = 0;
    pub const DST: usize = 1;
    pub const SUB: usize = 2;
    pub const KINDS: usize = 4;
    pub const TARGET: usize = 6;
    pub const RESERVED: usize = 8;
    pub const OPERANDS: usize = 16;
}

/// Buffer-ref field offsets, relative to the entry.
pub(crate) mod rf {
    pub const REGION: usize = 0;
    pub const OFFSET_REG: usize = 1;
    pub const RESERVED0: usize = 2;
    pub const OFFSET: usize = 4;
    pub const LEN: usize = 8;
    pub const RESERVED1: usize = 12;
}

/// Results-header field offsets, relative to the results area.
pub(crate) mod res {
    pub const OUTCOME: usize = 0;
    pub const STOP_CODE: usize = 2;
    pub const STOP_OP: usize = 4;
    pub const FIRST_CODE: usize = 6;
    pub const FIRST_OP: usize = 8;
    pub const FAILURES: usize = 12;
    pub const STEPS: usize = 16;
    pub const EXIT_VALUE: usize = 24;
    /// Per-op result fields, relative to the entry.
    pub const VALUE: usize = 0;
    pub const STATUS: usize = 8;
    pub const RUNS: usize = 12;
}

/// The exact length of a compound with these counts (spec §2).
pub const fn total_len(op_count: usize, ref_count: usize) -> usize {
    HEADER_LEN
        + OP_LEN * op_count
        + REF_LEN * ref_count
        + RESULTS_HEADER_LEN
        + OP_RESULT_LEN * op_count
}

/// Offset of the buffer-ref table.
pub(crate) const fn refs_offset(op_count: usize) -> usize {
    HEADER_LEN + OP_LEN * op_count
}

/// Offset of the results area.
pub(crate) const fn results_offset(op_count: usize, ref_count: usize) -> usize {
    refs_offset(op_count) + REF_LEN * ref_count
}
