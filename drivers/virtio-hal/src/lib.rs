//! The bridge between `virtio-drivers` and a Conflux driver task.
//!
//! A driver task holds, through capabilities the manifest lowering gave it
//! (`[devices.*]`), exactly three kinds of memory for its device: its PCI
//! function's 4 KiB configuration page, the device's memory BARs, and a
//! DMA pool (a region with the DMA right, physically contiguous). This
//! crate turns them into what `virtio-drivers` asks for:
//!
//! - [`OwnFunction`], a `ConfigurationAccess` that answers for the task's
//!   own function only (every other function reads as absent, writes are
//!   dropped), so `PciRoot`/`PciTransport` work unchanged;
//! - [`ConfluxHal`], the `Hal`: DMA allocations from the pool, BAR
//!   physical addresses translated to where the BARs are mapped, and
//!   `share` translating buffers that already lie in DMA-capable memory
//!   (the pool, or a client's shared data region registered with
//!   [`register_shared`]) straight to their physical address — zero copy —
//!   and bouncing anything else through the pool.
//!
//! [`bring_up`] takes a driver from its configuration access, BAR
//! mapping and pool to a ready `PciTransport`, the same steps for every
//! driver.
//!
//! `Hal` has no `self`, so the state is one per task, set up once by
//! [`install`]; a driver task drives one device.
//!
//! What a driver can and cannot reach: with these capabilities its CPU
//! reaches only its function's configuration page, its BARs and its pool.
//! Its *device*, though, can DMA to any physical address the driver writes
//! into a descriptor: without an IOMMU nothing in the kernel stops that, so
//! drivers are trusted not to aim their device at memory that is not
//! theirs. Interrupts arrive as INTx through the kernel (no MSI-X), so a
//! driver cannot send the CPU arbitrary vectors.
#![no_std]

mod access;
mod bring_up;
mod hal;
mod pool;

pub use access::{device_function, OwnFunction};
pub use bring_up::{bring_up, BarMapping, BringUpError};
pub use hal::{
    alloc_pages, free_pages, install, register_shared, unregister_shared, ConfluxHal, Device,
    Window,
};
pub use pool::Pool;
