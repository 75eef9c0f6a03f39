//! The stack: smoltcp's interface, the socket set, and every client's
//! socket table, with one method per socket operation.
//!
//! Each method takes the caller's badge and operands already decoded into
//! checked types (see `service`), finds the socket in the caller's table
//! only, and brings the socket's phase up to date before acting on it, so
//! an operation never acts on a state the last poll did not look at.

mod icmp;
mod info;
mod life;
mod tcp;
mod udp;

use alloc::collections::BTreeMap;

use conflux_socket_protocol::{NetError, SockAddr, SockKind, Traffic};
use smoltcp::iface::Interface;
use smoltcp::socket::tcp::State;
use smoltcp::time::Instant;

use crate::client::{Badge, ClientTable, Entry, Handle, Sock};
use crate::config::Config;
use crate::datagram::Datagram;
use crate::listener::{listen_endpoint, Listener};
use crate::ping::Pings;
use crate::ports::{Ports, Proto};
use crate::sockets::Sockets;
use crate::stream::{Phase, Stream};
use crate::syn_guard::Held;

/// The interface, its sockets and their owners.
pub struct Stack {
    pub(crate) iface: Interface,
    pub(crate) sockets: Sockets,
    /// Connections held, so a retransmitted SYN reaches no second socket.
    pub(crate) held: Held,
    clients: BTreeMap<Badge, ClientTable>,
    ports: Ports,
    /// Echo requests in flight.
    pings: Pings,
    /// Frames and bytes through the device, as of the last poll.
    pub(crate) traffic: Traffic,
    config: Config,
    now: Instant,
}

impl Stack {
    pub(crate) fn new(iface: Interface, config: Config, now: Instant) -> Stack {
        Stack {
            iface,
            sockets: Sockets::new(config),
            held: Held::default(),
            clients: BTreeMap::new(),
            ports: Ports::new(config.random_seed),
            pings: Pings::new(config.random_seed),
            traffic: Traffic::default(),
            config,
            now,
        }
    }

    /// smoltcp sockets held, clients' and the stack's own.
    pub fn sockets_in_use(&self) -> usize {
        self.sockets.live()
    }

    /// Retransmitted SYNs dropped because a socket already held their
    /// connection (see `syn_guard`).
    pub fn duplicate_syns(&self) -> u64 {
        self.held.dropped()
    }

    /// Connections in TIME-WAIT dropped to make room for new sockets.
    pub fn time_wait_dropped(&self) -> u64 {
        self.sockets.time_wait_dropped()
    }

    /// Sockets client `badge` has open (its handles).
    pub fn client_sockets(&self, badge: Badge) -> usize {
        self.clients.get(&badge).map_or(0, ClientTable::len)
    }

    /// Stack sockets charged to client `badge`: its handles, its
    /// listeners' pools, its connections still closing, its pings.
    pub fn client_held(&self, badge: Badge) -> usize {
        self.sockets.held_by(badge)
    }

    /// Client `badge`'s socket quota (the manifest's or the default).
    pub fn client_quota(&self, badge: Badge) -> usize {
        self.sockets.quota_of(badge)
    }

    /// The socket limits the stack applies.
    pub fn limits(&self) -> crate::Limits {
        self.config.limits
    }

    fn entry(&mut self, badge: Badge, h: Handle) -> Result<&mut Entry, NetError> {
        find(&mut self.clients, &self.sockets, self.now, badge, h)
    }

    /// Whether the server should answer `WouldBlock` for `h` instead of
    /// parking the request.
    pub fn is_nonblocking(&mut self, badge: Badge, h: Handle) -> Result<bool, NetError> {
        Ok(self.entry(badge, h)?.nonblocking)
    }

    /// `set_nonblocking`.
    pub fn set_nonblocking(&mut self, badge: Badge, h: Handle, on: bool) -> Result<(), NetError> {
        self.entry(badge, h)?.nonblocking = on;
        Ok(())
    }

    /// `socket`.
    pub fn socket(&mut self, badge: Badge, kind: SockKind) -> Result<Handle, NetError> {
        let sock = match kind {
            SockKind::Stream => Sock::Stream(Stream::new(self.sockets.add_tcp(badge)?)),
            SockKind::Datagram => Sock::Datagram(Datagram {
                handle: self.sockets.add_udp(badge)?,
                local: None,
            }),
        };
        let entry = Entry {
            sock,
            nonblocking: false,
        };
        self.adopt(badge, entry)
    }

    /// Gives `entry` a handle in client `badge`'s table; if the heap has
    /// no room for that, lets its socket go and answers `NoMemory`.
    fn adopt(&mut self, badge: Badge, entry: Entry) -> Result<Handle, NetError> {
        match self.clients.entry(badge).or_default().insert(entry) {
            Ok(h) => Ok(h),
            Err((entry, e)) => {
                self.release(entry);
                Err(e)
            }
        }
    }

    /// Whether `addr` may be a local address: any, or the interface's.
    fn check_local(&self, addr: SockAddr) -> Result<(), NetError> {
        if addr.is_unspecified() || addr.ip == self.config.ip.address().octets() {
            Ok(())
        } else {
            Err(NetError::AddressNotAvailable)
        }
    }

    /// `bind`.
    pub fn bind(&mut self, badge: Badge, h: Handle, addr: SockAddr) -> Result<(), NetError> {
        self.check_local(addr)?;
        let Stack {
            clients,
            sockets,
            ports,
            now,
            ..
        } = self;
        let entry = find(clients, sockets, *now, badge, h)?;
        match &mut entry.sock {
            Sock::Stream(s) if s.local.is_none() && s.phase == Phase::Fresh => {
                let port = ports.take(Proto::Tcp, addr.port)?;
                s.local = Some(SockAddr::new(addr.ip, port));
                s.owns_port = true;
                Ok(())
            }
            Sock::Datagram(d) if d.local.is_none() => {
                let port = ports.take(Proto::Udp, addr.port)?;
                let local = SockAddr::new(addr.ip, port);
                if sockets
                    .udp_mut(d.handle)
                    .bind(listen_endpoint(local))
                    .is_err()
                {
                    ports.release(Proto::Udp, port);
                    return Err(NetError::Invalid);
                }
                d.local = Some(local);
                Ok(())
            }
            _ => Err(NetError::Invalid),
        }
    }
}

/// Client `badge`'s socket `h`, its phase brought up to date.
fn find<'a>(
    clients: &'a mut BTreeMap<Badge, ClientTable>,
    sockets: &Sockets,
    now: Instant,
    badge: Badge,
    h: Handle,
) -> Result<&'a mut Entry, NetError> {
    let entry = clients
        .get_mut(&badge)
        .ok_or(NetError::BadSocket)?
        .get_mut(h)?;
    if let Sock::Stream(s) = &mut entry.sock {
        s.observe(sockets.tcp(s.handle), now);
    }
    Ok(entry)
}

/// Tops `l`'s pool up to its backlog, as far as its client's quota and
/// the server's room allow (the pool of a listener whose backlog is past
/// them is clamped, and grows back as room appears), and sets pool
/// sockets whose connection died before `accept` listening again.
fn refill(l: &mut Listener, sockets: &mut Sockets, owner: Badge) {
    for &h in &l.pool {
        let tcp = sockets.tcp_mut(h);
        if tcp.state() == State::Closed {
            // Cannot fail: the socket is closed and the port is not 0.
            let _ = tcp.listen(l.endpoint());
        }
    }
    while l.pool.len() < l.backlog {
        let Ok(h) = sockets.add_tcp(owner) else { break };
        if sockets.tcp_mut(h).listen(l.endpoint()).is_err() {
            sockets.remove(h);
            break;
        }
        l.pool.push(h);
    }
}
