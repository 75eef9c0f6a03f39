//! Retransmitted SYNs: dropped before smoltcp sees them when a socket
//! already holds their connection.
//!
//! smoltcp gives an incoming segment to the first socket in its set that
//! accepts it, and a listening socket accepts any SYN to its port. When a
//! peer retransmits its SYN (our SYN-ACK was slow or lost, as under load
//! behind QEMU's user network), another listening socket of the same pool
//! that sits earlier in the set takes it and answers with a SYN-ACK of its
//! own sequence number; the peer's ACK for the first SYN-ACK then reaches
//! that second socket, which answers it with a reset, and the peer loses a
//! connection it already had. A pure SYN (no ACK, no RST) whose four
//! addresses match a connection some socket holds is therefore turned into
//! an empty frame, which smoltcp discards: the socket that holds the
//! connection retransmits its own SYN-ACK on its timer.
//!
//! Which connections are held is taken after each poll ([`Held::update`])
//! and, within one poll, from the SYNs let through so far.

use alloc::vec::Vec;

use smoltcp::iface::SocketSet;
use smoltcp::phy::{Device, DeviceCapabilities, RxToken};
use smoltcp::socket::tcp::{self, State};
use smoltcp::socket::AnySocket;
use smoltcp::time::Instant;
use smoltcp::wire::{
    EthernetFrame, EthernetProtocol, IpAddress, IpProtocol, Ipv4Packet, TcpPacket,
};

/// A connection's four addresses, seen from this host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuple {
    pub remote: ([u8; 4], u16),
    pub local: ([u8; 4], u16),
}

/// The four addresses of `frame` if it is a pure TCP SYN over IPv4 (the
/// first segment of a connection, or its retransmission).
pub fn pure_syn(frame: &[u8]) -> Option<Tuple> {
    let eth = EthernetFrame::new_checked(frame).ok()?;
    if eth.ethertype() != EthernetProtocol::Ipv4 {
        return None;
    }
    let ip = Ipv4Packet::new_checked(eth.payload()).ok()?;
    if ip.next_header() != IpProtocol::Tcp || ip.more_frags() || ip.frag_offset() != 0 {
        return None;
    }
    let tcp = TcpPacket::new_checked(ip.payload()).ok()?;
    if !tcp.syn() || tcp.ack() || tcp.rst() {
        return None;
    }
    Some(Tuple {
        remote: (ip.src_addr().octets(), tcp.src_port()),
        local: (ip.dst_addr().octets(), tcp.dst_port()),
    })
}

/// The connections the stack's sockets hold, and the duplicates dropped.
#[derive(Default)]
pub struct Held {
    tuples: Vec<Tuple>,
    /// Within the current poll: SYNs let through.
    fresh: Vec<Tuple>,
    dropped: u64,
}

impl Held {
    /// Takes the connections of every TCP socket past `Listen` (a socket
    /// in `TimeWait` may see a new connection with the same addresses, so
    /// it is left out).
    pub fn update(&mut self, set: &SocketSet<'_>) {
        self.tuples.clear();
        self.fresh.clear();
        for (_, socket) in set.iter() {
            let Some(tcp) = tcp::Socket::downcast(socket) else {
                continue;
            };
            if matches!(tcp.state(), State::Closed | State::Listen | State::TimeWait) {
                continue;
            }
            if let (Some(local), Some(remote)) = (tcp.local_endpoint(), tcp.remote_endpoint()) {
                // The stack is built for IPv4 alone (see Cargo.toml).
                let (IpAddress::Ipv4(l), IpAddress::Ipv4(r)) = (local.addr, remote.addr);
                self.tuples.push(Tuple {
                    remote: (r.octets(), remote.port),
                    local: (l.octets(), local.port),
                });
            }
        }
    }

    /// Whether `frame` may go on to smoltcp; a duplicate SYN is counted.
    fn admits(&mut self, frame: &[u8]) -> bool {
        let Some(t) = pure_syn(frame) else {
            return true;
        };
        if self.tuples.contains(&t) || self.fresh.contains(&t) {
            self.dropped += 1;
            return false;
        }
        self.fresh.push(t);
        true
    }

    /// Retransmitted SYNs dropped so far.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

/// The device as smoltcp sees it: frames pass through [`Held::admits`].
pub struct Guarded<'a, D: Device> {
    pub device: &'a mut D,
    pub held: &'a mut Held,
}

/// A received frame, checked when smoltcp reads it.
pub struct GuardedRx<'a, R: RxToken> {
    token: R,
    held: &'a mut Held,
}

impl<R: RxToken> RxToken for GuardedRx<'_, R> {
    fn consume<T, F: FnOnce(&[u8]) -> T>(self, f: F) -> T {
        let held = self.held;
        self.token
            .consume(|frame| if held.admits(frame) { f(frame) } else { f(&[]) })
    }

    fn meta(&self) -> smoltcp::phy::PacketMeta {
        self.token.meta()
    }
}

impl<D: Device> Device for Guarded<'_, D> {
    type RxToken<'b>
        = GuardedRx<'b, D::RxToken<'b>>
    where
        Self: 'b;
    type TxToken<'b>
        = D::TxToken<'b>
    where
        Self: 'b;

    fn receive(&mut self, now: Instant) -> Option<(Self::RxToken<'_>, Self::TxToken<'_>)> {
        let (token, tx) = self.device.receive(now)?;
        let rx = GuardedRx {
            token,
            held: self.held,
        };
        Some((rx, tx))
    }

    fn transmit(&mut self, now: Instant) -> Option<Self::TxToken<'_>> {
        self.device.transmit(now)
    }

    fn capabilities(&self) -> DeviceCapabilities {
        self.device.capabilities()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smoltcp::phy::ChecksumCapabilities;
    use smoltcp::wire::{
        EthernetAddress, EthernetRepr, Ipv4Address, Ipv4Repr, TcpControl, TcpRepr, TcpSeqNumber,
    };

    const SRC: [u8; 4] = [10, 0, 2, 2];
    const DST: [u8; 4] = [10, 0, 2, 15];

    /// An Ethernet frame holding a TCP segment 10.0.2.2:4000 -> :80.
    fn segment(control: TcpControl, ack: bool) -> alloc::vec::Vec<u8> {
        let tcp = TcpRepr {
            src_port: 4000,
            dst_port: 80,
            control,
            seq_number: TcpSeqNumber(7),
            ack_number: ack.then_some(TcpSeqNumber(9)),
            window_len: 1000,
            window_scale: None,
            max_seg_size: None,
            sack_permitted: false,
            sack_ranges: [None; 3],
            timestamp: None,
            payload: &[],
        };
        let ip = Ipv4Repr {
            src_addr: Ipv4Address::from_octets(SRC),
            dst_addr: Ipv4Address::from_octets(DST),
            next_header: IpProtocol::Tcp,
            payload_len: tcp.buffer_len(),
            hop_limit: 64,
        };
        let eth = EthernetRepr {
            src_addr: EthernetAddress([2, 0, 0, 0, 0, 1]),
            dst_addr: EthernetAddress([2, 0, 0, 0, 0, 2]),
            ethertype: EthernetProtocol::Ipv4,
        };
        let mut frame = alloc::vec![0; eth.buffer_len() + ip.buffer_len() + tcp.buffer_len()];
        let mut f = EthernetFrame::new_unchecked(&mut frame[..]);
        eth.emit(&mut f);
        let mut p = Ipv4Packet::new_unchecked(f.payload_mut());
        let caps = ChecksumCapabilities::default();
        ip.emit(&mut p, &caps);
        let mut t = TcpPacket::new_unchecked(p.payload_mut());
        tcp.emit(
            &mut t,
            &IpAddress::Ipv4(ip.src_addr),
            &IpAddress::Ipv4(ip.dst_addr),
            &caps,
        );
        frame
    }

    const TUPLE: Tuple = Tuple {
        remote: (SRC, 4000),
        local: (DST, 80),
    };

    #[test]
    fn only_a_pure_syn_is_recognised() {
        assert_eq!(pure_syn(&segment(TcpControl::Syn, false)), Some(TUPLE));
        assert_eq!(pure_syn(&segment(TcpControl::Syn, true)), None);
        assert_eq!(pure_syn(&segment(TcpControl::Rst, false)), None);
        assert_eq!(pure_syn(&segment(TcpControl::None, true)), None);
        let syn = segment(TcpControl::Syn, false);
        assert_eq!(pure_syn(&syn[..syn.len() - 1]), None, "cut short");
        assert_eq!(pure_syn(&[]), None);
    }

    #[test]
    fn a_syn_for_a_held_connection_is_dropped_and_counted() {
        let mut held = Held::default();
        let syn = segment(TcpControl::Syn, false);
        assert!(held.admits(&syn), "the first SYN goes on");
        assert!(!held.admits(&syn), "the same SYN in the same poll does not");
        held.fresh.clear();
        held.tuples.push(TUPLE);
        assert!(
            !held.admits(&syn),
            "nor one for a connection a socket holds"
        );
        assert!(held.admits(&segment(TcpControl::None, true)), "its ACKs do");
        assert_eq!(held.dropped(), 2);
    }
}
