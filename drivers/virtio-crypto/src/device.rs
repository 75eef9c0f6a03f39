//! Bringing the device up from the capabilities the manifest gave.
//!
//! The same steps as virtio-blk's `device.rs` (configuration page →
//! `OwnFunction` → `PciRoot` → BAR window → HAL with the DMA pool →
//! command register → `PciTransport`), kept as a local copy for now.

use crate::config::device as dev;
use crate::shared;
use conflux_abi::pci::Bdf;
use conflux_userlib::region::Region;
use conflux_virtio_crypto::VirtIOCrypto;
use conflux_virtio_hal::{install, ConfluxHal, Device, Pool, Window};
use core::fmt;
use virtio_drivers::transport::pci::bus::{BarInfo, Command, DeviceFunction, PciRoot};
use virtio_drivers::transport::pci::PciTransport;

pub type Crypto = VirtIOCrypto<ConfluxHal, PciTransport>;

/// Why the device could not be brought up.
pub enum OpenError {
    Bar(&'static str),
    Transport(virtio_drivers::transport::pci::VirtioPciError),
    Device(conflux_virtio_crypto::Error),
    Dma(conflux_abi::SysError),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Bar(why) => write!(f, "BAR {}: {why}", dev::BAR_INDEX),
            Self::Transport(e) => write!(f, "virtio PCI transport: {e}"),
            Self::Device(e) => write!(f, "virtio-crypto: {e}"),
            Self::Dma(e) => write!(f, "DMA region's physical address: {e}"),
        }
    }
}

pub fn bdf() -> Bdf {
    Bdf(dev::BDF)
}

fn function() -> DeviceFunction {
    let b = bdf();
    DeviceFunction {
        bus: b.bus(),
        device: b.device(),
        function: b.function(),
    }
}

pub fn open() -> Result<Crypto, OpenError> {
    let config = Region(dev::CONFIG).premapped(dev::CONFIG_ADDR, 4096);
    let df = function();
    let mut root = PciRoot::new(shared::own_function(&config, df));
    let bar = match root.bar_info(df, dev::BAR_INDEX) {
        Ok(Some(BarInfo::Memory { address, size, .. })) => Window {
            virt: dev::BAR_ADDR,
            phys: address,
            len: size.min(dev::BAR_WINDOW as u64),
        },
        Ok(_) => return Err(OpenError::Bar("not a memory BAR")),
        Err(_) => return Err(OpenError::Bar("cannot be read")),
    };
    let dma = Region(dev::DMA).premapped(dev::DMA_ADDR, dev::DMA_SIZE);
    let dma_phys = Region(dev::DMA).phys(0).map_err(OpenError::Dma)?;
    let mut bars = [None; 6];
    bars[dev::BAR_INDEX as usize] = Some(bar);
    install(Device {
        bars,
        pool: Pool::new(dma.base(), dma_phys, dev::DMA_SIZE as u64),
    });
    root.set_command(df, Command::MEMORY_SPACE | Command::BUS_MASTER);
    let transport =
        PciTransport::new::<ConfluxHal, _>(&mut root, df).map_err(OpenError::Transport)?;
    VirtIOCrypto::new(transport).map_err(OpenError::Device)
}
