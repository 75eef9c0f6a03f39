//! The smoltcp socket set with the server-wide socket limit: every socket
//! the stack holds (clients' handles, listener pools, connections still
//! closing) is made and dropped here, so the count cannot drift.
//!
//! Connections their clients closed stay here until smoltcp has finished
//! closing them (`linger`, `reap`). One that has reached TIME-WAIT holds a
//! socket for smoltcp's 10 s although nothing is left to send; when the
//! server is out of sockets the oldest of those is dropped to make room,
//! as Linux does past `tcp_max_tw_buckets`. Otherwise a burst of short
//! connections the guest closed first would leave new ones refused for
//! ten seconds.

use alloc::vec;
use alloc::vec::Vec;

use conflux_socket_protocol::NetError;
use smoltcp::iface::{SocketHandle, SocketSet};
use smoltcp::socket::tcp::State;
use smoltcp::socket::{icmp, tcp, udp};
use smoltcp::time::Instant;

use crate::config::Config;
use crate::stream::TIMEOUT;

/// smoltcp's sockets and how many there are.
pub struct Sockets {
    /// The set smoltcp polls.
    pub set: SocketSet<'static>,
    live: usize,
    /// Closed by their clients, still sending what was queued (or a
    /// reset), each with the time it is aborted if still not closed.
    lingering: Vec<(SocketHandle, Instant)>,
    /// TIME-WAIT connections dropped to make room.
    time_wait_dropped: u64,
    config: Config,
}

impl Sockets {
    /// An empty set for `config`'s limits and buffer sizes.
    pub fn new(config: Config) -> Sockets {
        Sockets {
            set: SocketSet::new(vec![]),
            live: 0,
            lingering: Vec::new(),
            time_wait_dropped: 0,
            config,
        }
    }

    /// Sockets held.
    pub fn live(&self) -> usize {
        self.live
    }

    fn reserve(&mut self) -> Result<(), NetError> {
        if self.live >= self.config.max_sockets && !self.drop_time_wait() {
            return Err(NetError::NoBuffers);
        }
        self.live += 1;
        Ok(())
    }

    /// Drops the oldest closed connection in TIME-WAIT; false if none is.
    fn drop_time_wait(&mut self) -> bool {
        let set = &self.set;
        let Some(i) = self
            .lingering
            .iter()
            .position(|(h, _)| set.get::<tcp::Socket>(*h).state() == State::TimeWait)
        else {
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
            let tcp = self.set.get_mut::<tcp::Socket>(h);
            if tcp.state() == State::Closed {
                self.set.remove(h);
                self.live -= 1;
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
