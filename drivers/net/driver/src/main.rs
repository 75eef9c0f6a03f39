//! virtio-net driver task.
//!
//! Brings up the virtio-net PCI function the manifest gave it
//! (`[devices.NAME] kind = "virtio-net", driver = <this task>`), then
//! serves each client's shared region (`conflux-net-protocol`): frames on a
//! client's tx ring go to the device's transmit queue and come back on
//! tx-done once sent; empty buffers on its rx-free ring go to the receive
//! queue and come back on rx holding a frame. The device reads and writes
//! the clients' buffers in place (the virtio-net header goes in the
//! protocol's headroom before each frame). One notification wakes the
//! driver: bit 0 is the device's interrupt, bit `1 + i` client `i`'s
//! doorbell.
//!
//! A descriptor the driver refuses (outside the data area, a frame too
//! short or too long, an rx buffer too small) is answered with its error at
//! once and nothing else changes; the device failing a transfer is
//! answered `DeviceError`; a client whose rings are corrupt is dropped, the
//! others are served. Received frames go into whichever client's buffer the
//! device takes next (the network server is meant to be the one client).
//! When every client has detached the driver resets the device and ends.
//!
//! Restarts: init restarts the driver when it faults (`restart =
//! "on-fault"`). The new instance re-initialises the device (which forgets
//! every buffer the old one posted), attaches to each client's region
//! again and, before taking anything, answers every tx frame and rx buffer
//! the old instance took and never answered with `Restarted`
//! (`Server::start`), then serves as before.
//!
//! A client that was restarted formats its region again, which begins a
//! new session (`conflux-net-protocol`): the driver leaves the old one,
//! resets the device if it still holds buffers of it (received frames
//! would land in memory the new instance has not offered; other clients'
//! buffers are answered `Restarted`), and serves the new one.
//!
//! When its configuration makes it a flow stage (the manifest's `[flows]`
//! names it; decided at start, not compiled in), the driver also runs the
//! flows' `udp` source (`flows`): datagrams for a flow's port go into the
//! flow's buffers instead of to the client. It then waits on its FLOW
//! endpoint with the device's notification bound to it, and keeps serving
//! when every client has detached.
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
    let dev = match device::open() {
        Ok(dev) => dev,
        Err(e) => {
            conflux_userlib::println!("cannot start the virtio-net device: {e}; the driver stops");
            return;
        }
    };
    let m = dev.mac;
    conflux_userlib::println!(
        "virtio-net at {}: MAC {:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}, link {}, {} clients",
        device::bdf(),
        m[0],
        m[1],
        m[2],
        m[3],
        m[4],
        m[5],
        if dev.link_up { "up" } else { "down" },
        config::device::CLIENTS.len()
    );
    if dev.incarnation > 0 {
        conflux_userlib::println!(
            "restarted (incarnation {}): answering what the previous instance left in flight",
            dev.incarnation
        );
    }
    serve::run(dev);
}

/// Test systems only: the first incarnation faults on purpose, so the
/// in-guest tests can check what clients see across a driver restart.
/// In the system named `net-restart`, the moment the device holds two tx
/// frames at once and some rx buffers (the test client sends a burst only
/// then; its other frames go one at a time). In `nic-restart-http`, once
/// [`FRAMES_BEFORE_FAULT`] frames were sent, in the middle of an HTTP
/// transfer from the network server. Every other system never takes this
/// path.
fn fault_injection_due(
    incarnation: u64,
    tx_in_flight: usize,
    rx_in_flight: usize,
    sent: u64,
) -> bool {
    if incarnation != 0 {
        return false;
    }
    match config::SYSTEM_NAME {
        "net-restart" => tx_in_flight >= 2 && rx_in_flight > 0,
        "nic-restart-http" => sent >= FRAMES_BEFORE_FAULT && tx_in_flight > 0,
        _ => false,
    }
}

/// Frames `nic-restart-http`'s driver sends before it faults: about 600
/// KiB of a 2 MiB answer.
const FRAMES_BEFORE_FAULT: u64 = 400;
