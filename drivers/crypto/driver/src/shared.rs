//! The driver's only `unsafe`: turning mappings the kernel made for this
//! task (and that stay for its whole life) into the raw pointers the HAL
//! and the crypto protocol work on.
#![allow(unsafe_code)]

use conflux_crypto_protocol::{LinkError, Server, Span, DATA};
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

/// The bytes of a client's data area a request names. The client may
/// change them meanwhile (it shares the memory); the device sees what is
/// there, which is all a shared buffer can promise anyway.
pub fn data(region: &Mapped, span: Span) -> &'static mut [u8] {
    let start = region.base() + DATA as u64 + span.offset;
    // Safety: `Server::next_request` checked `offset + len` against the
    // data area's length, so the range is inside the mapping, which lives
    // as long as the task; a request's source and destination were checked
    // apart, so the two slices of one request never alias. Each is handed
    // only to the device for the one request.
    unsafe { core::slice::from_raw_parts_mut(start as *mut u8, span.len as usize) }
}
