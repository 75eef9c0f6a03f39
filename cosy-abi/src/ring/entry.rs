//! A ring entry's bytes in the data area, and the check that turns them
//! into something a server may act on.
//!
//! ```text
//! offset  size     field
//!      0     2     kind      1 = one operation, 2 = a compound
//!      2     2     op        the operation's number (a compound: 0)
//!      4     2     count     words that follow
//!      6     2     reserved  0
//!      8     8*n   words     an operation's operands (a buffer packed as
//!                            the server's per-call path packs it), or a
//!                            compound's parameters (registers r0..)
//!  8+8*n     ...   compound  (kind 2) the compound, to the entry's end
//! ```
//!
//! Little-endian, no alignment needed. The client may rewrite the bytes
//! at any time, so [`UntrustedEntry::check`] copies the header and the
//! words out once; a compound's ops are copied by the verifier.

use core::ops::Range;

use crate::code;
use crate::wire::MAX_OPERANDS;

use super::RingError;

/// Kind: one operation of the server's op table.
pub const OP: u16 = 1;
/// Kind: a compound with its parameters.
pub const COMPOUND: u16 = 2;
/// Bytes before the words.
pub const HEADER: usize = 8;
/// Most parameters a compound entry carries (one per register).
pub const MAX_PARAMS: usize = crate::wire::NREGS;

/// An entry as it lies in shared memory: any bytes at all.
#[derive(Clone, Copy, Debug)]
pub struct UntrustedEntry<'a> {
    bytes: &'a [u8],
}

/// An entry that passed [`UntrustedEntry::check`], held in server memory.
/// (A compound's 32 parameters make it about 300 bytes; it lives on the
/// stack for one entry, and the server side allocates nothing.)
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// One operation.
    Op(OpEntry),
    /// A compound, still to be verified.
    Compound(CompoundEntry),
}

/// One operation: its number and operand words (copied).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpEntry {
    /// The operation's number in the server's op table (not yet looked up).
    pub op: u16,
    words: [u64; MAX_OPERANDS],
    count: usize,
}

/// A compound: its parameters (copied) and where its bytes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompoundEntry {
    params: [u64; MAX_PARAMS],
    count: usize,
    /// Where the compound's bytes start, relative to the entry's start
    /// (they run to the entry's end).
    pub body: usize,
}

impl OpEntry {
    /// The operand words.
    pub fn words(&self) -> &[u64] {
        &self.words[..self.count]
    }
}

impl CompoundEntry {
    /// The parameters, for registers r0...
    pub fn params(&self) -> &[u64] {
        &self.params[..self.count]
    }
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

impl<'a> UntrustedEntry<'a> {
    /// The bytes a submission named.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }

    /// Copies the entry out and checks its shape, or the code to complete
    /// it with: `ENTRY_TRUNCATED`, `ENTRY_KIND`, `ENTRY_RESERVED`,
    /// `ENTRY_WORDS`. Whether the operation exists and its operands fit
    /// is the server's check against its op table; a compound's body is
    /// the verifier's.
    pub fn check(&self) -> Result<Entry, u16> {
        let b = self.bytes;
        if b.len() < HEADER {
            return Err(code::ENTRY_TRUNCATED);
        }
        let (kind, op, count) = (u16_at(b, 0), u16_at(b, 2), usize::from(u16_at(b, 4)));
        if u16_at(b, 6) != 0 {
            return Err(code::ENTRY_RESERVED);
        }
        let max = match kind {
            OP => MAX_OPERANDS,
            COMPOUND if op == 0 => MAX_PARAMS,
            COMPOUND => return Err(code::ENTRY_RESERVED),
            _ => return Err(code::ENTRY_KIND),
        };
        if count > max {
            return Err(code::ENTRY_WORDS);
        }
        let body = HEADER + 8 * count;
        let words = b.get(HEADER..body).ok_or(code::ENTRY_TRUNCATED)?;
        let mut copied = [0u64; MAX_PARAMS];
        for (w, chunk) in copied.iter_mut().zip(words.chunks_exact(8)) {
            let mut raw = [0u8; 8];
            raw.copy_from_slice(chunk);
            *w = u64::from_le_bytes(raw);
        }
        Ok(match kind {
            OP => {
                let mut words = [0u64; MAX_OPERANDS];
                words.copy_from_slice(&copied[..MAX_OPERANDS]);
                Entry::Op(OpEntry { op, words, count })
            }
            _ => Entry::Compound(CompoundEntry {
                params: copied,
                count,
                body,
            }),
        })
    }
}

/// Writes a header and words into `slot`; returns the bytes used.
fn write_head(
    slot: &mut [u8],
    kind: u16,
    op: u16,
    words: &[u64],
    tail: usize,
) -> Result<usize, RingError> {
    let len = HEADER + 8 * words.len() + tail;
    if len > slot.len() {
        return Err(RingError::EntryTooLarge {
            len,
            max: slot.len(),
        });
    }
    // `words.len()` is at most MAX_PARAMS here (checked by the callers).
    let count = words.len() as u16;
    slot[0..2].copy_from_slice(&kind.to_le_bytes());
    slot[2..4].copy_from_slice(&op.to_le_bytes());
    slot[4..6].copy_from_slice(&count.to_le_bytes());
    slot[6..8].copy_from_slice(&[0, 0]);
    for (chunk, w) in slot[HEADER..].chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    Ok(len)
}

/// Writes an operation entry (`op` with its operand `words`) into `slot`;
/// returns the entry's length.
pub fn write_op(slot: &mut [u8], op: u16, words: &[u64]) -> Result<usize, RingError> {
    if words.len() > MAX_OPERANDS {
        return Err(RingError::TooManyWords {
            count: words.len(),
            max: MAX_OPERANDS,
        });
    }
    write_head(slot, OP, op, words, 0)
}

/// Writes a compound entry (`compound`'s bytes, run with `params` in
/// r0..) into `slot`; returns the entry's length.
pub fn write_compound(
    slot: &mut [u8],
    params: &[u64],
    compound: &[u8],
) -> Result<usize, RingError> {
    if params.len() > MAX_PARAMS {
        return Err(RingError::TooManyWords {
            count: params.len(),
            max: MAX_PARAMS,
        });
    }
    let at = write_head(slot, COMPOUND, 0, params, compound.len())? - compound.len();
    slot[at..at + compound.len()].copy_from_slice(compound);
    Ok(at + compound.len())
}

/// Where a compound entry's body starts, for a client reading its
/// results back: after the header and `params` words.
pub fn compound_body(entry: Range<usize>, params: usize) -> Range<usize> {
    (entry.start + HEADER + 8 * params).min(entry.end)..entry.end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_op_entry_has_the_documented_bytes() {
        let mut slot = [0xEEu8; 32];
        assert_eq!(write_op(&mut slot, 5, &[7, 0x0102]), Ok(24));
        assert_eq!(
            slot[..24],
            [1, 0, 5, 0, 2, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0]
        );
        let e = UntrustedEntry::new(&slot[..24]).check().unwrap();
        let Entry::Op(op) = e else { panic!("{e:?}") };
        assert_eq!((op.op, op.words()), (5, &[7, 0x0102][..]));
    }

    #[test]
    fn a_compound_entry_has_the_documented_bytes() {
        let mut slot = [0u8; 64];
        assert_eq!(write_compound(&mut slot, &[9], b"COSY"), Ok(20));
        assert_eq!(
            slot[..20],
            [2, 0, 0, 0, 1, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, b'C', b'O', b'S', b'Y']
        );
        let e = UntrustedEntry::new(&slot[..20]).check().unwrap();
        let Entry::Compound(c) = e else {
            panic!("{e:?}")
        };
        assert_eq!((c.params(), c.body), (&[9][..], 16));
        assert_eq!(compound_body(100..120, 1), 116..120);
    }

    #[test]
    fn each_malformed_shape_has_its_code() {
        let cases: [(&[u8], u16); 7] = [
            (&[1, 0, 0], code::ENTRY_TRUNCATED),
            (&[3, 0, 0, 0, 0, 0, 0, 0], code::ENTRY_KIND),
            (&[0, 0, 0, 0, 0, 0, 0, 0], code::ENTRY_KIND),
            (&[1, 0, 0, 0, 0, 0, 1, 0], code::ENTRY_RESERVED),
            (&[2, 0, 1, 0, 0, 0, 0, 0], code::ENTRY_RESERVED),
            (&[1, 0, 0, 0, 7, 0, 0, 0], code::ENTRY_WORDS),
            (&[1, 0, 0, 0, 1, 0, 0, 0, 1, 2, 3], code::ENTRY_TRUNCATED),
        ];
        for (bytes, want) in cases {
            assert_eq!(UntrustedEntry::new(bytes).check(), Err(want), "{bytes:?}");
        }
        let mut many = [0u8; 8 + 8 * 33];
        many[0] = 2;
        many[4] = 33;
        assert_eq!(UntrustedEntry::new(&many).check(), Err(code::ENTRY_WORDS));
    }

    #[test]
    fn writing_refuses_what_does_not_fit() {
        let mut slot = [0u8; 16];
        assert_eq!(
            write_op(&mut slot, 0, &[0; 7]),
            Err(RingError::TooManyWords { count: 7, max: 6 })
        );
        assert_eq!(
            write_op(&mut slot, 0, &[1, 2]),
            Err(RingError::EntryTooLarge { len: 24, max: 16 })
        );
        assert_eq!(
            write_compound(&mut slot, &[], &[0; 9]),
            Err(RingError::EntryTooLarge { len: 17, max: 16 })
        );
        assert!(write_compound(&mut [0u8; 512], &[0; 33], &[]).is_err());
    }
}
