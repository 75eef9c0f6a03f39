//! A region mapping seen as bytes, for code that treats every byte as
//! untrusted input: a server running a client's compound over the
//! client's regions, or a client reading what a server wrote.
//!
//! [`crate::region::Mapped`] reads and writes words volatilely and never
//! makes a Rust slice, which is right for protocols of a few fields. A
//! compound executor or a file server needs the region as `&mut [u8]`
//! (`cosy-abi` works on slices). Bytes have no invalid values, so the only
//! thing a slice over memory another task may change costs is that two
//! reads of one byte need not agree: code over a window validates what it
//! reads once and never relies on re-reading (cosy-abi's verifier copies
//! the ops it checked into server memory for this reason).
//!
//! A window comes only from [`Window::map`], which asks the kernel to map
//! the capability and takes the size from the kernel's answer, so the
//! length is the region's, whatever the task that sent the capability
//! claimed. The kernel maps one capability once (`AlreadyMapped`), so
//! there is one window per capability; the task must not unmap the
//! capability behind its window's back (use [`Window::unmap`]).

use conflux_abi::cap::rights;
use conflux_abi::layout::{REGION_BASE, REGION_END};
use conflux_abi::{SysError, Sysno};

/// A mapped region as bytes.
#[derive(Debug)]
pub struct Window {
    slot: usize,
    base: u64,
    len: usize,
}

impl Window {
    /// Maps the region capability in `slot` at `vaddr` (page aligned, in
    /// the region window; the kernel checks), writable if `writable`.
    pub fn map(slot: usize, vaddr: u64, writable: bool) -> Result<Window, SysError> {
        let want = rights::READ | if writable { rights::WRITE } else { 0 };
        let size = crate::sys::call(Sysno::RegionMap, slot as u64, vaddr, want as u64, 0)?;
        let inside =
            vaddr >= REGION_BASE && vaddr.checked_add(size).is_some_and(|end| end <= REGION_END);
        let len = usize::try_from(size).ok().filter(|_| inside);
        let Some(len) = len else {
            // The kernel never maps outside the window; undo and refuse
            // rather than trust a length this code cannot check.
            let _ = crate::sys::call(Sysno::RegionUnmap, slot as u64, 0, 0, 0);
            return Err(SysError::BadAddress);
        };
        Ok(Window {
            slot,
            base: vaddr,
            len,
        })
    }

    /// The region's size in bytes, as the kernel reported it.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for an empty region (the kernel makes none).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The address it is mapped at.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The bytes. Another task sharing the region may change them at any
    /// time: validate what you read once.
    pub fn bytes(&mut self) -> &mut [u8] {
        // Safety: `base..base + len` is the mapping the kernel made for
        // this window's capability (its size, inside the region window,
        // where nothing of Rust's lives). It stays mapped while the window
        // lives: the capability is mapped once, and the window's owner
        // unmaps it only through `unmap`, which consumes the window. A
        // lent region (a lease) stays mapped whatever its lender revokes;
        // a shared one revoked by another task makes accesses fault this
        // task, never touch other memory. `&mut self` makes this the only
        // slice the task holds of it. Bytes have no invalid values;
        // changes by other tasks are the untrusted-input case the module
        // doc describes.
        unsafe { core::slice::from_raw_parts_mut(self.base as *mut u8, self.len) }
    }

    /// Unmaps the region (the capability stays in its slot).
    pub fn unmap(self) -> Result<(), SysError> {
        crate::sys::call(Sysno::RegionUnmap, self.slot as u64, 0, 0, 0).map(drop)
    }

    /// The capability slot it maps.
    pub fn slot(&self) -> usize {
        self.slot
    }
}
