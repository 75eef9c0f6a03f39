//! A TCP listener: a pool of smoltcp sockets listening on one address.
//!
//! A smoltcp TCP socket in `Listen` takes exactly one connection and then
//! is that connection. So a listener with backlog *n* keeps *n* sockets
//! listening; `accept` hands the client a pool socket that has connected
//! and puts a fresh listening socket in its place. Pool sockets that lost
//! their connection before it was accepted listen again.

use alloc::vec::Vec;

use conflux_socket_protocol::{Events, SockAddr};
use smoltcp::iface::SocketHandle;
use smoltcp::socket::tcp::{self, State};
use smoltcp::wire::IpListenEndpoint;

/// A client's listening socket.
#[derive(Debug)]
pub struct Listener {
    /// The address it listens on (its port is the listener's).
    pub local: SockAddr,
    /// Connections it may hold before `accept`.
    pub backlog: usize,
    /// Listening (or connected, not yet accepted) sockets; may be shorter
    /// than `backlog` while the server has no room for more.
    pub pool: Vec<SocketHandle>,
}

/// Whether a pool socket holds a connection `accept` may hand out.
pub fn is_acceptable(tcp: &tcp::Socket) -> bool {
    matches!(
        tcp.state(),
        State::Established | State::CloseWait | State::FinWait1 | State::FinWait2
    )
}

impl Listener {
    /// The smoltcp endpoint its sockets listen on.
    pub fn endpoint(&self) -> IpListenEndpoint {
        listen_endpoint(self.local)
    }

    /// Index in the pool of a socket with a connection to accept.
    pub fn ready<'s>(
        &self,
        get: impl Fn(SocketHandle) -> &'s tcp::Socket<'static>,
    ) -> Option<usize> {
        self.pool.iter().position(|h| is_acceptable(get(*h)))
    }

    /// Readable when a connection waits.
    pub fn readiness<'s>(&self, get: impl Fn(SocketHandle) -> &'s tcp::Socket<'static>) -> Events {
        if self.ready(get).is_some() {
            Events::READABLE
        } else {
            Events::NONE
        }
    }
}

/// The endpoint smoltcp listens on for `local` (no address: any of ours).
pub fn listen_endpoint(local: SockAddr) -> IpListenEndpoint {
    let addr = (!local.is_unspecified()).then(|| {
        let [a, b, c, d] = local.ip;
        smoltcp::wire::IpAddress::v4(a, b, c, d)
    });
    IpListenEndpoint {
        addr,
        port: local.port,
    }
}
