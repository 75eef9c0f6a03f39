//! An answer on its way out: text (head, listing, error page) sent from
//! httpd's memory, then a file's body moved from the file server to the
//! network server through the connection's slot of the shared `pages`
//! region: the file server reads into the slot (`pread` with a buffer
//! operand in the region it shares with httpd), the network server sends
//! from the same bytes (`send` with an operand in its own mapping of it).
//! httpd passes offsets, never the data. Every step is non-blocking: a
//! full socket leaves the rest for when it is writable again.
//!
//! Each answer keeps a [`Pace`] from the moment it first goes out, fed
//! with every byte the network server takes: it says when a peer that
//! reads too slowly, or not at all, has had its time ([`Out::check`]).

use alloc::vec::Vec;

use conflux_fs_client::{Fd, Fs};
use conflux_fs_protocol::ops as fs_ops;
use conflux_http::pace::{Pace, Verdict};
use conflux_http::Status;
use conflux_net_client::{Error as NetErr, Net, NetError, Operand};

use crate::sockio::{PagesSpan, Sent, SocketIo};

use conflux_net_client::Socket;

/// Bytes of one connection's slot in the pages region.
pub const SLOT: u32 = 32 * 1024;

/// A file body still to send: the whole file, or the part a range names.
pub struct FileBody {
    fd: Fd,
    /// Next file offset to read.
    offset: u64,
    /// The offset after the last byte to send.
    stop: u64,
    /// Bytes of the body (`end` minus the first offset).
    len: u64,
    /// Bytes read into the slot and not yet sent: `start..end`.
    start: u32,
    end: u32,
}

impl FileBody {
    /// `len` bytes of the file open as `fd`, from offset `first`.
    pub fn new(fd: Fd, first: u64, len: u64) -> FileBody {
        FileBody {
            fd,
            offset: first,
            stop: first + len,
            len,
            start: 0,
            end: 0,
        }
    }
}

/// What is left of an answer.
pub struct Out {
    /// The status its head carries (for the counters).
    pub status: Status,
    text: Vec<u8>,
    sent: usize,
    file: Option<FileBody>,
    /// Keep the connection after the answer.
    pub keep_alive: bool,
    /// Its deadlines, from its first `pump`.
    pace: Option<Pace>,
}

/// Where the two servers see the pages region, and this connection's slot.
#[derive(Clone, Copy)]
pub struct Pages {
    /// The region's number in the file server's session.
    pub fs_region: u8,
    /// The region's number in the network server's session.
    pub net_region: u8,
}

/// How pumping ended.
pub enum Pumped {
    /// All sent.
    Done,
    /// The socket is full: wait until it is writable.
    Blocked,
    /// A send waits in the round's batch: pump again after
    /// [`SocketIo::settle`].
    Posted,
    /// The connection cannot go on: close it.
    Broken(Broken),
}

/// Why an answer cannot go on.
pub enum Broken {
    /// The network server restarted: every connection went with it.
    Restarted,
    /// The peer reset or closed the connection (a download cancelled).
    PeerGone,
    /// Another refusal from the network server.
    Net(NetErr),
    /// The file shrank, or a read failed, at this offset: the
    /// Content-Length promised cannot be kept.
    File(u64),
}

impl Out {
    pub fn text(status: Status, text: Vec<u8>, keep_alive: bool) -> Out {
        Out {
            status,
            text,
            sent: 0,
            file: None,
            keep_alive,
            pace: None,
        }
    }

    pub fn file(status: Status, head: Vec<u8>, body: FileBody, keep_alive: bool) -> Out {
        Out {
            file: Some(body),
            ..Out::text(status, head, keep_alive)
        }
    }

    /// Bytes of the whole answer: text and file body.
    fn len(&self) -> u64 {
        self.text.len() as u64 + self.file.as_ref().map_or(0, |f| f.len)
    }

    /// Its standing against its deadlines at `now`.
    pub fn check(&self, now: u64) -> Verdict {
        self.pace
            .map_or(Verdict::OnTime { check_at: now }, |p| p.check(now))
    }

    /// When it last moved (`None` before its first `pump`).
    pub fn moved_at(&self) -> Option<u64> {
        self.pace.map(|p| p.moved_at())
    }

    /// Bytes gone, of the whole answer.
    pub fn progress(&self) -> (u64, u64) {
        self.pace.map_or((0, self.len()), |p| p.progress())
    }

    /// Sends what the socket takes at `now`; `slot` is this connection's
    /// slot.
    #[allow(clippy::too_many_arguments)]
    pub fn pump(
        &mut self,
        net: &mut Net,
        io: &mut dyn SocketIo,
        fs: &mut Fs,
        sock: Socket,
        pages: Pages,
        slot: u32,
        now: u64,
    ) -> Pumped {
        let total = self.len();
        let pace = self.pace.get_or_insert_with(|| Pace::new(total, now));
        while self.sent < self.text.len() {
            match io.send(net, sock, &self.text[self.sent..]) {
                Ok(Sent::Took(n)) => {
                    self.sent += n;
                    pace.sent(n as u64, now);
                }
                Ok(Sent::Posted) => return Pumped::Posted,
                Err(e) => return blocked_or_broken(e),
            }
        }
        let Some(f) = self.file.as_mut() else {
            return Pumped::Done;
        };
        loop {
            if f.start == f.end {
                if f.offset == f.stop {
                    return self.finish(fs);
                }
                let want = (f.stop - f.offset).min(u64::from(SLOT)) as u32;
                let read = fs.call(
                    fs_ops::PREAD,
                    &[
                        Operand::Value(f.fd.0),
                        Operand::Buf {
                            region: pages.fs_region,
                            offset: slot,
                            len: want,
                        },
                        Operand::Value(u64::from(want)),
                        Operand::Value(f.offset),
                    ],
                );
                match read {
                    Ok(n) if n > 0 => {
                        let n = (n as u32).min(want);
                        (f.start, f.end) = (0, n);
                        f.offset += u64::from(n);
                    }
                    _ => {
                        let at = f.offset;
                        let _ = fs.close(f.fd);
                        self.file = None;
                        return Pumped::Broken(Broken::File(at));
                    }
                }
            }
            let span = PagesSpan {
                region: pages.net_region,
                offset: slot + f.start,
                len: f.end - f.start,
            };
            let sent = io.send_pages(net, sock, span);
            match sent {
                Ok(Sent::Took(n)) => {
                    let n = (n as u32).min(f.end - f.start);
                    f.start += n;
                    pace.sent(u64::from(n), now);
                }
                Ok(Sent::Posted) => return Pumped::Posted,
                Err(e) => return blocked_or_broken(e),
            }
        }
    }

    fn finish(&mut self, fs: &mut Fs) -> Pumped {
        if let Some(f) = self.file.take() {
            let _ = fs.close(f.fd);
        }
        Pumped::Done
    }

    /// Forgets the open file without closing it (the file server died
    /// with its handle); true if there was one (the answer is cut).
    pub fn forget_file(&mut self) -> bool {
        self.file.take().is_some()
    }

    /// Gives the open file back (the connection is closing early).
    pub fn abandon(&mut self, fs: &mut Fs) {
        let _ = self.finish(fs);
    }
}

fn blocked_or_broken(e: NetErr) -> Pumped {
    let gone = [
        NetError::ConnectionReset,
        NetError::BrokenPipe,
        NetError::NotConnected,
    ];
    match e.net() {
        Some(NetError::WouldBlock) => Pumped::Blocked,
        // Every connection goes; `main::recover` says so once.
        _ if crate::restart::note(&e) => Pumped::Broken(Broken::Restarted),
        Some(n) if gone.contains(&n) => Pumped::Broken(Broken::PeerGone),
        _ => Pumped::Broken(Broken::Net(e)),
    }
}
