//! httpd's socket operations as entries on its session's rings
//! (`docs/rings.md`, "The network server's rings"): FlexSC's
//! exception-less calls for a server. A round's receives are posted
//! together ([`RingIo::prefetch`]): every entry, then one doorbell at
//! most (none while the network server polls), then every answer reaped.
//! Sends are batched too: each connection's next send is posted
//! ([`Sent::Posted`]) as the loop serves it, and [`SocketIo::settle`]
//! flushes them (one doorbell at most) and reaps every count, which the
//! connection gets when it makes the same send again; its next send (the
//! body after the head, the rest of a short one) goes in the next batch.
//! An answer is polled for before httpd sleeps on it, for an
//! adaptive number of looks (`conflux_http::spin`) when the network
//! server polls on another CPU (`build.rs` sets `cfg(net_apart)` from
//! the manifest's placement), and not at all when it shares httpd's.
//!
//! Entries cannot name httpd's own memory, so bytes pass through a data
//! region shared with the network server (`net_bufs`): one 4 KiB slot
//! per prefetched receive, an area for the one entry in flight outside a
//! batch (a round's `wait` and its poll entries, or a receive not
//! prefetched), and an area the batch's sends of text take bytes from
//! in turn (a send that finds it full settles the batch first, as one
//! that finds the rings full does).

use alloc::vec::Vec;

use conflux_http::spin::Spin;
use conflux_net_client::{
    Error as NetErr, Events, Net, Operand, PollEntry, Reaped, Socket, Ticket,
};
use conflux_socket_protocol::ops as net_ops;

use crate::sockio::{pages_operands, PagesSpan, Read, Sent, SocketIo};
use crate::tally::Tally;

/// Bytes of one prefetched receive's slot (one round's read, as in the
/// IPC mode).
pub const RECV_SLOT: u32 = 4096;
/// Receives prefetched in one round: every connection and every one
/// turned away fit (`MAX_CONNS` 48 + `MAX_TURNED_AWAY` 15).
pub const RECV_SLOTS: usize = 64;
/// Where the single entry's area starts, and its size: a `wait`'s poll
/// entries (64 of 8 bytes at most) or a receive (4 KiB at most).
const SINGLE_AT: u32 = RECV_SLOT * RECV_SLOTS as u32;
const SINGLE_LEN: u32 = 8 * 1024;
/// Where the area of the batch's sends of text starts, and its size.
const SENDS_AT: u32 = SINGLE_AT + SINGLE_LEN;
const SENDS_LEN: u32 = 24 * 1024;
/// The least size of the `net_bufs` region.
pub const BUFS_SIZE: usize = (SENDS_AT + SENDS_LEN) as usize;
/// Entries in flight at once (the rings' depth).
const BATCH: usize = 32;

/// Where the manifest maps the two regions.
#[derive(Clone, Copy)]
pub struct RingCaps {
    pub ring: usize,
    pub ring_addr: u64,
    pub bufs: usize,
    pub bufs_addr: u64,
}

/// A prefetched receive: its socket and what it got (offset and length
/// in the buffers region, or why it failed).
struct Fetched {
    sock: Socket,
    got: Result<(u32, usize), NetErr>,
}

/// A send posted in the round's batch.
struct Posted {
    ticket: Ticket,
    sock: Socket,
    len: usize,
}

/// The ring mode.
pub struct RingIo {
    /// The buffers region's number in the session.
    bufs: u8,
    fetched: Vec<Fetched>,
    /// The batch's sends not reaped yet.
    posted: Vec<Posted>,
    /// Counts reaped for posted sends, until each is made again.
    sent: Vec<(Socket, Result<usize, NetErr>)>,
    /// Bytes of the sends area the batch's posted sends hold.
    sends_used: u32,
    /// How long to poll for an answer before sleeping on it.
    spin: Spin,
    tally: Tally,
}

impl RingIo {
    /// Opens the session's rings and shares the buffers region.
    pub fn open(net: &mut Net, caps: RingCaps) -> Result<RingIo, NetErr> {
        let bufs = net.attach(caps.bufs, caps.bufs_addr)?;
        if net.data(bufs).map_or(0, |d| d.len()) < BUFS_SIZE {
            return Err(NetErr::TooLarge);
        }
        net.ring_open(caps.ring, caps.ring_addr)?;
        Ok(RingIo {
            bufs,
            fetched: Vec::new(),
            posted: Vec::new(),
            sent: Vec::new(),
            sends_used: 0,
            spin: if cfg!(net_apart) {
                Spin::apart()
            } else {
                Spin::shared()
            },
            tally: Tally::default(),
        })
    }

    /// The next answer: polled for the spin budget, then slept on.
    fn next(&mut self, net: &mut Net) -> Result<Reaped, NetErr> {
        let budget = self.spin.budget();
        for look in 0..budget {
            if let Some(r) = net.ring_reap()? {
                self.spin.answered(look + 1);
                return Ok(r);
            }
            core::hint::spin_loop();
        }
        if budget > 0 {
            self.spin.slept();
        }
        // Looks again before sleeping, and sleeps only if there is none.
        self.tally.sleeps += 1;
        net.ring_wait()
    }

    /// Posts one entry (counted).
    fn submit(&mut self, net: &mut Net, op: u16, operands: &[Operand]) -> Result<Ticket, NetErr> {
        let t = net.ring_submit(op, operands)?;
        self.tally.entries += 1;
        Ok(t)
    }

    /// Ends a submission: the doorbell if the server sleeps (counted).
    fn flush(&mut self, net: &mut Net) -> Result<(), NetErr> {
        self.tally.submissions += 1;
        if net.ring_flush()? {
            self.tally.doorbells += 1;
        }
        Ok(())
    }

    /// One entry, waited for; answers of entries an earlier failure left
    /// behind are dropped on the way.
    fn one(&mut self, net: &mut Net, op: u16, operands: &[Operand]) -> Result<u64, NetErr> {
        let ticket = self.submit(net, op, operands)?;
        self.flush(net)?;
        loop {
            let r = self.next(net)?;
            if r.ticket == ticket {
                return value(&r);
            }
            self.file(r);
        }
    }

    /// Posts one batch of receives (at most [`BATCH`]), slots from
    /// `first`, and reaps their answers into `fetched`.
    fn batch(&mut self, net: &mut Net, reads: &[Read], first: usize) -> Result<(), NetErr> {
        let mut posted: Vec<(Ticket, Socket, u32)> = Vec::with_capacity(reads.len());
        for (i, r) in reads.iter().enumerate() {
            let offset = (first + i) as u32 * RECV_SLOT;
            let room = r.room.min(RECV_SLOT as usize) as u32;
            let operands = recv_operands(r.sock, self.bufs, offset, room);
            // A receive that cannot be posted is made alone by `recv`.
            if let Ok(t) = self.submit(net, net_ops::RECV, &operands) {
                posted.push((t, r.sock, offset));
            }
        }
        self.flush(net)?;
        while !posted.is_empty() {
            let r = self.next(net)?;
            let Some(at) = posted.iter().position(|p| p.0 == r.ticket) else {
                self.file(r);
                continue;
            };
            let (_, sock, offset) = posted.swap_remove(at);
            let got = value(&r).map(|n| (offset, (n as usize).min(RECV_SLOT as usize)));
            self.fetched.push(Fetched { sock, got });
        }
        Ok(())
    }
}

impl RingIo {
    /// Files an answer that is not the one awaited: a posted send's
    /// count, kept for its connection; any other was left behind by an
    /// earlier failure and is dropped.
    fn file(&mut self, r: Reaped) {
        if let Some(at) = self.posted.iter().position(|p| p.ticket == r.ticket) {
            let p = self.posted.swap_remove(at);
            let got = value(&r).map(|n| (n as usize).min(p.len));
            self.sent.push((p.sock, got));
        }
    }

    /// Flushes the posted sends and reaps them all; on a failure of the
    /// rings (the server restarted, say) each gets the error, as by IPC.
    fn reap_sends(&mut self, net: &mut Net) {
        if self.posted.is_empty() {
            return;
        }
        let reaped = self.flush(net).and_then(|()| {
            while !self.posted.is_empty() {
                let r = self.next(net)?;
                self.file(r);
            }
            Ok(())
        });
        if let Err(e) = reaped {
            self.sent
                .extend(self.posted.drain(..).map(|p| (p.sock, Err(e))));
        }
        // The server has copied every reaped send's bytes.
        self.sends_used = 0;
    }

    /// The count reaped for `sock`'s posted send, if there is one.
    fn take_sent(&mut self, sock: Socket) -> Option<Result<Sent, NetErr>> {
        let at = self.sent.iter().position(|s| s.0 == sock)?;
        Some(self.sent.swap_remove(at).1.map(Sent::Took))
    }

    /// Posts a send of `span` on `sock` in the batch; when the rings
    /// refuse it (answers an earlier failure left behind fill them), the
    /// batch is settled and the send made alone.
    fn post(&mut self, net: &mut Net, sock: Socket, span: PagesSpan) -> Result<Sent, NetErr> {
        let operands = pages_operands(sock, span);
        let len = span.len as usize;
        match self.submit(net, net_ops::SEND, &operands) {
            Ok(ticket) => {
                self.posted.push(Posted { ticket, sock, len });
                Ok(Sent::Posted)
            }
            Err(_) => {
                self.reap_sends(net);
                let n = self.one(net, net_ops::SEND, &operands)?;
                Ok(Sent::Took((n as usize).min(len)))
            }
        }
    }

    /// Makes room for one more posted send of up to `want` bytes of
    /// text (`want` 0: no text): settles the batch when the rings or the
    /// sends area are full.
    fn room(&mut self, net: &mut Net, want: usize) {
        let area_full = want > 0 && self.sends_used >= SENDS_LEN;
        if self.posted.len() >= BATCH || area_full {
            self.reap_sends(net);
        }
    }
}

impl SocketIo for RingIo {
    /// One WAIT entry, parked by the server until a socket is ready or
    /// the timeout passes; httpd polls for its answer, then sleeps on it.
    fn wait(
        &mut self,
        net: &mut Net,
        entries: &mut [PollEntry],
        timeout_ms: u64,
    ) -> Result<usize, NetErr> {
        let len = entries.len() * PollEntry::SIZE;
        if len > SINGLE_LEN as usize {
            return Err(NetErr::TooLarge);
        }
        let at = SINGLE_AT as usize;
        let area = net.data(self.bufs).ok_or(NetErr::NoRing)?;
        for (e, bytes) in entries
            .iter()
            .zip(area[at..at + len].chunks_exact_mut(PollEntry::SIZE))
        {
            e.encode(bytes);
        }
        let operands = [
            Operand::Buf {
                region: self.bufs,
                offset: SINGLE_AT,
                len: len as u32,
            },
            Operand::Value(entries.len() as u64),
            Operand::Value(timeout_ms),
        ];
        self.tally.rounds += 1;
        let ready = self.one(net, net_ops::WAIT, &operands)?;
        let area = net.data(self.bufs).ok_or(NetErr::NoRing)?;
        for (e, bytes) in entries
            .iter_mut()
            .zip(area[at..at + len].chunks_exact(PollEntry::SIZE))
        {
            e.revents = PollEntry::decode(bytes).map_or(Events::INVALID, |d| d.revents);
        }
        Ok(ready as usize)
    }

    /// After a reconnect (the network server restarted): the session
    /// shared the buffers region again under the same number, and
    /// `Net::reconnect` opened the rings again in theirs (a `ring_open`
    /// here would attach that region a second time); what was in flight
    /// went with the old server. Fails with `NoRing` if the rings are
    /// not open.
    fn reopen(&mut self, net: &mut Net) -> Result<(), NetErr> {
        self.fetched.clear();
        self.posted.clear();
        self.sent.clear();
        self.sends_used = 0;
        net.ring_in_flight().map(drop)
    }

    fn tally(&self) -> Tally {
        self.tally
    }

    fn prefetch(&mut self, net: &mut Net, reads: &[Read]) {
        self.fetched.clear();
        let reads = &reads[..reads.len().min(RECV_SLOTS)];
        for (n, chunk) in reads.chunks(BATCH).enumerate() {
            if let Err(e) = self.batch(net, chunk, n * BATCH) {
                // The rings failed (the server restarted, say): every
                // receive of the round gets the error, as by IPC.
                for r in reads {
                    if !self.fetched.iter().any(|f| f.sock == r.sock) {
                        self.fetched.push(Fetched {
                            sock: r.sock,
                            got: Err(e),
                        });
                    }
                }
                return;
            }
        }
    }

    fn recv(&mut self, net: &mut Net, sock: Socket, buf: &mut [u8]) -> Result<usize, NetErr> {
        let (offset, n) = match self.fetched.iter().position(|f| f.sock == sock) {
            Some(at) => self.fetched.swap_remove(at).got?,
            None => {
                let room = buf.len().min(SINGLE_LEN as usize) as u32;
                let operands = recv_operands(sock, self.bufs, SINGLE_AT, room);
                let n = self.one(net, net_ops::RECV, &operands)?;
                (SINGLE_AT, (n as usize).min(room as usize))
            }
        };
        let n = n.min(buf.len());
        let start = offset as usize;
        let data = net.data(self.bufs).ok_or(NetErr::NoRing)?;
        buf[..n].copy_from_slice(&data[start..start + n]);
        Ok(n)
    }

    fn send(&mut self, net: &mut Net, sock: Socket, data: &[u8]) -> Result<Sent, NetErr> {
        if let Some(got) = self.take_sent(sock) {
            return got;
        }
        self.room(net, data.len());
        let n = data.len().min((SENDS_LEN - self.sends_used) as usize);
        let at = (SENDS_AT + self.sends_used) as usize;
        let area = net.data(self.bufs).ok_or(NetErr::NoRing)?;
        area[at..at + n].copy_from_slice(&data[..n]);
        let span = PagesSpan {
            region: self.bufs,
            offset: SENDS_AT + self.sends_used,
            len: n as u32,
        };
        self.sends_used += n as u32;
        self.post(net, sock, span)
    }

    fn send_pages(&mut self, net: &mut Net, sock: Socket, span: PagesSpan) -> Result<Sent, NetErr> {
        if let Some(got) = self.take_sent(sock) {
            return got;
        }
        self.room(net, 0);
        self.post(net, sock, span)
    }

    fn settle(&mut self, net: &mut Net) {
        self.reap_sends(net);
    }
}

/// A RECV of up to `room` bytes into `offset` of region `region`.
fn recv_operands(sock: Socket, region: u8, offset: u32, room: u32) -> [Operand; 3] {
    [
        Operand::Value(sock.0),
        Operand::Buf {
            region,
            offset,
            len: room,
        },
        Operand::Value(u64::from(room)),
    ]
}

/// An answer's value, or the error its status names.
fn value(r: &Reaped) -> Result<u64, NetErr> {
    let c = r.completion;
    if c.is_ok() {
        Ok(c.value)
    } else {
        Err(NetErr::from_status(u32::from(c.status), c.value))
    }
}
