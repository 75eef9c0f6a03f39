//! The steps every driver task takes to bring its virtio PCI function up
//! from the capabilities the manifest gave it.

use crate::access::OwnFunction;
use crate::hal::{install, register_shared, ConfluxHal, Device, Window};
use crate::pool::Pool;
use core::fmt;
use virtio_drivers::transport::pci::bus::{BarInfo, Command, PciRoot};
use virtio_drivers::transport::pci::{PciTransport, VirtioPciError};

/// Where the task's BAR is mapped: BAR `index`, at virtual `virt`, with at
/// most `window` bytes of it mapped.
#[derive(Clone, Copy, Debug)]
pub struct BarMapping {
    pub index: u8,
    pub virt: u64,
    pub window: u64,
}

/// Why [`bring_up`] failed.
#[derive(Debug)]
pub enum BringUpError {
    /// The BAR is not a memory BAR.
    NotMemoryBar(u8),
    /// The BAR cannot be read.
    BarUnreadable(u8),
    /// virtio-drivers' PCI transport refused the function.
    Transport(VirtioPciError),
}

impl fmt::Display for BringUpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotMemoryBar(i) => write!(f, "BAR {i}: not a memory BAR"),
            Self::BarUnreadable(i) => write!(f, "BAR {i}: cannot be read"),
            Self::Transport(e) => write!(f, "virtio PCI transport: {e}"),
        }
    }
}

/// Configuration access → `PciRoot` → the BAR's window → [`install`] with
/// `pool` → `shared` windows registered (zero copy) → memory space and bus
/// mastering on → the virtio PCI transport. The transport is ready for a
/// device driver's `new`.
pub fn bring_up(
    access: OwnFunction,
    bar: BarMapping,
    pool: Pool,
    shared: &[Window],
) -> Result<PciTransport, BringUpError> {
    if bar.index >= 6 {
        return Err(BringUpError::BarUnreadable(bar.index));
    }
    let df = access.function();
    let mut root = PciRoot::new(access);
    let window = match root.bar_info(df, bar.index) {
        Ok(Some(BarInfo::Memory { address, size, .. })) => Window {
            virt: bar.virt,
            phys: address,
            len: size.min(bar.window),
        },
        Ok(_) => return Err(BringUpError::NotMemoryBar(bar.index)),
        Err(_) => return Err(BringUpError::BarUnreadable(bar.index)),
    };
    let mut bars = [None; 6];
    bars[usize::from(bar.index)] = Some(window);
    install(Device { bars, pool });
    for &w in shared {
        register_shared(w);
    }
    root.set_command(df, Command::MEMORY_SPACE | Command::BUS_MASTER);
    PciTransport::new::<ConfluxHal, _>(&mut root, df).map_err(BringUpError::Transport)
}
