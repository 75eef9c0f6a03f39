//! Laying out a shared region for a compound: byte strings, tables of
//! names and buffers placed one after another, each handed back as the
//! place a buffer operand names (`buf(place)` in `cosy!`,
//! `Builder::buf(region, offset, len)`), so no app computes an offset.
//!
//! An [`Arena`] is the client's side of the region only: it writes the
//! inputs and remembers where the next item goes. Every placement is
//! checked against the region's end and fails with an [`ArenaError`] that
//! says how much was asked and how much is left; nothing is cut short.
//! Items start 8-byte aligned (records the server writes are read as
//! words), and [`Arena::align`] gives more where a buffer wants it.

use core::fmt;

/// Where a buffer is: what `cosy!`'s `buf(place)` and the builder's
/// `buf(region, offset, len)` take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The region's number in the compound (0: the control region).
    pub region: u8,
    /// Byte offset from the region's start.
    pub offset: u32,
    /// Length in bytes.
    pub len: u32,
}

impl From<Place> for (u8, u32, u32) {
    fn from(p: Place) -> Self {
        (p.region, p.offset, p.len)
    }
}

/// Names of the same size, one after another: entry `i` is `stride`
/// bytes after entry `i - 1`. In a compound, walk it with
/// `buf_at(table.first, at)` and `at += table.stride`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Table {
    /// Entry 0 (each entry is `stride` bytes: the name, then zeros).
    pub first: Place,
    /// Bytes from one entry to the next.
    pub stride: u32,
    /// Entries.
    pub count: u32,
}

impl Table {
    /// Entry `i`, if there is one.
    pub fn entry(&self, i: u32) -> Option<Place> {
        (i < self.count).then(|| Place {
            offset: self.first.offset + i * self.stride,
            ..self.first
        })
    }
}

/// Why a placement failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArenaError {
    /// The region has too little room left.
    Full {
        /// The region's number.
        region: u8,
        /// Bytes the item needs (with its alignment padding).
        asked: usize,
        /// Bytes left after what is already placed.
        left: usize,
    },
    /// The region is longer than a buffer ref can address (4 GiB).
    RegionTooLarge {
        /// The region's length.
        len: usize,
    },
    /// An alignment that is not a power of two.
    BadAlignment {
        /// What was asked.
        align: usize,
    },
}

impl fmt::Display for ArenaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArenaError::Full {
                region,
                asked,
                left,
            } => write!(
                f,
                "region {region} is full: this item needs {asked} bytes and {left} are left; \
                 use a larger region (or attach a data region) or place less"
            ),
            ArenaError::RegionTooLarge { len } => write!(
                f,
                "a region of {len} bytes is larger than a buffer ref can address (4 GiB)"
            ),
            ArenaError::BadAlignment { align } => {
                write!(f, "alignment {align} is not a power of two")
            }
        }
    }
}

/// Items start at multiples of this.
const ITEM_ALIGN: usize = 8;

/// See the module docs.
#[derive(Debug)]
pub struct Arena<'a> {
    region: u8,
    /// The region's bytes from its start (offset 0); a caller keeping
    /// the end for something else (the compound itself) passes less.
    bytes: &'a mut [u8],
    /// Where the next item may start.
    next: usize,
}

impl<'a> Arena<'a> {
    /// An arena over `bytes`, which must begin at region `region`'s
    /// start: the offsets handed back count from `bytes[0]`.
    pub fn new(region: u8, bytes: &'a mut [u8]) -> Result<Self, ArenaError> {
        if u32::try_from(bytes.len()).is_err() {
            return Err(ArenaError::RegionTooLarge { len: bytes.len() });
        }
        Ok(Arena {
            region,
            bytes,
            next: 0,
        })
    }

    /// Bytes placed so far, padding included.
    pub fn used(&self) -> usize {
        self.next
    }

    /// Bytes left.
    pub fn left(&self) -> usize {
        self.bytes.len() - self.next
    }

    /// Moves the next item to a multiple of `align` (a power of two).
    pub fn align(&mut self, align: usize) -> Result<(), ArenaError> {
        if !align.is_power_of_two() {
            return Err(ArenaError::BadAlignment { align });
        }
        let pad = self.next.next_multiple_of(align) - self.next;
        self.take(pad).map(drop)
    }

    /// Copies `data` in; its place.
    pub fn bytes(&mut self, data: &[u8]) -> Result<Place, ArenaError> {
        let (place, dst) = self.item(data.len())?;
        dst.copy_from_slice(data);
        Ok(place)
    }

    /// A path or name, followed by a NUL byte (which the place includes:
    /// the file server reads a name up to its first NUL or its buffer's
    /// end).
    pub fn path(&mut self, name: &str) -> Result<Place, ArenaError> {
        let (place, dst) = self.item(name.len() + 1)?;
        let (text, nul) = dst.split_at_mut(name.len());
        text.copy_from_slice(name.as_bytes());
        nul.fill(0);
        Ok(place)
    }

    /// `len` bytes for the server to fill or the app to write later; its
    /// place. The bytes are left as they were.
    pub fn buffer(&mut self, len: usize) -> Result<Place, ArenaError> {
        self.item(len).map(|(place, _)| place)
    }

    /// `names`, each in an entry of the same size (the longest name plus
    /// a NUL, rounded up to 8 bytes) padded with zeros; the table.
    pub fn table<N: AsRef<[u8]>>(&mut self, names: &[N]) -> Result<Table, ArenaError> {
        let longest = names.iter().map(|n| n.as_ref().len()).max().unwrap_or(0);
        let stride = (longest + 1).next_multiple_of(ITEM_ALIGN);
        let (first, dst) = self.item(stride.saturating_mul(names.len()))?;
        for (entry, name) in dst.chunks_exact_mut(stride).zip(names) {
            let (text, rest) = entry.split_at_mut(name.as_ref().len());
            text.copy_from_slice(name.as_ref());
            rest.fill(0);
        }
        // Both fit in u32: the region does, and the table is inside it.
        Ok(Table {
            first: Place {
                len: stride as u32,
                ..first
            },
            stride: stride as u32,
            count: names.len() as u32,
        })
    }

    /// The next item's place and bytes: `len` bytes at the next 8-byte
    /// boundary.
    fn item(&mut self, len: usize) -> Result<(Place, &mut [u8]), ArenaError> {
        let pad = self.next.next_multiple_of(ITEM_ALIGN) - self.next;
        let asked = len.saturating_add(pad);
        let start = self.take(asked)? + pad;
        let place = Place {
            region: self.region,
            // The region's length fits in u32 (checked in `new`).
            offset: start as u32,
            len: len as u32,
        };
        Ok((place, &mut self.bytes[start..start + len]))
    }

    /// Reserves `n` bytes; where they start.
    fn take(&mut self, n: usize) -> Result<usize, ArenaError> {
        if n > self.left() {
            return Err(ArenaError::Full {
                region: self.region,
                asked: n,
                left: self.left(),
            });
        }
        self.next += n;
        Ok(self.next - n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_follow_each_other_8_byte_aligned() {
        let mut region = [0xEEu8; 64];
        let mut a = Arena::new(1, &mut region).unwrap();
        let p = a.path("/a/b").unwrap();
        assert_eq!(
            p,
            Place {
                region: 1,
                offset: 0,
                len: 5
            }
        );
        let n = a.bytes(b"needle").unwrap();
        assert_eq!((n.offset, n.len), (8, 6));
        let out = a.buffer(16).unwrap();
        assert_eq!((out.offset, out.len), (16, 16));
        assert_eq!(a.used(), 32);
        assert_eq!(&region[..14], b"/a/b\0\xEE\xEE\xEEneedle");
        // A buffer's bytes are left alone.
        assert_eq!(region[16..32], [0xEE; 16]);
    }

    #[test]
    fn a_table_pads_every_name_to_one_stride() {
        let mut region = [0xEEu8; 128];
        let mut a = Arena::new(0, &mut region).unwrap();
        a.bytes(b"x").unwrap();
        let t = a.table(&["f1", "file-22", "f3"]).unwrap();
        assert_eq!(t.stride, 8);
        assert_eq!(t.count, 3);
        assert_eq!(
            t.first,
            Place {
                region: 0,
                offset: 8,
                len: 8
            }
        );
        assert_eq!(
            t.entry(2),
            Some(Place {
                region: 0,
                offset: 24,
                len: 8
            })
        );
        assert_eq!(t.entry(3), None);
        assert_eq!(&region[8..32], b"f1\0\0\0\0\0\0file-22\0f3\0\0\0\0\0\0");
        // The longest name exactly fills a stride less its NUL.
        let mut region = [0u8; 64];
        let t = Arena::new(0, &mut region)
            .unwrap()
            .table(&["12345678"])
            .unwrap();
        assert_eq!(t.stride, 16);
    }

    #[test]
    fn the_region_can_be_filled_exactly() {
        let mut region = [0u8; 24];
        let mut a = Arena::new(0, &mut region).unwrap();
        a.bytes(b"abc").unwrap();
        let last = a.buffer(16).unwrap();
        assert_eq!((last.offset, last.len), (8, 16));
        assert_eq!(a.left(), 0);
        // An empty item still fits at the very end.
        assert_eq!(a.buffer(0).unwrap().offset, 24);
    }

    #[test]
    fn one_byte_past_the_end_is_refused_and_nothing_moves() {
        let mut region = [0u8; 24];
        let mut a = Arena::new(3, &mut region).unwrap();
        a.bytes(b"abc").unwrap();
        // 5 bytes of padding + 17 = 22 > 21 left.
        assert_eq!(
            a.buffer(17),
            Err(ArenaError::Full {
                region: 3,
                asked: 22,
                left: 21
            })
        );
        assert_eq!(a.used(), 3);
        assert!(a.buffer(16).is_ok());
        assert_eq!(
            a.path(""),
            Err(ArenaError::Full {
                region: 3,
                asked: 1,
                left: 0
            })
        );
        let big = ["x"; 4];
        assert_eq!(
            a.table(&big).unwrap_err(),
            ArenaError::Full {
                region: 3,
                asked: 32,
                left: 0
            }
        );
    }

    #[test]
    fn a_huge_request_is_refused_not_wrapped() {
        let mut region = [0u8; 16];
        let mut a = Arena::new(0, &mut region).unwrap();
        a.bytes(b"a").unwrap();
        assert!(matches!(a.buffer(usize::MAX), Err(ArenaError::Full { .. })));
        assert_eq!(a.used(), 1);
    }

    #[test]
    fn alignment_must_be_a_power_of_two_and_fit() {
        let mut region = [0u8; 4096 + 8];
        let mut a = Arena::new(0, &mut region).unwrap();
        a.bytes(b"a").unwrap();
        a.align(4096).unwrap();
        assert_eq!(a.buffer(8).unwrap().offset, 4096);
        assert_eq!(a.align(3), Err(ArenaError::BadAlignment { align: 3 }));
        assert!(matches!(a.align(8192), Err(ArenaError::Full { .. })));
    }

    #[test]
    fn errors_say_what_to_do() {
        let e = ArenaError::Full {
            region: 0,
            asked: 100,
            left: 8,
        };
        let text = std::format!("{e}");
        assert!(text.contains("needs 100 bytes and 8 are left"), "{text}");
        assert!(text.contains("larger region"), "{text}");
    }

    #[test]
    fn places_become_the_tuples_buf_takes() {
        let p = Place {
            region: 2,
            offset: 8,
            len: 4,
        };
        let t: (u8, u32, u32) = p.into();
        assert_eq!(t, (2, 8, 4));
    }
}
