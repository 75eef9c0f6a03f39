//! Which buffers of a flow's pool belong to one edge.
//!
//! `flowmgr` cuts the pool into equal buffers and gives each edge a run of
//! them (a [`Span`]); the edge's producer fills them, its consumer empties
//! them, and they never leave the edge. A stage trusts no descriptor its
//! neighbour wrote: [`Span::check`] accepts only a whole buffer of this
//! edge (start on a buffer boundary, length within the buffer), so a
//! hostile neighbour can make a stage work on the wrong bytes of its own
//! flow at worst, never on another edge's or outside the pool.

use conflux_queue::{Descriptor, ValidDescriptor};
use core::fmt;
use core::ops::Range;

/// `count` buffers of `size` bytes each, the first at byte `lo` of the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub lo: u64,
    pub count: u32,
    pub size: u32,
}

/// A buffer of an edge that passed [`Span::check`]: inside the span, on a
/// buffer boundary, no longer than a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buf {
    /// Which buffer of the span (0-based).
    pub index: u32,
    /// Byte offset in the pool.
    pub offset: u64,
    /// Bytes it holds (a filled buffer) or may hold (an empty one).
    pub len: u32,
    /// The flow's sequence number for the data in it.
    pub seq: u32,
}

/// Why a descriptor is not a buffer of this edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpanError {
    /// It starts outside the span or not on a buffer boundary.
    NotABuffer { offset: u64 },
    /// It is longer than one buffer.
    TooLong { len: u32, size: u32 },
}

impl fmt::Display for SpanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::NotABuffer { offset } => write!(
                f,
                "a descriptor names pool offset {offset:#x}, which is not the start of one of this edge's buffers: the neighbouring stage handed over memory that is not its to give"
            ),
            Self::TooLong { len, size } => write!(
                f,
                "a descriptor of {len} bytes is longer than the edge's {size}-byte buffers: the neighbouring stage overstated what it filled"
            ),
        }
    }
}

impl Span {
    /// Whether the span is well formed and lies inside a pool of
    /// `pool_len` bytes (what a stage checks once, when it is started).
    pub fn fits(&self, pool_len: u64) -> bool {
        self.count > 0
            && self.size > 0
            && u64::from(self.count)
                .checked_mul(u64::from(self.size))
                .and_then(|n| n.checked_add(self.lo))
                .is_some_and(|end| end <= pool_len)
    }

    /// The bytes of the pool the span covers.
    pub fn bytes(&self) -> Range<u64> {
        self.lo..self.lo + u64::from(self.count) * u64::from(self.size)
    }

    /// Buffer `index` as an empty descriptor of the full buffer length,
    /// sequence number 0 (how `flowmgr` first hands them out).
    pub fn buffer(&self, index: u32) -> Option<Descriptor> {
        (index < self.count).then(|| Descriptor {
            offset: self.lo + u64::from(index) * u64::from(self.size),
            len: self.size,
            id: 0,
        })
    }

    /// `d` as a buffer of this span, or why not. `d` has already been
    /// checked against the pool by the ring (`ValidDescriptor`).
    pub fn check(&self, d: ValidDescriptor) -> Result<Buf, SpanError> {
        let offset = d.offset();
        let rel = offset
            .checked_sub(self.lo)
            .ok_or(SpanError::NotABuffer { offset })?;
        let size = u64::from(self.size);
        if size == 0 || rel % size != 0 || rel / size >= u64::from(self.count) {
            return Err(SpanError::NotABuffer { offset });
        }
        if d.len() > self.size {
            return Err(SpanError::TooLong {
                len: d.len(),
                size: self.size,
            });
        }
        Ok(Buf {
            // Below `count`, a u32.
            index: (rel / size) as u32,
            offset,
            len: d.len(),
            seq: d.id(),
        })
    }
}

impl Buf {
    /// The buffer's bytes in the pool; indexing a slice of the whole pool
    /// with it cannot panic (the span was checked to fit the pool).
    pub fn range(&self) -> Range<usize> {
        let start = self.offset as usize;
        start..start + self.len as usize
    }

    /// The descriptor that hands this buffer on holding `len` bytes with
    /// sequence number `seq`.
    pub fn filled(&self, len: u32, seq: u32) -> Descriptor {
        Descriptor {
            offset: self.offset,
            len,
            id: seq,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use conflux_queue::DataRegion;

    const S: Span = Span {
        lo: 4096,
        count: 4,
        size: 1024,
    };

    fn valid(offset: u64, len: u32) -> ValidDescriptor {
        DataRegion::new(1 << 20)
            .check(Descriptor { offset, len, id: 9 })
            .unwrap()
    }

    #[test]
    fn whole_buffers_pass_with_their_index_and_sequence() {
        for i in 0..4u32 {
            let b = S.check(valid(4096 + u64::from(i) * 1024, 1024)).unwrap();
            assert_eq!((b.index, b.len, b.seq), (i, 1024, 9));
        }
        assert_eq!(S.check(valid(5120, 0)).unwrap().index, 1);
        assert_eq!(S.buffer(3).unwrap().offset, 4096 + 3 * 1024);
        assert_eq!(S.buffer(4), None);
    }

    #[test]
    fn anything_else_is_refused() {
        for off in [0, 4095, 4097, 4096 + 4 * 1024, 4096 + 512, u64::MAX - 2048] {
            assert_eq!(
                S.check(valid(off.min((1 << 20) - 1), 1)),
                Err(SpanError::NotABuffer {
                    offset: off.min((1 << 20) - 1)
                }),
                "{off}"
            );
        }
        assert_eq!(
            S.check(valid(4096, 1025)),
            Err(SpanError::TooLong {
                len: 1025,
                size: 1024
            })
        );
    }

    #[test]
    fn fits_checks_overflow_and_pool_end() {
        assert!(S.fits(4096 + 4096));
        assert!(!S.fits(4096 + 4095));
        assert!(!Span { count: 0, ..S }.fits(1 << 20));
        assert!(!Span { size: 0, ..S }.fits(1 << 20));
        let huge = Span {
            lo: u64::MAX - 10,
            count: u32::MAX,
            size: u32::MAX,
        };
        assert!(!huge.fits(u64::MAX));
    }
}
