//! What the server decides when it starts the stack: its addresses and the
//! limits that keep one client from taking every socket or byte.

use smoltcp::iface::SocketStorage;
use smoltcp::socket::udp;
use smoltcp::wire::{EthernetAddress, Ipv4Address, Ipv4Cidr};

use crate::client::Badge;
use crate::limits::{Limits, DEFAULT_TOTAL};

/// The interface's identity and the stack's limits.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// The link's MAC address.
    pub mac: EthernetAddress,
    /// The interface's IPv4 address and prefix.
    pub ip: Ipv4Cidr,
    /// Where packets for other networks go, if anywhere.
    pub gateway: Option<Ipv4Address>,
    /// Seed for smoltcp's initial sequence numbers and ephemeral choices.
    pub random_seed: u64,
    /// The socket limits: total, per-client quota, share kept per named
    /// client (see `limits`).
    pub limits: Limits,
    /// The clients the manifest names (their badges), each kept
    /// `limits.share` sockets. Others may still hold sockets, up to the
    /// quota, but are kept none.
    pub clients: &'static [Badge],
    /// The quota the manifest gives each of `clients` (same index; `None`
    /// or missing: `limits.quota`).
    pub quotas: &'static [Option<u32>],
    /// Receive and send buffer of each stream, bytes.
    pub tcp_buffer: usize,
    /// Payload bytes buffered each way per datagram socket.
    pub udp_buffer: usize,
    /// Datagrams buffered each way per datagram socket.
    pub udp_packets: usize,
    /// The resolution of the times the server passes in, µs (reported by
    /// `net_info`: `ping` times are multiples of it).
    pub clock_us: u32,
}

impl Config {
    /// A configuration with the default limits for this address.
    pub fn new(mac: [u8; 6], ip: [u8; 4], prefix: u8) -> Config {
        let [a, b, c, d] = ip;
        Config {
            mac: EthernetAddress(mac),
            ip: Ipv4Cidr::new(Ipv4Address::new(a, b, c, d), prefix),
            gateway: None,
            random_seed: 0x0043_6f6e_666c_7578,
            limits: Limits::new(DEFAULT_TOTAL, 0),
            clients: &[],
            quotas: &[],
            tcp_buffer: 64 * 1024,
            // A burst of 64 full-sized datagrams (as a paced sender makes)
            // waits here rather than being dropped while the client works.
            udp_buffer: 64 * 1024,
            udp_packets: 64,
            clock_us: 1,
        }
    }

    /// The most heap one socket takes: the larger of a stream's two
    /// buffers and a datagram socket's, plus its place in the socket set
    /// and the allocator's bookkeeping. ICMP sockets (pings) are far
    /// smaller and counted the same.
    pub fn socket_bytes(&self) -> usize {
        let stream = 2 * self.tcp_buffer;
        let meta = core::mem::size_of::<udp::PacketMetadata>();
        let datagram = 2 * (self.udp_buffer + self.udp_packets * meta);
        let bookkeeping = core::mem::size_of::<SocketStorage>() + 256;
        stream.max(datagram) + bookkeeping
    }
}
