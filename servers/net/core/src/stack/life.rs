//! A socket's end and what the stack does around polls: `close`, the end
//! of a client's session, reaping closed connections, and the questions a
//! server asks between requests (readiness, names).

use conflux_socket_protocol::{Events, NetError, SockAddr};
use smoltcp::time::{Duration, Instant};

use super::{find, refill, Stack};
use crate::client::{Badge, Entry, Handle, Sock};
use crate::datagram::Datagram;
use crate::ports::Proto;
use crate::stream::{sock_addr, Phase};

/// How long a closed connection may take to finish closing. smoltcp's own
/// timeout covers a peer that stops acknowledging; this covers one that
/// acknowledges our FIN but never sends its own (FIN-WAIT-2 has no timer
/// in smoltcp), which would otherwise hold a socket for ever.
const LINGER: Duration = Duration::from_secs(60);

impl Stack {
    /// `close`.
    pub fn close(&mut self, badge: Badge, h: Handle) -> Result<(), NetError> {
        let entry = self.take(badge, h)?;
        self.release(entry);
        Ok(())
    }

    /// `abort`: as `close`, but a stream is reset now. The next poll sends
    /// the reset and the reap after it frees the socket, so a connection
    /// whose peer stopped reading does not hold one for [`LINGER`].
    pub fn abort(&mut self, badge: Badge, h: Handle) -> Result<(), NetError> {
        let entry = self.take(badge, h)?;
        if let Sock::Stream(s) = &entry.sock {
            self.sockets.tcp_mut(s.handle).abort();
        }
        self.release(entry);
        Ok(())
    }

    /// Takes handle `h` out of client `badge`'s table.
    fn take(&mut self, badge: Badge, h: Handle) -> Result<Entry, NetError> {
        self.clients
            .get_mut(&badge)
            .ok_or(NetError::BadSocket)?
            .remove(h)
    }

    /// Closes every socket of client `badge` (it went away or restarted).
    pub fn end_session(&mut self, badge: Badge) {
        self.drop_pings(badge);
        if let Some(mut table) = self.clients.remove(&badge) {
            for entry in table.drain() {
                self.release(entry);
            }
        }
    }

    /// Gives back what `entry` held. A stream goes on sending what it
    /// queued and then closes, unless received data was left unread, in
    /// which case it resets the connection so the peer knows it was lost.
    pub(super) fn release(&mut self, entry: Entry) {
        match entry.sock {
            Sock::Stream(s) => {
                if let (true, Some(local)) = (s.owns_port, s.local) {
                    self.ports.release(Proto::Tcp, local.port);
                }
                let tcp = self.sockets.tcp_mut(s.handle);
                if tcp.can_recv() {
                    tcp.abort();
                } else {
                    tcp.close();
                }
                self.sockets.linger(s.handle, self.now + LINGER);
            }
            Sock::Listener(l) => {
                self.ports.release(Proto::Tcp, l.local.port);
                for h in l.pool {
                    self.sockets.tcp_mut(h).abort();
                    self.sockets.linger(h, self.now + LINGER);
                }
            }
            Sock::Datagram(d) => {
                if let Some(local) = d.local {
                    self.ports.release(Proto::Udp, local.port);
                }
                self.sockets.remove(d.handle);
            }
        }
    }

    /// After smoltcp's poll: phases up to date, listener pools refilled,
    /// connections that finished closing dropped, echo replies taken.
    pub(crate) fn after_poll(&mut self, now: Instant) {
        self.now = now;
        let sockets = &mut self.sockets;
        // The poll that just ran sent any reset or final segment of the
        // connections clients closed; those done make room for the pools.
        sockets.reap(now);
        for (&badge, table) in self.clients.iter_mut() {
            for entry in table.iter_mut() {
                match &mut entry.sock {
                    Sock::Stream(s) => s.observe(sockets.tcp(s.handle), now),
                    Sock::Listener(l) => refill(l, sockets, badge),
                    Sock::Datagram(_) => {}
                }
            }
        }
        self.held.update(&sockets.set);
        self.observe_pings(now);
    }

    /// What holds for socket `h` now.
    pub fn readiness(&mut self, badge: Badge, h: Handle) -> Result<Events, NetError> {
        let Stack {
            clients,
            sockets,
            now,
            ..
        } = self;
        Ok(match &find(clients, sockets, *now, badge, h)?.sock {
            Sock::Stream(s) => s.readiness(sockets.tcp(s.handle)),
            Sock::Listener(l) => l.readiness(|s| sockets.tcp(s)),
            Sock::Datagram(d) => Datagram::readiness(sockets.udp(d.handle)),
        })
    }

    /// `getsockname`: the local address (0.0.0.0:0 before any bind).
    pub fn sock_name(&mut self, badge: Badge, h: Handle) -> Result<SockAddr, NetError> {
        let Stack {
            clients,
            sockets,
            now,
            ..
        } = self;
        Ok(match &find(clients, sockets, *now, badge, h)?.sock {
            Sock::Stream(s) if matches!(s.phase, Phase::Connected { .. }) => {
                let local = sockets.tcp(s.handle).local_endpoint();
                local.map(sock_addr).or(s.local).unwrap_or(SockAddr::ANY)
            }
            Sock::Stream(s) => s.local.unwrap_or(SockAddr::ANY),
            Sock::Listener(l) => l.local,
            Sock::Datagram(d) => d.local.unwrap_or(SockAddr::ANY),
        })
    }

    /// `getpeername`: the connected peer.
    pub fn peer_name(&mut self, badge: Badge, h: Handle) -> Result<SockAddr, NetError> {
        let Stack {
            clients,
            sockets,
            now,
            ..
        } = self;
        match &mut find(clients, sockets, *now, badge, h)?.sock {
            Sock::Stream(s) => s.peer(),
            _ => Err(NetError::NotConnected),
        }
    }
}
