//! The smoltcp socket set and the ledger of who caused each socket: every
//! socket the stack holds (clients' handles, listener pools, connections
//! still closing, pings) is made and dropped here, charged to the client
//! that caused it until it is dropped, so no count can drift and no
//! socket goes uncounted. Admission follows `limits`: a client under its
//! quota gets a socket if what is left still covers every other named
//! client's share.
//!
//! Connections their clients closed stay here until smoltcp has finished
//! closing them (`linger`, `reap`), still charged to their client. One
//! that has reached TIME-WAIT holds a socket for smoltcp's 10 s although
//! nothing is left to send; when a socket is refused, the oldest of those
//! (the client's own, for its quota; anyone's, for the total) is dropped
//! to make room, as Linux does past `tcp_max_tw_buckets`. Otherwise a
//! burst of short connections the guest closed first would leave new ones
//! refused for ten seconds.
//!
//! Buffers are allocated fallibly: a heap that cannot hold another socket
//! answers `NoMemory`, never a panic. The set's own storage is sized for
//! the total at start, so adding a socket never grows it.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use conflux_socket_protocol::NetError;
use smoltcp::iface::{SocketHandle, SocketSet};
use smoltcp::socket::tcp::State;
use smoltcp::socket::{icmp, tcp, udp, AnySocket};
use smoltcp::time::Instant;

use crate::client::Badge;
use crate::config::Config;
use crate::stream::TIMEOUT;

/// smoltcp's sockets, how many there are and whose they are.
pub struct Sockets {
    /// The set smoltcp polls.
    pub set: SocketSet<'static>,
    live: usize,
    /// The client each socket is charged to.
    owners: BTreeMap<SocketHandle, Badge>,
    /// Sockets charged to each client (absent: none).
    held: BTreeMap<Badge, usize>,
    /// Closed by their clients, still sending what was queued (or a
    /// reset), each with the time it is aborted if still not closed.
    lingering: Vec<(SocketHandle, Instant)>,
    /// TIME-WAIT connections dropped to make room.
    time_wait_dropped: u64,
    config: Config,
}

/// `n` zero-like items in a vector, or `NoMemory` if the heap has no room.
fn filled<T: Clone>(n: usize, item: T) -> Result<Vec<T>, NetError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| NetError::NoMemory)?;
    v.resize(n, item);
    Ok(v)
}

impl Sockets {
    /// An empty set for `config`'s limits and buffer sizes.
    pub fn new(config: Config) -> Sockets {
        let total = config.limits.total;
        Sockets {
            set: SocketSet::new(Vec::with_capacity(total)),
            live: 0,
            owners: BTreeMap::new(),
            held: BTreeMap::new(),
            lingering: Vec::with_capacity(total),
            time_wait_dropped: 0,
            config,
        }
    }

    /// Sockets held.
    pub fn live(&self) -> usize {
        self.live
    }

    /// Sockets charged to client `badge`.
    pub fn held_by(&self, badge: Badge) -> usize {
        self.held.get(&badge).copied().unwrap_or(0)
    }

    /// Client `badge`'s quota: the manifest's, or the default.
    pub fn quota_of(&self, badge: Badge) -> usize {
        let c = &self.config;
        let given = c.clients.iter().position(|b| *b == badge);
        let given = given.and_then(|i| c.quotas.get(i).copied().flatten());
        c.limits.quota_for(given)
    }

    /// Whether `owner` may have one more socket now.
    fn admissible(&self, owner: Badge) -> Result<(), NetError> {
        let limits = self.config.limits;
        let mine = self.held_by(owner);
        if mine >= self.quota_of(owner) {
            return Err(NetError::QuotaExceeded);
        }
        // What must stay free for the other named clients, and for this
        // one should it still be below its share after this socket.
        let kept: usize = self
            .config
            .clients
            .iter()
            .map(|&c| {
                let held = if c == owner {
                    mine + 1
                } else {
                    self.held_by(c)
                };
                limits.share.min(self.quota_of(c)).saturating_sub(held)
            })
            .sum();
        if self.live + 1 + kept > limits.total {
            return Err(NetError::NoBuffers);
        }
        Ok(())
    }

    /// Makes room for one more socket of `owner`, dropping connections in
    /// TIME-WAIT while that helps; the refusal otherwise.
    fn admit(&mut self, owner: Badge) -> Result<(), NetError> {
        loop {
            let refusal = match self.admissible(owner) {
                Ok(()) => return Ok(()),
                Err(e) => e,
            };
            let whose = (refusal == NetError::QuotaExceeded).then_some(owner);
            if !self.drop_time_wait(whose) {
                return Err(refusal);
            }
        }
    }

    /// Adds `sock`, admitted for `owner`, to the set and the ledger.
    fn add<T: AnySocket<'static>>(&mut self, owner: Badge, sock: T) -> SocketHandle {
        let h = self.set.add(sock);
        self.live += 1;
        self.owners.insert(h, owner);
        *self.held.entry(owner).or_insert(0) += 1;
        h
    }

    /// Drops the oldest closed connection in TIME-WAIT (of `owner` only,
    /// if given); false if there is none.
    fn drop_time_wait(&mut self, owner: Option<Badge>) -> bool {
        let (set, owners) = (&self.set, &self.owners);
        let Some(i) = self.lingering.iter().position(|(h, _)| {
            set.get::<tcp::Socket>(*h).state() == State::TimeWait
                && owner.is_none_or(|o| owners.get(h) == Some(&o))
        }) else {
            return false;
        };
        let (h, _) = self.lingering.remove(i);
        self.remove(h);
        self.time_wait_dropped += 1;
        true
    }

    /// Keeps TCP socket `h`, which its client closed, until it has closed
    /// or `deadline` passes.
    pub fn linger(&mut self, h: SocketHandle, deadline: Instant) {
        self.lingering.push((h, deadline));
    }

    /// After a poll: drops lingering sockets that finished closing, and
    /// aborts those past their deadline (dropped once the next poll has
    /// sent the reset).
    pub fn reap(&mut self, now: Instant) {
        let mut lingering = core::mem::take(&mut self.lingering);
        lingering.retain(|&(h, deadline)| {
            let tcp = self.tcp_mut(h);
            if tcp.state() == State::Closed {
                self.remove(h);
                return false;
            }
            if now >= deadline {
                tcp.abort();
            }
            true
        });
        self.lingering = lingering;
    }

    /// Sockets closed by their clients and still closing.
    pub fn closing(&self) -> usize {
        self.lingering.len()
    }

    /// TIME-WAIT connections dropped to make room so far.
    pub fn time_wait_dropped(&self) -> u64 {
        self.time_wait_dropped
    }

    /// A new closed TCP socket, charged to `owner`.
    pub fn add_tcp(&mut self, owner: Badge) -> Result<SocketHandle, NetError> {
        self.admit(owner)?;
        let n = self.config.tcp_buffer;
        let mut sock = tcp::Socket::new(
            tcp::SocketBuffer::new(filled(n, 0u8)?),
            tcp::SocketBuffer::new(filled(n, 0u8)?),
        );
        // Without a timeout smoltcp retransmits forever; a peer that
        // vanished must not hold a socket (and a client's request) for ever.
        sock.set_timeout(Some(TIMEOUT));
        Ok(self.add(owner, sock))
    }

    /// A new unbound UDP socket, charged to `owner`.
    pub fn add_udp(&mut self, owner: Badge) -> Result<SocketHandle, NetError> {
        self.admit(owner)?;
        let c = &self.config;
        let buffer = || -> Result<udp::PacketBuffer<'static>, NetError> {
            Ok(udp::PacketBuffer::new(
                filled(c.udp_packets, udp::PacketMetadata::EMPTY)?,
                filled(c.udp_buffer, 0u8)?,
            ))
        };
        let sock = udp::Socket::new(buffer()?, buffer()?);
        Ok(self.add(owner, sock))
    }

    /// A new ICMP socket for one echo request bound to `ident` (room for
    /// the request and its reply, and for a few stray replies), charged
    /// to `owner`.
    pub fn add_icmp(&mut self, owner: Badge, ident: u16) -> Result<SocketHandle, NetError> {
        self.admit(owner)?;
        let buffer = || -> Result<icmp::PacketBuffer<'static>, NetError> {
            Ok(icmp::PacketBuffer::new(
                filled(4, icmp::PacketMetadata::EMPTY)?,
                filled(4 * 128, 0u8)?,
            ))
        };
        let mut sock = icmp::Socket::new(buffer()?, buffer()?);
        // Cannot fail: the identifier is a specified endpoint and the
        // socket is new.
        let _ = sock.bind(icmp::Endpoint::Ident(ident));
        Ok(self.add(owner, sock))
    }

    /// Drops socket `h` and takes it off its client's account.
    pub fn remove(&mut self, h: SocketHandle) {
        self.set.remove(h);
        self.live -= 1;
        if let Some(owner) = self.owners.remove(&h) {
            if let Some(n) = self.held.get_mut(&owner) {
                *n -= 1;
                if *n == 0 {
                    self.held.remove(&owner);
                }
            }
        }
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
