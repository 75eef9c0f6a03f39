//! virtio-crypto driver task.
//!
//! Brings up the virtio-crypto PCI function the manifest gave it
//! (`[devices.NAME] kind = "virtio-crypto", driver = <this task>`), then
//! serves each client's shared region (`conflux-crypto-protocol`):
//! sessions (AES-CBC or AES-CTR, one direction each) and encrypt/decrypt
//! requests whose source and destination the device reads and writes in
//! the client's memory. One notification wakes the driver: bit 0 is the
//! device's interrupt, bit `1 + i` client `i`'s doorbell, bit `32 + i`
//! the supervisor saying client `i` is gone (its session ends and its
//! device sessions are destroyed; `serve::gone`). A restarted client
//! begins a new client session, which ends its previous one the same way.
//!
//! A request the driver refuses (bad descriptor, destination, length, key,
//! algorithm, another client's or a lost session) is answered with its
//! error and nothing else changes; a client whose rings are corrupt is
//! dropped and its sessions destroyed, the others are served. A device
//! that fails so that it needs a reset is reset and brought up again. On a
//! restart (init restarts the driver on a fault) every request a client
//! still had in flight is answered `Restarted`, and sessions made before
//! answer `SessionLost`.
//!
//! When its configuration makes it a flow stage (the manifest's `[flows]`
//! names it; decided at start, not compiled in), the driver also runs the
//! flows' `cipher` transformer on the device (`flows`), waits on its FLOW
//! endpoint with the device's notification bound to it, and keeps serving
//! when every client has detached. The loop is
//! `conflux_flow_stage::driver`'s.
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
    let mut crypto = match device::open() {
        Ok(c) => c,
        Err(e) => {
            conflux_userlib::println!(
                "cannot start the virtio-crypto device: {e}; the driver stops"
            );
            conflux_userlib::sys::exit(1);
        }
    };
    if let Some(d) = crypto.device.as_ref() {
        let c = d.config();
        conflux_userlib::println!(
            "virtio-crypto at {}: {} data queues, services {:#x}, cipher algorithms {:#x}, key up to {} bytes, {} clients",
            device::bdf(),
            c.max_dataqueues,
            c.crypto_services,
            c.cipher_algo_l,
            c.max_cipher_key_len,
            crypto.clients.len()
        );
    }
    if crypto.incarnation > 0 {
        conflux_userlib::println!(
            "restarted (incarnation {}): answering what the previous instance left in flight; its sessions are lost",
            crypto.incarnation
        );
    }
    serve::run(&mut crypto);
    // Dropping the driver unsets its queues and resets the device, so it
    // writes nothing more into client memory once the driver is gone.
    drop(crypto);
    conflux_userlib::println!("every client detached; the driver stops");
}

/// Test systems only: in the system named `crypto-restart`, the first
/// incarnation faults on purpose with its 12th request taken and not
/// answered, so the in-guest test can check what clients see across a
/// driver restart. Every other system never takes this path.
fn fault_injection_due(incarnation: u64, served: u64) -> bool {
    config::SYSTEM_NAME == "crypto-restart" && incarnation == 0 && served == 12
}
