//! `RegionAlloc`: Cosy's `cosy_malloc` / `cosy_free` for the shared data
//! region.
//!
//! An app carves its shared region into buffers that compounds refer to
//! (read into one, write from it: zero copies). The allocator hands out
//! *offsets*, not pointers, because a compound names bytes by region and
//! offset, and so that it works without `unsafe` in `no_std`.
//!
//! Its bookkeeping is a bitmap of fixed-size granules kept outside the
//! region: the region is shared with a server and with compounds that
//! write into it, so nothing stored there could be trusted. A [`Block`]
//! is not `Clone`: freeing one consumes it, so a double free does not
//! compile.
//!
//! ```
//! use cosy_abi::{Builder, RegionAlloc};
//!
//! // Region 0 is the app's 64 KiB shared data region.
//! let mut heap = RegionAlloc::<16>::new(64 * 1024, 64).unwrap();
//! let data = heap.malloc(4096).unwrap();
//! let mut b = Builder::new();
//! let buf = b.buf(0, data.offset(), data.len());
//! # let _ = buf;
//! // ... read into `buf`, write from it, run the compound ...
//! heap.free(data).unwrap();
//! assert_eq!(heap.available(), 64 * 1024);
//! ```

use core::fmt;

/// An allocated extent of the region. Build buffer refs from
/// [`Block::offset`] and [`Block::len`]; give it back with
/// [`RegionAlloc::free`].
#[derive(Debug, PartialEq, Eq)]
pub struct Block {
    offset: u32,
    len: u32,
}

impl Block {
    /// Byte offset in the region.
    pub fn offset(&self) -> u32 {
        self.offset
    }

    /// Bytes requested.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether the block is empty (never true for an allocated block).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Why a block could not be freed.
#[derive(Debug, PartialEq, Eq)]
pub enum FreeError {
    /// The block's granules are not all allocated here: it came from
    /// another allocator. The block is handed back.
    NotFromHere(Block),
}

impl fmt::Display for FreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FreeError::NotFromHere(b) => write!(
                f,
                "block at offset {} ({} bytes) was not allocated by this allocator",
                b.offset, b.len
            ),
        }
    }
}

/// A first-fit granule allocator over a region of up to `WORDS * 64`
/// granules; see the module docs.
#[derive(Clone, Debug)]
pub struct RegionAlloc<const WORDS: usize = 16> {
    granule_shift: u32,
    granules: usize,
    used: [u64; WORDS],
}

impl<const WORDS: usize> RegionAlloc<WORDS> {
    /// Manages `region_len` bytes in granules of `granule` bytes (a power
    /// of two, at least 8; every block is aligned to it). Granules past
    /// `WORDS * 64` are left unmanaged. `None` for a bad granule.
    pub fn new(region_len: usize, granule: usize) -> Option<Self> {
        if !granule.is_power_of_two() || granule < 8 {
            return None;
        }
        // Offsets are u32 on the wire; never hand out one that is not.
        let region_len = region_len.min(u32::MAX as usize);
        Some(RegionAlloc {
            granule_shift: granule.trailing_zeros(),
            granules: (region_len >> granule.trailing_zeros()).min(WORDS * 64),
            used: [0; WORDS],
        })
    }

    /// Granule size in bytes.
    pub fn granule(&self) -> usize {
        1 << self.granule_shift
    }

    fn is_used(&self, g: usize) -> bool {
        self.used
            .get(g / 64)
            .is_some_and(|w| w & (1 << (g % 64)) != 0)
    }

    fn mark(&mut self, first: usize, count: usize, used: bool) {
        for g in first..first + count {
            if let Some(w) = self.used.get_mut(g / 64) {
                if used {
                    *w |= 1 << (g % 64);
                } else {
                    *w &= !(1 << (g % 64));
                }
            }
        }
    }

    fn granules_for(&self, len: usize) -> usize {
        len.div_ceil(self.granule())
    }

    /// Allocates `len` bytes (`cosy_malloc`): the first free run of
    /// granules that fits. `None` when `len` is 0 or nothing fits.
    #[doc(alias = "cosy_malloc")]
    pub fn malloc(&mut self, len: usize) -> Option<Block> {
        let len32 = u32::try_from(len).ok().filter(|&l| l > 0)?;
        let need = self.granules_for(len);
        let (mut start, mut run) = (0, 0);
        for g in 0..self.granules {
            if self.is_used(g) {
                (start, run) = (g + 1, 0);
                continue;
            }
            run += 1;
            if run == need {
                self.mark(start, need, true);
                let offset = u32::try_from(start << self.granule_shift).ok()?;
                return Some(Block { offset, len: len32 });
            }
        }
        None
    }

    /// Frees a block (`cosy_free`).
    #[doc(alias = "cosy_free")]
    pub fn free(&mut self, block: Block) -> Result<(), FreeError> {
        let first = (block.offset as usize) >> self.granule_shift;
        let count = self.granules_for(block.len as usize);
        let aligned = (block.offset as usize).is_multiple_of(self.granule());
        let owned = aligned
            && first + count <= self.granules
            && (first..first + count).all(|g| self.is_used(g));
        if !owned {
            return Err(FreeError::NotFromHere(block));
        }
        self.mark(first, count, false);
        Ok(())
    }

    /// Free bytes (not necessarily contiguous).
    pub fn available(&self) -> usize {
        let used: usize = self.used.iter().map(|w| w.count_ones() as usize).sum();
        (self.granules - used) << self.granule_shift
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocates_first_fit_and_reuses_freed_space() {
        let mut a = RegionAlloc::<1>::new(1024, 64).unwrap();
        let x = a.malloc(100).unwrap();
        let y = a.malloc(64).unwrap();
        assert_eq!((x.offset(), x.len(), y.offset()), (0, 100, 128));
        assert_eq!(a.available(), 1024 - 192);
        a.free(x).unwrap();
        let z = a.malloc(128).unwrap();
        assert_eq!(z.offset(), 0);
        let w = a.malloc(129).unwrap();
        assert_eq!(w.offset(), 192);
    }

    #[test]
    fn refuses_what_does_not_fit() {
        let mut a = RegionAlloc::<1>::new(256, 64).unwrap();
        assert!(a.malloc(0).is_none());
        assert!(a.malloc(257).is_none());
        let whole = a.malloc(256).unwrap();
        assert!(a.malloc(1).is_none());
        a.free(whole).unwrap();
        assert_eq!(a.available(), 256);
    }

    #[test]
    fn caps_at_bitmap_capacity() {
        let mut a = RegionAlloc::<1>::new(1 << 20, 8).unwrap();
        assert_eq!(a.available(), 64 * 8);
        assert!(a.malloc(64 * 8 + 1).is_none());
    }

    #[test]
    fn rejects_bad_granules_and_foreign_blocks() {
        assert!(RegionAlloc::<1>::new(1024, 48).is_none());
        assert!(RegionAlloc::<1>::new(1024, 4).is_none());
        let mut a = RegionAlloc::<1>::new(1024, 64).unwrap();
        let mut b = RegionAlloc::<1>::new(1024, 64).unwrap();
        let block = b.malloc(10).unwrap();
        let err = a.free(block).unwrap_err();
        assert_eq!(err, FreeError::NotFromHere(Block { offset: 0, len: 10 }));
        let FreeError::NotFromHere(block) = err;
        b.free(block).unwrap();
    }
}
