//! Bringing the device up from the capabilities the manifest gave.

use crate::config::device as dev;
use crate::shared;
use conflux_abi::pci::Bdf;
use conflux_userlib::region::{Mapped, Region};
use conflux_virtio_hal::{
    bring_up, device_function, BarMapping, BringUpError, ConfluxHal, Pool, Window,
};
use core::fmt;
use virtio_drivers::device::blk::VirtIOBlk;
use virtio_drivers::transport::pci::PciTransport;

/// The device and the clients' regions.
pub struct Blk {
    pub blk: VirtIOBlk<ConfluxHal, PciTransport>,
    pub clients: alloc::vec::Vec<Mapped>,
    /// How many times this driver started before (0 on the first start).
    pub incarnation: u64,
    /// Every client has detached: time to stop.
    pub done: bool,
}

/// Why the device could not be brought up.
pub enum OpenError {
    BringUp(BringUpError),
    Device(virtio_drivers::Error),
    Dma(conflux_abi::SysError),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BringUp(e) => write!(f, "{e}"),
            Self::Device(e) => write!(f, "virtio-blk: {e}"),
            Self::Dma(e) => write!(f, "DMA region's physical address: {e}"),
        }
    }
}

pub fn bdf() -> Bdf {
    Bdf(dev::BDF)
}

pub fn open() -> Result<Blk, OpenError> {
    let config = Region(dev::CONFIG).premapped(dev::CONFIG_ADDR, 4096);
    let dma = Region(dev::DMA).premapped(dev::DMA_ADDR, dev::DMA_SIZE);
    let dma_phys = Region(dev::DMA).phys(0).map_err(OpenError::Dma)?;
    // The pool's last page is the driver's own: regions outlive a restart
    // (only the task's memory is fresh), so a count kept there tells a
    // restarted driver that it was restarted.
    let persist = (dev::DMA_SIZE - 4096) as u64;
    let incarnation = dma.read_u64(persist).unwrap_or(0);
    let _ = dma.write_u64(persist, incarnation + 1);
    let mut clients = alloc::vec::Vec::new();
    let mut windows = alloc::vec::Vec::new();
    for &(slot, addr, size, _) in dev::CLIENTS {
        let region = Region(slot).premapped(addr, size);
        let phys = Region(slot).phys(0).map_err(OpenError::Dma)?;
        // The clients' data areas go to the device in place, not bounced.
        windows.push(Window {
            virt: region.base(),
            phys,
            len: region.size(),
        });
        clients.push(region);
    }
    let transport = bring_up(
        shared::own_function(&config, device_function(bdf())),
        BarMapping {
            index: dev::BAR_INDEX,
            virt: dev::BAR_ADDR,
            window: dev::BAR_WINDOW as u64,
        },
        Pool::new(dma.base(), dma_phys, persist),
        &windows,
    )
    .map_err(OpenError::BringUp)?;
    let mut blk = VirtIOBlk::<ConfluxHal, _>::new(transport).map_err(OpenError::Device)?;
    blk.enable_interrupts();
    Ok(Blk {
        blk,
        clients,
        incarnation,
        done: false,
    })
}
