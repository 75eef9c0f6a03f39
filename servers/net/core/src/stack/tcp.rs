//! The stream operations: listen, accept, connect, send, recv, shutdown.

use alloc::vec::Vec;

use conflux_socket_protocol::{NetError, SockAddr};
use smoltcp::socket::tcp::ConnectError;

use super::{find, refill, Stack};
use crate::client::{Badge, Entry, Handle, Sock};
use crate::datagram::endpoint;
use crate::listener::{listen_endpoint, Listener};
use crate::ports::Proto;
use crate::stream::{sock_addr, Phase, Stream};

impl Stack {
    /// `listen`: the stream becomes a listener with a pool of `backlog`.
    pub fn listen(&mut self, badge: Badge, h: Handle, backlog: usize) -> Result<(), NetError> {
        let Stack {
            clients,
            sockets,
            ports,
            now,
            ..
        } = self;
        let entry = find(clients, sockets, *now, badge, h)?;
        let (handle, local) = match &mut entry.sock {
            Sock::Stream(s) if s.phase == Phase::Fresh => match s.local {
                Some(local) => (s.handle, local),
                None => (s.handle, SockAddr::new([0; 4], ports.take(Proto::Tcp, 0)?)),
            },
            Sock::Stream(_) => return Err(NetError::Invalid),
            Sock::Listener(l) => {
                // As on Unix, listening again changes the backlog (a
                // smaller one takes effect as connections are accepted).
                l.backlog = backlog;
                refill(l, sockets, badge);
                return Ok(());
            }
            Sock::Datagram(_) => return Err(NetError::NotSupported),
        };
        let mut l = Listener {
            local,
            backlog,
            pool: Vec::new(),
        };
        if sockets.tcp_mut(handle).listen(l.endpoint()).is_err() {
            return Err(NetError::Invalid);
        }
        l.pool.push(handle);
        refill(&mut l, sockets, badge);
        entry.sock = Sock::Listener(l);
        Ok(())
    }

    /// `accept`: a connected stream from listener `h`'s pool. The
    /// connection's socket was charged to the client as a pool socket, so
    /// taking it costs no quota; refilling the pool does.
    pub fn accept(&mut self, badge: Badge, h: Handle) -> Result<Handle, NetError> {
        let Stack {
            clients,
            sockets,
            now,
            ..
        } = self;
        let table = clients.get_mut(&badge).ok_or(NetError::BadSocket)?;
        let l = match &mut table.get_mut(h)?.sock {
            Sock::Listener(l) => l,
            Sock::Stream(_) => return Err(NetError::Invalid),
            Sock::Datagram(_) => return Err(NetError::NotSupported),
        };
        let i = l.ready(|s| sockets.tcp(s)).ok_or(NetError::WouldBlock)?;
        let handle = l.pool.remove(i);
        let tcp = sockets.tcp(handle);
        let remote = tcp.remote_endpoint().map_or(SockAddr::ANY, sock_addr);
        let mut stream = Stream::accepted(handle, l.local, remote);
        stream.observe(tcp, *now);
        refill(l, sockets, badge);
        let entry = Entry {
            sock: Sock::Stream(stream),
            nonblocking: false,
        };
        self.adopt(badge, entry)
    }

    /// `connect`: starts, or reports on, a connection to `remote`.
    pub fn connect(&mut self, badge: Badge, h: Handle, remote: SockAddr) -> Result<u64, NetError> {
        if remote.port == 0 || remote.is_unspecified() {
            return Err(NetError::Invalid);
        }
        let Stack {
            clients,
            sockets,
            ports,
            iface,
            now,
            ..
        } = self;
        let s = match &mut find(clients, sockets, *now, badge, h)?.sock {
            Sock::Stream(s) => s,
            Sock::Listener(_) => return Err(NetError::AlreadyConnected),
            Sock::Datagram(_) => return Err(NetError::NotSupported),
        };
        if let Some(answer) = s.connect_again(remote) {
            return answer;
        }
        let local = match s.local {
            Some(local) => local,
            None => {
                let local = SockAddr::new([0; 4], ports.take(Proto::Tcp, 0)?);
                s.local = Some(local);
                s.owns_port = true;
                local
            }
        };
        let tcp = sockets.tcp_mut(s.handle);
        match tcp.connect(iface.context(), endpoint(remote), listen_endpoint(local)) {
            Ok(()) => {
                s.phase = Phase::Connecting {
                    remote,
                    since: *now,
                };
                Err(NetError::InProgress)
            }
            Err(ConnectError::Unaddressable) => Err(NetError::NetworkUnreachable),
            Err(ConnectError::InvalidState) => Err(NetError::Invalid),
        }
    }

    /// The stream `h` and its smoltcp socket, or the error an operation
    /// that needs a connection reports for another kind of socket.
    fn with_stream<R>(
        &mut self,
        badge: Badge,
        h: Handle,
        datagram: NetError,
        f: impl FnOnce(&mut Stream, &mut smoltcp::socket::tcp::Socket<'static>) -> Result<R, NetError>,
    ) -> Result<R, NetError> {
        let Stack {
            clients,
            sockets,
            now,
            ..
        } = self;
        match &mut find(clients, sockets, *now, badge, h)?.sock {
            Sock::Stream(s) => f(s, sockets.tcp_mut(s.handle)),
            Sock::Listener(_) => Err(NetError::NotConnected),
            Sock::Datagram(_) => Err(datagram),
        }
    }

    /// `send` on a stream (a datagram socket needs `sendto`).
    pub fn send(&mut self, badge: Badge, h: Handle, data: &[u8]) -> Result<usize, NetError> {
        self.with_stream(badge, h, NetError::DestinationRequired, |s, tcp| {
            s.send(tcp, data)
        })
    }

    /// `recv`: a stream's bytes, or a datagram's (without its sender).
    pub fn recv(&mut self, badge: Badge, h: Handle, out: &mut [u8]) -> Result<usize, NetError> {
        if matches!(self.entry(badge, h)?.sock, Sock::Datagram(_)) {
            return self.recv_from(badge, h, out).map(|(n, _)| n);
        }
        self.with_stream(badge, h, NetError::NotSupported, |s, tcp| s.recv(tcp, out))
    }

    /// `set_nodelay`: Nagle's algorithm off (`on`) or back on.
    pub fn set_nodelay(&mut self, badge: Badge, h: Handle, on: bool) -> Result<(), NetError> {
        self.with_stream(badge, h, NetError::NotSupported, |_, tcp| {
            tcp.set_nagle_enabled(!on);
            Ok(())
        })
    }

    /// `shutdown` of the receiving (`rd`) and sending (`wr`) halves.
    pub fn shutdown(
        &mut self,
        badge: Badge,
        h: Handle,
        rd: bool,
        wr: bool,
    ) -> Result<(), NetError> {
        self.with_stream(badge, h, NetError::NotConnected, |s, tcp| {
            s.shutdown(tcp, rd, wr)
        })
    }
}
