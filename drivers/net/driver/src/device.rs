//! Bringing the device up from the capabilities the manifest gave.
//!
//! The PCI steps (configuration page → `PciRoot` → BAR window → HAL with
//! the DMA pool and the clients' regions → command register →
//! `PciTransport`) are `conflux_virtio_hal::bring_up`, shared with
//! virtio-blk and virtio-crypto; what is here is virtio-net's own.

use crate::config::device as dev;
use crate::shared;
use conflux_abi::pci::Bdf;
use conflux_userlib::region::{Mapped, Region};
use conflux_virtio_hal::{
    bring_up, device_function, BarMapping, BringUpError, ConfluxHal, Pool, Window,
};
use core::fmt;
use virtio_drivers::device::net::VirtIONetRaw;
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
    /// The clients' regions as the HAL registers them (for [`start`]).
    pub windows: alloc::vec::Vec<Window>,
    /// How many times this driver started before (0 on the first start).
    pub incarnation: u64,
}

/// Why the device could not be brought up.
pub enum OpenError {
    BringUp(BringUpError),
    Device(virtio_drivers::Error),
    Dma(conflux_abi::SysError),
    Header(usize),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BringUp(e) => write!(f, "{e}"),
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
    let dma = Region(dev::DMA).premapped(dev::DMA_ADDR, dev::DMA_SIZE);
    // The pool's last page is the driver's own: regions outlive a restart
    // (only the task's memory is fresh), so a count kept there tells a
    // restarted driver that it was restarted.
    let incarnation = dma.read_u64(PERSIST).unwrap_or(0);
    let _ = dma.write_u64(PERSIST, incarnation + 1);
    let mut clients = alloc::vec::Vec::new();
    let mut windows = alloc::vec::Vec::new();
    for &(slot, addr, size, _) in dev::CLIENTS {
        let region = Region(slot).premapped(addr, size);
        let phys = Region(slot).phys(0).map_err(OpenError::Dma)?;
        // The clients' buffers go to the device in place, not bounced.
        windows.push(Window {
            virt: region.base(),
            phys,
            len: region.size(),
        });
        clients.push(region);
    }
    let (net, link_up) = start(&windows)?;
    Ok(Dev {
        mac: net.mac_address(),
        net,
        link_up,
        clients,
        windows,
        incarnation,
    })
}

/// Where the incarnation count lives in the DMA pool (its last page).
const PERSIST: u64 = (dev::DMA_SIZE - 4096) as u64;

/// Brings the device up from reset with a fresh pool, the clients'
/// regions registered for zero copy (`windows`): at the driver's start,
/// and again after [`Net`] was dropped (which resets the device) to make
/// the device forget every buffer it held. Returns the device and whether
/// its link is up.
pub fn start(windows: &[Window]) -> Result<(Net, bool), OpenError> {
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
        Pool::new(dma.base(), dma_phys, PERSIST),
        windows,
    )
    .map_err(OpenError::BringUp)?;
    // `bring_up` made a new transport, and `Net::new` resets the device
    // before setting it up: after a restart, nothing the previous instance
    // posted is used again. VirtIONetRaw keeps the transport to itself and does not expose the
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
    Ok((net, link_up))
}
