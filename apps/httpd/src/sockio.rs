//! How httpd moves a connection's bytes through the network server: one
//! IPC per operation ([`IpcIo`], the default) or entries on its session's
//! rings ([`crate::ring_io::RingIo`], when the manifest gives httpd a
//! `net_ring` region; `docs/httpd.md`, "Ring mode"). The event loop and
//! the connections call the same three operations either way, so limits,
//! errors, deadlines and the 408/503 logic are the same code in both
//! modes; only the batching differs: before serving a round, the loop
//! hands [`SocketIo::prefetch`] every receive it is about to make, which
//! the ring mode posts as one batch (one doorbell at most) and the IPC
//! mode leaves to [`SocketIo::recv`].
//!
//! Sends are batched the same way: in the ring mode a send may answer
//! [`Sent::Posted`] (the entry waits in the round's batch of sends); the
//! connection stops there, and once the loop has served every
//! connection, [`SocketIo::settle`] posts the batch (one doorbell at
//! most) and reaps every answer, and each such connection resumes: it
//! makes the same send again and gets the count the batch reaped. The
//! IPC mode always answers [`Sent::Took`].
//!
//! `wait` goes the same way (in the ring mode, an entry the network
//! server parks until a socket is ready or the timeout passes).
//! Connection setup and teardown (`accept`, `close`, options) stay IPC in
//! both modes: they are a few per connection, not per request.

use conflux_net_client::{Error as NetErr, Net, Operand, PollEntry, Socket};
use conflux_socket_protocol::ops as net_ops;

use crate::tally::Tally;

/// A receive the round is about to make: the socket and the most bytes
/// it may take (the request side's room).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Read {
    pub sock: Socket,
    pub room: usize,
}

/// Bytes of the pages region to send: `len` at `offset` of region
/// `region` (its number in the network server's session).
#[derive(Clone, Copy, Debug)]
pub struct PagesSpan {
    pub region: u8,
    pub offset: u32,
    pub len: u32,
}

/// How a send went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sent {
    /// The network server queued this many bytes.
    Took(usize),
    /// Posted in the round's batch of sends: make the same send again
    /// after [`SocketIo::settle`] for its count.
    Posted,
}

/// The socket operations httpd makes per request.
pub trait SocketIo {
    /// Waits until one of `entries` is ready or `timeout_ms` passes;
    /// fills in their `revents` and returns how many are ready.
    fn wait(
        &mut self,
        net: &mut Net,
        entries: &mut [PollEntry],
        timeout_ms: u64,
    ) -> Result<usize, NetErr>;
    /// Every receive this round will make, in the order it makes them
    /// (a hint: a receive not named here still works).
    fn prefetch(&mut self, net: &mut Net, reads: &[Read]);
    /// Up to `buf.len()` bytes from `sock` (non-blocking).
    fn recv(&mut self, net: &mut Net, sock: Socket, buf: &mut [u8]) -> Result<usize, NetErr>;
    /// Queues up to `data.len()` bytes of httpd's memory on `sock`.
    fn send(&mut self, net: &mut Net, sock: Socket, data: &[u8]) -> Result<Sent, NetErr>;
    /// Queues a span of the pages region on `sock` (zero copy).
    fn send_pages(&mut self, net: &mut Net, sock: Socket, span: PagesSpan) -> Result<Sent, NetErr>;
    /// Posts the round's batch of sends and reaps every answer, so that
    /// each send that answered [`Sent::Posted`] gets its count when made
    /// again.
    fn settle(&mut self, net: &mut Net);
    /// After a reconnect: sets up again what the old session held.
    fn reopen(&mut self, net: &mut Net) -> Result<(), NetErr>;
    /// What the operations cost so far, for the status page.
    fn tally(&self) -> Tally;
}

/// One IPC per operation.
#[cfg_attr(net_ring, allow(dead_code))]
#[derive(Default)]
pub struct IpcIo {
    tally: Tally,
}

impl SocketIo for IpcIo {
    fn wait(
        &mut self,
        net: &mut Net,
        entries: &mut [PollEntry],
        timeout_ms: u64,
    ) -> Result<usize, NetErr> {
        self.tally.rounds += 1;
        self.tally.calls += 1;
        net.wait(entries, timeout_ms)
    }

    fn prefetch(&mut self, _net: &mut Net, _reads: &[Read]) {}

    fn reopen(&mut self, _net: &mut Net) -> Result<(), NetErr> {
        Ok(())
    }

    fn tally(&self) -> Tally {
        self.tally
    }

    fn recv(&mut self, net: &mut Net, sock: Socket, buf: &mut [u8]) -> Result<usize, NetErr> {
        self.tally.calls += 1;
        net.recv(sock, buf)
    }

    fn send(&mut self, net: &mut Net, sock: Socket, data: &[u8]) -> Result<Sent, NetErr> {
        self.tally.calls += 1;
        net.send(sock, data).map(Sent::Took)
    }

    fn send_pages(&mut self, net: &mut Net, sock: Socket, span: PagesSpan) -> Result<Sent, NetErr> {
        self.tally.calls += 1;
        let sent = net.call(net_ops::SEND, &pages_operands(sock, span))?;
        Ok(Sent::Took((sent as usize).min(span.len as usize)))
    }

    fn settle(&mut self, _net: &mut Net) {}
}

/// A SEND of `span`'s bytes on `sock`, as both modes post it.
pub fn pages_operands(sock: Socket, span: PagesSpan) -> [Operand; 3] {
    [
        Operand::Value(sock.0),
        Operand::Buf {
            region: span.region,
            offset: span.offset,
            len: span.len,
        },
        Operand::Value(u64::from(span.len)),
    ]
}
