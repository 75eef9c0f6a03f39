//! Bringing the device up from the capabilities the manifest gave.

use crate::config::device as dev;
use crate::shared;
use conflux_abi::pci::Bdf;
use conflux_userlib::region::{Mapped, Region};
use conflux_virtio_hal::{install, register_shared, ConfluxHal, Device, Pool, Window};
use core::fmt;
use virtio_drivers::device::blk::VirtIOBlk;
use virtio_drivers::transport::pci::bus::{BarInfo, Command, DeviceFunction, PciRoot};
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
    Bar(&'static str),
    Transport(virtio_drivers::transport::pci::VirtioPciError),
    Device(virtio_drivers::Error),
    Dma(conflux_abi::SysError),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Bar(why) => write!(f, "BAR {}: {why}", dev::BAR_INDEX),
            Self::Transport(e) => write!(f, "virtio PCI transport: {e}"),
            Self::Device(e) => write!(f, "virtio-blk: {e}"),
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

pub fn open() -> Result<Blk, OpenError> {
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
    // The pool's last page is the driver's own: regions outlive a restart
    // (only the task's memory is fresh), so a count kept there tells a
    // restarted driver that it was restarted.
    let persist = (dev::DMA_SIZE - 4096) as u64;
    let incarnation = dma.read_u64(persist).unwrap_or(0);
    let _ = dma.write_u64(persist, incarnation + 1);
    let mut bars = [None; 6];
    bars[dev::BAR_INDEX as usize] = Some(bar);
    install(Device {
        bars,
        pool: Pool::new(dma.base(), dma_phys, persist),
    });
    let mut clients = alloc::vec::Vec::new();
    for &(slot, addr, size, _) in dev::CLIENTS {
        let region = Region(slot).premapped(addr, size);
        let phys = Region(slot).phys(0).map_err(OpenError::Dma)?;
        // The clients' data areas go to the device in place, not bounced.
        register_shared(Window {
            virt: region.base(),
            phys,
            len: region.size(),
        });
        clients.push(region);
    }
    root.set_command(df, Command::MEMORY_SPACE | Command::BUS_MASTER);
    let transport =
        PciTransport::new::<ConfluxHal, _>(&mut root, df).map_err(OpenError::Transport)?;
    let mut blk = VirtIOBlk::<ConfluxHal, _>::new(transport).map_err(OpenError::Device)?;
    blk.enable_interrupts();
    Ok(Blk {
        blk,
        clients,
        incarnation,
        done: false,
    })
}
