//! The DMA pool: page-granular, physically contiguous, first fit.
//!
//! The pool is one region the kernel allocated physically contiguous, so a
//! run of pages has one physical address. Allocation is first fit over a
//! bitmap; `virtio-drivers` allocates its queues once and its bounce
//! buffers briefly, so fragmentation stays small.

/// Most pages a pool may have (4 MiB).
pub const MAX_PAGES: usize = 1024;
const PAGE: u64 = 4096;

/// A pool of `pages` pages at virtual `virt` / physical `phys`.
#[derive(Debug)]
pub struct Pool {
    virt: u64,
    phys: u64,
    pages: usize,
    used: [u64; MAX_PAGES / 64],
}

impl Pool {
    /// A pool over `len` bytes (whole pages; at most [`MAX_PAGES`] used).
    pub const fn new(virt: u64, phys: u64, len: u64) -> Self {
        let pages = (len / PAGE) as usize;
        Self {
            virt,
            phys,
            pages: if pages > MAX_PAGES { MAX_PAGES } else { pages },
            used: [0; MAX_PAGES / 64],
        }
    }

    fn is_used(&self, p: usize) -> bool {
        self.used[p / 64] & 1 << (p % 64) != 0
    }

    fn set(&mut self, first: usize, n: usize, used: bool) {
        for p in first..first + n {
            if used {
                self.used[p / 64] |= 1 << (p % 64);
            } else {
                self.used[p / 64] &= !(1 << (p % 64));
            }
        }
    }

    /// `n` contiguous pages: (physical, virtual) addresses of the first.
    pub fn alloc(&mut self, n: usize) -> Option<(u64, u64)> {
        if n == 0 || n > self.pages {
            return None;
        }
        let mut run = 0;
        for p in 0..self.pages {
            run = if self.is_used(p) { 0 } else { run + 1 };
            if run == n {
                let first = p + 1 - n;
                self.set(first, n, true);
                let off = first as u64 * PAGE;
                return Some((self.phys + off, self.virt + off));
            }
        }
        None
    }

    /// Returns `n` pages starting at physical `phys`; false if they are not
    /// an allocation of this pool.
    pub fn free(&mut self, phys: u64, n: usize) -> bool {
        let Some(off) = phys.checked_sub(self.phys) else {
            return false;
        };
        let first = (off / PAGE) as usize;
        let ok = off % PAGE == 0
            && first + n <= self.pages
            && (first..first + n).all(|p| self.is_used(p));
        if ok {
            self.set(first, n, false);
        }
        ok
    }

    /// The physical address of pool byte at virtual `virt`, if it is one.
    pub fn phys_of(&self, virt: u64, len: u64) -> Option<u64> {
        let off = virt.checked_sub(self.virt)?;
        (off.checked_add(len)? <= self.pages as u64 * PAGE).then(|| self.phys + off)
    }

    /// The virtual address of pool byte at physical `phys`, if it is one.
    pub fn virt_of(&self, phys: u64, len: u64) -> Option<u64> {
        let off = phys.checked_sub(self.phys)?;
        (off.checked_add(len)? <= self.pages as u64 * PAGE).then(|| self.virt + off)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fit_runs_are_contiguous_and_reusable() {
        let mut p = Pool::new(0x1000_0000, 0x20_0000, 8 * PAGE);
        assert_eq!(p.alloc(3), Some((0x20_0000, 0x1000_0000)));
        assert_eq!(p.alloc(2), Some((0x20_3000, 0x1000_3000)));
        assert_eq!(p.alloc(4), None, "only 3 pages left");
        assert!(p.free(0x20_0000, 3));
        assert!(!p.free(0x20_0000, 3), "double free is refused");
        assert!(!p.free(0x20_0800, 1), "misaligned");
        assert!(!p.free(0x10_0000, 1), "outside");
        assert_eq!(p.alloc(3), Some((0x20_0000, 0x1000_0000)));
        assert_eq!(p.alloc(0), None);
    }

    #[test]
    fn translation_stays_inside_the_pool() {
        let p = Pool::new(0x1000_0000, 0x20_0000, 2 * PAGE);
        assert_eq!(p.phys_of(0x1000_0010, 16), Some(0x20_0010));
        assert_eq!(p.phys_of(0x1000_1ff0, 32), None, "runs past the end");
        assert_eq!(p.phys_of(0x0fff_ffff, 1), None);
        assert_eq!(p.virt_of(0x20_1000, 4096), Some(0x1000_1000));
        assert_eq!(p.virt_of(u64::MAX, 2), None);
    }
}
