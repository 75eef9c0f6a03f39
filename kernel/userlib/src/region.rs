//! Regions (RAM shared between tasks, or device registers) and the only
//! way safe code touches them: a [`Mapped`] region, every access checked.
//!
//! A `Mapped` exists only for a mapping: [`Region::map`] makes one after
//! the kernel mapped the region, [`Region::premapped`] one for a region the
//! manifest mapped at start (at its generated `caps::NAME_ADDR`, with
//! `caps::NAME_SIZE` bytes). It carries the mapping's base and length, and
//! both constructors insist the range lies inside the task's region window,
//! which holds nothing but region mappings. Every access is checked against
//! the length and for 8-byte alignment, in release builds too. So safe code
//! can reach only region memory: never the task's stack, heap or code.
//!
//! Other tasks may change shared memory at any time, so it is read and
//! written with volatile accesses, never as a Rust slice: a word at a time
//! ([`Mapped::read_u64`], [`Mapped::write_u64`]) or as bytes copied between
//! a slice and the mapping ([`Mapped::copy_in`], [`Mapped::copy_out`]),
//! each range checked whole before a byte moves.

use conflux_abi::cap::rights;
use conflux_abi::layout::{REGION_BASE, REGION_END};
use conflux_abi::{SysError, Sysno};
use core::fmt;

/// A capability to a region (RAM shared between tasks, or device registers).
#[derive(Clone, Copy, Debug)]
pub struct Region(pub usize);

impl Region {
    /// Maps the region at `vaddr` (in the region window), readable, and
    /// writable if `writable`. `len` is the region's size in bytes: its
    /// `caps::NAME_SIZE`, or what the task that sent it says.
    ///
    /// # Panics
    ///
    /// If the kernel mapped the region but `vaddr + len` runs past the
    /// region window: `len` is not the region's size.
    #[track_caller]
    pub fn map(&self, vaddr: u64, len: usize, writable: bool) -> Result<Mapped, SysError> {
        let want = rights::READ | if writable { rights::WRITE } else { 0 };
        crate::sys::call(Sysno::RegionMap, self.0 as u64, vaddr, want as u64, 0)?;
        Ok(Mapped::new(vaddr, len))
    }

    /// The mapping the manifest made for this capability when the task
    /// started: pass its generated `caps::NAME_ADDR` and `caps::NAME_SIZE`.
    ///
    /// # Panics
    ///
    /// If `vaddr..vaddr + len` is not 8-byte aligned inside the region window.
    #[track_caller]
    pub fn premapped(&self, vaddr: u64, len: usize) -> Mapped {
        Mapped::new(vaddr, len)
    }

    pub fn unmap(&self) -> Result<(), SysError> {
        crate::sys::call(Sysno::RegionUnmap, self.0 as u64, 0, 0, 0).map(drop)
    }

    /// Physical address of byte `offset` (needs the DMA right).
    pub fn phys(&self, offset: u64) -> Result<u64, SysError> {
        crate::sys::call(Sysno::RegionPhys, self.0 as u64, offset, 0, 0)
    }
}

/// A mapped region: `len` bytes at `base`, inside the region window.
///
/// It does not outlive the mapping in any checked way: after an unmap or a
/// revocation, an access faults this task (and only this task).
#[derive(Clone, Copy, Debug)]
pub struct Mapped {
    base: u64,
    len: u64,
}

/// Why an access to a [`Mapped`] region was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessError {
    /// The word at `offset` does not lie inside the `len` mapped bytes.
    OutOfBounds { offset: u64, len: u64 },
    /// `offset` is not a multiple of 8.
    Misaligned { offset: u64 },
    /// The `count` bytes from `offset` do not lie inside the `len` mapped
    /// bytes (a bulk copy).
    RangeOutOfBounds { offset: u64, count: u64, len: u64 },
}

impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OutOfBounds { offset, len } => write!(
                f,
                "the 8-byte word at offset {offset:#x} is outside the {len}-byte region mapping"
            ),
            Self::Misaligned { offset } => write!(
                f,
                "offset {offset:#x} into a region mapping is not a multiple of 8"
            ),
            Self::RangeOutOfBounds { offset, count, len } => write!(
                f,
                "{count} bytes from offset {offset:#x} run past the end of the {len}-byte region \
                 mapping: copy at most {} bytes there",
                len.saturating_sub(*offset)
            ),
        }
    }
}

impl Mapped {
    #[track_caller]
    fn new(base: u64, len: usize) -> Self {
        let len = len as u64;
        let inside = base >= REGION_BASE
            && base.is_multiple_of(8)
            && base.checked_add(len).is_some_and(|end| end <= REGION_END);
        assert!(
            inside,
            "a region mapping of {len} bytes at {base:#x} is not inside the region window \
             {REGION_BASE:#x}..{REGION_END:#x} (or not 8-byte aligned): pass the mapping's \
             address and the region's size, e.g. caps::NAME_ADDR and caps::NAME_SIZE"
        );
        Self { base, len }
    }

    /// The address of the word at `offset`, if it is inside and aligned.
    fn word(&self, offset: u64) -> Result<*mut u64, AccessError> {
        if !offset.is_multiple_of(8) {
            return Err(AccessError::Misaligned { offset });
        }
        match offset.checked_add(8) {
            Some(end) if end <= self.len => Ok((self.base + offset) as *mut u64),
            _ => Err(AccessError::OutOfBounds {
                offset,
                len: self.len,
            }),
        }
    }

    /// Reads the `u64` at byte `offset`.
    pub fn read_u64(&self, offset: u64) -> Result<u64, AccessError> {
        let word = self.word(offset)?;
        // Safety: `word` is an 8-aligned word inside `base..base + len`,
        // which `new` checked lies in the region window. Nothing of Rust's
        // lives there (only region mappings do), so the read aliases no Rust
        // object; if the region is not mapped there (any more), the read
        // faults this task, not the kernel.
        Ok(unsafe { core::ptr::read_volatile(word) })
    }

    /// Writes the `u64` at byte `offset`.
    pub fn write_u64(&self, offset: u64, value: u64) -> Result<(), AccessError> {
        let word = self.word(offset)?;
        // Safety: as for `read_u64`; a read-only mapping faults this task.
        unsafe { core::ptr::write_volatile(word, value) };
        Ok(())
    }

    /// The address of the `count` bytes at `offset`, if all of them are
    /// inside the mapping (any alignment).
    fn bytes(&self, offset: u64, count: usize) -> Result<u64, AccessError> {
        let count = count as u64;
        match offset.checked_add(count) {
            Some(end) if end <= self.len => Ok(self.base + offset),
            _ => Err(AccessError::RangeOutOfBounds {
                offset,
                count,
                len: self.len,
            }),
        }
    }

    /// Copies `src` into the mapping at byte `offset` (any alignment); on
    /// an error nothing is written.
    pub fn copy_in(&self, offset: u64, src: &[u8]) -> Result<(), AccessError> {
        let at = self.bytes(offset, src.len())?;
        // Safety: `bytes` checked that `at..at + src.len()` lies inside the
        // mapping, which `new` checked lies in the region window, where no
        // Rust object lives; `src` is a live slice outside that window, so
        // the two do not overlap. A read-only mapping faults this task.
        unsafe { volatile::copy_to(at as *mut u8, src) };
        Ok(())
    }

    /// Copies `dst.len()` bytes at byte `offset` of the mapping into `dst`
    /// (any alignment); on an error `dst` is left as it was.
    pub fn copy_out(&self, offset: u64, dst: &mut [u8]) -> Result<(), AccessError> {
        let at = self.bytes(offset, dst.len())?;
        // Safety: as for `copy_in`, with the mapping read.
        unsafe { volatile::copy_from(at as *const u8, dst) };
        Ok(())
    }

    /// The address the region is mapped at.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The mapping's length in bytes.
    pub fn size(&self) -> u64 {
        self.len
    }
}

/// Byte copies between a slice and memory another task may change at any
/// time, with volatile accesses (so they are neither elided nor merged into
/// reads the compiler assumes stable): whole words where both sides line
/// up, bytes at the ends.
mod volatile {
    /// Copies `src` to `dst..dst + src.len()`.
    ///
    /// # Safety
    ///
    /// `dst..dst + src.len()` must be writable and overlap no Rust object
    /// (in particular not `src`).
    pub unsafe fn copy_to(dst: *mut u8, src: &[u8]) {
        let head = dst.align_offset(8).min(src.len());
        let words = (src.len() - head) / 8;
        for (i, byte) in src[..head].iter().enumerate() {
            // Safety: `i < src.len()`, inside the caller's writable range.
            unsafe { dst.add(i).write_volatile(*byte) };
        }
        for w in 0..words {
            let at = head + 8 * w;
            let mut word = [0u8; 8];
            word.copy_from_slice(&src[at..at + 8]);
            // Safety: `dst + at` is 8-aligned (past `head`) and the 8 bytes
            // end inside the caller's range.
            unsafe {
                dst.add(at)
                    .cast::<u64>()
                    .write_volatile(u64::from_ne_bytes(word))
            };
        }
        for (i, byte) in src.iter().enumerate().skip(head + 8 * words) {
            // Safety: `i < src.len()`, inside the caller's writable range.
            unsafe { dst.add(i).write_volatile(*byte) };
        }
    }

    /// Copies `src..src + dst.len()` into `dst`.
    ///
    /// # Safety
    ///
    /// `src..src + dst.len()` must be readable and overlap no Rust object
    /// (in particular not `dst`).
    pub unsafe fn copy_from(src: *const u8, dst: &mut [u8]) {
        let head = src.align_offset(8).min(dst.len());
        let words = (dst.len() - head) / 8;
        for (i, byte) in dst[..head].iter_mut().enumerate() {
            // Safety: `i < dst.len()`, inside the caller's readable range.
            *byte = unsafe { src.add(i).read_volatile() };
        }
        for w in 0..words {
            let at = head + 8 * w;
            // Safety: `src + at` is 8-aligned (past `head`) and the 8 bytes
            // end inside the caller's range.
            let word = unsafe { src.add(at).cast::<u64>().read_volatile() };
            dst[at..at + 8].copy_from_slice(&word.to_ne_bytes());
        }
        let tail = head + 8 * words;
        for (i, byte) in dst.iter_mut().enumerate().skip(tail) {
            // Safety: `i < dst.len()`, inside the caller's readable range.
            *byte = unsafe { src.add(i).read_volatile() };
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    fn mapping(len: usize) -> Mapped {
        Region(1).premapped(REGION_BASE, len)
    }

    #[test]
    fn a_copy_past_the_end_is_refused_with_what_fits() {
        let m = mapping(4096);
        assert_eq!(m.bytes(4090, 6), Ok(REGION_BASE + 4090));
        let err = m.bytes(4090, 7).unwrap_err();
        assert_eq!(
            err,
            AccessError::RangeOutOfBounds {
                offset: 4090,
                count: 7,
                len: 4096
            }
        );
        assert_eq!(
            std::format!("{err}"),
            "7 bytes from offset 0xffa run past the end of the 4096-byte region mapping: \
             copy at most 6 bytes there"
        );
        assert!(m.bytes(u64::MAX, 2).is_err(), "the end must not wrap");
        assert!(
            m.bytes(4097, 0).is_err(),
            "an empty copy must still start inside"
        );
        assert_eq!(m.bytes(4096, 0), Ok(REGION_BASE + 4096));
        // Nothing moves on an error: the check precedes every access, so
        // these would fault on the host if they touched the (unmapped) window.
        assert!(m.copy_in(4095, &[1, 2]).is_err());
        assert!(m.copy_out(4095, &mut [0; 2]).is_err());
    }

    #[test]
    fn copies_round_trip_at_every_alignment_and_length() {
        let pattern: Vec<u8> = (0..64u8)
            .map(|b| b.wrapping_mul(37).wrapping_add(1))
            .collect();
        for start in 0..9 {
            for len in 0..40 {
                let mut shared = [0u64; 8];
                let base = shared.as_mut_ptr().cast::<u8>();
                // Safety: `start + len <= 49 < 64`, inside `shared`, which no
                // reference aliases while the copy runs.
                unsafe { volatile::copy_to(base.add(start), &pattern[..len]) };
                let mut back = [0xeeu8; 40];
                // Safety: as above, read.
                unsafe { volatile::copy_from(base.add(start).cast_const(), &mut back[..len]) };
                assert_eq!(&back[..len], &pattern[..len], "start {start}, len {len}");
                assert!(
                    back[len..].iter().all(|&b| b == 0xee),
                    "copy_out wrote past dst"
                );
                let bytes: Vec<u8> = shared.iter().flat_map(|w| w.to_ne_bytes()).collect();
                assert!(
                    bytes[..start].iter().all(|&b| b == 0),
                    "copy_in wrote before"
                );
                assert!(
                    bytes[start + len..].iter().all(|&b| b == 0),
                    "copy_in wrote after"
                );
            }
        }
    }
}
