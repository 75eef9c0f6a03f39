//! The network server: smoltcp (`conflux-netcore`) over the virtio-net
//! driver task, serving sockets to the tasks on its endpoint.
//!
//! It formats its connection to the driver (`NET0`), waits for the MAC,
//! starts the stack at 10.0.2.15/24 with the gateway 10.0.2.2 (QEMU's
//! user network; smoltcp answers ARP and ICMP echo for the interface) and
//! serves: each client, known by the badge on its endpoint capability,
//! connects by sharing its control region, and then sends socket
//! operations one per IPC (VAN; an op that must wait on a blocking socket
//! is parked until it can finish) or compounds verified with `cosy-abi`
//! and run with the socket operations as the service. One receive loop
//! takes calls, the driver's signals and the stack's timer (`events`).
//! See `docs/net.md`, "The network server".
#![no_std]
#![no_main]
#![deny(unsafe_code)]

extern crate alloc;

mod clients;
mod compound;
mod events;
mod fault;
mod link;
mod rings;
mod serve;

use conflux_cosy_ipc::MAX_REGIONS;
use conflux_netcore::limits::sockets_in;
use conflux_netcore::parking::MAX_PARKED;
use conflux_netcore::{Config, Limits, NetCore};
use conflux_userlib::ipc::{Endpoint, Notification, Region};
use conflux_userlib::println;
use conflux_userlib::sys::rdtsc;
use smoltcp::wire::Ipv4Address;

use clients::{Clients, MAX_CLIENTS, MAX_PREPARED};
use link::Link;
use serve::{Server, MAX_OPS};

conflux_userlib::entry!(main);

/// The interface's address on QEMU's user network, and its gateway.
const ADDRESS: [u8; 4] = [10, 0, 2, 15];
const PREFIX: u8 = 24;
const GATEWAY: Ipv4Address = Ipv4Address::new(10, 0, 2, 2);
/// Where a transferred capability lands.
const RECEIVED: usize = config::caps::FIRST_FREE;
/// Client regions' capability slots follow.
const CLIENT_CAPS: usize = RECEIVED + 1;
/// Then the reply slots: one per parked request, one per client's ring
/// waiter (RING_ENTER with RING_WAIT), and one more.
const REPLIES: usize = CLIENT_CAPS + MAX_CLIENTS * MAX_REGIONS;
const REPLY_SLOTS: usize = MAX_PARKED + MAX_CLIENTS + 1;
const _: () = assert!(
    REPLIES + REPLY_SLOTS <= conflux_abi::cap::CAP_SLOTS,
    "the network server's capability slots do not fit its table: each client the manifest names takes MAX_REGIONS slots and one reply slot; give fewer tasks a capability to the `net` endpoint"
);
/// Heap kept for everything but sockets: the client table, prepared
/// compounds (each client's, at most `MAX_PREPARED` of `MAX_OPS`
/// instructions, and the scratch copy a RUN is verified into), parked
/// requests and smoltcp's interface. The rest of the heap is for sockets,
/// which bounds how many the stack may hold (`limits::sockets_in`).
const HEAP_RESERVE: usize = 512 * 1024
    + (MAX_CLIENTS * MAX_PREPARED + 1) * MAX_OPS * core::mem::size_of::<cosy_abi::Insn>();

fn main() {
    let caps = (
        Region(config::caps::NET0),
        config::caps::NET0_ADDR,
        config::caps::NET0_SIZE,
    );
    let done = Notification(config::caps::NET0_DONE);
    let doorbell = Notification(config::caps::NET0_DOORBELL);
    let link = match Link::open(caps.0, caps.1, caps.2, doorbell, done) {
        Ok(l) => l,
        Err(e) => {
            println!("cannot set up the connection to the net driver: {e:?}; the server stops");
            return;
        }
    };
    let ep = Endpoint(config::caps::NET);
    if let Err(e) = done.bind(&ep) {
        println!("cannot bind the driver's notification to the endpoint: {e}; the server stops");
        return;
    }
    let mac = link.mac();
    let restarted = link.server_restarted;
    let mut cfg = Config::new(mac, ADDRESS, PREFIX);
    cfg.gateway = Some(GATEWAY);
    cfg.random_seed = rdtsc();
    // The clock below counts kernel ticks: `ping` times are multiples.
    cfg.clock_us = (conflux_abi::time::TICK_NS / 1000) as u32;
    // The quotas are netcore's (`limits`); the total is what the heap the
    // manifest gives holds, and each client the manifest names keeps a share.
    let total = sockets_in(config::HEAP_SIZE, HEAP_RESERVE, cfg.socket_bytes());
    cfg.limits = Limits::new(total, MAX_CLIENTS);
    cfg.clients = config::caps::NET_CLIENTS;
    cfg.quotas = config::caps::NET_CLIENT_QUOTAS;
    let now = events::clock(done);
    let core = NetCore::new(cfg, link, now);
    let [a, b, c, d, e, f] = mac;
    println!(
        "up: MAC {a:02x}:{b:02x}:{c:02x}:{d:02x}:{e:02x}:{f:02x}, 10.0.2.15/{PREFIX} via {GATEWAY}{}",
        if restarted {
            " (restarted: the previous instance's sockets are gone; its clients reconnect)"
        } else {
            ""
        }
    );
    let l = cfg.limits;
    println!(
        "sockets: {} in all (what {} KiB of heap holds), at most {} per client unless the manifest gives a quota, {} kept for each client the manifest names ({MAX_CLIENTS} of them)",
        l.total,
        config::HEAP_SIZE / 1024,
        l.quota,
        l.share
    );
    let mut server = Server::new(core, Clients::new(CLIENT_CAPS), now);
    events::serve(&mut server, ep, done, (REPLIES, REPLY_SLOTS), RECEIVED);
}
