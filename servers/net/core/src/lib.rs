//! The network server's logic, apart from IPC and devices, so that the
//! host can test it:
//!
//! - [`NetCore`]: smoltcp's `Interface` and `SocketSet` over any
//!   `smoltcp::phy::Device` (the server plugs in its virtio-net link;
//!   tests plug in an in-memory cable). Time is always passed in
//!   ([`NetCore::poll`], [`NetCore::poll_delay`]), never read from a clock.
//! - Per-client socket tables keyed by the caller's IPC badge: a handle is
//!   an index into the caller's own table, so a client cannot name another
//!   client's socket. Ending a session closes every socket of the client.
//! - Listener pools: a smoltcp TCP socket listens for one connection at a
//!   time, so a listener keeps `backlog` listening sockets and `accept`
//!   hands out whichever has connected, then refills the pool.
//! - Quotas ([`limits`], one place): every stack socket a client causes
//!   (pools, connections still closing and pings included) is charged to
//!   it; a client at its quota gets `QuotaExceeded`, and each client the
//!   manifest names keeps a share no other client can take.
//! - The socket operations as a `cosy_abi::Service` ([`NetService`]), the
//!   one implementation behind compounds and per-call requests.
//! - A retransmitted SYN never reaches a second socket of a listener pool
//!   (`syn_guard`): smoltcp would let it, and the peer would be reset.
//! - [`quiet`]: which requests cannot change the stack, so the server
//!   need not poll it after them (the server polls after everything else).
//! - [`parking`]: which failed requests the server keeps until they can
//!   finish, and when a `wait` or a `ping` gives up.
//! - ICMP echo (`ping`): each request in flight has its own smoltcp ICMP
//!   socket, its round trip measured in the time the server passes in;
//!   `net_info` reports the addresses, socket counts and frames counted
//!   by a wrapper around the device.
//!
//! Principles: no operation blocks (one that cannot finish fails with
//! `WouldBlock`, and parking the request is the server's business); no
//! client input can panic the server (every operand is decoded once into a
//! checked type, every bad one gets its own `NetError`, and memory a
//! request needs is allocated fallibly: `NoMemory`); and a socket's
//! kind is fixed when it is made, so a smoltcp handle is only ever read as
//! the socket type it was created as.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

extern crate alloc;

mod client;
mod config;
mod counted;
mod datagram;
pub mod limits;
mod listener;
mod netcore;
pub mod parking;
mod ping;
mod ports;
pub mod quiet;
mod service;
mod sockets;
mod stack;
mod stream;
mod syn_guard;

pub use client::{Badge, Handle};
pub use config::Config;
pub use limits::Limits;
pub use netcore::NetCore;
pub use ping::{MAX_CLIENT_PINGS, MAX_PINGS};
pub use service::NetService;
pub use stack::Stack;
