//! The smoltcp socket set with the server-wide socket limit: every socket
//! the stack holds (clients' handles, listener pools, connections still
//! closing) is made and dropped here, so the count cannot drift.

use alloc::vec;

use conflux_socket_protocol::NetError;
use smoltcp::iface::{SocketHandle, SocketSet};
use smoltcp::socket::{icmp, tcp, udp};

use crate::config::Config;
use crate::stream::TIMEOUT;

/// smoltcp's sockets and how many there are.
pub struct Sockets {
    /// The set smoltcp polls.
    pub set: SocketSet<'static>,
    live: usize,
    config: Config,
}

impl Sockets {
    /// An empty set for `config`'s limits and buffer sizes.
    pub fn new(config: Config) -> Sockets {
        Sockets {
            set: SocketSet::new(vec![]),
            live: 0,
            config,
        }
    }

    /// Sockets held.
    pub fn live(&self) -> usize {
        self.live
    }

    fn reserve(&mut self) -> Result<(), NetError> {
        if self.live >= self.config.max_sockets {
            return Err(NetError::NoBuffers);
        }
        self.live += 1;
        Ok(())
    }

    /// A new closed TCP socket.
    pub fn add_tcp(&mut self) -> Result<SocketHandle, NetError> {
        self.reserve()?;
        let n = self.config.tcp_buffer;
        let mut sock = tcp::Socket::new(
            tcp::SocketBuffer::new(vec![0; n]),
            tcp::SocketBuffer::new(vec![0; n]),
        );
        // Without a timeout smoltcp retransmits forever; a peer that
        // vanished must not hold a socket (and a client's request) for ever.
        sock.set_timeout(Some(TIMEOUT));
        Ok(self.set.add(sock))
    }

    /// A new unbound UDP socket.
    pub fn add_udp(&mut self) -> Result<SocketHandle, NetError> {
        self.reserve()?;
        let c = &self.config;
        let buffer = || {
            udp::PacketBuffer::new(
                vec![udp::PacketMetadata::EMPTY; c.udp_packets],
                vec![0; c.udp_buffer],
            )
        };
        let sock = udp::Socket::new(buffer(), buffer());
        Ok(self.set.add(sock))
    }

    /// A new ICMP socket for one echo request bound to `ident` (room for
    /// the request and its reply, and for a few stray replies).
    pub fn add_icmp(&mut self, ident: u16) -> Result<SocketHandle, NetError> {
        self.reserve()?;
        let buffer =
            || icmp::PacketBuffer::new(vec![icmp::PacketMetadata::EMPTY; 4], vec![0; 4 * 128]);
        let mut sock = icmp::Socket::new(buffer(), buffer());
        // Cannot fail: the identifier is a specified endpoint and the
        // socket is new.
        let _ = sock.bind(icmp::Endpoint::Ident(ident));
        Ok(self.set.add(sock))
    }

    /// Drops socket `h`.
    pub fn remove(&mut self, h: SocketHandle) {
        self.set.remove(h);
        self.live -= 1;
    }

    /// TCP socket `h`.
    pub fn tcp(&self, h: SocketHandle) -> &tcp::Socket<'static> {
        self.set.get(h)
    }

    /// TCP socket `h`, writable.
    pub fn tcp_mut(&mut self, h: SocketHandle) -> &mut tcp::Socket<'static> {
        self.set.get_mut(h)
    }

    /// UDP socket `h`.
    pub fn udp(&self, h: SocketHandle) -> &udp::Socket<'static> {
        self.set.get(h)
    }

    /// ICMP socket `h`, writable.
    pub fn icmp_mut(&mut self, h: SocketHandle) -> &mut icmp::Socket<'static> {
        self.set.get_mut(h)
    }

    /// UDP socket `h`, writable.
    pub fn udp_mut(&mut self, h: SocketHandle) -> &mut udp::Socket<'static> {
        self.set.get_mut(h)
    }
}
