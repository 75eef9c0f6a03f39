//! virtio-blk driver task.
//!
//! Brings up the virtio-blk PCI function the manifest gave it
//! (`[devices.NAME] kind = "virtio-blk", driver = <this task>`), then
//! serves each client's shared region (`conflux-blk-protocol`): requests
//! from every client go to the device as they come, up to the virtqueue's
//! size in flight, and each completion is answered on the client's
//! response ring. One notification wakes the driver: bit 0 is the
//! device's interrupt, bit `1 + i` client `i`'s doorbell.
//!
//! A request the driver refuses (bad descriptor, op, length, or blocks past
//! the device's end) is answered with its error and nothing else changes;
//! a client whose rings are corrupt is dropped, the others are served. On a
//! restart (init restarts the driver on a fault) every request the client
//! still had in flight is answered `Restarted`.
//!
//! When its configuration makes it a flow stage (the manifest's `[flows]`
//! names it; decided at start, not compiled in), the driver also runs the
//! flows' `blocks` source and sink (`flows`), waits on its FLOW endpoint
//! with the device's notification bound to it, and keeps serving when
//! every client has detached.
#![no_std]
#![no_main]
#![deny(unsafe_code)]

extern crate alloc;

mod device;
mod flows;
mod serve;
mod shared;

conflux_userlib::entry!(main);

fn main() {
    let mut dev = match device::open() {
        Ok(dev) => dev,
        Err(e) => {
            conflux_userlib::println!("cannot start the virtio-blk device: {e}; the driver stops");
            return;
        }
    };
    conflux_userlib::println!(
        "virtio-blk at {}: {} sectors of 512 bytes, {} clients",
        device::bdf(),
        dev.blk.capacity(),
        config::device::CLIENTS.len()
    );
    if dev.incarnation > 0 {
        conflux_userlib::println!(
            "restarted (incarnation {}): answering what the previous instance left in flight",
            dev.incarnation
        );
    }
    serve::run(&mut dev);
    // Dropping the transport resets the device, so it writes nothing more
    // into client memory once the driver is gone.
    drop(dev);
    conflux_userlib::println!("every client detached; the driver stops");
}

/// Test systems only: in the system named `blk-restart`, the first
/// incarnation faults on purpose once it has served a while and has
/// requests on the device, so the in-guest test can check what clients
/// see across a driver restart. Every other system never takes this path.
fn fault_injection_due(incarnation: u64, turns: u32, in_flight: usize) -> bool {
    config::SYSTEM_NAME == "blk-restart" && incarnation == 0 && turns >= 10 && in_flight > 0
}
