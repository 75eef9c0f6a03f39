//! Bringing the device up from the capabilities the manifest gave.
//!
//! The PCI steps (configuration page → `PciRoot` → BAR window → HAL with
//! the DMA pool → command register → `PciTransport`) are
//! `conflux_virtio_hal::bring_up`, shared with virtio-blk.

use crate::config::device as dev;
use crate::shared;
use conflux_abi::pci::Bdf;
use conflux_userlib::region::Region;
use conflux_virtio_crypto::VirtIOCrypto;
use conflux_virtio_hal::{bring_up, device_function, BarMapping, BringUpError, ConfluxHal, Pool};
use core::fmt;
use virtio_drivers::transport::pci::PciTransport;

pub type Crypto = VirtIOCrypto<ConfluxHal, PciTransport>;

/// Why the device could not be brought up.
pub enum OpenError {
    BringUp(BringUpError),
    Device(conflux_virtio_crypto::Error),
    Dma(conflux_abi::SysError),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BringUp(e) => write!(f, "{e}"),
            Self::Device(e) => write!(f, "virtio-crypto: {e}"),
            Self::Dma(e) => write!(f, "DMA region's physical address: {e}"),
        }
    }
}

pub fn bdf() -> Bdf {
    Bdf(dev::BDF)
}

pub fn open() -> Result<Crypto, OpenError> {
    let config = Region(dev::CONFIG).premapped(dev::CONFIG_ADDR, 4096);
    let dma = Region(dev::DMA).premapped(dev::DMA_ADDR, dev::DMA_SIZE);
    let dma_phys = Region(dev::DMA).phys(0).map_err(OpenError::Dma)?;
    let transport = bring_up(
        shared::own_function(&config, device_function(bdf())),
        BarMapping {
            index: dev::BAR_INDEX,
            virt: dev::BAR_ADDR,
            window: dev::BAR_WINDOW as u64,
        },
        Pool::new(dma.base(), dma_phys, dev::DMA_SIZE as u64),
        &[],
    )
    .map_err(OpenError::BringUp)?;
    VirtIOCrypto::new(transport).map_err(OpenError::Device)
}
