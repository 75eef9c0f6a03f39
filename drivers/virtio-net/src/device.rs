//! Bringing the device up from the capabilities the manifest gave.

use crate::config::device as dev;
use crate::shared;
use conflux_abi::pci::Bdf;
use conflux_userlib::region::{Mapped, Region};
use conflux_virtio_hal::{
    device_function, install, register_shared, ConfluxHal, Device, Pool, Window,
};
use core::fmt;
use virtio_drivers::device::net::VirtIONetRaw;
use virtio_drivers::transport::pci::bus::{BarInfo, Command, PciRoot};
use virtio_drivers::transport::pci::PciTransport;
use virtio_drivers::transport::Transport;

/// Descriptors per virtqueue (receive and transmit each).
pub const QUEUE: usize = 16;

pub type Net = VirtIONetRaw<ConfluxHal, PciTransport, QUEUE>;

/// The device and the clients' regions.
pub struct Dev {
    pub net: Net,
    pub mac: [u8; 6],
    pub link_up: bool,
    pub clients: alloc::vec::Vec<Mapped>,
}

/// Why the device could not be brought up.
pub enum OpenError {
    Bar(&'static str),
    Transport(virtio_drivers::transport::pci::VirtioPciError),
    Device(virtio_drivers::Error),
    Dma(conflux_abi::SysError),
    Header(usize),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Bar(why) => write!(f, "BAR {}: {why}", dev::BAR_INDEX),
            Self::Transport(e) => write!(f, "virtio PCI transport: {e}"),
            Self::Device(e) => write!(f, "virtio-net: {e}"),
            Self::Dma(e) => write!(f, "DMA region's physical address: {e}"),
            Self::Header(n) => write!(
                f,
                "the device's frame header is {n} bytes, the protocol's headroom {}",
                conflux_net_protocol::HEADROOM
            ),
        }
    }
}

pub fn bdf() -> Bdf {
    Bdf(dev::BDF)
}

/// virtio-net's configuration: `mac` at 0, `status` (bit 0: link up) at 6.
const CONFIG_STATUS: usize = 6;

pub fn open() -> Result<Dev, OpenError> {
    let config = Region(dev::CONFIG).premapped(dev::CONFIG_ADDR, 4096);
    let df = device_function(bdf());
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
        pool: Pool::new(dma.base(), dma_phys, dma.size()),
    });
    let mut clients = alloc::vec::Vec::new();
    for &(slot, addr, size, _) in dev::CLIENTS {
        let region = Region(slot).premapped(addr, size);
        let phys = Region(slot).phys(0).map_err(OpenError::Dma)?;
        // The clients' buffers go to the device in place, not bounced.
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
    // VirtIONetRaw keeps the transport to itself and does not expose the
    // status field, so the link is read here; QEMU offers STATUS and sizes
    // the configuration by what it offers, so the field is there before
    // negotiation. Without it the link counts as up (virtio 5.1.4.2).
    let link_up = transport
        .read_config_space::<u16>(CONFIG_STATUS)
        .map_or(true, |s| s & 1 != 0);
    let mut net = Net::new(transport).map_err(OpenError::Device)?;
    let mut hdr = [0u8; 32];
    match net.fill_buffer_header(&mut hdr) {
        Ok(n) if n as u64 == conflux_net_protocol::HEADROOM => {}
        Ok(n) => return Err(OpenError::Header(n)),
        Err(e) => return Err(OpenError::Device(e)),
    }
    net.enable_interrupts();
    Ok(Dev {
        mac: net.mac_address(),
        net,
        link_up,
        clients,
    })
}
