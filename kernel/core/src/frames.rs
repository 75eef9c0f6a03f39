//! Physical frame allocator: a bitmap over the frames the firmware reported.
//!
//! One bit per 4 KiB frame below a fixed ceiling; a set bit means "in use or
//! not RAM". Everything starts used; the kernel then frees the RAM ranges of
//! the boot memory map and re-reserves what it occupies (itself, the boot
//! image). A search hint makes the common case, allocating right after the
//! last allocation, O(1) amortised.

/// Size of one frame.
pub const FRAME_SIZE: u64 = 4096;

/// Bitmap frame allocator over caller-provided storage.
pub struct FrameBitmap<'a> {
    bits: &'a mut [u64],
    hint: usize,
    free: usize,
}

impl<'a> FrameBitmap<'a> {
    /// Creates an allocator covering `bits.len() * 64` frames, all in use.
    pub fn new(bits: &'a mut [u64]) -> Self {
        bits.fill(u64::MAX);
        Self {
            bits,
            hint: 0,
            free: 0,
        }
    }

    /// Number of frames this allocator can track.
    pub fn capacity(&self) -> usize {
        self.bits.len() * 64
    }

    /// Frames currently free.
    pub fn free_frames(&self) -> usize {
        self.free
    }

    fn frame_range(&self, start: u64, end: u64, round_out: bool) -> core::ops::Range<usize> {
        let (first, last) = if round_out {
            (start / FRAME_SIZE, end.div_ceil(FRAME_SIZE))
        } else {
            (start.div_ceil(FRAME_SIZE), end / FRAME_SIZE)
        };
        let cap = self.capacity() as u64;
        (first.min(cap) as usize)..(last.min(cap) as usize)
    }

    fn set(&mut self, frame: usize, used: bool) {
        let (w, b) = (frame / 64, frame % 64);
        let was_used = self.bits[w] & (1 << b) != 0;
        if used && !was_used {
            self.bits[w] |= 1 << b;
            self.free -= 1;
        } else if !used && was_used {
            self.bits[w] &= !(1 << b);
            self.free += 1;
        }
    }

    /// Marks the whole frames inside `[start, end)` free (usable RAM).
    pub fn add_free_range(&mut self, start: u64, end: u64) {
        for f in self.frame_range(start, end, false) {
            self.set(f, false);
        }
    }

    /// Marks every frame touching `[start, end)` used (kernel, boot image).
    pub fn reserve_range(&mut self, start: u64, end: u64) {
        for f in self.frame_range(start, end, true) {
            self.set(f, true);
        }
    }

    /// Allocates one frame and returns its physical address.
    pub fn alloc(&mut self) -> Option<u64> {
        let words = self.bits.len();
        for i in 0..words {
            let w = (self.hint + i) % words;
            let word = self.bits[w];
            if word != u64::MAX {
                let bit = (!word).trailing_zeros() as usize;
                let frame = w * 64 + bit;
                self.set(frame, true);
                self.hint = w;
                return Some(frame as u64 * FRAME_SIZE);
            }
        }
        None
    }

    /// Allocates `n` physically contiguous frames; returns the first address.
    /// Used for regions, which devices may address as one DMA range.
    pub fn alloc_contiguous(&mut self, n: usize) -> Option<u64> {
        if n == 0 {
            return None;
        }
        let used = |bits: &[u64], f: usize| bits[f / 64] & (1 << (f % 64)) != 0;
        let (mut start, mut run) = (0, 0);
        for f in 0..self.capacity() {
            if used(self.bits, f) {
                run = 0;
                continue;
            }
            if run == 0 {
                start = f;
            }
            run += 1;
            if run == n {
                for g in start..start + n {
                    self.set(g, true);
                }
                return Some(start as u64 * FRAME_SIZE);
            }
        }
        None
    }

    /// Returns a frame. Freeing a frame that is not allocated, or an address
    /// that is not frame-aligned, is a kernel bug and reported as `Err`.
    pub fn free(&mut self, addr: u64) -> Result<(), DoubleFree> {
        let frame = (addr / FRAME_SIZE) as usize;
        if !addr.is_multiple_of(FRAME_SIZE)
            || frame >= self.capacity()
            || self.bits[frame / 64] & (1 << (frame % 64)) == 0
        {
            return Err(DoubleFree(addr));
        }
        self.set(frame, false);
        Ok(())
    }
}

/// A frame handed back twice, or an address that was never a frame.
#[derive(Debug, PartialEq, Eq)]
pub struct DoubleFree(pub u64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocates_only_free_ram_and_never_twice() {
        let mut store = [0u64; 4];
        let mut fa = FrameBitmap::new(&mut store);
        assert_eq!(fa.alloc(), None);
        fa.add_free_range(0x1000, 0x5000);
        fa.reserve_range(0x2000, 0x2001);
        assert_eq!(fa.free_frames(), 3);
        let mut got = [
            fa.alloc().unwrap(),
            fa.alloc().unwrap(),
            fa.alloc().unwrap(),
        ];
        got.sort();
        assert_eq!(got, [0x1000, 0x3000, 0x4000]);
        assert_eq!(fa.alloc(), None);
        fa.free(0x3000).unwrap();
        assert_eq!(fa.alloc(), Some(0x3000));
    }

    #[test]
    fn partial_frames_at_range_edges_are_not_handed_out() {
        let mut store = [0u64; 1];
        let mut fa = FrameBitmap::new(&mut store);
        fa.add_free_range(0x1800, 0x3800);
        assert_eq!(fa.free_frames(), 1);
        assert_eq!(fa.alloc(), Some(0x2000));
    }

    #[test]
    fn ranges_beyond_capacity_are_clipped() {
        let mut store = [0u64; 1];
        let mut fa = FrameBitmap::new(&mut store);
        fa.add_free_range(0, u64::MAX);
        assert_eq!(fa.free_frames(), 64);
    }

    #[test]
    fn contiguous_runs_skip_holes() {
        let mut store = [0u64; 2];
        let mut fa = FrameBitmap::new(&mut store);
        fa.add_free_range(0, 128 * FRAME_SIZE);
        fa.reserve_range(2 * FRAME_SIZE, 3 * FRAME_SIZE);
        assert_eq!(fa.alloc_contiguous(3), Some(3 * FRAME_SIZE));
        assert_eq!(fa.alloc_contiguous(2), Some(0));
        assert_eq!(fa.alloc_contiguous(0), None);
        assert_eq!(fa.alloc_contiguous(200), None);
        assert_eq!(fa.free_frames(), 128 - 1 - 5);
    }

    #[test]
    fn double_free_and_misaligned_free_are_errors() {
        let mut store = [0u64; 1];
        let mut fa = FrameBitmap::new(&mut store);
        fa.add_free_range(0, 0x4000);
        let f = fa.alloc().unwrap();
        fa.free(f).unwrap();
        assert_eq!(fa.free(f), Err(DoubleFree(f)));
        assert_eq!(fa.free(0x1001), Err(DoubleFree(0x1001)));
        assert_eq!(fa.free(1 << 40), Err(DoubleFree(1 << 40)));
    }
}
