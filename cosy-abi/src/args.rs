//! `Args`: the operands of one service call, as the service sees them.
//!
//! Values are plain `u64`s. Buffers are spans (region, start, length)
//! checked against their region; the service gets them only as slices,
//! through accessors that return errors instead of panicking.
//!
//! In a compound, `Args` reads the decoded operands and the registers in
//! place: a call copies nothing. A server's ordinary one-call-per-IPC path
//! reads them in place too, from the request's words
//! ([`Args::from_words`]: one word per operand, a buffer packed into its
//! word and checked against its region before the service runs), or
//! builds them ([`Args::new`], [`Args::with_value`], [`Args::with_buf`]);
//! every path shares one implementation of each operation.

use crate::program::Arg;
use crate::regfile::Regfile;
use crate::service::{ArgKind, CallError};
use crate::wire::MAX_OPERANDS;

/// A checked extent of one region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub start: usize,
    pub len: u32,
    pub region: u8,
}

impl Span {
    /// `len` bytes at `offset` of `region`, if that lies within `regions`.
    #[inline]
    fn checked(regions: &[&mut [u8]], region: usize, offset: usize, len: usize) -> Option<Span> {
        let span = Span {
            region: u8::try_from(region).ok()?,
            start: offset,
            len: u32::try_from(len).ok()?,
        };
        span.get(regions).map(|_| span)
    }

    #[inline]
    fn range(&self) -> Option<core::ops::Range<usize>> {
        Some(self.start..self.start.checked_add(self.len as usize)?)
    }

    /// The span's bytes, if it still fits in `regions`.
    #[inline]
    pub fn get<'r>(&self, regions: &'r [&mut [u8]]) -> Option<&'r [u8]> {
        regions.get(usize::from(self.region))?.get(self.range()?)
    }

    /// Mutable version of [`Span::get`].
    #[inline]
    pub fn get_mut<'r>(&self, regions: &'r mut [&mut [u8]]) -> Option<&'r mut [u8]> {
        let range = self.range()?;
        regions.get_mut(usize::from(self.region))?.get_mut(range)
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Operand {
    Value(u64),
    Buf(Span),
}

/// How a per-call request packs a buffer operand into one word: the
/// word as (region, offset, length).
pub type BufWord = fn(u64) -> (usize, usize, usize);

/// Where the operands come from.
enum Source<'a> {
    /// A compound's decoded operands, read with its registers.
    Decoded { args: &'a [Arg], file: &'a Regfile },
    /// A per-call request's words, one per operand of `kinds`.
    Words {
        words: &'a [u64],
        kinds: &'a [ArgKind],
        buf: BufWord,
    },
    /// Operands the caller pushed.
    Built {
        operands: [Operand; MAX_OPERANDS],
        count: usize,
    },
}

/// The operands of one call; see the module docs.
pub struct Args<'a, 'b> {
    source: Source<'a>,
    regions: &'a mut [&'b mut [u8]],
}

impl<'a, 'b> Args<'a, 'b> {
    /// No operands yet, over these regions.
    #[inline]
    pub fn new(regions: &'a mut [&'b mut [u8]]) -> Self {
        let source = Source::Built {
            operands: [Operand::Value(0); MAX_OPERANDS],
            count: 0,
        };
        Args { source, regions }
    }

    /// A per-call request's operands, read in place: operand `i` of
    /// `kinds` is `words[i]` (0 past the end of `words`), a buffer
    /// unpacked by `buf`. Every buffer is checked against `regions` here,
    /// so a bad one fails (`OutOfBounds`) before the service runs, as
    /// [`Args::with_buf`] does; operands past the sixth are ignored.
    #[inline]
    pub fn from_words(
        words: &'a [u64],
        kinds: &'a [ArgKind],
        buf: BufWord,
        regions: &'a mut [&'b mut [u8]],
    ) -> Result<Self, CallError> {
        let kinds = kinds.get(..MAX_OPERANDS).unwrap_or(kinds);
        for (i, kind) in kinds.iter().enumerate() {
            if let ArgKind::Buf = kind {
                let (region, offset, len) = buf(word(words, i));
                Span::checked(regions, region, offset, len).ok_or(CallError::OutOfBounds)?;
            }
        }
        Ok(Args {
            source: Source::Words { words, kinds, buf },
            regions,
        })
    }

    /// A compound's operands, in place.
    #[inline]
    pub(crate) fn decoded(
        args: &'a [Arg],
        file: &'a Regfile,
        regions: &'a mut [&'b mut [u8]],
    ) -> Self {
        Args {
            source: Source::Decoded { args, file },
            regions,
        }
    }

    /// Appends a value operand (ignored past the sixth).
    pub fn with_value(mut self, value: u64) -> Self {
        self.push(Operand::Value(value));
        self
    }

    /// Appends a buffer operand: `len` bytes at `offset` of `region`.
    pub fn with_buf(mut self, region: usize, offset: usize, len: usize) -> Result<Self, CallError> {
        let span =
            Span::checked(self.regions, region, offset, len).ok_or(CallError::OutOfBounds)?;
        self.push(Operand::Buf(span));
        Ok(self)
    }

    fn push(&mut self, operand: Operand) {
        if let Source::Built { operands, count } = &mut self.source {
            if let Some(slot) = operands.get_mut(*count) {
                *slot = operand;
                *count += 1;
            }
        }
    }

    /// Number of operands.
    pub fn len(&self) -> usize {
        match &self.source {
            Source::Decoded { args, .. } => args.len(),
            Source::Words { kinds, .. } => kinds.len(),
            Source::Built { count, .. } => *count,
        }
    }

    /// Whether there are no operands.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Operand `i` as a number: a value itself, a buffer's length, 0 past
    /// the last operand.
    #[inline]
    pub fn value(&self, i: usize) -> u64 {
        match &self.source {
            Source::Decoded { args, file } => args.get(i).map_or(0, |a| file.arg(a)),
            Source::Words { words, kinds, buf } => match kinds.get(i) {
                Some(ArgKind::Value) => word(words, i),
                Some(ArgKind::Buf) => buf(word(words, i)).2 as u64,
                None => 0,
            },
            Source::Built { operands, count } => {
                match operands.get(..*count).and_then(|o| o.get(i)) {
                    Some(Operand::Value(v)) => *v,
                    Some(Operand::Buf(s)) => u64::from(s.len),
                    None => 0,
                }
            }
        }
    }

    fn span(&self, i: usize) -> Result<Span, CallError> {
        let not_a_buffer = CallError::NotABuffer { operand: i };
        match &self.source {
            Source::Decoded { args, file } => match args.get(i) {
                Some(Arg::Buf(d)) => file.resolve(d, self.regions).ok_or(CallError::OutOfBounds),
                _ => Err(not_a_buffer),
            },
            Source::Words { words, kinds, buf } => match kinds.get(i) {
                Some(ArgKind::Buf) => {
                    let (region, offset, len) = buf(word(words, i));
                    Span::checked(self.regions, region, offset, len).ok_or(CallError::OutOfBounds)
                }
                _ => Err(not_a_buffer),
            },
            Source::Built { operands, count } => {
                match operands.get(..*count).and_then(|o| o.get(i)) {
                    Some(Operand::Buf(s)) => Ok(*s),
                    _ => Err(not_a_buffer),
                }
            }
        }
    }

    /// Operand `i`'s bytes.
    pub fn buf(&self, i: usize) -> Result<&[u8], CallError> {
        self.span(i)?
            .get(self.regions)
            .ok_or(CallError::OutOfBounds)
    }

    /// Operand `i`'s bytes, writable.
    pub fn buf_mut(&mut self, i: usize) -> Result<&mut [u8], CallError> {
        self.span(i)?
            .get_mut(self.regions)
            .ok_or(CallError::OutOfBounds)
    }
}

/// Word `i` of a per-call request; 0 past its end, as an absent operand.
#[inline]
fn word(words: &[u64], i: usize) -> u64 {
    words.get(i).copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accessors_check_kinds_and_bounds() {
        let mut region = [1u8, 2, 3, 4];
        let mut regions = [&mut region[..]];
        let mut args = Args::new(&mut regions)
            .with_value(7)
            .with_buf(0, 1, 2)
            .unwrap();
        assert_eq!(args.len(), 2);
        assert_eq!((args.value(0), args.value(1), args.value(2)), (7, 2, 0));
        assert_eq!(args.buf(0), Err(CallError::NotABuffer { operand: 0 }));
        assert_eq!(args.buf(1).unwrap(), &[2, 3]);
        args.buf_mut(1).unwrap()[0] = 9;
        assert_eq!(args.buf(2), Err(CallError::NotABuffer { operand: 2 }));
        assert_eq!(region, [1, 9, 3, 4]);
    }

    #[test]
    fn with_buf_refuses_out_of_bounds() {
        let mut region = [0u8; 4];
        let mut regions = [&mut region[..]];
        assert_eq!(
            Args::new(&mut regions).with_buf(0, 3, 2).err(),
            Some(CallError::OutOfBounds)
        );
        let mut regions = [&mut region[..]];
        assert_eq!(
            Args::new(&mut regions).with_buf(1, 0, 0).err(),
            Some(CallError::OutOfBounds)
        );
        // offset + len past usize::MAX does not wrap to the start.
        let mut regions = [&mut region[..]];
        assert_eq!(
            Args::new(&mut regions).with_buf(0, usize::MAX, 2).err(),
            Some(CallError::OutOfBounds)
        );
    }

    /// (region, offset, length) in one word: 8, 32 and 24 bits, as a
    /// server's protocol might pack them.
    fn unpack(w: u64) -> (usize, usize, usize) {
        (
            (w >> 56) as usize,
            (w & 0xffff_ffff) as usize,
            (w >> 32 & 0xff_ffff) as usize,
        )
    }

    fn pack(region: u64, offset: u64, len: u64) -> u64 {
        region << 56 | len << 32 | offset
    }

    #[test]
    fn words_are_read_in_place_as_built_operands_are() {
        let mut region = [1u8, 2, 3, 4];
        let mut regions = [&mut region[..]];
        let words = [7, pack(0, 1, 2)];
        let kinds = [ArgKind::Value, ArgKind::Buf, ArgKind::Value];
        let mut args = Args::from_words(&words, &kinds, unpack, &mut regions).unwrap();
        assert_eq!(args.len(), 3);
        // The third operand has no word: it reads 0.
        assert_eq!(
            (args.value(0), args.value(1), args.value(2), args.value(3)),
            (7, 2, 0, 0)
        );
        assert_eq!(args.buf(0), Err(CallError::NotABuffer { operand: 0 }));
        assert_eq!(args.buf(1).unwrap(), &[2, 3]);
        args.buf_mut(1).unwrap()[1] = 9;
        assert_eq!(args.buf(3), Err(CallError::NotABuffer { operand: 3 }));
        assert_eq!(region, [1, 2, 9, 4]);
    }

    #[test]
    fn words_refuse_a_bad_buffer_before_the_service_runs() {
        let mut region = [0u8; 4];
        let kinds = [ArgKind::Buf];
        for bad in [pack(0, 3, 2), pack(1, 0, 0), pack(0, 0xffff_ffff, 2)] {
            let mut regions = [&mut region[..]];
            assert_eq!(
                Args::from_words(&[bad], &kinds, unpack, &mut regions).err(),
                Some(CallError::OutOfBounds),
                "{bad:#x}"
            );
        }
        // An absent buffer word is the empty span at the start of region 0.
        let mut regions = [&mut region[..]];
        let args = Args::from_words(&[], &kinds, unpack, &mut regions).unwrap();
        assert_eq!(args.buf(0).unwrap(), &[] as &[u8]);
    }
}
