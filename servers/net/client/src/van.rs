//! The per-call path (VAN): one IPC per socket operation, typed. Data to
//! send and room to receive into are in the control region's staging
//! area (its first half; compounds go at its end), copied in and out.
//! Transfers longer than the staging area are cut to it: `send` and
//! `recv` return how much they moved, as their POSIX namesakes do.

use conflux_socket_protocol::ops::{self, SHUT_RD, SHUT_RDWR, SHUT_WR};
use conflux_socket_protocol::{Events, PollEntry, SockAddr, SockKind};

use crate::{Error, Net, NetError, Operand};

/// A socket of this client (a handle into its own table on the server).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Socket(pub u64);

use Operand::Value;

impl Net {
    /// Bytes of the staging area.
    fn staging(&mut self) -> usize {
        (self.control().len() / 2).min(u32::MAX as usize)
    }

    /// The staging area's first `len` bytes as a buffer operand.
    fn staged(len: usize) -> Operand {
        Operand::Buf {
            region: 0,
            offset: 0,
            len: len as u32,
        }
    }

    /// A new socket.
    pub fn socket(&mut self, kind: SockKind) -> Result<Socket, Error> {
        self.call(ops::SOCKET, &[Value(kind as u64)]).map(Socket)
    }

    /// Binds `s` to the local address `addr` (port 0: any free port).
    pub fn bind(&mut self, s: Socket, addr: SockAddr) -> Result<(), Error> {
        self.call(ops::BIND, &[Value(s.0), Value(addr.to_word())])
            .map(drop)
    }

    /// Makes a bound stream socket a listener with `backlog` waiting
    /// connections.
    pub fn listen(&mut self, s: Socket, backlog: u64) -> Result<(), Error> {
        self.call(ops::LISTEN, &[Value(s.0), Value(backlog)])
            .map(drop)
    }

    /// A connected socket from listener `s` (waits for one if blocking).
    pub fn accept(&mut self, s: Socket) -> Result<Socket, Error> {
        self.call(ops::ACCEPT, &[Value(s.0)]).map(Socket)
    }

    /// Connects stream `s` to `addr` (waits for the handshake if blocking;
    /// a non-blocking socket gets `InProgress`).
    pub fn connect_to(&mut self, s: Socket, addr: SockAddr) -> Result<(), Error> {
        self.call(ops::CONNECT, &[Value(s.0), Value(addr.to_word())])
            .map(drop)
    }

    /// Queues up to `data.len()` bytes (at most the staging area) on
    /// stream `s`; how many were queued.
    pub fn send(&mut self, s: Socket, data: &[u8]) -> Result<usize, Error> {
        let n = data.len().min(self.staging());
        self.control()[..n].copy_from_slice(&data[..n]);
        let sent = self.call(ops::SEND, &[Value(s.0), Self::staged(n), Value(n as u64)])?;
        Ok(sent as usize)
    }

    /// Sends all of `data`, in as many `send`s as it takes.
    pub fn send_all(&mut self, s: Socket, mut data: &[u8]) -> Result<(), Error> {
        while !data.is_empty() {
            let n = self.send(s, data)?;
            data = &data[n..];
        }
        Ok(())
    }

    /// Sends `data` as one datagram from socket `s` to `to` (bound to a
    /// free port first if it is not); how many bytes went. A datagram
    /// larger than the staging area is refused (`TooLarge`): it is never
    /// cut.
    pub fn send_to(&mut self, s: Socket, data: &[u8], to: SockAddr) -> Result<usize, Error> {
        let n = data.len();
        if n > self.staging() {
            return Err(Error::TooLarge);
        }
        self.control()[..n].copy_from_slice(data);
        let sent = self.call(
            ops::SENDTO,
            &[
                Value(s.0),
                Self::staged(n),
                Value(n as u64),
                Value(to.to_word()),
            ],
        )?;
        Ok(sent as usize)
    }

    /// Reads what stream `s` has into `buf` (waits for data if blocking);
    /// 0 once the peer closed.
    pub fn recv(&mut self, s: Socket, buf: &mut [u8]) -> Result<usize, Error> {
        let n = buf.len().min(self.staging());
        let got = self.call(ops::RECV, &[Value(s.0), Self::staged(n), Value(n as u64)])?;
        let got = (got as usize).min(n);
        buf[..got].copy_from_slice(&self.control()[..got]);
        Ok(got)
    }

    /// Shuts down the receiving side, the sending side, or both.
    pub fn shutdown(&mut self, s: Socket, read: bool, write: bool) -> Result<(), Error> {
        let how = match (read, write) {
            (true, true) => SHUT_RDWR,
            (true, false) => SHUT_RD,
            (false, true) => SHUT_WR,
            (false, false) => return Ok(()),
        };
        self.call(ops::SHUTDOWN, &[Value(s.0), Value(how)])
            .map(drop)
    }

    /// Closes `s` (a stream sends what it queued first).
    pub fn close(&mut self, s: Socket) -> Result<(), Error> {
        self.call(ops::CLOSE, &[Value(s.0)]).map(drop)
    }

    /// Closes `s`, resetting a stream at once: what it still had to send
    /// is dropped (for a peer that stopped reading).
    pub fn abort(&mut self, s: Socket) -> Result<(), Error> {
        self.call(ops::ABORT, &[Value(s.0)]).map(drop)
    }

    /// Whether operations on `s` return `WouldBlock` instead of waiting.
    pub fn set_nonblocking(&mut self, s: Socket, on: bool) -> Result<(), Error> {
        self.call(ops::SET_NONBLOCKING, &[Value(s.0), Value(u64::from(on))])
            .map(drop)
    }

    /// Whether `s` sends short segments at once (`TCP_NODELAY`).
    pub fn set_nodelay(&mut self, s: Socket, on: bool) -> Result<(), Error> {
        self.call(ops::SET_NODELAY, &[Value(s.0), Value(u64::from(on))])
            .map(drop)
    }

    /// Waits until one of `entries`' sockets is ready for its events or
    /// `timeout_ms` passes (0: just look; `ops::WAIT_FOREVER`); fills each
    /// entry's `revents` and returns how many are ready.
    pub fn wait(&mut self, entries: &mut [PollEntry], timeout_ms: u64) -> Result<usize, Error> {
        let len = entries.len() * PollEntry::SIZE;
        if len > self.staging() {
            return Err(Error::TooLarge);
        }
        let area = &mut self.control()[..len];
        for (e, bytes) in entries.iter().zip(area.chunks_exact_mut(PollEntry::SIZE)) {
            e.encode(bytes);
        }
        let count = entries.len() as u64;
        let n = self.call(
            ops::WAIT,
            &[Self::staged(len), Value(count), Value(timeout_ms)],
        )?;
        let area = &self.control()[..len];
        for (e, bytes) in entries.iter_mut().zip(area.chunks_exact(PollEntry::SIZE)) {
            e.revents = PollEntry::decode(bytes).map_or(Events::INVALID, |d| d.revents);
        }
        Ok(n as usize)
    }

    /// The local address of `s`.
    pub fn sock_name(&mut self, s: Socket) -> Result<SockAddr, Error> {
        let w = self.call(ops::GETSOCKNAME, &[Value(s.0)])?;
        SockAddr::from_word(w).ok_or(Error::Net(NetError::Invalid))
    }

    /// The peer address of connected `s`.
    pub fn peer_name(&mut self, s: Socket) -> Result<SockAddr, Error> {
        let w = self.call(ops::GETPEERNAME, &[Value(s.0)])?;
        SockAddr::from_word(w).ok_or(Error::Net(NetError::Invalid))
    }

    /// `s`'s readiness now.
    pub fn readiness(&mut self, s: Socket) -> Result<Events, Error> {
        let w = self.call(ops::READINESS, &[Value(s.0)])?;
        Ok(Events(w as u16))
    }
}
