//! A block sink's staging buffer: pages of the driver's DMA pool, so
//! the device reads whole chunks from it in place. The module's only
//! `unsafe` turns those pages into bytes.
#![allow(unsafe_code)]

use conflux_virtio_hal::{alloc_pages, free_pages};

/// Bytes of a staging buffer: the chunk written at once.
pub const BYTES: usize = 32 * 1024;
const PAGES: usize = BYTES / 4096;

/// Pages of the pool, owned until dropped.
pub struct Staging {
    phys: u64,
    virt: u64,
}

impl Staging {
    /// `None` when the DMA pool has no room left.
    pub fn new() -> Option<Self> {
        let (phys, virt) = alloc_pages(PAGES)?;
        Some(Self { phys, virt })
    }

    pub fn bytes(&mut self) -> &mut [u8] {
        // Safety: `alloc_pages` handed these `BYTES` bytes out to this
        // `Staging` alone; pool pages stay mapped for the task's life and
        // go back to the pool only in `drop`. `&mut self` makes this the
        // only slice of them.
        unsafe { core::slice::from_raw_parts_mut(self.virt as *mut u8, BYTES) }
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        free_pages(self.phys, PAGES);
    }
}
