//! A TCP byte stream as a client sees it: its phase (fresh, connecting,
//! connected, reset, failed), its shut-down halves, and the operations on
//! it over the smoltcp socket that carries it.
//!
//! smoltcp's state machine says what the connection does; the phase adds
//! what the client must be told that smoltcp forgets: a socket that went
//! from connected to closed without a FIN was reset, a connecting socket
//! that closed was refused (or timed out), and that failure is reported
//! once. [`Stream::observe`] runs after every poll, so no transition is
//! missed even when smoltcp passes through a state within one poll.

use conflux_socket_protocol::{Events, NetError, SockAddr};
use smoltcp::socket::tcp::{self, RecvError, State};
use smoltcp::time::{Duration, Instant};
use smoltcp::wire::{IpAddress, IpEndpoint};

/// How long a connection attempt, or an unacknowledged segment, may take
/// before the connection is given up.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// Where a stream is in its life, as the client sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Neither connecting nor connected.
    Fresh,
    /// `connect` started at `since`.
    Connecting { remote: SockAddr, since: Instant },
    /// Connected; `peer_fin` once the peer has closed its side.
    Connected { remote: SockAddr, peer_fin: bool },
    /// The connection was reset (or timed out) after it was established.
    Reset,
    /// The attempt failed; reported by the next operation, once.
    Failed(NetError),
}

/// A client's stream socket.
#[derive(Debug)]
pub struct Stream {
    /// The smoltcp socket (a `tcp::Socket`, always).
    pub handle: smoltcp::iface::SocketHandle,
    /// The local address, once bound (explicitly or by `connect`).
    pub local: Option<SockAddr>,
    /// Whether `local`'s port is this stream's to give back (an accepted
    /// stream shares its listener's).
    pub owns_port: bool,
    /// See [`Phase`].
    pub phase: Phase,
    /// `shutdown(SHUT_RD)`: received data is dropped, `recv` says 0.
    pub shut_rd: bool,
    /// `shutdown(SHUT_WR)` or more: `send` fails with `BrokenPipe`.
    pub shut_wr: bool,
}

/// The protocol's address for a smoltcp endpoint (IPv4 only here).
pub fn sock_addr(ep: IpEndpoint) -> SockAddr {
    let IpAddress::Ipv4(ip) = ep.addr;
    SockAddr::new(ip.octets(), ep.port)
}

impl Stream {
    /// A fresh stream over `handle`.
    pub fn new(handle: smoltcp::iface::SocketHandle) -> Stream {
        Stream {
            handle,
            local: None,
            owns_port: false,
            phase: Phase::Fresh,
            shut_rd: false,
            shut_wr: false,
        }
    }

    /// A stream a listener accepted, already connected to `remote`.
    pub fn accepted(
        handle: smoltcp::iface::SocketHandle,
        local: SockAddr,
        remote: SockAddr,
    ) -> Stream {
        Stream {
            local: Some(local),
            phase: Phase::Connected {
                remote,
                peer_fin: false,
            },
            ..Stream::new(handle)
        }
    }

    /// Brings the phase up to date with smoltcp's state.
    pub fn observe(&mut self, tcp: &tcp::Socket, now: Instant) {
        let state = tcp.state();
        self.phase = match self.phase {
            Phase::Connecting { remote, since } => match state {
                State::SynSent | State::SynReceived => return,
                State::Closed if now - since >= TIMEOUT => Phase::Failed(NetError::TimedOut),
                State::Closed => Phase::Failed(NetError::Refused),
                _ => Phase::Connected {
                    remote,
                    peer_fin: false,
                },
            },
            Phase::Connected { remote, peer_fin } => {
                let fin = matches!(
                    state,
                    State::CloseWait | State::LastAck | State::Closing | State::TimeWait
                );
                if state == State::Closed && !peer_fin {
                    Phase::Reset
                } else {
                    Phase::Connected {
                        remote,
                        peer_fin: peer_fin || fin,
                    }
                }
            }
            other => other,
        };
    }

    /// Reports a failed attempt once, making the stream fresh again.
    pub fn take_failure(&mut self) -> Result<(), NetError> {
        if let Phase::Failed(e) = self.phase {
            self.phase = Phase::Fresh;
            return Err(e);
        }
        Ok(())
    }

    /// `connect` on a stream that is not fresh: `None` if it is fresh (the
    /// caller starts the attempt), else the answer.
    pub fn connect_again(&mut self, remote: SockAddr) -> Option<Result<u64, NetError>> {
        match self.phase {
            Phase::Fresh => None,
            Phase::Failed(_) => Some(self.take_failure().map(|()| 0)),
            Phase::Connecting { .. } => Some(Err(NetError::Already)),
            Phase::Connected { remote: r, .. } if r == remote => Some(Ok(0)),
            Phase::Connected { .. } => Some(Err(NetError::AlreadyConnected)),
            Phase::Reset => Some(Err(NetError::ConnectionReset)),
        }
    }

    /// The connected peer, or why there is none.
    fn remote(&mut self) -> Result<(SockAddr, bool), NetError> {
        self.take_failure()?;
        match self.phase {
            Phase::Connected { remote, peer_fin } => Ok((remote, peer_fin)),
            Phase::Reset => Err(NetError::ConnectionReset),
            _ => Err(NetError::NotConnected),
        }
    }

    /// `getpeername`.
    pub fn peer(&mut self) -> Result<SockAddr, NetError> {
        self.remote().map(|(r, _)| r)
    }

    /// `recv`: bytes read, 0 at the end of the stream.
    pub fn recv(&mut self, tcp: &mut tcp::Socket, out: &mut [u8]) -> Result<usize, NetError> {
        let (_, peer_fin) = self.remote()?;
        if self.shut_rd || out.is_empty() {
            return Ok(0);
        }
        match tcp.recv_slice(out) {
            Ok(0) if peer_fin => Ok(0),
            Ok(0) => Err(NetError::WouldBlock),
            Ok(n) => Ok(n),
            Err(RecvError::Finished) => Ok(0),
            Err(RecvError::InvalidState) if peer_fin => Ok(0),
            Err(RecvError::InvalidState) => Err(NetError::WouldBlock),
        }
    }

    /// `send`: bytes queued.
    pub fn send(&mut self, tcp: &mut tcp::Socket, data: &[u8]) -> Result<usize, NetError> {
        self.remote()?;
        if self.shut_wr || !tcp.may_send() {
            return Err(NetError::BrokenPipe);
        }
        match tcp.send_slice(data) {
            Ok(0) if !data.is_empty() => Err(NetError::WouldBlock),
            Ok(n) => Ok(n),
            Err(tcp::SendError::InvalidState) => Err(NetError::BrokenPipe),
        }
    }

    /// `shutdown`: `rd` and `wr` halves.
    pub fn shutdown(&mut self, tcp: &mut tcp::Socket, rd: bool, wr: bool) -> Result<(), NetError> {
        self.remote()?;
        if rd {
            self.shut_rd = true;
            // Dropping what is queued keeps the window open, so the peer is
            // never stalled by data nobody will read.
            while matches!(tcp.recv(|b| (b.len(), b.len())), Ok(n) if n > 0) {}
        }
        if wr && !self.shut_wr {
            self.shut_wr = true;
            tcp.close();
        }
        Ok(())
    }

    /// What holds for the stream now.
    pub fn readiness(&self, tcp: &tcp::Socket) -> Events {
        match self.phase {
            Phase::Fresh => Events::HANGUP,
            Phase::Connecting { .. } => Events::NONE,
            Phase::Failed(_) | Phase::Reset => Events::ERROR
                .union(Events::HANGUP)
                .union(Events::READABLE)
                .union(Events::WRITABLE),
            Phase::Connected { peer_fin, .. } => {
                let mut e = Events::NONE;
                if tcp.can_recv() || peer_fin || self.shut_rd {
                    e = e.union(Events::READABLE);
                }
                if tcp.can_send() || self.shut_wr {
                    e = e.union(Events::WRITABLE);
                }
                if peer_fin {
                    e = e.union(Events::HANGUP);
                }
                e
            }
        }
    }
}
