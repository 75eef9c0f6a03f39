//! Memory a task claims to own.
//!
//! A syscall's pointer arguments arrive as [`UserSlice`]: an address and a
//! length that mean nothing until checked against the task's page tables.
//! The only way to reach the bytes is through a method that checks every
//! page first (user-accessible, writable if written), so a hostile pointer
//! — into the kernel, unmapped, wrapping around — becomes
//! `SysError::BadAddress` and never a kernel fault. The kernel then copies
//! through the direct map, page by page.

use crate::arch::paging::{phys_to_virt, AddressSpace};
use conflux_abi::layout::{is_user_range, PAGE_SIZE};
use conflux_abi::SysError;

/// An unchecked `(address, length)` pair from a task.
#[derive(Clone, Copy, Debug)]
pub struct UserSlice {
    addr: u64,
    len: u64,
}

impl UserSlice {
    pub fn new(addr: u64, len: u64) -> Self {
        Self { addr, len }
    }

    /// Checks that every page of the slice is mapped for the task.
    fn check(&self, space: &mut AddressSpace, write: bool) -> Result<(), SysError> {
        if !is_user_range(self.addr, self.len) {
            return Err(SysError::BadAddress);
        }
        if self.len == 0 {
            return Ok(());
        }
        let first = self.addr & !(PAGE_SIZE - 1);
        let last = (self.addr + self.len - 1) & !(PAGE_SIZE - 1);
        let mut page = first;
        loop {
            space
                .translate_user(page, write)
                .ok_or(SysError::BadAddress)?;
            if page == last {
                return Ok(());
            }
            page += PAGE_SIZE;
        }
    }

    /// Checks the whole slice, then hands its bytes to `f` in page-sized
    /// pieces. Nothing is visited unless everything is valid.
    pub fn read(&self, space: &mut AddressSpace, mut f: impl FnMut(&[u8])) -> Result<(), SysError> {
        self.check(space, false)?;
        let mut addr = self.addr;
        let end = self.addr + self.len;
        while addr < end {
            let piece = (PAGE_SIZE - addr % PAGE_SIZE).min(end - addr);
            let phys = space
                .translate_user(addr, false)
                .ok_or(SysError::BadAddress)?;
            // Safety: `check` verified the page is the task's and mapped; the
            // direct map covers it and `piece` stays within the page.
            let bytes = unsafe { core::slice::from_raw_parts(phys_to_virt(phys), piece as usize) };
            f(bytes);
            addr += piece;
        }
        Ok(())
    }
}
