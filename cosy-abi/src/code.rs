//! Status and error codes as they appear on the wire (spec §10).
//!
//! One `u16` space for everything a client can read back: per-op status,
//! the code that stopped a run, the code that rejected a compound. The
//! typed errors (`VerifyError`, `RunError`, `CallError`) each map into it.

/// Op never ran / no error.
pub const NONE: u16 = 0x0000;
/// Op succeeded.
pub const OK: u16 = 0x0001;

/// `DIV` or `REM` by zero.
pub const DIVIDE_BY_ZERO: u16 = 0x0010;
/// The next op would exceed the step budget.
pub const BUDGET_EXHAUSTED: u16 = 0x0011;
/// A ref with an offset register points outside its region.
pub const REF_OUT_OF_BOUNDS: u16 = 0x0012;
/// A data op's byte count exceeds one of its buffers.
pub const COUNT_TOO_LARGE: u16 = 0x0013;
/// The service asked for a buffer at a value operand.
pub const NOT_A_BUFFER: u16 = 0x0014;
/// A prepared compound ran with a region smaller than it was verified for.
pub const REGION_TOO_SMALL: u16 = 0x0015;
/// The server gave fewer result slots than the compound has ops.
pub const RESULTS_TOO_SMALL: u16 = 0x0016;
/// The service does not implement the opcode it was called with.
pub const UNKNOWN_SERVICE_OP_AT_RUN: u16 = 0x0017;
/// The service failed with error 0 or a code above `0x7FFF`, which
/// `SERVICE | code` cannot carry (a service bug; the op still failed).
pub const SERVICE_BAD_ERROR: u16 = 0x0018;

/// Buffer shorter than the header.
pub const TRUNCATED: u16 = 0x0100;
/// Magic is not `COSY`.
pub const BAD_MAGIC: u16 = 0x0101;
/// Unsupported version.
pub const UNSUPPORTED_VERSION: u16 = 0x0102;
/// A reserved flag bit is set.
pub const UNKNOWN_FLAGS: u16 = 0x0103;
/// A reserved header byte is non-zero.
pub const HEADER_RESERVED: u16 = 0x0104;
/// `total_len` disagrees with the counts.
pub const LENGTH_MISMATCH: u16 = 0x0105;
/// `total_len` is larger than the buffer.
pub const BUFFER_TOO_SHORT: u16 = 0x0106;
/// More ops than the server will decode.
pub const TOO_MANY_OPS: u16 = 0x0107;
/// The step budget is zero.
pub const ZERO_BUDGET: u16 = 0x0108;
/// The server passed more regions than the format can name.
pub const TOO_MANY_REGIONS: u16 = 0x0109;
/// Unknown op code.
pub const UNKNOWN_OPCODE: u16 = 0x0110;
/// `CALL` names an opcode the service does not have.
pub const UNKNOWN_SERVICE_OP: u16 = 0x0111;
/// Wrong number of operands.
pub const ARG_COUNT: u16 = 0x0112;
/// Operand kind not allowed there.
pub const OPERAND_KIND: u16 = 0x0113;
/// Register number above 31.
pub const BAD_REGISTER: u16 = 0x0114;
/// `LOOP` without a counter register.
pub const NO_COUNTER: u16 = 0x0115;
/// Jump target past the end.
pub const BAD_TARGET: u16 = 0x0116;
/// A reserved or unused op field is non-zero.
pub const OP_RESERVED: u16 = 0x0117;
/// `sub` is not a comparison.
pub const BAD_COMPARISON: u16 = 0x0118;
/// Malformed switch table.
pub const SWITCH_TABLE: u16 = 0x0119;
/// An immediate out of range.
pub const VALUE_OUT_OF_RANGE: u16 = 0x011A;
/// `SEARCH` needle empty or too long.
pub const NEEDLE_LENGTH: u16 = 0x011B;
/// Buffer-ref index past `ref_count`.
pub const REF_INDEX: u16 = 0x0120;
/// A ref names a region the client does not have.
pub const UNKNOWN_REGION: u16 = 0x0121;
/// A ref's static extent runs past its region.
pub const STATIC_REF_OUT_OF_BOUNDS: u16 = 0x0122;
/// A ref's reserved field is non-zero or its offset register is invalid.
pub const REF_RESERVED: u16 = 0x0123;

/// A ring entry's descriptor lies outside the ring's data area.
pub const ENTRY_OUT_OF_BOUNDS: u16 = 0x0200;
/// A ring entry is shorter than its header and the words it announces.
pub const ENTRY_TRUNCATED: u16 = 0x0201;
/// A ring entry's kind is neither an operation nor a compound.
pub const ENTRY_KIND: u16 = 0x0202;
/// A ring entry's reserved header bytes are not zero.
pub const ENTRY_RESERVED: u16 = 0x0203;
/// A ring entry announces more words than its kind takes.
pub const ENTRY_WORDS: u16 = 0x0204;
/// A compound entry's calls did more work (bytes moved, syncs:
/// `Service::work`) than one ring entry may; it stopped at the op that
/// would have gone past. A longer compound goes by IPC, where it runs in
/// slices.
pub const ENTRY_WORK_EXHAUSTED: u16 = 0x0205;

/// Service-defined errors are `SERVICE | code`, code 1..=0x7FFF.
pub const SERVICE: u16 = 0x8000;

/// A service's own error `code` (1..=0x7FFF) as the client reads it:
/// `SERVICE | code`.
pub const fn service(code: u16) -> u16 {
    SERVICE | code
}

/// What an op that failed with `code` leaves in its destination
/// register: the code negated, negative as an `i64` (spec §8), as a
/// Linux system call returns `-errno`.
pub const fn failed(code: u16) -> u64 {
    0u64.wrapping_sub(code as u64)
}

/// The code a register holds the negation of, if its value is a failure
/// (negative as an `i64` and no larger in magnitude than a code).
pub const fn failure_of(value: u64) -> Option<u16> {
    let code = 0u64.wrapping_sub(value);
    if (value as i64) < 0 && code <= u16::MAX as u64 {
        Some(code as u16)
    } else {
        None
    }
}

/// A short English description of a code, for logs.
pub fn describe(code: u16) -> &'static str {
    match code {
        NONE => "no error",
        OK => "ok",
        DIVIDE_BY_ZERO => "division by zero",
        BUDGET_EXHAUSTED => "step budget exhausted",
        REF_OUT_OF_BOUNDS => "buffer ref outside its region",
        COUNT_TOO_LARGE => "byte count larger than a buffer",
        NOT_A_BUFFER => "service wanted a buffer at a value operand",
        REGION_TOO_SMALL => "a region is smaller than when the compound was verified",
        RESULTS_TOO_SMALL => "fewer result slots than ops (server bug)",
        UNKNOWN_SERVICE_OP_AT_RUN => "service does not implement this opcode",
        SERVICE_BAD_ERROR => "service failed with error 0 or a code above 0x7FFF",
        TRUNCATED => "buffer shorter than the header",
        BAD_MAGIC => "bad magic",
        UNSUPPORTED_VERSION => "unsupported version",
        UNKNOWN_FLAGS => "unknown flags",
        HEADER_RESERVED => "reserved header byte not zero",
        LENGTH_MISMATCH => "total length disagrees with the counts",
        BUFFER_TOO_SHORT => "total length larger than the buffer",
        TOO_MANY_OPS => "too many ops",
        ZERO_BUDGET => "step budget is zero",
        TOO_MANY_REGIONS => "too many regions",
        UNKNOWN_OPCODE => "unknown op code",
        UNKNOWN_SERVICE_OP => "unknown service opcode",
        ARG_COUNT => "wrong number of operands",
        OPERAND_KIND => "wrong operand kind",
        BAD_REGISTER => "register number out of range",
        NO_COUNTER => "loop without a counter register",
        BAD_TARGET => "jump target past the end",
        OP_RESERVED => "reserved op field not zero",
        BAD_COMPARISON => "unknown comparison",
        SWITCH_TABLE => "malformed switch table",
        VALUE_OUT_OF_RANGE => "immediate out of range",
        NEEDLE_LENGTH => "search needle empty or too long",
        REF_INDEX => "buffer ref index past the ref table",
        UNKNOWN_REGION => "unknown region",
        STATIC_REF_OUT_OF_BOUNDS => "buffer ref runs past its region",
        REF_RESERVED => "malformed buffer ref",
        ENTRY_OUT_OF_BOUNDS => "ring entry outside the ring's data area",
        ENTRY_TRUNCATED => "ring entry shorter than its header and words",
        ENTRY_KIND => "ring entry of unknown kind",
        ENTRY_RESERVED => "ring entry's reserved bytes not zero",
        ENTRY_WORDS => "ring entry with more words than its kind takes",
        ENTRY_WORK_EXHAUSTED => {
            "compound entry did more work than one ring entry may (send it by IPC)"
        }
        c if c & SERVICE != 0 => "service error",
        _ => "unknown code",
    }
}
