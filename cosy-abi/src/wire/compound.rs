//! `Compound`: the checked zero-copy view over a compound buffer.
//!
//! The bytes come from a client and are untrusted. `Compound::new_checked`
//! validates the header and the layout once (spec §2–3); after that every
//! accessor stays inside the buffer. The field readers never panic even on
//! an unchecked view: a read past the end yields zeroes, which the checks
//! in `new_checked` make impossible for a checked one.

use super::{hdr, op, res, rf, Kind, HEADER_LEN, KNOWN_FLAGS, MAGIC, MAX_OPERANDS};
use super::{
    NO_OP, OP_LEN, OP_RESULT_LEN, REF_LEN, RESULTS_HEADER_LEN, VERSION_MAJOR, VERSION_MINOR,
};
use crate::report::{OpResult, Report};
use crate::verify::VerifyError;

/// Reads `N` bytes at `at`, or zeroes if they are not all inside `b`.
#[inline]
pub(crate) fn rd<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    b.get(at..at.wrapping_add(N))
        .and_then(|s| s.try_into().ok())
        .unwrap_or([0; N])
}

#[inline]
pub(crate) fn rd_u16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(rd(b, at))
}

#[inline]
pub(crate) fn rd_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(rd(b, at))
}

#[inline]
pub(crate) fn rd_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(rd(b, at))
}

/// Writes `bytes` at `at` if they fit. Writers only run on buffers whose
/// length was checked first, so a miss is a bug the round-trip tests catch.
#[inline]
pub(crate) fn wr(b: &mut [u8], at: usize, bytes: &[u8]) {
    if let Some(dst) = b.get_mut(at..at.wrapping_add(bytes.len())) {
        dst.copy_from_slice(bytes);
    }
}

/// A view over compound bytes; see the module docs.
#[derive(Clone, Copy, Debug)]
pub struct Compound<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Compound<T> {
    /// Wraps bytes without checking them. Accessors return zeroes for
    /// fields past the end; use [`Compound::new_checked`] for client data.
    pub const fn new_unchecked(buffer: T) -> Self {
        Compound { buffer }
    }

    /// Wraps bytes and checks the header and layout (spec §3): magic,
    /// version, flags, reserved bytes, budget, and that `total_len` equals
    /// the length the counts imply and fits in the buffer.
    pub fn new_checked(buffer: T) -> Result<Self, VerifyError> {
        let c = Compound::new_unchecked(buffer);
        c.check()?;
        Ok(c)
    }

    fn check(&self) -> Result<(), VerifyError> {
        let b = self.buffer.as_ref();
        if b.len() < HEADER_LEN {
            return Err(VerifyError::Truncated { len: b.len() });
        }
        let magic: [u8; 4] = rd(b, hdr::MAGIC);
        if magic != MAGIC {
            return Err(VerifyError::BadMagic { found: magic });
        }
        let (major, minor) = self.version();
        if major != VERSION_MAJOR || minor > VERSION_MINOR {
            return Err(VerifyError::UnsupportedVersion { major, minor });
        }
        if self.flags() & !KNOWN_FLAGS != 0 {
            return Err(VerifyError::UnknownFlags {
                flags: self.flags(),
            });
        }
        if let Some(offset) = hdr::RESERVED.clone().find(|&i| b[i] != 0) {
            return Err(VerifyError::HeaderReserved { offset });
        }
        let expected = self.expected_len();
        if self.total_len() as usize != expected {
            return Err(VerifyError::LengthMismatch {
                declared: self.total_len(),
                expected,
            });
        }
        if expected > b.len() {
            return Err(VerifyError::BufferTooShort {
                declared: self.total_len(),
                available: b.len(),
            });
        }
        if self.step_budget() == 0 {
            return Err(VerifyError::ZeroBudget);
        }
        Ok(())
    }

    /// The length the op and ref counts imply.
    pub fn expected_len(&self) -> usize {
        super::total_len(self.op_count().into(), self.ref_count().into())
    }

    /// The underlying bytes.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// Gives the buffer back.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// `(major, minor)`.
    #[inline]
    pub fn version(&self) -> (u8, u8) {
        let b = self.buffer.as_ref();
        (rd::<1>(b, hdr::MAJOR)[0], rd::<1>(b, hdr::MINOR)[0])
    }

    /// The raw flags word.
    #[inline]
    pub fn flags(&self) -> u16 {
        rd_u16(self.buffer.as_ref(), hdr::FLAGS)
    }

    /// Whether `FAIL_FAST` is set.
    #[inline]
    pub fn fail_fast(&self) -> bool {
        self.flags() & super::FLAG_FAIL_FAST != 0
    }

    /// The declared total length.
    #[inline]
    pub fn total_len(&self) -> u32 {
        rd_u32(self.buffer.as_ref(), hdr::TOTAL_LEN)
    }

    /// Number of ops.
    #[inline]
    pub fn op_count(&self) -> u16 {
        rd_u16(self.buffer.as_ref(), hdr::OP_COUNT)
    }

    /// Number of buffer refs.
    #[inline]
    pub fn ref_count(&self) -> u16 {
        rd_u16(self.buffer.as_ref(), hdr::REF_COUNT)
    }

    /// The step budget the client asks for.
    #[inline]
    pub fn step_budget(&self) -> u32 {
        rd_u32(self.buffer.as_ref(), hdr::BUDGET)
    }

    /// Op `index`, or `None` past `op_count` (or past the buffer).
    #[inline]
    pub fn op(&self, index: u16) -> Option<OpView<'_>> {
        if index >= self.op_count() {
            return None;
        }
        let at = HEADER_LEN + OP_LEN * usize::from(index);
        let bytes = self.buffer.as_ref().get(at..at + OP_LEN)?;
        Some(OpView(bytes.try_into().ok()?))
    }

    /// Buffer ref `index`, or `None` past `ref_count` (or past the buffer).
    #[inline]
    pub fn buffer_ref(&self, index: u16) -> Option<RefView<'_>> {
        if index >= self.ref_count() {
            return None;
        }
        let at = super::refs_offset(self.op_count().into()) + REF_LEN * usize::from(index);
        let bytes = self.buffer.as_ref().get(at..at + REF_LEN)?;
        Some(RefView(bytes.try_into().ok()?))
    }

    /// Reads the results header back as a [`Report`] (what a client does
    /// after the run).
    pub fn report(&self) -> Report {
        let at = super::results_offset(self.op_count().into(), self.ref_count().into());
        Report::parse(&rd::<RESULTS_HEADER_LEN>(self.buffer.as_ref(), at))
    }

    /// Reads op `index`'s result back.
    pub fn op_result(&self, index: u16) -> Option<OpResult> {
        let at = self.op_result_offset(index)?;
        let raw: [u8; OP_RESULT_LEN] = rd(self.buffer.as_ref(), at);
        Some(OpResult {
            value: u64::from_le_bytes(rd(&raw, res::VALUE)),
            status: rd_u16(&raw, res::STATUS),
            runs: rd_u32(&raw, res::RUNS),
        })
    }

    fn op_result_offset(&self, index: u16) -> Option<usize> {
        if index >= self.op_count() {
            return None;
        }
        let base = super::results_offset(self.op_count().into(), self.ref_count().into());
        Some(base + RESULTS_HEADER_LEN + OP_RESULT_LEN * usize::from(index))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Compound<T> {
    /// Writes the results area (spec §9) from a run's report and per-op
    /// results. Ops without an entry in `per_op` are written as never run.
    pub fn write_results(&mut self, report: &Report, per_op: &[OpResult]) {
        let base = super::results_offset(self.op_count().into(), self.ref_count().into());
        let ops = self.op_count();
        let b = self.buffer.as_mut();
        wr(b, base, &report.emit());
        for i in 0..ops {
            let r = per_op.get(usize::from(i)).copied().unwrap_or_default();
            let at = base + RESULTS_HEADER_LEN + OP_RESULT_LEN * usize::from(i);
            wr(b, at + res::VALUE, &r.value.to_le_bytes());
            wr(b, at + res::STATUS, &r.status.to_le_bytes());
            wr(b, at + res::STATUS + 2, &[0, 0]);
            wr(b, at + res::RUNS, &r.runs.to_le_bytes());
        }
    }

    /// Records that the verifier rejected the compound (outcome
    /// `REJECTED`, every op never ran) if the results area can be located
    /// (spec §9.1), and returns whether it wrote. Call it on any view,
    /// checked or not, after any rejection: a header that breaks only rules
    /// that do not move the results area (flags, reserved bytes, minor
    /// version, budget, the server's limits) still gets `REJECTED` rather
    /// than leaving the client reading `NOT_RUN`; bytes that may not be a
    /// compound at all are left alone, and the IPC reply is the only report.
    pub fn write_rejection(&mut self, error: &VerifyError) -> bool {
        if !self.results_locatable() {
            return false;
        }
        let report = Report::rejected(error.code(), error.op().unwrap_or(NO_OP));
        self.write_results(&report, &[]);
        true
    }
}

impl<T: AsRef<[u8]>> Compound<T> {
    /// Whether the bytes say where the results area is: they open with the
    /// magic and a major version whose layout this crate knows, and
    /// `total_len` matches the counts and fits in the buffer.
    fn results_locatable(&self) -> bool {
        let b = self.buffer.as_ref();
        let len = self.expected_len();
        b.len() >= HEADER_LEN
            && rd::<4>(b, hdr::MAGIC) == MAGIC
            && self.version().0 == VERSION_MAJOR
            && self.total_len() as usize == len
            && len <= b.len()
    }
}

/// One op's 64 bytes (spec §4).
#[derive(Clone, Copy, Debug)]
pub struct OpView<'a>(&'a [u8; OP_LEN]);

impl OpView<'_> {
    /// Raw op code byte.
    #[inline]
    pub fn code(&self) -> u8 {
        self.0[op::CODE]
    }

    /// Destination register, or `NO_REG`.
    #[inline]
    pub fn dst(&self) -> u8 {
        self.0[op::DST]
    }

    /// The `sub` field.
    #[inline]
    pub fn sub(&self) -> u16 {
        rd_u16(self.0, op::SUB)
    }

    /// The raw kinds word.
    #[inline]
    pub fn kinds(&self) -> u16 {
        rd_u16(self.0, op::KINDS)
    }

    /// Kind of operand `i` (0..6).
    #[inline]
    pub fn kind(&self, i: usize) -> Kind {
        Kind::from_bits(self.kinds() >> (2 * i))
    }

    /// The target field.
    #[inline]
    pub fn target(&self) -> u16 {
        rd_u16(self.0, op::TARGET)
    }

    /// The reserved 8 bytes as one word (must be zero).
    #[inline]
    pub fn reserved(&self) -> u64 {
        rd_u64(self.0, op::RESERVED)
    }

    /// Raw operand slot `i` (0..6); zero past the sixth.
    #[inline]
    pub fn operand(&self, i: usize) -> u64 {
        if i >= MAX_OPERANDS {
            return 0;
        }
        rd_u64(self.0, op::OPERANDS + 8 * i)
    }
}

/// One buffer ref's 16 bytes (spec §5).
#[derive(Clone, Copy, Debug)]
pub struct RefView<'a>(&'a [u8; REF_LEN]);

impl RefView<'_> {
    /// Region number.
    #[inline]
    pub fn region(&self) -> u8 {
        self.0[rf::REGION]
    }

    /// Offset register, or `NO_REG`.
    #[inline]
    pub fn offset_reg(&self) -> u8 {
        self.0[rf::OFFSET_REG]
    }

    /// Static offset.
    #[inline]
    pub fn offset(&self) -> u32 {
        rd_u32(self.0, rf::OFFSET)
    }

    /// Length in bytes.
    #[inline]
    pub fn len(&self) -> u32 {
        rd_u32(self.0, rf::LEN)
    }

    /// Whether the ref is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether both reserved fields are zero.
    #[inline]
    pub fn reserved_clear(&self) -> bool {
        rd_u16(self.0, rf::RESERVED0) == 0 && rd_u32(self.0, rf::RESERVED1) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compound with no ops, no refs and a budget of 16, byte by byte.
    const EMPTY: [u8; 64] = [
        b'C', b'O', b'S', b'Y', 1, 0, 1, 0, // magic, v1.0, FAIL_FAST
        64, 0, 0, 0, 0, 0, 0, 0, // total_len 64, 0 ops, 0 refs
        16, 0, 0, 0, 0, 0, 0, 0, // budget 16, reserved
        0, 0, 0, 0, 0, 0, 0, 0, // reserved
        0, 0, 0, 0, 0, 0, 0, 0, // results header
        0, 0, 0, 0, 0, 0, 0, 0, //
        0, 0, 0, 0, 0, 0, 0, 0, //
        0, 0, 0, 0, 0, 0, 0, 0, //
    ];

    #[test]
    fn empty_compound_parses() {
        let c = Compound::new_checked(&EMPTY[..]).unwrap();
        assert_eq!(c.version(), (1, 0));
        assert!(c.fail_fast());
        assert_eq!((c.op_count(), c.ref_count(), c.step_budget()), (0, 0, 16));
        assert!(c.op(0).is_none());
        assert!(c.buffer_ref(0).is_none());
    }

    #[test]
    fn unchecked_view_reads_zeroes_past_the_end() {
        let c = Compound::new_unchecked(&EMPTY[..10]);
        assert_eq!(c.total_len(), 0);
        assert_eq!(c.step_budget(), 0);
        assert!(c.op(0).is_none());
    }

    #[test]
    fn results_round_trip() {
        let mut bytes = EMPTY;
        let mut c = Compound::new_checked(&mut bytes[..]).unwrap();
        let report = Report::rejected(0x0110, 3);
        c.write_results(&report, &[]);
        assert_eq!(c.report(), report);
        assert_eq!(&bytes[32..38], &[3, 0, 0x10, 0x01, 3, 0]);
    }
}
