//! The datagram operations: sendto and recvfrom.

use conflux_socket_protocol::{NetError, SockAddr};

use super::{find, Stack};
use crate::client::{Badge, Handle, Sock};
use crate::datagram::Datagram;
use crate::listener::listen_endpoint;
use crate::ports::Proto;

impl Stack {
    /// `sendto`: one datagram to `to`; binds an ephemeral port first if
    /// the socket has none, as Unix does.
    pub fn send_to(
        &mut self,
        badge: Badge,
        h: Handle,
        data: &[u8],
        to: SockAddr,
    ) -> Result<usize, NetError> {
        if to.port == 0 || to.is_unspecified() {
            return Err(NetError::Invalid);
        }
        let Stack {
            clients,
            sockets,
            ports,
            now,
            ..
        } = self;
        let d = match &mut find(clients, sockets, *now, badge, h)?.sock {
            Sock::Datagram(d) => d,
            _ => return Err(NetError::NotSupported),
        };
        let udp = sockets.udp_mut(d.handle);
        if d.local.is_none() {
            let local = SockAddr::new([0; 4], ports.take(Proto::Udp, 0)?);
            if udp.bind(listen_endpoint(local)).is_err() {
                ports.release(Proto::Udp, local.port);
                return Err(NetError::Invalid);
            }
            d.local = Some(local);
        }
        Datagram::send_to(udp, data, to)
    }

    /// `recvfrom`: the next datagram and its sender.
    pub fn recv_from(
        &mut self,
        badge: Badge,
        h: Handle,
        out: &mut [u8],
    ) -> Result<(usize, SockAddr), NetError> {
        let Stack {
            clients,
            sockets,
            now,
            ..
        } = self;
        match &mut find(clients, sockets, *now, badge, h)?.sock {
            Sock::Datagram(d) => Datagram::recv_from(sockets.udp_mut(d.handle), out),
            _ => Err(NetError::NotSupported),
        }
    }
}
