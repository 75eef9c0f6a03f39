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
//! written with volatile word accesses, never as a Rust slice.

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

    /// The address the region is mapped at.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The mapping's length in bytes.
    pub fn size(&self) -> u64 {
        self.len
    }
}
