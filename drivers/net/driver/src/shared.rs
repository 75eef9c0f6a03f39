//! The driver's only `unsafe` outside the device calls: turning mappings
//! the kernel made for this task (and that stay for its whole life) into
//! the raw pointers the HAL and the net protocol work on.
#![allow(unsafe_code)]

use conflux_net_protocol::{LinkError, Server};
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

/// The driver's end of a client's region.
pub fn attach(region: &Mapped) -> Result<Server, LinkError> {
    // Safety: the manifest mapped the client's region, page aligned, for
    // the task's whole life; `Mapped` carries its true length.
    unsafe { Server::attach(region.base() as *mut u8, region.size() as usize) }
}

/// The bytes of a client's data area the device reads or writes: `len`
/// bytes from `start` (a checked `Frame`'s range). The client may change
/// them meanwhile (it shares the memory); the device sees what is there.
pub fn data(region: &Mapped, start: u64, len: u32) -> &'static mut [u8] {
    let start = region.base() + conflux_net_protocol::DATA as u64 + start;
    // Safety: the protocol's `Server` checked `start + len` against the
    // data area's length, so the range is inside the mapping, which lives
    // as long as the task. The slice is handed only to the virtqueue (and
    // the virtio-net header is written into its first bytes), until the
    // device hands the buffer back.
    unsafe { core::slice::from_raw_parts_mut(start as *mut u8, len as usize) }
}
