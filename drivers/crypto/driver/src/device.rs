//! Bringing the device up from the capabilities the manifest gave, again
//! after a reset, and the clients' regions.
//!
//! The PCI steps (configuration page → `PciRoot` → BAR window → HAL with
//! the DMA pool → command register → `PciTransport`) are
//! `conflux_virtio_hal::bring_up`, shared with virtio-blk and virtio-net.

use crate::config::device as dev;
use crate::shared;
use alloc::vec::Vec;
use conflux_abi::pci::Bdf;
use conflux_userlib::ipc::{Irq, Notification};
use conflux_userlib::region::{Mapped, Region};
use conflux_virtio_crypto::{Sleep, VirtIOCrypto};
use conflux_virtio_hal::{
    bring_up, device_function, BarMapping, BringUpError, ConfluxHal, Pool, Window,
};
use core::fmt;
use virtio_drivers::transport::pci::PciTransport;

pub type Device = VirtIOCrypto<ConfluxHal, PciTransport>;

/// What the driver holds: the device (absent between a failure and the
/// reset that brings it back), the clients' regions, and what it knows
/// of its own history.
pub struct Crypto {
    pub device: Option<Device>,
    pub clients: Vec<Mapped>,
    windows: Vec<Window>,
    /// The pools of the flows running on the device (see `flows`).
    pub flow_windows: Vec<Window>,
    /// How many times this driver started before (0 on the first start).
    pub incarnation: u64,
    /// How many times this instance reset the device after a failure.
    pub resets: u32,
}

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

/// The device's PCI address: from the task's configuration section, since
/// one build of this crate may drive several devices (one per task).
pub fn bdf() -> Bdf {
    Bdf(conflux_userlib::task::required("device::BDF") as u16)
}

/// The DMA pool's last page is the driver's own: regions outlive a
/// restart (only the task's memory is fresh), so a count kept there tells
/// a restarted driver that it was restarted.
const PERSIST: u64 = (dev::DMA_SIZE - 4096) as u64;

pub fn open() -> Result<Crypto, OpenError> {
    let dma = Region(dev::DMA).premapped(dev::DMA_ADDR, dev::DMA_SIZE);
    let incarnation = dma.read_u64(PERSIST).unwrap_or(0);
    let _ = dma.write_u64(PERSIST, incarnation + 1);
    let mut clients = Vec::new();
    let mut windows = Vec::new();
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
    let mut crypto = Crypto {
        device: None,
        clients,
        windows,
        flow_windows: Vec::new(),
        incarnation,
        resets: 0,
    };
    crypto.device = Some(start(&crypto.windows)?);
    Ok(crypto)
}

impl Crypto {
    /// Which sessions are valid: every restart and every reset makes the
    /// device forget its sessions. (The incarnation's low 16 bits: after
    /// 65,536 restarts an ancient handle could look current again, and
    /// would then be `UnknownSession` at worst, never another client's.)
    pub fn generation(&self) -> u32 {
        (self.incarnation as u32) << 16 | (self.resets & 0xffff)
    }

    /// Resets the device after a failure and brings it up again; the
    /// sessions of every client and flow are gone. The pools of running
    /// flows are DMA-capable again after the reset, like the clients'
    /// regions.
    pub fn reset(&mut self) -> Result<(), OpenError> {
        // Dropping the old driver resets the device and gives its queues'
        // pages back to the pool before a new pool replaces it.
        self.device = None;
        self.resets = self.resets.wrapping_add(1);
        let mut windows = self.windows.clone();
        windows.extend_from_slice(&self.flow_windows);
        self.device = Some(start(&windows)?);
        Ok(())
    }
}

fn start(windows: &[Window]) -> Result<Device, OpenError> {
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
    let mut device = VirtIOCrypto::new(transport).map_err(OpenError::Device)?;
    device.sleep_on_interrupt(Sleep {
        wait: wait_for_interrupt,
        rearm: rearm_interrupt,
    });
    Ok(device)
}

/// Sleeps on the device's notification. Doorbells that ring meanwhile are
/// taken with it; that loses nothing, as the loop steps every flow after
/// the request and a flow waits only after looking at its edges again.
fn wait_for_interrupt() -> bool {
    Notification(dev::IRQ_NOTIFY)
        .wait()
        .is_ok_and(|bits| bits & 1 != 0)
}

fn rearm_interrupt() {
    let _ = Irq(dev::IRQ).ack();
}
