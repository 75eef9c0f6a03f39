//! Echo requests in flight: each `ping` gets its own smoltcp ICMP socket,
//! bound to an identifier no other ping in flight uses, so a request that
//! waits for ARP (a neighbour that never answers) holds up only itself,
//! and a reply can only reach the ping it answers.
//!
//! A ping is keyed by (client, target, the client's sequence number): the
//! same `ping` called again asks for the outcome of the one in flight
//! rather than sending another. Its round trip is measured in the time
//! the server passes to the stack: from the poll after which its request
//! had left the socket to the poll that brought the reply.

use alloc::vec::Vec;

use conflux_socket_protocol::ops::PING_PAYLOAD;
use conflux_socket_protocol::NetError;
use smoltcp::iface::SocketHandle;
use smoltcp::phy::ChecksumCapabilities;
use smoltcp::socket::icmp;
use smoltcp::time::{Duration, Instant};
use smoltcp::wire::{Icmpv4Packet, Icmpv4Repr, IpAddress, Ipv4Address};

use crate::client::Badge;

/// Echo requests in flight, all clients together.
pub const MAX_PINGS: usize = 16;
/// Echo requests in flight per client.
pub const MAX_CLIENT_PINGS: usize = 4;
/// How long after its deadline an outcome nobody asked for is kept (a
/// compound client may collect it late); then its socket is freed.
pub const KEEP: Duration = Duration::from_secs(10);

/// The data every echo request carries (Linux's pattern after its
/// timestamp), checked in the reply.
pub fn payload() -> [u8; PING_PAYLOAD] {
    core::array::from_fn(|i| i as u8)
}

/// One echo request.
#[derive(Debug)]
pub struct Ping {
    pub badge: Badge,
    pub target: Ipv4Address,
    pub seq: u16,
    /// Its own ICMP socket, bound to `Ident(ident)`.
    pub handle: SocketHandle,
    pub ident: u16,
    /// The poll after which the request had left the socket.
    pub sent: Option<Instant>,
    /// When the client gets `TimedOut` if no reply came.
    pub deadline: Instant,
    /// The round trip, once the reply came.
    pub rtt: Option<Duration>,
}

impl Ping {
    /// Queues the echo request on `sock` (bound, empty).
    pub fn send(&self, sock: &mut icmp::Socket) -> Result<(), NetError> {
        let data = payload();
        let repr = Icmpv4Repr::EchoRequest {
            ident: self.ident,
            seq_no: self.seq,
            data: &data,
        };
        let buf = sock
            .send(repr.buffer_len(), IpAddress::Ipv4(self.target))
            .map_err(|_| NetError::NoBuffers)?;
        repr.emit(
            &mut Icmpv4Packet::new_unchecked(buf),
            &ChecksumCapabilities::default(),
        );
        Ok(())
    }

    /// After a poll at `now`: notes when the request left, and takes
    /// what the socket received (only echo replies with this ping's
    /// identifier reach it; anything else about them is checked here).
    pub fn observe(&mut self, sock: &mut icmp::Socket, now: Instant) {
        if self.sent.is_none() && sock.send_queue() == 0 {
            self.sent = Some(now);
        }
        while let Ok((bytes, from)) = sock.recv() {
            if let (Some(sent), None) = (self.sent, self.rtt) {
                if from == IpAddress::Ipv4(self.target)
                    && self.answers(bytes)
                    && now <= self.deadline
                {
                    self.rtt = Some(now - sent);
                }
            }
        }
    }

    /// Whether `bytes` is the reply to this request.
    fn answers(&self, bytes: &[u8]) -> bool {
        let Ok(packet) = Icmpv4Packet::new_checked(bytes) else {
            return false;
        };
        let caps = ChecksumCapabilities::default();
        matches!(
            Icmpv4Repr::parse(&packet, &caps),
            Ok(Icmpv4Repr::EchoReply { ident, seq_no, data })
                if ident == self.ident && seq_no == self.seq && data == payload()
        )
    }
}

/// Every ping in flight, and the identifiers to give out.
#[derive(Debug)]
pub struct Pings {
    pub list: Vec<Ping>,
    next_ident: u16,
}

impl Pings {
    /// No pings; identifiers start from `seed`'s bits (so two stacks on
    /// one network rarely pick the same).
    pub fn new(seed: u64) -> Pings {
        Pings {
            // Never longer: `has_room` refuses past MAX_PINGS.
            list: Vec::with_capacity(MAX_PINGS),
            next_ident: (seed ^ seed >> 16 ^ seed >> 32 ^ seed >> 48) as u16,
        }
    }

    /// The ping `badge` sent to `target` with `seq`, if it is in flight.
    pub fn find(&self, badge: Badge, target: Ipv4Address, seq: u16) -> Option<usize> {
        self.list
            .iter()
            .position(|p| p.badge == badge && p.target == target && p.seq == seq)
    }

    /// Whether `badge` may send another: `TooManyPings` when it has its
    /// own limit in flight, `NoBuffers` when all clients together have
    /// the server's.
    pub fn has_room(&self, badge: Badge) -> Result<(), NetError> {
        let theirs = self.list.iter().filter(|p| p.badge == badge).count();
        if theirs >= MAX_CLIENT_PINGS {
            return Err(NetError::TooManyPings);
        }
        if self.list.len() >= MAX_PINGS {
            return Err(NetError::NoBuffers);
        }
        Ok(())
    }

    /// An identifier no ping in flight uses.
    pub fn take_ident(&mut self) -> u16 {
        loop {
            let ident = self.next_ident;
            self.next_ident = self.next_ident.wrapping_add(1);
            if self.list.iter().all(|p| p.ident != ident) {
                return ident;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smoltcp::iface::SocketSet;

    fn socket() -> icmp::Socket<'static> {
        let buffer = || icmp::PacketBuffer::new(vec![icmp::PacketMetadata::EMPTY; 2], vec![0; 256]);
        icmp::Socket::new(buffer(), buffer())
    }

    fn ping(ident: u16, seq: u16) -> Ping {
        let mut set = SocketSet::new(vec![]);
        Ping {
            badge: 1,
            target: Ipv4Address::new(10, 0, 2, 2),
            seq,
            handle: set.add(socket()),
            ident,
            sent: None,
            deadline: Instant::from_millis(1000),
            rtt: None,
        }
    }

    /// An echo reply as it comes off the wire: type 0, code 0, checksum,
    /// identifier, sequence number, data.
    fn reply(ident: u16, seq: u16, data: &[u8]) -> Vec<u8> {
        let mut b = vec![0, 0, 0, 0];
        b.extend_from_slice(&ident.to_be_bytes());
        b.extend_from_slice(&seq.to_be_bytes());
        b.extend_from_slice(data);
        let mut sum = 0u32;
        for pair in b.chunks(2) {
            sum += u32::from(u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]));
        }
        while sum > 0xFFFF {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        b[2..4].copy_from_slice(&(!(sum as u16)).to_be_bytes());
        b
    }

    #[test]
    fn the_request_is_an_echo_request_with_the_payload() {
        let p = ping(0x1234, 7);
        let mut sock = socket();
        sock.bind(icmp::Endpoint::Ident(0x1234)).unwrap();
        p.send(&mut sock).unwrap();
        assert_eq!(sock.send_queue(), 8 + PING_PAYLOAD);
    }

    #[test]
    fn only_the_exact_reply_answers() {
        let p = ping(0x1234, 7);
        assert!(p.answers(&reply(0x1234, 7, &payload())));
        assert!(
            !p.answers(&reply(0x1234, 8, &payload())),
            "another sequence"
        );
        assert!(
            !p.answers(&reply(0x1235, 7, &payload())),
            "another identifier"
        );
        assert!(!p.answers(&reply(0x1234, 7, &payload()[1..])), "data cut");
        let mut bad = reply(0x1234, 7, &payload());
        bad[9] ^= 1;
        assert!(!p.answers(&bad), "checksum wrong");
        let mut request = reply(0x1234, 7, &payload());
        request[0] = 8;
        assert!(!p.answers(&request), "a request, not a reply");
        assert!(!p.answers(&[0, 0, 0]), "too short");
    }

    #[test]
    fn identifiers_in_use_are_skipped_and_limits_hold() {
        let mut pings = Pings::new(0);
        pings.list.push(ping(0, 1));
        pings.list.push(ping(1, 2));
        assert_eq!(pings.take_ident(), 2);
        assert_eq!(pings.find(1, Ipv4Address::new(10, 0, 2, 2), 2), Some(1));
        assert_eq!(pings.find(2, Ipv4Address::new(10, 0, 2, 2), 2), None);
        assert_eq!(pings.has_room(1), Ok(()));
        pings.list.push(ping(3, 3));
        pings.list.push(ping(4, 4));
        assert_eq!(pings.has_room(1), Err(NetError::TooManyPings));
        assert_eq!(pings.has_room(2), Ok(()));
    }
}
