//! `Args`: the operands of one service call, as the service sees them.
//!
//! Values are plain `u64`s. Buffers are spans (region, start, length) that
//! the executor has already checked against the region; the service gets
//! them only as slices, through accessors that return errors instead of
//! panicking. A server's ordinary one-call-per-IPC path can build `Args`
//! itself ([`Args::new`], [`Args::with_value`], [`Args::with_buf`]) and
//! share one implementation of each operation with the compound path.

use crate::service::CallError;
use crate::wire::MAX_OPERANDS;

/// A checked extent of one region. Kept small (16 bytes) because a call
/// builds six of them on every execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub start: usize,
    pub len: u32,
    pub region: u8,
}

impl Span {
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

/// The operands of one call; see the module docs.
pub struct Args<'a, 'b> {
    operands: [Operand; MAX_OPERANDS],
    count: usize,
    regions: &'a mut [&'b mut [u8]],
}

impl<'a, 'b> Args<'a, 'b> {
    /// No operands yet, over these regions.
    #[inline]
    pub fn new(regions: &'a mut [&'b mut [u8]]) -> Self {
        Args {
            operands: [Operand::Value(0); MAX_OPERANDS],
            count: 0,
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
        let region = u8::try_from(region).map_err(|_| CallError::OutOfBounds)?;
        let len = u32::try_from(len).map_err(|_| CallError::OutOfBounds)?;
        let span = Span {
            region,
            start: offset,
            len,
        };
        if span.get(self.regions).is_none() {
            return Err(CallError::OutOfBounds);
        }
        self.push(Operand::Buf(span));
        Ok(self)
    }

    /// The regions, for resolving buffers before they are pushed.
    #[inline]
    pub(crate) fn regions(&self) -> &[&'b mut [u8]] {
        self.regions
    }

    /// Appends an operand (ignored past the sixth).
    #[inline]
    pub(crate) fn push(&mut self, operand: Operand) {
        if let Some(slot) = self.operands.get_mut(self.count) {
            *slot = operand;
            self.count += 1;
        }
    }

    /// Number of operands.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there are no operands.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Operand `i` as a number: a value itself, a buffer's length, 0 past
    /// the last operand.
    #[inline]
    pub fn value(&self, i: usize) -> u64 {
        match self.operands.get(i) {
            Some(Operand::Value(v)) if i < self.count => *v,
            Some(Operand::Buf(s)) if i < self.count => u64::from(s.len),
            _ => 0,
        }
    }

    fn span(&self, i: usize) -> Result<Span, CallError> {
        match self.operands.get(i) {
            Some(Operand::Buf(s)) if i < self.count => Ok(*s),
            _ => Err(CallError::NotABuffer { operand: i }),
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
    }
}
