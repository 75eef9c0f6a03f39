//! Which received frames a flow takes: IPv4/UDP datagrams for a port a
//! flow listens on. The NIC driver classifies every frame once, here; a
//! frame that is not a whole, checked IPv4/UDP datagram (ARP, TCP, IPv6,
//! a fragment, a bad checksum or length) is not steered and goes to the
//! network server unchanged, which judges it as before.
//!
//! Checked: Ethernet type 0x0800 (no VLAN tag), IPv4 version and header
//! length, the header checksum, total length within the frame, protocol
//! 17, not a fragment; UDP length within the IP payload and, when the
//! sender gave one (non-zero), the UDP checksum over the pseudo-header.
//! The destination address is not: the device receives only what is
//! addressed to this machine (QEMU's user network delivers the guest's
//! own traffic), and the network server filters by address as before.

use core::ops::Range;

/// A datagram a flow may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Datagram {
    pub dst_port: u16,
    /// Where the payload is in the frame.
    pub payload: (usize, usize),
}

impl Datagram {
    pub fn payload(&self) -> Range<usize> {
        self.payload.0..self.payload.1
    }
}

const ETH_HEADER: usize = 14;
const ETH_IPV4: u16 = 0x0800;
const UDP: u8 = 17;
const UDP_HEADER: usize = 8;

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// The one's-complement sum of `b` as big-endian 16-bit words (an odd
/// last byte padded with zero), added to `sum`.
fn sum16(mut sum: u32, b: &[u8]) -> u32 {
    let mut chunks = b.chunks_exact(2);
    for c in &mut chunks {
        sum += u32::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        sum += u32::from(*last) << 8;
    }
    sum
}

fn fold(mut sum: u32) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// The IPv4/UDP datagram in Ethernet frame `frame`, if it is one.
pub fn udp(frame: &[u8]) -> Option<Datagram> {
    if frame.len() < ETH_HEADER || be16(frame, 12) != ETH_IPV4 {
        return None;
    }
    let ip = &frame[ETH_HEADER..];
    let ihl = usize::from(*ip.first()? & 0x0f) * 4;
    if ip[0] >> 4 != 4 || ihl < 20 || ip.len() < ihl {
        return None;
    }
    let total = usize::from(be16(ip, 2));
    let fragment = be16(ip, 6) & 0x3fff; // more-fragments flag and offset
    if total < ihl + UDP_HEADER || total > ip.len() || fragment != 0 || ip[9] != UDP {
        return None;
    }
    if fold(sum16(0, &ip[..ihl])) != 0xffff {
        return None; // header checksum
    }
    let udp = &ip[ihl..total];
    let udp_len = usize::from(be16(udp, 4));
    if udp_len < UDP_HEADER || udp_len > udp.len() {
        return None;
    }
    let udp = &udp[..udp_len];
    if be16(udp, 6) != 0 {
        // Pseudo-header: source, destination, protocol, UDP length.
        let mut sum = sum16(0, &ip[12..20]);
        sum += u32::from(UDP) + udp_len as u32;
        if fold(sum16(sum, udp)) != 0xffff {
            return None;
        }
    }
    let start = ETH_HEADER + ihl + UDP_HEADER;
    Some(Datagram {
        dst_port: be16(udp, 2),
        payload: (start, start + udp_len - UDP_HEADER),
    })
}

#[cfg(test)]
mod tests;
