//! The driver's only `unsafe`: turning the configuration page the kernel
//! mapped for this task (for its whole life) into the raw pointer the HAL
//! works on.
#![allow(unsafe_code)]

use conflux_userlib::region::Mapped;
use conflux_virtio_hal::OwnFunction;
use virtio_drivers::transport::pci::bus::DeviceFunction;

/// Configuration access to this task's own function.
pub fn own_function(config: &Mapped, df: DeviceFunction) -> OwnFunction {
    // Safety: `config` is the manifest's mapping of this function's 4 KiB
    // configuration page (`Mapped` guarantees a live mapping in the region
    // window), never unmapped while the task runs.
    unsafe { OwnFunction::new(config.base() as *mut u32, df) }
}
