//! One connection as the event loop drives it: its request side
//! (`conflux_http::conn::Conn`), the answer going out ([`Out`]), and how
//! it ends.
//!
//! Each round the loop calls [`Client::serve`] on every connection: the
//! pending answer moves first, then the request side reads and starts the
//! next answers. Deadlines are looked at after the I/O, so a connection
//! the network server can take bytes for again is never cut for a wait
//! that was httpd's own (a round that came late). An answer that missed
//! its deadlines (`conflux_http::pace`) is reset and its file closed.

use alloc::string::String;

use conflux_fs_client::Fs;
use conflux_http::conn::{Conn, Step};
use conflux_http::pace::Verdict;
use conflux_http::seats::Seat;
use conflux_http::stats::Counters;
use conflux_http::Method;
use conflux_http::Status;
use conflux_net_client::{Events, Net, NetError, SockAddr, Socket};
use conflux_userlib::println;

use crate::answer::{self, When};
use crate::notes::Notes;
use crate::out::{Broken, Out, Pages, Pumped, SLOT};
use crate::restart;
use crate::sockio::{Read, SocketIo};

/// How long a connection's last answer may wait for the peer to close.
const LINGER_MS: u64 = 2000;

/// Bytes one round reads from a connection at most.
const RECV_BUF: usize = 4096;

/// Whether `revents` says there is something to read (data, the peer's
/// close, or an error the receive reports).
fn wants_input(revents: Events) -> bool {
    let input = Events::READABLE.union(Events::HANGUP).union(Events::ERROR);
    !revents.intersect(input).is_empty()
}

/// How a connection leaves the loop at the end of the round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Still served.
    Open,
    /// `close`: what is queued still goes out.
    Close,
    /// `abort`: reset now (an answer that cannot finish, a peer that
    /// stopped reading).
    Abort,
}

/// What serving needs besides the connection.
pub struct Io<'a> {
    pub net: &'a mut Net,
    /// How socket operations reach the network server (IPC or rings).
    pub sockio: &'a mut dyn SocketIo,
    pub fs: &'a mut Fs,
    pub pages: Pages,
    pub notes: &'a mut Notes,
    pub counters: &'a mut Counters,
    /// The round's wall-clock time, for `Date` and conditions.
    pub when: When,
    /// How long httpd has run, for the status page.
    pub uptime_ms: u64,
}

/// One connection.
pub struct Client {
    pub sock: Socket,
    pub peer: SockAddr,
    conn: Conn,
    out: Option<Out>,
    /// What the answer going out answers, for log lines.
    what: String,
    /// Its slot in the pages region (an index below `MAX_CONNS`); `None`
    /// for a connection turned away with 503, which never gets a file.
    pub slot: Option<u32>,
    /// When it must be looked at again without news (a deadline).
    pub due: Option<u64>,
    /// Answered for the last time and shut for writing, since the first
    /// time: what still comes is read and dropped until the peer closes
    /// or the second time passes. Closing at once with unread bytes would
    /// reset the connection, and the peer would lose the answer (a 431 to
    /// a header flood, say).
    linger: Option<(u64, u64)>,
    pub end: End,
    /// The peer closed its side (a receive got 0) this round.
    peer_closed: bool,
    /// A send of its answer waits in the round's batch; where to go on.
    posted: Option<Stage>,
}

/// Where a connection stopped for a posted send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Pumping the answer left from an earlier round, before the read
    /// of this round's `revents`.
    BeforeRead(Events),
    /// Pumping an answer started this round, after the read.
    Answering,
}

impl Client {
    /// A connection accepted at `now`, served in `slot`.
    pub fn new(sock: Socket, peer: SockAddr, slot: u32, now: u64) -> Client {
        Client {
            sock,
            peer,
            conn: Conn::new(now),
            out: None,
            what: String::new(),
            slot: Some(slot),
            due: None,
            linger: None,
            end: End::Open,
            peer_closed: false,
            posted: None,
        }
    }

    /// A connection turned away: `page` (a 503) goes out first, then it
    /// lingers and closes like any other.
    pub fn turned_away(
        sock: Socket,
        peer: SockAddr,
        page: alloc::vec::Vec<u8>,
        now: u64,
    ) -> Client {
        Client {
            out: Some(Out::text(Status::Unavailable, page, false)),
            what: String::from("a 503"),
            slot: None,
            ..Client::new(sock, peer, 0, now)
        }
    }

    /// Whether an answer is going out (it waits to write, not to read).
    pub fn sending(&self) -> bool {
        self.out.is_some()
    }

    /// Whether it can be evicted, and since when it has been quiet:
    /// lingering after its last answer, its answer's last progress, or
    /// its request side's quiet time.
    pub fn seat(&self) -> Option<Seat> {
        if self.slot.is_none() || self.end != End::Open {
            return None;
        }
        let quiet_since = match (&self.linger, &self.out) {
            (Some((since, _)), _) => *since,
            (None, Some(out)) => out.moved_at().unwrap_or_else(|| self.conn.quiet_since()),
            (None, None) => self.conn.quiet_since(),
        };
        Some(Seat {
            peer: self.peer.ip,
            quiet_since,
        })
    }

    /// Evicted to make room: its slot goes to the newcomer. An answer
    /// under way cannot finish, so it is reset; otherwise the close is
    /// clean (an idle keep-alive client reconnects as HTTP allows).
    pub fn evict(&mut self) -> Option<u32> {
        self.end = if self.out.is_some() {
            End::Abort
        } else {
            End::Close
        };
        self.slot.take()
    }

    /// Gives back what it holds: its file, then its socket.
    pub fn finish(&mut self, net: &mut Net, fs: &mut Fs) {
        if let Some(mut o) = self.out.take() {
            o.abandon(fs);
        }
        let _ = match self.end {
            End::Abort => net.abort(self.sock),
            _ => net.close(self.sock),
        };
    }

    /// Gives its file back after the network server restarted (the
    /// socket went with it).
    pub fn drop_file(&mut self, fs: &mut Fs) {
        if let Some(mut o) = self.out.take() {
            o.abandon(fs);
        }
    }

    /// After the file server restarted: an answer in the middle of a
    /// file cannot go on (its handle died with the server), so it is cut
    /// and the connection reset; returns whether it was.
    pub fn lose_file(&mut self) -> bool {
        let cut = self.out.as_mut().is_some_and(Out::forget_file);
        if cut {
            self.end = End::Abort;
        }
        cut
    }

    /// Moves it on at `now`: sends what is pending, reads what arrived
    /// (`revents`), and starts the answers to the requests now complete,
    /// in order. A send posted in the round's batch stops it there, until
    /// [`Client::resume`].
    pub fn serve(&mut self, revents: Events, io: &mut Io<'_>, now: u64) {
        if self.end != End::Open {
            return;
        }
        if let Some((_, until)) = self.linger {
            self.drain(io, until, now);
            return;
        }
        self.due = None;
        self.peer_closed = false;
        if !self.pump(io, now, Stage::BeforeRead(revents)) {
            return;
        }
        self.read_then_answer(revents, io, now);
    }

    /// Whether a send of its answer waits in the round's batch.
    pub fn posted(&self) -> bool {
        self.posted.is_some()
    }

    /// After the round's batch of sends was settled: goes on where the
    /// posted send stopped [`Client::serve`], as if it had not.
    pub fn resume(&mut self, io: &mut Io<'_>, now: u64) {
        let Some(stage) = self.posted.take() else {
            return;
        };
        if self.end != End::Open || !self.pump(io, now, stage) {
            return;
        }
        match stage {
            Stage::BeforeRead(revents) => self.read_then_answer(revents, io, now),
            Stage::Answering => self.answer(io, now),
        }
    }

    fn read_then_answer(&mut self, revents: Events, io: &mut Io<'_>, now: u64) {
        let Some(peer_closed) = self.read(revents, io, now) else {
            return;
        };
        self.peer_closed = peer_closed;
        self.answer(io, now);
    }

    /// Starts the answers to the requests now complete, in order.
    fn answer(&mut self, io: &mut Io<'_>, now: u64) {
        loop {
            let mut step = self.conn.next(now);
            if self.peer_closed && matches!(step, Step::WaitUntil(_)) {
                step = self.conn.peer_closed();
            }
            match step {
                Step::Serve(req) => {
                    self.what = alloc::format!("{} {}", answer::method_name(req.method), req.path);
                    let out = if req.status_page {
                        // Counted first, so the page includes itself.
                        io.counters.request(Status::Ok);
                        let mut text = io.counters.page(io.when.wall, io.uptime_ms);
                        io.sockio.tally().write(&mut text);
                        answer::status_page(&req, text, io.when)
                    } else {
                        let out = answer::to(io.fs, &req, io.when);
                        io.counters.request(out.status);
                        out
                    };
                    self.out = Some(out);
                }
                Step::Refuse { status, why } => {
                    self.what = alloc::format!("a {} to a refused request", status.code());
                    io.counters.request(status);
                    self.out = Some(answer::error(Method::Get, status, &why, false, io.when));
                }
                Step::Close => {
                    self.end = End::Close;
                    return;
                }
                Step::WaitUntil(t) => {
                    self.due = Some(t);
                    return;
                }
            }
            if !self.pump(io, now, Stage::Answering) {
                return;
            }
        }
    }

    /// The receive [`Client::serve`] will make this round with
    /// `revents`, if it is sure to make one: an open connection with no
    /// answer going out (an answer that cannot finish would stop the
    /// round before its read) and room for more of its request. The
    /// ring mode posts these together before the round.
    pub fn read_ahead(&self, revents: Events) -> Option<Read> {
        let sure = self.end == End::Open && self.linger.is_none() && self.out.is_none();
        let room = self.conn.room().min(RECV_BUF);
        (sure && wants_input(revents) && room > 0).then_some(Read {
            sock: self.sock,
            room,
        })
    }

    /// Reads what arrived; `Some(peer_closed)`, or `None` when the
    /// connection cannot go on.
    fn read(&mut self, revents: Events, io: &mut Io<'_>, now: u64) -> Option<bool> {
        if !wants_input(revents) || self.conn.room() == 0 {
            return Some(false);
        }
        let mut buf = [0u8; RECV_BUF];
        let room = self.conn.room().min(buf.len());
        match io.sockio.recv(io.net, self.sock, &mut buf[..room]) {
            Ok(0) => Some(true),
            Ok(n) => {
                self.conn.received(&buf[..n], now);
                Some(false)
            }
            Err(e) if e.net() == Some(NetError::WouldBlock) => Some(false),
            Err(e) if restart::note(&e) => None,
            Err(e) => {
                if e.net() == Some(NetError::ConnectionReset) {
                    io.counters.reset_by_peer += 1;
                    io.notes.gone(now, self.peer, "a request");
                } else {
                    println!(
                        "connection from {}: receive failed: {e}; closing it",
                        self.peer
                    );
                }
                self.end = End::Close;
                None
            }
        }
    }

    /// Reads and drops what a lingering connection still gets.
    fn drain(&mut self, io: &mut Io<'_>, until: u64, now: u64) {
        let mut buf = [0u8; RECV_BUF];
        loop {
            match io.sockio.recv(io.net, self.sock, &mut buf) {
                Ok(0) => break,
                Ok(_) => continue,
                Err(e) if e.net() == Some(NetError::WouldBlock) && now < until => {
                    self.due = Some(until);
                    return;
                }
                Err(e) => {
                    restart::note(&e);
                    break;
                }
            }
        }
        self.end = End::Close;
    }

    /// Sends the pending answer; true when it is all out and the
    /// connection stays open for the next request. An answer that must
    /// wait for the peer is held to its deadlines here; one whose send
    /// was posted notes `stage`, where [`Client::resume`] goes on.
    fn pump(&mut self, io: &mut Io<'_>, now: u64, stage: Stage) -> bool {
        let Some(out) = self.out.as_mut() else {
            return true;
        };
        // A turned-away connection's answer is text: it never uses the slot.
        let slot = self.slot.unwrap_or(0) * SLOT;
        let before = out.progress().0;
        let pumped = out.pump(io.net, io.sockio, io.fs, self.sock, io.pages, slot, now);
        io.counters.bytes_sent += out.progress().0 - before;
        match pumped {
            Pumped::Posted => {
                self.posted = Some(stage);
                false
            }
            Pumped::Blocked => {
                match out.check(now) {
                    Verdict::OnTime { check_at } => self.due = Some(check_at),
                    late => {
                        io.counters.cut += 1;
                        io.notes
                            .cut(now, self.peer, &self.what, late, out.progress());
                        self.end = End::Abort;
                    }
                }
                false
            }
            Pumped::Broken(why) => {
                match why {
                    Broken::Restarted => {}
                    Broken::PeerGone => {
                        io.counters.reset_by_peer += 1;
                        io.notes.gone(now, self.peer, &self.what);
                    }
                    Broken::Net(e) => println!(
                        "sending {} to {} failed: {e}; closing the connection",
                        self.what, self.peer
                    ),
                    Broken::File(at) => println!(
                        "sending {} to {}: the file could not be read at offset {at} (it shrank, or the file server failed); closing the connection, whose answer is cut short",
                        self.what, self.peer
                    ),
                }
                self.end = End::Close;
                false
            }
            Pumped::Done => {
                let keep = out.keep_alive;
                self.out = None;
                if !keep {
                    let _ = io.net.shutdown(self.sock, false, true);
                    self.linger = Some((now, now + LINGER_MS));
                    self.due = Some(now + LINGER_MS);
                }
                keep
            }
        }
    }
}
