//! A UDP socket as a client sees it: bound or not, and the operations on
//! it over the smoltcp socket that carries it.

use conflux_socket_protocol::{Events, NetError, SockAddr};
use smoltcp::socket::udp;
use smoltcp::wire::{IpAddress, IpEndpoint};

use crate::stream::sock_addr;

/// A client's datagram socket.
#[derive(Debug)]
pub struct Datagram {
    /// The smoltcp socket (a `udp::Socket`, always).
    pub handle: smoltcp::iface::SocketHandle,
    /// The local address once bound (explicitly or by the first `sendto`).
    pub local: Option<SockAddr>,
}

/// The smoltcp endpoint of a destination the client named.
pub fn endpoint(addr: SockAddr) -> IpEndpoint {
    let [a, b, c, d] = addr.ip;
    IpEndpoint::new(IpAddress::v4(a, b, c, d), addr.port)
}

impl Datagram {
    /// `sendto` on a bound socket: the whole datagram or an error.
    pub fn send_to(udp: &mut udp::Socket, data: &[u8], to: SockAddr) -> Result<usize, NetError> {
        if data.len() > udp.payload_send_capacity() {
            return Err(NetError::MessageTooLong);
        }
        match udp.send_slice(data, endpoint(to)) {
            Ok(()) => Ok(data.len()),
            Err(udp::SendError::BufferFull) => Err(NetError::WouldBlock),
            Err(udp::SendError::Unaddressable) => Err(NetError::NetworkUnreachable),
        }
    }

    /// `recvfrom`: the next datagram, cut to `out`'s length (the rest is
    /// dropped, as for a datagram socket on Unix), and its sender.
    pub fn recv_from(udp: &mut udp::Socket, out: &mut [u8]) -> Result<(usize, SockAddr), NetError> {
        let (data, meta) = udp.recv().map_err(|_| NetError::WouldBlock)?;
        let n = data.len().min(out.len());
        out[..n].copy_from_slice(&data[..n]);
        Ok((n, sock_addr(meta.endpoint)))
    }

    /// What holds for the socket now.
    pub fn readiness(udp: &udp::Socket) -> Events {
        let mut e = Events::NONE;
        if udp.can_recv() {
            e = e.union(Events::READABLE);
        }
        if udp.can_send() {
            e = e.union(Events::WRITABLE);
        }
        e
    }
}
