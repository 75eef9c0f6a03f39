//! Physical frame allocator: a bitmap over the frames the firmware reported.
//!
//! One bit per 4 KiB frame below a fixed ceiling; a set bit means "in use or
//! not RAM". Everything starts used; the kernel then frees the RAM ranges of
//! the boot memory map and re-reserves what it occupies (itself, the boot
//! image). A search hint makes the common case, allocating right after the
//! last allocation, O(1) amortised.

/// Size of one frame.
pub const FRAME_SIZE: u64 = 4096;

/// Most RAM ranges the allocator remembers (firmware maps have a handful).
pub const MAX_RAM_RANGES: usize = 32;

/// Bitmap frame allocator over caller-provided storage.
pub struct FrameBitmap<'a> {
    bits: &'a mut [u64],
    hint: usize,
    free: usize,
    /// The RAM ranges added, so a free of anything else is caught.
    ram: [(u64, u64); MAX_RAM_RANGES],
    ram_len: usize,
}

impl<'a> FrameBitmap<'a> {
    /// Creates an allocator covering `bits.len() * 64` frames, all in use.
    pub fn new(bits: &'a mut [u64]) -> Self {
        bits.fill(u64::MAX);
        Self {
            bits,
            hint: 0,
            free: 0,
            ram: [(0, 0); MAX_RAM_RANGES],
            ram_len: 0,
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
    /// Ranges past [`MAX_RAM_RANGES`] are ignored (never handed out).
    pub fn add_free_range(&mut self, start: u64, end: u64) {
        if self.ram_len == MAX_RAM_RANGES {
            return;
        }
        self.ram[self.ram_len] = (start, end);
        self.ram_len += 1;
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

    /// Returns a frame. Freeing a frame that is not allocated, an address
    /// that is not frame-aligned, or memory that is not RAM is a kernel bug
    /// and reported as `Err`.
    pub fn free(&mut self, addr: u64) -> Result<(), FreeError> {
        let frame = (addr / FRAME_SIZE) as usize;
        if !addr.is_multiple_of(FRAME_SIZE) {
            return Err(FreeError::Misaligned(addr));
        }
        let ram = self.ram[..self.ram_len]
            .iter()
            .any(|&(s, e)| s <= addr && addr.checked_add(FRAME_SIZE).is_some_and(|end| end <= e));
        if !ram || frame >= self.capacity() {
            return Err(FreeError::NotRam(addr));
        }
        if self.bits[frame / 64] & (1 << (frame % 64)) == 0 {
            return Err(FreeError::DoubleFree(addr));
        }
        self.set(frame, false);
        Ok(())
    }
}

/// Why a frame could not be freed: each is a kernel bug.
#[derive(Debug, PartialEq, Eq)]
pub enum FreeError {
    /// The frame was already free.
    DoubleFree(u64),
    /// The address is not RAM from the firmware's map (device memory).
    NotRam(u64),
    /// The address is not the start of a frame.
    Misaligned(u64),
}

impl core::fmt::Display for FreeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::DoubleFree(a) => write!(f, "frame {a:#x} freed twice"),
            Self::NotRam(a) => write!(f, "frame {a:#x} is not RAM (device memory?)"),
            Self::Misaligned(a) => write!(f, "address {a:#x} is not frame-aligned"),
        }
    }
}

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
        assert_eq!(fa.free(f), Err(FreeError::DoubleFree(f)));
        assert_eq!(fa.free(0x1001), Err(FreeError::Misaligned(0x1001)));
        assert_eq!(fa.free(1 << 40), Err(FreeError::NotRam(1 << 40)));
    }

    #[test]
    fn freeing_device_memory_is_an_error() {
        let mut store = [0u64; 4];
        let mut fa = FrameBitmap::new(&mut store);
        fa.add_free_range(0, 0x4000);
        // In the bitmap's reach and marked used, but never RAM: an MMIO page.
        assert_eq!(fa.free(0x8000), Err(FreeError::NotRam(0x8000)));
        assert_eq!(fa.free_frames(), 4);
    }
}
