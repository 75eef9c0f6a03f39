//! The `tcp` sink: one connection to the peer, made at START, carrying
//! the flow's buffers' bytes as one stream, in order.
//!
//! The socket is non-blocking, so a send never holds up the task (and
//! with it `flowmgr`'s messages and the task's other flows). A buffer the
//! socket takes only part of stays held by the stage (a transient
//! failure) and [`Stream::done`] remembers how much of it already went,
//! so the retry sends exactly the rest: no byte is lost or sent twice.
//! A connection that is gone — the peer reset it, or the network server
//! restarted, which takes every connection with it — is a permanent
//! failure of the stage: it is said on the console once and every later
//! buffer is dropped and counted. It is never silently made again, since
//! the bytes in between would be missing from the middle of the stream.

use crate::work::socket;
use conflux_flow_protocol::stage::{Peer, StageStatus};
use conflux_flow_stage::{coalesce, Failure};
use conflux_net_client::{Error, Events, Net, NetError, PollEntry, SockAddr, SockKind, Socket};
use conflux_userlib::println;

/// How long START waits for the connection (ms). The peers are a few
/// hops away at most (from QEMU's user network, the host's forwarded
/// ports); a connection not made by then is refused rather than left
/// to hold buffers.
const CONNECT_MS: u64 = 2000;
/// The most bytes of several buffers copied together into one send.
const COALESCE: usize = 16 * 1024;
/// One wait for room in the socket at STOP (ms).
pub const FLUSH_WAIT_MS: u64 = 100;

/// One flow's connection.
pub struct Stream {
    peer: Peer,
    socket: Socket,
    /// The sequence number of the buffer being sent, while it is held
    /// over a transient failure, and how many of its bytes already went.
    held: Option<u32>,
    done: usize,
    /// The connection is gone (said once on the console).
    gone: bool,
    /// Where small buffers are put together for one send.
    staging: alloc::vec::Vec<u8>,
    /// Buffers sent whole, and bytes sent (STATS figures).
    pub buffers: u64,
    pub bytes: u64,
}

impl Stream {
    /// Connects to `peer`; refuses (`DeviceRefused`, with a console line
    /// naming the peer) if the connection fails or is not made within
    /// [`CONNECT_MS`].
    pub fn open(net: &mut Net, peer: Peer) -> Result<Stream, StageStatus> {
        let refuse = |why: &dyn core::fmt::Display| {
            println!(
                "tcp sink to {peer}: no connection ({why}); START refused. Check that something listens there: the host is 10.0.2.100 from the guest, on the ports of the net device's guest_forwards"
            );
            StageStatus::DeviceRefused
        };
        let s = socket(net, SockKind::Stream).map_err(|e| refuse(&e))?;
        match connect(net, s, SockAddr::new(peer.addr, peer.port)) {
            Ok(()) => Ok(Stream {
                peer,
                socket: s,
                held: None,
                done: 0,
                gone: false,
                staging: alloc::vec::Vec::new(),
                buffers: 0,
                bytes: 0,
            }),
            Err(why) => {
                let _ = net.close(s);
                Err(refuse(&why))
            }
        }
    }

    /// Sends `src` (the buffer numbered `seq`), or its rest if it was
    /// held over from a transient failure.
    pub fn take(&mut self, net: &mut Net, src: &[u8], seq: u32) -> Result<(), Failure> {
        let mut result = [Ok(())];
        self.take_batch(net, &[(src, seq)], &mut result);
        result[0]
    }

    /// Sends the buffers `bufs` (bytes and sequence number, in order),
    /// the first from where a transient failure left it, as one piece of
    /// the stream: as many as fit [`COALESCE`] bytes (at least one),
    /// copied together so one call to the network server carries them
    /// all (a buffer alone goes straight from the pool). Returns how many
    /// it covered; `results[i]` is `Ok` for each that went whole. The
    /// first one the socket did not take whole is a transient failure
    /// (held, [`Self::done`] remembering how much of it went) and so are
    /// those after it; after a lost connection the rest are permanent.
    pub fn take_batch(
        &mut self,
        net: &mut Net,
        bufs: &[(&[u8], u32)],
        results: &mut [Result<(), Failure>],
    ) -> usize {
        if self.gone {
            results.fill(Err(Failure::Permanent));
            return bufs.len();
        }
        let Some(&(first, seq)) = bufs.first() else {
            return 0;
        };
        if self.held != Some(seq) {
            self.held = Some(seq);
            self.done = 0;
        }
        let rest = first.get(self.done..).unwrap_or(&[]);
        let group = coalesce::group(rest.len(), lens(&bufs[1..]), COALESCE);
        let mut staging = core::mem::take(&mut self.staging);
        let bytes = if group == 1 {
            rest
        } else {
            staging.clear();
            staging.extend_from_slice(rest);
            for (b, _) in &bufs[1..group] {
                staging.extend_from_slice(b);
            }
            &staging[..]
        };
        let mut sent = 0;
        let mut stopped = None;
        while sent < bytes.len() {
            match net.send(self.socket, &bytes[sent..]) {
                Ok(0) | Err(Error::Net(NetError::WouldBlock)) => {
                    stopped = Some(Failure::Transient);
                    break;
                }
                Ok(n) => {
                    sent += n;
                    self.bytes += n as u64;
                }
                Err(e) => {
                    self.lose(e);
                    stopped = Some(Failure::Permanent);
                    break;
                }
            }
        }
        self.staging = staging;
        // The bytes of the group gone so far, the first buffer's earlier
        // part included, handed out to the buffers in order.
        let r = coalesce::reached(lens(&bufs[..group]), sent + self.done);
        self.held = None;
        self.done = 0;
        let each = bufs.iter().zip(results.iter_mut()).take(group);
        for (i, ((_, seq), result)) in each.enumerate() {
            if i < r.whole {
                self.buffers += 1;
                *result = Ok(());
                continue;
            }
            let failure = stopped.unwrap_or(Failure::Transient);
            if i == r.whole && failure == Failure::Transient {
                self.held = Some(*seq);
                self.done = r.part;
            }
            *result = Err(failure);
        }
        group
    }

    fn lose(&mut self, e: Error) {
        self.gone = true;
        let why: alloc::string::String = match e {
            Error::ServerRestarted => {
                "the network server restarted, and the connection with it".into()
            }
            Error::Net(NetError::BadSocket) => {
                "the socket is gone (the network server restarted and this task connected to it again)".into()
            }
            e => alloc::format!("the connection failed ({e})"),
        };
        println!(
            "tcp sink to {}: {why}, after {} bytes; this flow's later buffers are dropped and counted. Destroy the flow and create it again for a new stream",
            self.peer, self.bytes
        );
    }

    /// The connection's socket.
    pub fn socket(&self) -> Socket {
        self.socket
    }

    /// Waits (at most [`FLUSH_WAIT_MS`]) until the socket can take more.
    pub fn wait_writable(&mut self, net: &mut Net) {
        let mut entry = [PollEntry {
            handle: self.socket.0 as u32,
            events: Events::WRITABLE,
            revents: Events::NONE,
        }];
        if let Err(e) = net.wait(&mut entry, FLUSH_WAIT_MS) {
            self.lose(e);
        }
    }

    /// STOP came and the peer took nothing more for a while.
    pub fn gave_up(&self) {
        println!(
            "tcp sink to {}: at STOP the peer took no more within {} ms; the stream ends after {} bytes, and what the flow still held is not sent",
            self.peer,
            FLUSH_WAIT_MS * 20,
            self.bytes
        );
    }

    /// Closes the connection: the network server sends what it queued,
    /// then the FIN.
    pub fn close(self, net: &mut Net) {
        let _ = net.close(self.socket);
    }
}

/// Why a connection was not made.
enum NotMade {
    Failed(Error),
    Slow,
}

impl core::fmt::Display for NotMade {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Failed(e) => write!(f, "{e}"),
            Self::Slow => write!(f, "not made within {CONNECT_MS} ms"),
        }
    }
}

/// Makes `s` non-blocking and connects it to `to`, waiting at most
/// [`CONNECT_MS`] for the handshake.
fn connect(net: &mut Net, s: Socket, to: SockAddr) -> Result<(), NotMade> {
    net.set_nonblocking(s, true).map_err(NotMade::Failed)?;
    match net.connect_to(s, to) {
        Ok(()) => return Ok(()),
        Err(Error::Net(NetError::InProgress)) => {}
        Err(e) => return Err(NotMade::Failed(e)),
    }
    let mut entry = [PollEntry {
        handle: s.0 as u32,
        events: Events::WRITABLE,
        revents: Events::NONE,
    }];
    net.wait(&mut entry, CONNECT_MS).map_err(NotMade::Failed)?;
    // Connecting again says where the attempt is: done, still under way,
    // or failed (refused, reset).
    match net.connect_to(s, to) {
        Ok(()) | Err(Error::Net(NetError::AlreadyConnected)) => Ok(()),
        Err(Error::Net(NetError::Already | NetError::InProgress)) => Err(NotMade::Slow),
        Err(e) => Err(NotMade::Failed(e)),
    }
}

/// The lengths of `bufs`.
fn lens<'a>(bufs: &'a [(&[u8], u32)]) -> impl Iterator<Item = usize> + 'a {
    bufs.iter().map(|(b, _)| b.len())
}
